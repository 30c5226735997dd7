"""Figures of context waste: retrieved chunks over a document, one band per rank; gold
coverage heatmaps; and the configuration-level picture of recall against waste.

Every builder takes tables from :mod:`contextgrid.evidence.waste` (or spans) and returns
a plotly figure; plotly is imported when one runs. Text from users (ids,
questions, chunk excerpts) is HTML-escaped, since plotly renders a subset of
HTML in labels and hover text.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from contextgrid.core.errors import UnknownScoreError
from contextgrid.data.records import Span
from contextgrid.render.document import SPAN_CLASSES
from contextgrid.render.span_bars import span_bars

if TYPE_CHECKING:
    import pandas as pd

    from contextgrid.evidence.waste import Waste

__all__ = [
    "COLOURS",
    "LEGEND",
    "characters_plot",
    "configuration_heatmap",
    "precision_recall_plot",
    "rank_heatmap",
    "span_map",
    "waste_split_plot",
]

COLOURS: dict[str, str] = {"found": "#2e9e5b", "missed": "#d7301f", "waste": "#adb5bd", "repeat": "#6c5ce7"}
"""One colour per :data:`contextgrid.render.document.SPAN_CLASSES` entry, shared by every figure and the
document view."""

LEGEND: dict[str, str] = {
    "found": "gold, retrieved",
    "missed": "gold, missed",
    "waste": "not gold",
    "repeat": "retrieved again",
}
"""Short legend names of the :data:`contextgrid.render.document.SPAN_CLASSES` (the hover text says the rest)."""

_SCALE = "Viridis"
_MARGIN = {"l": 10, "r": 10, "t": 50, "b": 10}


def _escaped(values: Sequence[object]) -> list[str]:
    return [html.escape(str(value)) for value in values]


def span_map(
    doc_id: str,
    length: int,
    *,
    gold: Sequence[Span],
    bands: Mapping[str, Sequence[tuple[int, Span]]],
    margin: int = 300,
    expanded: bool = False,
) -> Any:
    """One document, its gold evidence and every retrieved chunk as bars: one band per rank.

    Parameters
    ----------
    doc_id, length : str, int
        The document drawn and its length in characters.
    gold : sequence of Span
        The question's gold evidence; spans of other documents are ignored.
    bands : mapping of str to sequence of (rank, Span)
        Per configuration, the retrieved chunks' spans with their ranks
        (chunks of other documents are ignored).
    margin, expanded
        As for :func:`contextgrid.render.document.regions`: unless ``expanded``, only
        the regions within ``margin`` characters of a span keep their length;
        the stretches between shrink to a short labelled gap.

    Returns
    -------
    plotly.graph_objects.Figure
        Per configuration a ``gold`` band (evidence found or missed) then one
        band per rank: the chunk's new gold characters (found), its new other
        characters (waste) and those a better-ranked chunk already brought
        (repeat). Hover gives the real offsets.
    """
    import plotly.graph_objects as go

    drawn = span_bars(doc_id, length, gold, bands, margin, expanded, html.escape)
    axis = drawn.axis
    figure = go.Figure()
    for kind in SPAN_CLASSES:
        entries = [(row, span, what) for bar_kind, row, span, what in drawn.bars if bar_kind == kind]
        starts = [axis(span.start) for _, span, _ in entries]
        figure.add_trace(
            go.Bar(
                orientation="h",
                y=[row for row, _, _ in entries],
                base=starts,
                x=[axis(span.end) - start for (_, span, _), start in zip(entries, starts, strict=True)],
                marker={"color": COLOURS[kind], "line": {"width": 0}},
                name=LEGEND[kind],
                customdata=[[span.start, span.end, what] for _, span, what in entries],
                hovertemplate="%{customdata[2]}<br>characters %{customdata[0]:,}–%{customdata[1]:,}<extra></extra>",
            )
        )
    for x, hidden in drawn.gaps:
        # Inside the plot: a hidden stretch holds no span, so its label covers no bar.
        figure.add_annotation(
            x=x, y=0.5, yref="paper", text=f"⋯<br>{hidden:,}<br>⋯", showarrow=False, font={"size": 9, "color": "#888"}
        )
    figure.update_layout(
        barmode="overlay",
        bargap=0.25,
        title=f"{html.escape(doc_id)}<br><sup>what came back, over the document ({length:,} characters)</sup>",
        xaxis={
            "title": drawn.axis_title,
            "tickvals": [axis(t) for t in drawn.ticks],
            "ticktext": [f"{t:,}" for t in drawn.ticks],
            "tickangle": -45,
            "tickfont": {"size": 9},
            "range": [0, float(axis.shown[-1])],
        },
        yaxis={"categoryorder": "array", "categoryarray": drawn.rows[::-1], "type": "category"},
        height=max(280, 26 * len(drawn.rows) + 230),
        # At the foot of the whole figure, below the axis title: never over the title in a narrow column.
        legend={"orientation": "h", "yref": "container", "yanchor": "bottom", "y": 0, "x": 0},
        margin={"l": 10, "r": 10, "t": 60, "b": 110},
    )
    return figure


def waste_split_plot(wastes: Mapping[str, Waste], *, title: str = "Where the retrieved characters went") -> Any:
    """Per configuration, one stacked bar: gold retrieved, not gold, repeated; and the gold missed beside it."""
    import plotly.graph_objects as go

    names = list(wastes)
    labels = _escaped(names)
    parts = (
        ("found", "gold_retrieved", LEGEND["found"]),
        ("waste", "not_gold", LEGEND["waste"]),
        ("repeat", "repeated", LEGEND["repeat"]),
        ("missed", "missed", LEGEND["missed"]),
    )
    figure = go.Figure()
    for kind, attribute, label in parts:
        values = [getattr(wastes[name], attribute) for name in names]
        figure.add_trace(
            go.Bar(
                orientation="h",
                y=labels,
                x=values,
                name=label,
                marker={"color": COLOURS[kind], "pattern": {"shape": "/" if kind == "missed" else ""}},
                hovertemplate=f"%{{y}}<br>{label}: %{{x:,}} characters<extra></extra>",
            )
        )
    figure.update_layout(
        barmode="stack",
        title=html.escape(title),
        xaxis={"title": "characters"},
        yaxis={"autorange": "reversed", "type": "category"},
        height=max(260, 40 * len(names) + 210),
        legend={"orientation": "h", "yref": "container", "yanchor": "bottom", "y": 0, "x": 0, "traceorder": "normal"},
        margin={"l": 10, "r": 10, "t": 50, "b": 110},
    )
    return figure


def _share_heatmap(z: Any, x: list[str], rows: list[object], hover: Any, template: str) -> Any:
    """A heatmap of shares of the gold (0 to 1, one colour scale for every such view), rows named escaped."""
    import plotly.graph_objects as go

    return go.Heatmap(
        z=z,
        x=x,
        y=_escaped(rows),
        customdata=hover,
        colorscale=_SCALE,
        zmin=0.0,
        zmax=1.0,
        colorbar={"title": "share of gold"},
        hovertemplate=template,
    )


def rank_heatmap(retrieved: pd.DataFrame, k: int, *, questions: Sequence[str] | None = None, config: str = "") -> Any:
    """Question × rank: the fraction of each question's gold evidence the chunk at that rank holds.

    ``retrieved`` is :func:`contextgrid.evidence.run_waste.retrieved_table`'s result;
    hover shows the chunk id and an excerpt of its text.
    """
    import plotly.graph_objects as go

    from contextgrid.evidence.run_waste import coverage_by_rank

    matrix = coverage_by_rank(retrieved, k, questions=questions)
    lookup = {(row.question, row.rank): row for row in retrieved.itertuples(index=False)}
    hover = [
        [
            (
                f"{html.escape(str(lookup[(q, r)].chunk_id))}: {html.escape(str(lookup[(q, r)].excerpt))}"
                if (q, r) in lookup
                else "nothing retrieved"
            )
            for r in matrix.columns
        ]
        for q in matrix.index
    ]
    figure = go.Figure(
        _share_heatmap(
            matrix.to_numpy(dtype=float),
            [f"#{rank}" for rank in matrix.columns],
            list(matrix.index),
            hover,
            "%{y} rank %{x}: %{z:.0%} of the gold<br>%{customdata}<extra></extra>",
        )
    )
    suffix = f" ({html.escape(config)})" if config else ""
    figure.update_layout(
        title=f"Share of each question's gold evidence held by the chunk at each rank{suffix}",
        xaxis={"title": "rank", "type": "category"},
        yaxis={"autorange": "reversed", "type": "category", "title": "question"},
        height=max(300, 18 * len(matrix) + 150),
        margin=_MARGIN,
    )
    return figure


def configuration_heatmap(matrix: pd.DataFrame, k: int, *, best_chunk: pd.DataFrame | None = None) -> Any:
    """Configuration × question: the share of each question's gold the top ``k`` held together.

    ``matrix`` is :func:`contextgrid.evidence.run_waste.coverage_by_configuration`'s
    result; ``best_chunk``, the same of ``best_chunk_coverage``, adds to the
    hover how much the best single chunk held.
    """
    import plotly.graph_objects as go

    values = matrix.to_numpy(dtype=float)
    best = (
        best_chunk.reindex_like(matrix).to_numpy(dtype=float)
        if best_chunk is not None
        else np.full_like(values, np.nan)
    )
    hover = [[("–" if np.isnan(b) else f"{b:.0%}") for b in row] for row in best]
    figure = go.Figure(
        _share_heatmap(
            values,
            _escaped(list(matrix.columns)),
            list(matrix.index),
            hover,
            f"%{{y}}<br>%{{x}}: top {k} hold %{{z:.0%}} of the gold"
            "<br>best single chunk: %{customdata}<extra></extra>",
        )
    )
    figure.update_layout(
        title=f"Share of each question's gold evidence in the top {k}, by configuration",
        xaxis={"title": "question", "type": "category"},
        yaxis={"autorange": "reversed", "type": "category"},
        height=max(260, 30 * len(matrix) + 170),
        margin=_MARGIN,
    )
    return figure


def precision_recall_plot(summary: pd.DataFrame, k: int) -> Any:
    """Per configuration, mean character precision (y) against chunk-level ``recall@k`` (x).

    ``summary`` is :func:`contextgrid.workspace.waste.configuration_waste`'s result. A
    point high on recall and low on precision is the configuration whose
    chunks hold the answer and bury it.
    """
    import plotly.graph_objects as go

    label = f"recall@{k}"
    if label not in summary.columns:
        raise UnknownScoreError(f"precision_recall_plot: the summary has no {label!r} column (is it at k={k}?)")
    figure = go.Figure()
    for config, row in summary.iterrows():
        figure.add_trace(
            go.Scatter(
                x=[row[label]],
                y=[row["character_precision"]],
                mode="markers",
                name=html.escape(str(config)),
                marker={"size": 13},
                customdata=[[row["share_gold"], row["retrieved_total"]]],
                hovertemplate=f"{html.escape(str(config))}<br>"
                + html.escape(label)
                + " %{x:.3f}<br>mean character precision %{y:.1%}<br>"
                "gold share of all characters sent %{customdata[0]:.1%}<br>"
                "characters per question %{customdata[1]:,.0f}<extra></extra>",
            )
        )
    figure.update_layout(
        title=f"{html.escape(label)} against character precision"
        "<br><sup>how much of what came back is the answer</sup>",
        xaxis={"title": f"{html.escape(label)} (chunk level)", "range": [-0.03, 1.05]},
        yaxis={"title": "mean character precision", "tickformat": ".0%", "rangemode": "tozero"},
        margin=_MARGIN,
    )
    return figure


def characters_plot(table: pd.DataFrame) -> Any:
    """Characters retrieved per question, one box per configuration, beside the gold's characters.

    ``table`` is :func:`contextgrid.workspace.waste.workspace_waste`'s result.
    """
    import plotly.graph_objects as go

    figure = go.Figure()
    configs = list(dict.fromkeys(table.index.get_level_values("config")))
    for column, name, colour in (
        ("retrieved_total", "characters retrieved (repeats included)", COLOURS["waste"]),
        ("gold_characters", "gold evidence characters", COLOURS["found"]),
    ):
        x = [html.escape(str(config)) for config in table.index.get_level_values("config")]
        figure.add_trace(
            go.Box(
                x=x,
                y=table[column],
                name=name,
                marker={"color": colour},
                boxpoints="all",
                jitter=0.4,
                pointpos=0,
                text=_escaped(list(table.index.get_level_values("question"))),
                hovertemplate="%{x}<br>%{text}: %{y:,} characters<extra></extra>",
            )
        )
    figure.update_layout(
        boxmode="group",
        title="Characters retrieved per question, by configuration",
        xaxis={"type": "category", "categoryorder": "array", "categoryarray": _escaped(configs)},
        yaxis={"title": "characters", "rangemode": "tozero"},
        legend={"orientation": "h", "y": -0.25},
        margin=_MARGIN,
    )
    return figure
