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
from typing import TYPE_CHECKING, Any

from contextgrid.core.checks import check_k
from contextgrid.metrics.base import BUILTIN_METRICS, DEFAULT_KS

if TYPE_CHECKING:
    import pandas as pd

    from contextgrid.workspace.model import Workspace
    from contextgrid.workspace.summary import ConfigurationSummary

__all__ = [
    "DOCUMENTS_DRAWN",
    "DRAWN",
    "WORST",
    "build_report",
]

WORST = 10
"""Questions listed in a report's worst-questions table."""

DRAWN = 3
"""The worst questions a report draws over their documents."""

DOCUMENTS_DRAWN = 3
"""The documents drawn for each of them: those of its gold first, then those its top k came from."""

_STYLE = """<style>
body{font-family:system-ui,sans-serif;max-width:1200px;margin:24px auto;padding:0 16px;color:#222}
table{border-collapse:collapse;margin:8px 0 20px}th,td{border:1px solid #ddd;padding:4px 8px;text-align:right}
th:first-child,td:first-child{text-align:left;white-space:nowrap}td.text{text-align:left;max-width:420px}
.note{color:#666;font-style:italic}h2{margin-top:32px}.lead{font-size:1.15em;line-height:1.45}
</style>"""


def _table(frame: pd.DataFrame, *, digits: int = 3, text: tuple[str, ...] = ()) -> str:
    """``frame`` as an HTML table, every label and value escaped."""
    head = "".join(f"<th>{html.escape(str(column))}</th>" for column in [frame.index.name or "", *frame.columns])
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

    grid = workspace.evaluate(ks=DEFAULT_KS, metrics=BUILTIN_METRICS).to_dataframe()
    rows = {metric: metric_curves(grid, metric).loc[config] for metric in BUILTIN_METRICS}
    frame = pd.DataFrame(rows).T
    frame.columns = pd.Index([f"@{k}" for k in frame.columns])
    frame.index.name = "metric"
    return _table(frame, digits=4)


def _worst_questions(workspace: Workspace, config: str, k: int, waste: pd.DataFrame | None) -> pd.DataFrame:
    from contextgrid.analysis.questions import question_scores

    scores = question_scores(workspace.qrels(config), workspace.run(config), k, metrics=["recall", "mrr"])
    scores = scores[[f"recall@{k}", f"mrr@{k}"]]
    if waste is None:
        return scores.head(WORST)
    part = waste.loc[config][["character_recall", "character_precision", "retrieved_total", "gold_characters"]]
    joined = part.join(scores, how="left")
    texts = {item.id: item.question for item in workspace.questions}
    joined.insert(0, "text", [texts.get(str(question), "") for question in joined.index])
    joined["_id"] = joined.index
    worst = joined.sort_values(["character_recall", "character_precision", "_id"], kind="stable").head(WORST)
    return worst.drop(columns="_id")


def _drawn_question(workspace: Workspace, config: str, k: int, question: str, cause: pd.Series) -> list[str]:
    """A worst question: its text, why it failed, and the documents of its gold and of its top ``k`` drawn with
    both (gold documents first, at most :data:`DOCUMENTS_DRAWN`)."""
    from contextgrid.analysis.causes import explain_cause
    from contextgrid.analysis.questions import first_relevant_chunk
    from contextgrid.render.document import document_html

    items, _ = workspace.resolved
    item = next(entry for entry in items if entry.id == question)
    by_id = {chunk.id: chunk for chunk in workspace.chunks(config)}
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
        f"<h2>A worst question, drawn: {html.escape(question)}</h2>",
        f"<p><b>{html.escape(item.question)}</b></p>",
        f"<p>{html.escape(why)}</p>",
        *(document_html(doc_id, documents[doc_id], gold=gold, chunks=chunks) for doc_id in shown[:DOCUMENTS_DRAWN]),
    ]
    if len(shown) > DOCUMENTS_DRAWN:
        parts.append(f'<p class="note">{len(shown) - DOCUMENTS_DRAWN} more documents of its top {k} not drawn.</p>')
    if absent:
        parts.append(f'<p class="note">Not in the workspace\'s documents: {html.escape(", ".join(absent))}.</p>')
    return parts


def _headline_table(summary: ConfigurationSummary) -> str:
    """The summary's headline numbers, each column in the unit it reads best in."""
    frame = summary.headline.copy()
    shown = {
        "character_recall": ("character recall", "{:.3f}"),
        "share_gold": ("gold share of retrieved text", "{:.1%}"),
        "retrieved_total": ("characters per question", "{:,.0f}"),
    }
    for column in frame.columns[1:]:
        name, pattern = shown.get(str(column), (str(column), "{:.3f}"))
        frame[column] = [pattern.format(value) for value in frame[column]]
        frame = frame.rename(columns={column: name})
    return _table(frame)


def _summary(summary: ConfigurationSummary, params: dict[str, dict[str, object]]) -> list[str]:
    """The report's first screen: the verdict at an equal context budget and its curves, then where the
    configuration stands, its waste, where its questions fail."""
    from contextgrid.analysis.budget import budget_frontier
    from contextgrid.render.budget_figures import budget_plot
    from contextgrid.render.cause_figures import cause_bars

    parts = ['<section class="summary">']
    budget = summary.budget()
    if budget is not None and summary.budget_means is not None:
        means = summary.budget_means
        parts += [
            f'<p class="lead">{html.escape(budget)}</p>',
            _figure(budget_plot(means, budget_frontier(means), params), "budget"),
        ]
    parts += [
        f'<p class="lead">{html.escape(summary.verdict())}</p>',
        _headline_table(summary),
    ]
    parts += [f"<p>{html.escape(sentence)}</p>" for sentence in (summary.waste(), summary.failures()) if sentence]
    if summary.causes is not None:
        counts = summary.causes.copy()
        counts.index = [f"{name} ({role})" for name, role in zip(counts.index, summary.headline["role"], strict=True)]
        parts.append(_figure(cause_bars(counts, summary.k), "causes"))
    parts.append("</section>")
    return parts


def _figure(figure: Any, name: str) -> str:
    """``figure`` as a div of the report; plotly.js is in the page's head, once."""
    # Fixed ids: the same workspace writes the same report.
    return str(figure.to_html(include_plotlyjs=False, full_html=False, div_id=f"figure-{name}"))


def build_report(
    workspace: Workspace, config: str, *, k: int = 5, metric: str = "recall", baseline: str | None = None
) -> str:
    """One self-contained HTML file about configuration ``config`` of ``workspace``.

    It opens with a one-screen summary (:func:`~contextgrid.workspace.summary.configuration_summary`): when the
    workspace has documents, questions and chunks, which configuration holds the most evidence at an equal context
    budget, with every configuration's curve; then ``config`` against the best configuration on ``metric@k`` and
    against ``baseline`` (by default the workspace's first), each gap with its paired test, the headline numbers,
    and, when the workspace has documents, questions and chunks, one sentence on waste and one on where the
    questions fail, with their causes drawn. Then the waste views at ``k`` (precision against recall@k beside the
    other configurations, characters per question, gold share per rank), the metric@k grid, the worst questions, and
    the :data:`DRAWN` worst drawn over their documents. Without the evidence, the grid and the worst questions by
    chunk-level scores, and a note saying what is missing. plotly.js is included once.

    Examples
    --------
    >>> from contextgrid.workspace.sample import SAMPLE
    >>> from contextgrid.workspace.manifest import load_workspace
    >>> workspace = load_workspace(SAMPLE)
    >>> page = build_report(workspace, workspace.names[0], k=5)
    >>> page.startswith("<!DOCTYPE html>") and f"Configuration {workspace.names[0]}" in page
    True
    """
    from plotly.offline import get_plotlyjs

    from contextgrid.evidence.run_waste import retrieved_table
    from contextgrid.render.waste_figures import (
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

    cutoff = check_k(k, function="build_report")
    summary = configuration_summary(workspace, config, k=cutoff, metric=metric, baseline=baseline)
    settings = workspace.config(config)
    name = html.escape(config)
    missing = workspace.missing_evidence()
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>contextgrid report: {name}</title>",
        _STYLE,
        *([] if missing else [f'<script type="text/javascript">{get_plotlyjs()}</script>']),
        "</head><body>",
        f"<h1>Configuration {name}</h1>",
        f"<p>Workspace {html.escape(workspace.name)}, {len(workspace.names)} configurations; cut-off k = {cutoff}.</p>",
    ]
    if settings.params:
        parts.append(
            "<p>"
            + ", ".join(f"{html.escape(key)} = {html.escape(str(value))}" for key, value in settings.params.items())
            + "</p>"
        )
    parts += _summary(summary, workspace.params_by_config())
    waste = None
    if missing:
        parts.append(
            f'<p class="note">No context-waste views: the workspace has no {html.escape(", no ".join(missing))}. '
            "They need documents, questions and chunks in the workspace.</p>"
        )
    else:
        waste = workspace_waste(workspace, cutoff)
        overview = configuration_waste(workspace, cutoff, table=waste)
        items, _ = workspace.resolved
        retrieved = retrieved_table(items, workspace.run(config), workspace.chunks(config), cutoff)
        parts.append("<h2>Context waste</h2>")
        figures = {
            "precision-recall": precision_recall_plot(overview, cutoff, workspace.params_by_config()),
            "characters": characters_plot(waste),
            "ranks": rank_heatmap(retrieved, cutoff, questions=list(waste.loc[config].index), config=config),
        }
        parts += [_figure(figure, key) for key, figure in figures.items()]
    parts += ["<h2>metric@k</h2>", _grid_table(workspace, config)]
    worst = _worst_questions(workspace, config, cutoff, waste)
    parts += ["<h2>Worst questions</h2>", _table(worst, text=("text",))]
    if waste is not None:
        causes = failure_causes(workspace, k=cutoff, configs=[config]).set_index("question")
        for question in map(str, worst.index[:DRAWN]):
            parts += _drawn_question(workspace, config, cutoff, question, causes.loc[[question]].iloc[0])
    parts.append("</body></html>")
    return "\n".join(parts)
