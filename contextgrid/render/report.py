"""Exports for people who will not open the dashboard: any figure as a self-contained HTML
file or a PNG, and a one-file HTML report of one configuration.

PNG export goes through kaleido, which drives a Chromium (Debian's
``chromium`` package: ``apt-get install chromium``). The report and the HTML
exports carry plotly.js inline, so they open offline; every piece of user
text in them (names, parameters, questions, documents) is HTML-escaped.
``contextgrid report WORKSPACE --config NAME -o report.html`` writes the
report from the command line (:func:`configure_report`, :func:`run_report`).
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from contextgrid.core.checks import check_k
from contextgrid.core.errors import parameter_error
from contextgrid.metrics.base import BUILTIN_METRICS, DEFAULT_K, DEFAULT_KS

if TYPE_CHECKING:
    import pandas as pd

    from contextgrid.data.records import Chunk
    from contextgrid.workspace.model import Workspace
    from contextgrid.workspace.summary import ConfigurationSummary

__all__ = [
    "CAUSE_WORDS",
    "DOCUMENTS_DRAWN",
    "DRAWN",
    "FIGURES",
    "WORST",
    "build_report",
    "plotly_js",
]

WORST = 10
"""Questions listed in a report's table of failing questions."""

DRAWN = 3
"""The failing questions a report draws over their documents (in a folded section)."""

DOCUMENTS_DRAWN = 3
"""The documents drawn for each of them: those of its gold first, then those its top k came from."""

FIGURES = ("budget", "precision-recall", "characters", "ranks")
"""The figures of a report a caller may hand :func:`build_report` already built (its ``figures``)."""

CAUSE_WORDS: dict[str, str] = {
    "hit": "found",
    "partial": "only a sliver of the evidence found",
    "split": "evidence split over chunks too small for it",
    "ranked_low": "evidence ranked too low",
    "not_retrieved": "evidence not retrieved",
    "unresolved": "evidence quote not found in the documents",
    "no_gold": "no evidence to find",
}
"""Each cause of :data:`~contextgrid.analysis.causes.CAUSES` in a few plain words: the report's cause column."""

# The failures a reader learns most from first: the retrieval failures, then the questions that are no retrieval
# failure (bad or no gold). A question that found its gold is not listed.
_FAILURE_ORDER = ("not_retrieved", "ranked_low", "split", "partial", "unresolved", "no_gold")

_STYLE = """<style>
body{font-family:system-ui,sans-serif;max-width:1200px;margin:24px auto;padding:0 16px;color:#222}
table{border-collapse:collapse;margin:8px 0 20px}th,td{border:1px solid #ddd;padding:4px 8px;text-align:right}
th{background:#f6f6f6;vertical-align:bottom}th:first-child,td:first-child{text-align:left;white-space:nowrap}
td.text,th.text{text-align:left;max-width:420px}
.note{color:#666;font-style:italic}h2{margin-top:32px}.lead{font-size:1.15em;line-height:1.45}
details{margin:14px 0;border-top:1px solid #ddd;padding-top:8px}summary{font-size:1.2em;font-weight:bold;cursor:pointer}
dl.legend{display:grid;grid-template-columns:max-content auto;gap:6px 12px;margin:8px 0 16px}dl.legend dd{margin:0}
</style>"""

_HEADERS = {
    "question": "question",
    "text": "asked",
    "cause": "why it fails",
    "character_recall": "share of its evidence retrieved",
    "retrieved_total": "characters sent to the model",
    "gold_characters": "characters of evidence",
}
"""The failing-questions table's columns, as a reader who is not an engineer reads them (recall@k is named as
the grid names it)."""


def _plural(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``, made plural unless ``count`` is 1: "1 more document", "2 more documents"."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def _table(frame: pd.DataFrame, *, digits: int = 3, text: tuple[str, ...] = ()) -> str:
    """``frame`` as an HTML table, every label and value escaped."""
    aligned = ' class="text"'
    head = "".join(
        f"<th{aligned if column in text else ''}>{html.escape(str(column))}</th>"
        for column in [frame.index.name or "", *frame.columns]
    )
    rows = []
    for label, row in frame.iterrows():
        cells = [f"<td>{html.escape(str(label))}</td>"]
        for column, value in row.items():
            shown = f"{value:.{digits}f}" if isinstance(value, float) else str(value)
            css = ' class="text"' if column in text else ""
            cells.append(f"<td{css}>{html.escape(shown)}</td>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def _grid_table(workspace: Workspace, config: str) -> str:
    import pandas as pd

    from contextgrid.analysis.grid import metric_curves
    from contextgrid.engine.scoring import evaluate

    # The configuration's own row only: its scores are the same whichever others are scored beside it.
    scores = evaluate(workspace.qrels(config), workspace.run(config), ks=DEFAULT_KS, metrics=BUILTIN_METRICS)
    grid = pd.DataFrame([scores], index=pd.Index([config]))
    rows = {metric: metric_curves(grid, metric).loc[config] for metric in BUILTIN_METRICS}
    frame = pd.DataFrame(rows).T
    frame.columns = pd.Index([f"@{k}" for k in frame.columns])
    frame.index.name = "metric"
    return _table(frame, digits=4)


def _interleaved(causes: pd.Series, order: pd.Index) -> list[str]:
    """Up to :data:`WORST` failing questions, taking in turn the next of each cause of :data:`_FAILURE_ORDER`
    (each cause's questions in ``order``): ten rows of one kind of failure tell less than one of each."""
    import pandas as pd

    frame = pd.DataFrame({"cause": causes.reindex(order).to_numpy()}, index=order)
    frame = frame[frame["cause"].isin(_FAILURE_ORDER)]
    # Each question's turn within its cause, then the causes in their order within a turn.
    frame["turn"] = frame.groupby("cause", sort=False).cumcount()
    frame["place"] = frame["cause"].map({cause: place for place, cause in enumerate(_FAILURE_ORDER)})
    return [str(question) for question in frame.sort_values(["turn", "place"], kind="stable").index[:WORST]]


def _worst_questions(
    workspace: Workspace, config: str, k: int, waste: pd.DataFrame | None, causes: pd.DataFrame | None
) -> pd.DataFrame:
    """The failing questions the report lists: failures of different causes in turn, the least evidence
    retrieved first within a cause; without the evidence, the lowest recall@k."""
    from contextgrid.analysis.questions import question_scores

    scores = question_scores(workspace.qrels(config), workspace.run(config), k, metrics=["recall"])
    scores = scores[[f"recall@{k}"]]
    if waste is None or causes is None:
        worst = scores.sort_values(f"recall@{k}", kind="stable").head(WORST)
        worst.index.name = "question"
        return worst
    part = waste.loc[config][["character_recall", "retrieved_total", "gold_characters"]]
    joined = part.join(scores, how="left")
    texts = {item.id: item.question for item in workspace.questions}
    cause = causes["cause"].astype(str)
    ordered = joined.assign(_id=joined.index).sort_values(["character_recall", "_id"], kind="stable").index
    chosen = _interleaved(cause, ordered)
    worst = joined.reindex(chosen)
    worst.insert(0, "cause", [CAUSE_WORDS.get(cause.get(q, ""), str(cause.get(q, ""))) for q in chosen])
    worst.insert(0, "text", [texts.get(str(question), "") for question in chosen])
    worst["retrieved_total"] = [f"{value:,.0f}" for value in worst["retrieved_total"]]
    worst["gold_characters"] = [f"{value:,.0f}" for value in worst["gold_characters"]]
    worst["character_recall"] = [f"{value:.0%}" for value in worst["character_recall"]]
    worst.index.name = "question"
    return worst.rename(columns=_HEADERS)


def _legend() -> str:
    """What every colour and mark of the drawn documents means, drawn with the documents' own styles."""
    from contextgrid.render.document import SPAN_CLASSES, document_style

    samples = "".join(
        f'<dt><span class="{name}">&nbsp;sample text&nbsp;</span></dt><dd>{html.escape(meaning)}</dd>'
        for name, meaning in SPAN_CLASSES.items()
    )
    edges = (
        '<dt><span class="edge" data-edge="[2"></span>text of the chunk<span class="edge" data-edge="2]"></span></dt>'
        "<dd>where the chunk ranked 2nd starts and ends; hovering marked text names the ranks holding it</dd>"
    )
    gap = '<dt><span class="gap">… 1,200 characters not shown …</span></dt><dd>text far from any of it, left out</dd>'
    return f'{document_style()}<div class="cg-doc"><dl class="legend">{samples}{edges}{gap}</dl></div>'


def _drawn_question(
    workspace: Workspace, config: str, k: int, question: str, cause: pd.Series, by_id: Mapping[str, Chunk]
) -> list[str]:
    """A failing question: its text, why it failed, and the documents of its gold and of its top ``k`` drawn
    with both (gold documents first, at most :data:`DOCUMENTS_DRAWN`); ``by_id`` is ``config``'s chunks by id."""
    from contextgrid.analysis.causes import explain_cause
    from contextgrid.analysis.questions import first_relevant_chunk
    from contextgrid.render.document import document_html

    items, _ = workspace.resolved
    item = next(entry for entry in items if entry.id == question)
    ranked = workspace.run(config).get(question, ())
    chunks = [(rank, by_id[chunk].span) for rank, chunk in enumerate(ranked[:k], 1)]
    gold = [entry.span for entry in item.gold if entry.grade > 0]
    judged = workspace.qrels(config).get(question, {})
    why = explain_cause(cause, k=k, gold_chunk=first_relevant_chunk(judged, ranked))
    documents = workspace.documents
    named = list(dict.fromkeys(span.doc_id for span in [*gold, *(span for _, span in chunks)]))
    shown = [doc_id for doc_id in named if doc_id in documents]
    absent = [doc_id for doc_id in named if doc_id not in documents]
    parts = [
        f"<h3>{html.escape(question)}: {html.escape(item.question)}</h3>",
        f"<p>{html.escape(why)}</p>",
        *(document_html(doc_id, documents[doc_id], gold=gold, chunks=chunks) for doc_id in shown[:DOCUMENTS_DRAWN]),
    ]
    if len(shown) > DOCUMENTS_DRAWN:
        more = _plural(len(shown) - DOCUMENTS_DRAWN, "more document")
        parts.append(f'<p class="note">{more} of its top {k} not drawn.</p>')
    if absent:
        parts.append(f'<p class="note">Not in the workspace\'s documents: {html.escape(", ".join(absent))}.</p>')
    return parts


def _headline_table(summary: ConfigurationSummary) -> str:
    """The summary's headline numbers, each column in the unit it reads best in."""
    frame = summary.headline.copy()
    if "share_gold" in frame.columns:
        # Beside the share, the same said as a ratio: characters the model reads per character of evidence.
        share = frame["share_gold"].to_numpy(dtype=float)
        frame.insert(
            list(frame.columns).index("share_gold") + 1,
            "reads",
            [f"{1 / value:,.1f}" if value > 0 else "no evidence" for value in share],
        )
    shown = {
        "character_recall": ("share of the evidence retrieved", "{:.1%}"),
        "share_gold": ("evidence's share of what is sent", "{:.1%}"),
        "reads": ("characters read per character of evidence", "{}"),
        "retrieved_total": ("characters sent per question", "{:,.0f}"),
    }
    for column in frame.columns[1:]:
        name, pattern = shown.get(str(column), (str(column), "{:.3f}"))
        frame[column] = [pattern.format(value) for value in frame[column]]
        frame = frame.rename(columns={column: name})
    frame.index.name = "configuration"
    return _table(frame)


def _summary(summary: ConfigurationSummary, params: dict[str, dict[str, object]], budget_figure: Any) -> list[str]:
    """The report's first screen: the verdict at an equal context budget and its curves (``budget_figure``, when
    the caller holds it), then where the configuration stands, its waste, where its questions fail."""
    from contextgrid.analysis.budget import budget_frontier
    from contextgrid.render.budget_figures import budget_plot
    from contextgrid.render.cause_figures import cause_bars

    parts = ['<section class="summary">']
    budget = summary.budget()
    if budget is not None and summary.budget_means is not None:
        means = summary.budget_means
        drawn = budget_plot(means, budget_frontier(means), params) if budget_figure is None else budget_figure
        parts += [f'<p class="lead">{html.escape(budget)}</p>', _figure(drawn, "budget")]
    parts += [
        f'<p class="lead">{html.escape(summary.verdict())}</p>',
        _headline_table(summary),
    ]
    parts += [f"<p>{html.escape(sentence)}</p>" for sentence in (summary.waste(), summary.failures()) if sentence]
    if summary.causes is not None:
        counts = summary.causes.copy()
        counts.index = [f"{name} ({role})" for name, role in zip(counts.index, summary.headline["role"], strict=True)]
        parts += [_figure(cause_bars(counts, summary.k), "causes"), _cause_legend()]
    parts.append("</section>")
    return parts


def _cause_legend() -> str:
    """What each cause the bars name means, beside its colour."""
    from contextgrid.render.cause_figures import BAR_ORDER, CAUSE_COLOURS

    entries = "".join(
        f'<dt><span style="background:{CAUSE_COLOURS[cause]};padding:0 8px">&nbsp;</span> {html.escape(cause)}</dt>'
        f"<dd>{html.escape(CAUSE_WORDS[cause])}</dd>"
        for cause in BAR_ORDER
    )
    return f'<dl class="legend causes">{entries}</dl>'


def _figure(figure: Any, name: str) -> str:
    """``figure`` as a div of the report; plotly.js is in the page's head, once."""
    # Fixed ids: the same workspace writes the same report.
    return str(figure.to_html(include_plotlyjs=False, full_html=False, div_id=f"figure-{name}"))


def build_report(
    workspace: Workspace,
    config: str,
    *,
    k: int = DEFAULT_K,
    metric: str = "recall",
    baseline: str | None = None,
    summary: ConfigurationSummary | None = None,
    waste: pd.DataFrame | None = None,
    causes: pd.DataFrame | None = None,
    figures: Mapping[str, Any] | None = None,
) -> str:
    """One self-contained HTML file about configuration ``config`` of ``workspace``.

    It opens with a one-screen summary (:func:`~contextgrid.workspace.summary.configuration_summary`): when the
    workspace has documents, questions and chunks, which configuration holds the most evidence at an equal context
    budget, with every configuration's curve; then ``config`` against the best configuration on ``metric@k`` and
    against ``baseline`` (by default the workspace's first), each gap with its paired test, the headline numbers,
    and, when the workspace has documents, questions and chunks, one sentence on waste and one on where the
    questions fail, with their causes drawn. Then up to :data:`WORST` failing questions, one of each cause in turn,
    with why each fails (:data:`CAUSE_WORDS`); and, folded (``<details>``), the waste views at ``k`` (precision
    against recall@k beside the other configurations, characters per question, gold share per rank), the metric@k
    grid, and the first :data:`DRAWN` failing questions drawn over their documents, under a legend of every mark.
    Without the evidence, the grid and the questions of lowest recall@k, and a note saying what is missing.
    plotly.js (:func:`plotly_js`) is included once. ``k`` defaults to :data:`~contextgrid.metrics.base.DEFAULT_K`.

    ``summary`` (:func:`~contextgrid.workspace.summary.configuration_summary`'s, of ``config`` at ``k`` on
    ``metric`` against ``baseline``) and ``waste`` (:func:`~contextgrid.workspace.waste.workspace_waste`'s table
    at ``k``) are what a caller already holds, measured again when not given; a summary of another
    configuration, cut-off, metric or baseline is refused. ``causes``
    (:func:`~contextgrid.workspace.causes.failure_causes`' rows of ``config`` at ``k``, with every configuration
    as ``others``) and ``figures`` (the figures the report draws that a caller has already built, by name, a
    subset of :data:`FIGURES`) are held alike, built when not given: ``"budget"`` (``budget_plot`` of the
    summary's budget means, their frontier and the workspace's parameters), ``"precision-recall"``
    (``precision_recall_plot`` of ``configuration_waste``'s table of ``waste``), ``"characters"``
    (``characters_plot`` of ``character_boxes(waste)``, with the points when there are at most ``POINTS_DRAWN``
    rows) and ``"ranks"`` (``rank_heatmap`` of ``config``'s ``retrieved_table`` at ``k``, over the resolved
    questions). Each is drawn as given: the same file as when the report builds it. Causes of another
    configuration are refused.

    Examples
    --------
    >>> from contextgrid.workspace.sample import SAMPLE
    >>> from contextgrid.workspace.manifest import load_workspace
    >>> workspace = load_workspace(SAMPLE)
    >>> page = build_report(workspace, workspace.names[0], k=5)
    >>> page.startswith("<!DOCTYPE html>") and f"Configuration {workspace.names[0]}" in page
    True
    """
    from contextgrid.evidence.run_waste import character_boxes, retrieved_table
    from contextgrid.render.waste_figures import (
        POINTS_DRAWN,
        characters_plot,
        precision_recall_plot,
        rank_heatmap,
    )
    from contextgrid.workspace.causes import failure_causes
    from contextgrid.workspace.summary import configuration_summary
    from contextgrid.workspace.waste import (
        configuration_waste,
        workspace_waste,
    )

    function = "build_report"
    cutoff = check_k(k, function=function)
    if summary is None:
        summary = configuration_summary(workspace, config, k=cutoff, metric=metric, baseline=baseline, waste=waste)
    elif (summary.config, summary.k, summary.metric, summary.baseline) != (
        config,
        cutoff,
        metric,
        workspace.names[0] if baseline is None else baseline,
    ):
        raise parameter_error(
            function,
            "summary",
            f"the summary of {config!r} at k = {cutoff} on {metric!r} against the baseline",
            summary,
        )
    kept = dict(figures or {})
    unknown = [key for key in kept if key not in FIGURES]
    if unknown:
        raise parameter_error(function, "figures", f"figures named among {list(FIGURES)}", unknown[0])
    settings = workspace.config(config)
    name = html.escape(config)
    missing = workspace.missing_evidence()
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>contextgrid report: {name}</title>",
        _STYLE,
        *([] if missing else [f'<script type="text/javascript">{plotly_js()}</script>']),
        "</head><body>",
        f"<h1>Configuration {name}</h1>",
        f"<p>Workspace {html.escape(workspace.name)}, {_plural(len(workspace.names), 'configuration')}; each "
        f"question is judged on the first k = {cutoff} chunks retrieved for it (its top {cutoff}).</p>",
    ]
    if settings.params:
        parts.append(
            "<p>"
            + ", ".join(f"{html.escape(key)} = {html.escape(str(value))}" for key, value in settings.params.items())
            + "</p>"
        )
    parts += _summary(summary, workspace.params_by_config(), kept.get("budget"))
    if missing:
        waste = causes = None
        parts.append(
            f'<p class="note">No context-waste views: the workspace has no {html.escape(", no ".join(missing))}. '
            "They need documents, questions and chunks in the workspace.</p>"
        )
    else:
        if waste is None:
            waste = workspace_waste(workspace, cutoff)
        if causes is None:
            # Its rows, with every other configuration's hits: "no other configuration gets it right" must be true.
            causes = failure_causes(workspace, k=cutoff, configs=[config], others=workspace.names)
        elif not causes["config"].eq(config).all():
            raise parameter_error(
                function, "causes", f"failure_causes' rows of {config!r}", causes["config"].unique().tolist()
            )
        causes = causes.set_index("question")
    worst = _worst_questions(workspace, config, cutoff, waste, causes)
    if causes is not None:
        parts += [
            "<h2>Questions that fail, one of each cause in turn</h2>",
            f"<p>Questions whose top {cutoff} misses some of their evidence, the least found first within a cause. "
            "“Share of its evidence retrieved” counts the characters of the evidence the top "
            f"{cutoff} hold; recall@{cutoff} counts the relevant chunks among them.</p>",
        ]
    else:
        parts.append(f"<h2>Questions with the lowest recall@{cutoff}</h2>")
    parts.append(_table(worst, text=("asked", "why it fails")) if len(worst) else "<p>No question fails.</p>")
    if waste is not None:
        table = waste

        def ranks() -> Any:
            # The workspace's merged gold and its layout of the chunking, which the waste table was measured on.
            retrieved = retrieved_table(workspace.gold, workspace.run(config), workspace.chunking_gold(config), cutoff)
            return rank_heatmap(retrieved, cutoff, questions=list(table.loc[config].index), config=config)

        build = {
            "precision-recall": lambda: precision_recall_plot(
                configuration_waste(workspace, cutoff, table=table), cutoff, workspace.params_by_config()
            ),
            "characters": lambda: characters_plot(
                character_boxes(table), points=table if len(table) <= POINTS_DRAWN else None
            ),
            "ranks": ranks,
        }
        parts += [
            "<details><summary>Context waste: every configuration's evidence against what it sends</summary>",
            *(_figure(kept[key] if key in kept else made(), key) for key, made in build.items()),
            "</details>",
        ]
    parts += [
        f"<details><summary>Scores of {name} at every cut-off</summary>",
        "<p>Each chunk-level metric at k = 1, 3, 5, 10 and 20: how the scores grow as more chunks are read.</p>",
        _grid_table(workspace, config),
        "</details>",
    ]
    if causes is not None:
        drawn = [str(question) for question in worst.index[:DRAWN]]
        parts += [
            f"<details><summary>{_plural(len(drawn), 'failing question')}, drawn over their documents</summary>",
            "<p>How to read the documents:</p>",
            _legend(),
        ]
        by_id = {chunk.id: chunk for chunk in workspace.chunks(config)}  # once, for every question drawn
        for question in drawn:
            parts += _drawn_question(workspace, config, cutoff, question, causes.loc[[question]].iloc[0], by_id)
        parts.append("</details>")
    parts.append("</body></html>")
    return "\n".join(parts)


def plotly_js() -> str:
    """The plotly.js a report carries: the cartesian bundle (bar, box, heatmap, scatter: every trace the report
    draws) of the version the plotly package ships, a third of the full bundle's size, read from the package."""
    from importlib.resources import files

    return (files("contextgrid.render") / "assets" / "plotly-cartesian.min.js").read_text(encoding="utf-8")
