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
from typing import TYPE_CHECKING

from contextgrid.core.checks import check_k
from contextgrid.metrics.base import BUILTIN_METRICS, DEFAULT_KS

if TYPE_CHECKING:
    import pandas as pd

    from contextgrid.workspace.model import Workspace

__all__ = [
    "build_report",
]

WORST = 10
"""Questions listed in a report's worst-questions table."""

_STYLE = """<style>
body{font-family:system-ui,sans-serif;max-width:1200px;margin:24px auto;padding:0 16px;color:#222}
table{border-collapse:collapse;margin:8px 0 20px}th,td{border:1px solid #ddd;padding:4px 8px;text-align:right}
th:first-child,td:first-child{text-align:left}td.text{text-align:left;max-width:420px}
.note{color:#666;font-style:italic}h2{margin-top:32px}
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


def _worst_document(workspace: Workspace, config: str, k: int, question: str) -> str:
    """The worst question's gold documents drawn with what came back."""
    from contextgrid.render.document import document_html

    items, _ = workspace.resolved
    item = next(entry for entry in items if entry.id == question)
    by_id = {chunk.id: chunk for chunk in workspace.chunks(config)}
    chunks = [(rank, by_id[chunk].span) for rank, chunk in enumerate(workspace.run(config).get(question, ())[:k], 1)]
    gold = [entry.span for entry in item.gold if entry.grade > 0]
    documents = workspace.documents
    drawn = [
        document_html(doc_id, documents[doc_id], gold=gold, chunks=chunks)
        for doc_id in dict.fromkeys(span.doc_id for span in gold)
        if doc_id in documents
    ]
    return "".join(drawn)


def build_report(workspace: Workspace, config: str, *, k: int = 5) -> str:
    """One self-contained HTML file about configuration ``config`` of ``workspace``.

    It holds the configuration's parameters and metric@k grid, and, when the
    workspace has documents, questions and chunks, the waste views at ``k``
    (gold share per rank, characters per question, precision against
    recall@k beside the other configurations) and its worst questions, the
    worst drawn over its document. Without them, the grid and the worst
    questions by chunk-level scores, and a note saying what is missing.

    Examples
    --------
    >>> from contextgrid.workspace.sample import SAMPLE
    >>> from contextgrid.workspace.manifest import load_workspace
    >>> workspace = load_workspace(SAMPLE)
    >>> page = build_report(workspace, workspace.names[0], k=5)
    >>> page.startswith("<!DOCTYPE html>") and f"Configuration {workspace.names[0]}" in page
    True
    """
    from contextgrid.evidence.run_waste import retrieved_table
    from contextgrid.render.waste_figures import (
        characters_plot,
        precision_recall_plot,
        rank_heatmap,
    )
    from contextgrid.workspace.waste import (
        configuration_waste,
        workspace_waste,
    )

    cutoff = check_k(k, function="build_report")
    settings = workspace.config(config)
    name = html.escape(config)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>contextgrid report: {name}</title>",
        _STYLE,
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
    parts += ["<h2>metric@k</h2>", _grid_table(workspace, config)]
    missing = workspace.missing_evidence()
    waste = None
    if missing:
        parts.append(
            f'<p class="note">No context-waste views: the workspace has no {html.escape(", no ".join(missing))}. '
            "They need documents, questions and chunks in the workspace.</p>"
        )
    else:
        waste = workspace_waste(workspace, cutoff)
        summary = configuration_waste(workspace, cutoff, table=waste)
        items, _ = workspace.resolved
        retrieved = retrieved_table(items, workspace.run(config), workspace.chunks(config), cutoff)
        row = summary.loc[config]
        parts += [
            "<h2>Context waste</h2>",
            f"<p>recall@{cutoff} = {row[f'recall@{cutoff}']:.3f}; of the characters retrieved, "
            f"{row['share_gold']:.1%} were gold evidence (mean character precision "
            f"{row['character_precision']:.3f}, mean character recall {row['character_recall']:.3f}). "
            f"Per question: {row['retrieved_total']:,.0f} characters retrieved on average, "
            f"{row['gold_characters']:,.0f} of gold evidence.</p>",
        ]
        figures = [
            precision_recall_plot(summary, cutoff),
            characters_plot(waste),
            rank_heatmap(retrieved, cutoff, questions=list(waste.loc[config].index), config=config),
        ]
        for position, figure in enumerate(figures):
            # Fixed ids: the same workspace writes the same report.
            parts.append(figure.to_html(include_plotlyjs=position == 0, full_html=False, div_id=f"figure-{position}"))
    worst = _worst_questions(workspace, config, cutoff, waste)
    parts += ["<h2>Worst questions</h2>", _table(worst, text=("text",))]
    if waste is not None and len(worst):
        first = str(worst.index[0])
        parts += [
            f"<h2>The worst question, drawn: {html.escape(first)}</h2>",
            _worst_document(workspace, config, cutoff, first),
        ]
    parts.append("</body></html>")
    return "\n".join(parts)
