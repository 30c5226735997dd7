"""Figures of context waste: retrieved chunks over a document, one band per rank; gold
coverage heatmaps; and the configuration-level picture of recall against waste.

Every builder takes tables from :mod:`contextgrid.waste` (or spans) and returns
a plotly figure; plotly is imported when one runs. Text from users (ids,
questions, chunk excerpts) is HTML-escaped, since plotly renders a subset of
HTML in labels and hover text.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..drawing import CLASSES, regions
from ..errors import ContextGridError
from ..records import Span
from ..spans import intersection, union

if TYPE_CHECKING:
    import pandas as pd

    from ..waste import Waste

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
"""One colour per :data:`contextgrid.drawing.CLASSES` entry, shared by every figure and the document view."""

LEGEND: dict[str, str] = {
    "found": "gold, retrieved",
    "missed": "gold, missed",
    "waste": "not gold",
    "repeat": "retrieved again",
}
"""Short legend names of the :data:`contextgrid.drawing.CLASSES` (the hover text says the rest)."""

_SCALE = "Viridis"
_MARGIN = {"l": 10, "r": 10, "t": 50, "b": 10}


def _escaped(values: Sequence[object]) -> list[str]:
    return [html.escape(str(value)) for value in values]


def _minus(span: Span, others: Sequence[Span]) -> list[Span]:
    """The parts of ``span`` no span of ``others`` covers."""
    parts, cursor = [], span.start
    for other in intersection([span], others):
        if other.start > cursor:
            parts.append(Span(span.doc_id, cursor, other.start))
        cursor = other.end
    if cursor < span.end:
        parts.append(Span(span.doc_id, cursor, span.end))
    return parts


@dataclass(frozen=True, slots=True)
class _Axis:
    """Document offsets to x positions: shown regions keep their length, hidden gaps shrink to ``gap``."""

    real: np.ndarray[Any, np.dtype[np.float64]]
    shown: np.ndarray[Any, np.dtype[np.float64]]

    def __call__(self, offset: int) -> float:
        return float(np.interp(offset, self.real, self.shown))


def _axis(length: int, spans: Sequence[Span], margin: int, expanded: bool) -> tuple[_Axis, list[tuple[float, int]]]:
    """The x mapping, and (x, characters) for each hidden gap, to label."""
    layout = regions(length, spans, margin=margin) if not expanded else ()
    if not layout or all(region.shown for region in layout):
        return _Axis(np.array([0.0, max(length, 1)]), np.array([0.0, max(length, 1)])), []
    gap = max(1.0, 0.03 * sum(region.end - region.start for region in layout if region.shown))
    real, shown, gaps = [0.0], [0.0], []
    for region in layout:
        width = float(region.end - region.start) if region.shown else gap
        if not region.shown:
            gaps.append((shown[-1] + width / 2, region.end - region.start))
        real.append(float(region.end))
        shown.append(shown[-1] + width)
    return _Axis(np.array(real), np.array(shown)), gaps


@dataclass(frozen=True, slots=True)
class _SpanBars:
    """What :func:`span_map` draws, apart from how: the bars (class, row, span, hover text) in drawing order,
    the rows top to bottom, the x mapping and the hidden gaps (x, characters)."""

    bars: list[tuple[str, str, Span, str]]
    rows: list[str]
    axis: _Axis
    gaps: list[tuple[float, int]]

    @property
    def axis_title(self) -> str:
        return "character offset" + (" (stretches far from any span shrunk)" if self.gaps else "")

    @property
    def ticks(self) -> list[int]:
        """The document offsets labelled on the x axis: the ends of every region."""
        return sorted({int(value) for value in self.axis.real})


def _span_bars(
    doc_id: str,
    length: int,
    gold: Sequence[Span],
    bands: Mapping[str, Sequence[tuple[int, Span]]],
    margin: int,
    expanded: bool,
    label: Callable[[str], str],
) -> _SpanBars:
    """The bars of :func:`span_map`; ``label`` turns a configuration name into its row label."""
    if not isinstance(length, int) or length < 0:
        raise ContextGridError(f"span_map: length must be a whole number, 0 or more, got {length!r}")
    gold = union(span for span in gold if span.doc_id == doc_id)
    chosen = {name: sorted((r, s) for r, s in chunks if s.doc_id == doc_id) for name, chunks in bands.items()}
    everything = [*gold, *(span for chunks in chosen.values() for _, span in chunks)]
    axis, gaps = _axis(length, everything, margin, expanded)
    bars: dict[str, list[tuple[str, str, Span, str]]] = {name: [] for name in CLASSES}
    rows: list[str] = []
    for name, chunks in chosen.items():
        shown = label(name)
        gold_row = f"{shown} · gold" if len(chosen) > 1 else "gold"
        rows.append(gold_row)
        retrieved = [span for _, span in chunks]
        for span in intersection(gold, retrieved):
            bars["found"].append(("found", gold_row, span, "gold evidence, retrieved"))
        for span in gold:
            for part in _minus(span, retrieved):
                bars["missed"].append(("missed", gold_row, part, "gold evidence, never retrieved"))
        earlier: list[Span] = []
        for rank, span in chunks:
            row = f"{shown} · #{rank}" if len(chosen) > 1 else f"#{rank}"
            rows.append(row)
            for part in intersection([span], earlier):
                bars["repeat"].append(("repeat", row, part, f"rank {rank}: already retrieved at a better rank"))
            for part in _minus(span, earlier):
                for piece in intersection([part], gold):
                    bars["found"].append(("found", row, piece, f"rank {rank}: gold evidence"))
                for piece in _minus(part, gold):
                    bars["waste"].append(("waste", row, piece, f"rank {rank}: not gold"))
            earlier.append(span)
    return _SpanBars([bar for kind in CLASSES for bar in bars[kind]], rows, axis, gaps)


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
        As for :func:`contextgrid.drawing.regions`: unless ``expanded``, only
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

    drawn = _span_bars(doc_id, length, gold, bands, margin, expanded, html.escape)
    axis = drawn.axis
    figure = go.Figure()
    for kind in CLASSES:
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


def rank_heatmap(retrieved: pd.DataFrame, k: int, *, questions: Sequence[str] | None = None, config: str = "") -> Any:
    """Question × rank: the fraction of each question's gold evidence the chunk at that rank holds.

    ``retrieved`` is :func:`contextgrid.waste.retrieved_table`'s result;
    hover shows the chunk id and an excerpt of its text.
    """
    import plotly.graph_objects as go

    from ..waste import coverage_by_rank

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
        go.Heatmap(
            z=matrix.to_numpy(dtype=float),
            x=[f"#{rank}" for rank in matrix.columns],
            y=_escaped(list(matrix.index)),
            customdata=hover,
            colorscale=_SCALE,
            zmin=0.0,
            zmax=1.0,
            colorbar={"title": "share of gold"},
            hovertemplate="%{y} rank %{x}: %{z:.0%} of the gold<br>%{customdata}<extra></extra>",
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

    ``matrix`` is :func:`contextgrid.waste.coverage_by_configuration`'s
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
        go.Heatmap(
            z=values,
            x=_escaped(list(matrix.columns)),
            y=_escaped(list(matrix.index)),
            customdata=hover,
            colorscale=_SCALE,
            zmin=0.0,
            zmax=1.0,
            colorbar={"title": "share of gold"},
            hovertemplate="%{y}<br>%{x}: top "
            + str(k)
            + " hold %{z:.0%} of the gold<br>best single chunk: %{customdata}<extra></extra>",
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

    ``summary`` is :func:`contextgrid.waste.configuration_waste`'s result. A
    point high on recall and low on precision is the configuration whose
    chunks hold the answer and bury it.
    """
    import plotly.graph_objects as go

    label = f"recall@{k}"
    if label not in summary.columns:
        raise ContextGridError(f"precision_recall_plot: the summary has no {label!r} column (is it at k={k}?)")
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

    ``table`` is :func:`contextgrid.waste.workspace_waste`'s result.
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
