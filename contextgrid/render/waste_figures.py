"""Figures of context waste: retrieved chunks over a document, one band per rank; gold
coverage heatmaps; and the configuration-level picture of recall against waste.

Every builder takes tables from :mod:`contextgrid.evidence.waste` (or spans) and returns
a plotly figure, styled by :mod:`contextgrid.render.style`; plotly is imported when one runs. The dashboard,
the downloads and the report draw the same figures. Text from users (ids, questions, chunk excerpts) is
HTML-escaped, since plotly renders a subset of HTML in labels and hover text. Views of many questions stay
within a screen: the rank heatmap keeps the worst questions and counts the rest, the configuration heatmap
bins the questions by how much of their gold came back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from contextgrid.core.errors import UnknownScoreError
from contextgrid.data.records import Span
from contextgrid.render.document import SPAN_CLASSES
from contextgrid.render.span_bars import GAP_FONT, NARROWEST, TICK_FONT, label_width, span_bars
from contextgrid.render.style import escaped, finish, heading, legend_key, marks, plot_text, rows_height

if TYPE_CHECKING:
    import pandas as pd

    from contextgrid.evidence.waste import Waste

__all__ = [
    "COLOURS",
    "COVERAGE_BINS",
    "LEGEND",
    "POINTS_DRAWN",
    "WORST_SHOWN",
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
# At the foot of the whole figure, below the axis title: never over the title in a narrow column.
_LEGEND_BELOW = {"orientation": "h", "yref": "container", "yanchor": "bottom", "y": 0, "x": 0, "traceorder": "normal"}

WORST_SHOWN = 30
"""Questions a :func:`rank_heatmap` draws, the worst first; its subtitle counts the others."""

COVERAGE_BINS: tuple[tuple[str, float, float], ...] = (
    ("none", 0.0, 0.0),
    ("under 25%", 0.0, 0.25),
    ("25–50%", 0.25, 0.5),
    ("50–75%", 0.5, 0.75),
    ("75–99%", 0.75, 1.0),
    ("all", 1.0, 1.0),
)
"""The columns of :func:`configuration_heatmap`: (label, low, high) of the share of a question's gold the top k
hold; "none" is exactly 0, "all" exactly 1, the others ``low <= share < high`` (``low < share`` for the first)."""


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

    drawn = span_bars(doc_id, length, gold, bands, margin, expanded, plot_text)
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
    labels = drawn.labels(NARROWEST)
    span = float(axis.shown[-1]) or 1.0
    scale = drawn.plot_width(NARROWEST) / span
    for (start, end, hidden), text in zip(drawn.gaps, labels.gaps, strict=True):
        # The folded stretch shaded across every row (it holds no span, so it covers no bar) and labelled above
        # the plot, where it collides with no row; the offsets are thinned to the narrowest width drawn.
        figure.add_shape(
            type="rect",
            x0=start,
            x1=end,
            y0=0,
            y1=1,
            yref="paper",
            fillcolor="#f1f3f5",
            line={"width": 0},
            layer="below",
        )
        if text:
            # A label that would stick out past either end of the axis is set against that end instead.
            centre, half = (start + end) / 2, label_width(text, GAP_FONT) / 2 / scale
            anchor = "right" if centre + half > span else "left" if centre - half < 0 else "center"
            figure.add_annotation(
                x={"right": end, "left": start, "center": centre}[anchor],
                xanchor=anchor,
                y=1,
                yref="paper",
                yanchor="bottom",
                text=text,
                hovertext=f"{hidden:,} characters far from any span, folded",
                showarrow=False,
                font={"size": GAP_FONT, "color": "#6b6b6b"},
            )
    folded = "; ⋯ folds a stretch far from any span" if drawn.gaps else ""
    title, top = heading(
        plot_text(doc_id), f"what came back, over the document ({length:,} characters{folded})", chars=70
    )
    figure.update_layout(
        barmode="overlay",
        bargap=0.25,
        title=title,
        xaxis={
            "title": "character offset",
            **(
                {"tickvals": [axis(t) for t in labels.ticks], "ticktext": [f"{t:,}" for t in labels.ticks]}
                if drawn.gaps
                else {"tickformat": ",d"}
            ),
            "tickangle": 0,
            "tickfont": {"size": TICK_FONT},
            "range": [0, float(axis.shown[-1])],
            "showgrid": False,
        },
        # Every row's place held, empty or not: left to plotly, the range ends at the last row with a bar, and a
        # first configuration's gold row with nothing on it (a document with no gold) fell off the top.
        yaxis={
            "categoryorder": "array",
            "categoryarray": drawn.rows[::-1],
            "type": "category",
            "range": [-0.5, len(drawn.rows) - 0.5],
        },
        legend=_LEGEND_BELOW,
    )
    # Room on the right for the last offset and a gap label centred near the end.
    # Room above the plot for the folded stretches' labels, on the right for the last offset.
    return finish(figure, height=max(280, 24 * len(drawn.rows) + 230), margin={"b": 90, "t": top + 24, "r": 40})


def waste_split_plot(wastes: Mapping[str, Waste], *, title: str = "Where the retrieved characters went") -> Any:
    """Per configuration, one stacked bar: gold retrieved, not gold, repeated; and the gold missed beside it."""
    import plotly.graph_objects as go

    names = list(wastes)
    labels = escaped(names)
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
        title=plot_text(title),
        xaxis={"title": "characters", "rangemode": "tozero"},
        yaxis={"autorange": "reversed", "type": "category"},
        legend=_LEGEND_BELOW,
    )
    return finish(figure, height=rows_height(2 * len(names), chrome=230), margin={"b": 90})


def _share_heatmap(z: Any, x: list[str], rows: list[object], hover: Any, template: str) -> Any:
    """A heatmap of shares of the gold (0 to 1, one colour scale for every such view), rows named escaped."""
    import plotly.graph_objects as go

    return go.Heatmap(
        z=z,
        x=x,
        y=escaped(rows),
        customdata=hover,
        colorscale=_SCALE,
        zmin=0.0,
        zmax=1.0,
        colorbar={"title": {"text": "share of gold", "side": "right"}, "tickformat": ".0%"},
        hovertemplate=template,
    )


def rank_heatmap(retrieved: pd.DataFrame, k: int, *, questions: Sequence[str] | None = None, config: str = "") -> Any:
    """Question × rank: the fraction of each question's gold evidence the chunk at that rank holds, for the
    :data:`WORST_SHOWN` questions whose top ``k`` hold the least of it but not none (ties by id); the
    subtitle counts the questions whose top ``k`` hold none, which are not drawn (their rows would all read
    0), and the others left out. When no question's top ``k`` holds any gold, the first of them are drawn.

    ``retrieved`` is :func:`contextgrid.evidence.run_waste.retrieved_table`'s result;
    hover shows the chunk id and an excerpt of its text.
    """
    import pandas as pd
    import plotly.graph_objects as go

    from contextgrid.evidence.run_waste import coverage_by_rank

    matrix = coverage_by_rank(retrieved, k, questions=questions)
    held = matrix.fillna(0.0).sum(axis=1).to_numpy(dtype=float)
    # The least held first, ties by id: one stable sort of the columns, not a Python key per question.
    keys = pd.DataFrame({"held": held, "id": [str(question) for question in matrix.index]})
    order = keys.sort_values(["held", "id"], kind="stable").index.to_numpy()
    none = int((held == 0).sum())
    some = order[none:] if none < len(order) else order
    worst = matrix.iloc[some[:WORST_SHOWN]]
    # Hover text for the drawn questions' rows only.
    drawn = retrieved[retrieved["question"].isin(worst.index)]
    lookup = {
        (question, rank): f"{plot_text(str(chunk))}: {plot_text(str(excerpt))}"
        for question, rank, chunk, excerpt in zip(
            drawn["question"], drawn["rank"], drawn["chunk_id"], drawn["excerpt"], strict=True
        )
    }
    hover = [[lookup.get((q, r), "nothing retrieved") for r in worst.columns] for q in worst.index]
    figure = go.Figure(
        _share_heatmap(
            worst.to_numpy(dtype=float),
            [f"#{rank}" for rank in worst.columns],
            list(worst.index),
            hover,
            "%{y} rank %{x}: %{z:.0%} of the gold<br>%{customdata}<extra></extra>",
        )
    )
    suffix = f" ({plot_text(config)})" if config else ""
    if none == len(matrix):
        subtitle = f"no question's top {k} holds any of its gold; the first {len(worst)} of {len(matrix)} drawn"
    else:
        left_out = len(some) - len(worst)
        subtitle = (
            f"the {len(worst)} of {len(matrix):,} questions whose top {k} hold the least gold, but some"
            + (f"; {left_out:,} more not drawn" if left_out else "")
            + (f"; {none:,} hold none of it (not drawn)" if none else "")
        )
    title, top = heading(f"Gold held at each rank{suffix}", subtitle, chars=62)
    figure.update_layout(
        title=title,
        xaxis={"title": "rank", "type": "category"},
        yaxis={"autorange": "reversed", "type": "category", "tickfont": {"size": 11}},
    )
    return finish(figure, height=rows_height(len(worst), chrome=180) + top - 70, margin={"t": top})


def _bin_of(shares: np.ndarray[Any, np.dtype[np.float64]]) -> np.ndarray[Any, np.dtype[np.int64]]:
    """Each share's column of :data:`COVERAGE_BINS` (-1 for a question not measured)."""
    bins = np.full(shares.shape, -1, dtype=np.int64)
    for place, (_, low, high) in enumerate(COVERAGE_BINS):
        above = shares > low if low == 0 else shares >= low
        bins[(shares == low) if low == high else above & (shares < high)] = place
    return bins


def configuration_heatmap(matrix: pd.DataFrame, k: int, *, best_chunk: pd.DataFrame | None = None) -> Any:
    """Configuration × :data:`COVERAGE_BINS`: how many of each configuration's questions have the top ``k``
    hold none, some or all of their gold, coloured by the share of its questions, the count in the cell.

    ``matrix`` is :func:`contextgrid.evidence.run_waste.coverage_by_configuration`'s result (configurations ×
    questions); ``best_chunk``, the same of ``best_chunk_coverage``, adds to the hover how much the best
    single chunk held on average. Binned, the figure is as wide for ten questions as for ten thousand.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.render.waste_figures import configuration_heatmap
    >>> matrix = pd.DataFrame([[0.0, 0.3, 1.0, 1.0]], index=["bm25"], columns=["q1", "q2", "q3", "q4"])
    >>> configuration_heatmap(matrix, 5).data[0].text
    (['1', '', '1', '', '', '2'],)
    """
    import plotly.graph_objects as go

    values = matrix.to_numpy(dtype=float)
    best = best_chunk.reindex_like(matrix).to_numpy(dtype=float) if best_chunk is not None else None
    bins = _bin_of(values)
    counts = np.stack([(bins == place).sum(axis=1) for place in range(len(COVERAGE_BINS))], axis=1)
    measured = np.maximum(counts.sum(axis=1, keepdims=True), 1)
    hover = []
    for row in range(len(matrix)):
        cells = []
        for place in range(len(COVERAGE_BINS)):
            inside = bins[row] == place
            chunk = (
                f"<br>best single chunk: {np.nanmean(best[row][inside]):.0%} on average"
                if best is not None and inside.any() and not np.isnan(best[row][inside]).all()
                else ""
            )
            cells.append(f"{int(counts[row, place])} of {int(measured[row, 0])} questions{chunk}")
        hover.append(cells)
    figure = go.Figure(
        go.Heatmap(
            z=counts / measured,
            x=[label for label, _, _ in COVERAGE_BINS],
            y=escaped(list(matrix.index)),
            text=[[str(int(count)) if count else "" for count in row] for row in counts],
            texttemplate="%{text}",
            customdata=hover,
            colorscale="Blues",
            zmin=0.0,
            zmax=1.0,
            xgap=1,
            ygap=1,
            colorbar={"title": {"text": "share of questions", "side": "right"}, "tickformat": ".0%", "dtick": 0.25},
            hovertemplate=f"%{{y}}<br>top {k} hold %{{x}} of the gold: %{{customdata}}<extra></extra>",
        )
    )
    title, top = heading(
        f"Gold in the top {k}, by configuration",
        f"the {len(matrix.columns):,} questions by the share of their gold the top {k} hold together",
        chars=62,
    )
    figure.update_layout(
        title=title,
        # Upright labels: in a half-width column plotly slanted them, and slanted boxes overlap their neighbours.
        xaxis={"title": f"share of the gold in the top {k}", "type": "category", "tickangle": -90},
        yaxis={"autorange": "reversed", "type": "category", "tickfont": {"size": 11}},
    )
    # Never shorter than the colour bar's three labels need (two configurations drew them on top of each other).
    return finish(figure, height=max(rows_height(len(matrix), chrome=200) + top - 70, 380), margin={"t": top})


def precision_recall_plot(
    summary: pd.DataFrame, k: int, params: Mapping[str, Mapping[str, object]] | None = None
) -> Any:
    """Per configuration, mean character precision (y) against chunk-level ``recall@k`` (x).

    ``summary`` is :func:`contextgrid.workspace.waste.configuration_waste`'s result. A
    point high on recall and low on precision is the configuration whose
    chunks hold the answer and bury it. Each point's colour and symbol encode the configuration's
    ``params`` (:func:`contextgrid.render.style.marks`).
    """
    import plotly.graph_objects as go

    label = f"recall@{k}"
    if label not in summary.columns:
        raise UnknownScoreError(f"precision_recall_plot: the summary has no {label!r} column (is it at k={k}?)")
    names = [str(config) for config in summary.index]
    given = params or {}
    drawn, channels = marks(names, given)
    by_parameters = bool(channels) and len(drawn) > _NAMED_LEGEND
    recall = summary[label].to_numpy(dtype=float)
    precision = summary["character_precision"].to_numpy(dtype=float)
    share, sent = summary["share_gold"].to_numpy(dtype=float), summary["retrieved_total"].to_numpy(dtype=float)
    sizes = _nested_sizes(recall, precision)
    # The biggest first, so that a smaller mark on the same place is drawn over it; the legend keeps the order.
    order = sorted(range(len(names)), key=lambda place: -sizes[place])
    # Every trace given to the figure at once, as plain values: each added on its own was validated twice.
    points = [
        {
            "type": "scatter",
            "x": [recall[place]],
            "y": [precision[place]],
            "mode": "markers",
            "name": plot_text(name),
            "legendrank": place,
            "marker": {
                "size": sizes[place],
                "color": drawn[name].colour,
                "symbol": drawn[name].symbol,
                "line": {"color": "#ffffff", "width": 1},
            },
            "showlegend": not by_parameters,
            "customdata": [[share[place], sent[place]]],
            "hovertemplate": f"{plot_text(name)}<br>"
            + plot_text(label)
            + " %{x:.3f}<br>mean character precision %{y:.1%}<br>"
            "gold share of all characters sent %{customdata[0]:.1%}<br>"
            "characters per question %{customdata[1]:,.0f}<extra></extra>",
        }
        for place in order
        if (name := names[place]) in drawn
    ]
    figure = go.Figure(data=[*points, *(legend_key(channels, drawn, given) if by_parameters else [])])
    title, top = heading(f"{plot_text(label)} against character precision", "how much of what came back is the answer")
    # Below the plot: beside it, a legend of long names left the plot a narrow strip (and the camera button's
    # PNG a narrow plot beside a tall legend).
    entries = [str(trace.name) for trace in figure.data if trace.showlegend is not False]
    legend = _legend_height(entries)
    figure.update_layout(
        title=title,
        xaxis={"title": f"{plot_text(label)} (chunk level)", "range": [-0.03, 1.05]},
        # Up to two decimals, the zeros dropped: ".0%" wrote 2.5% as "3%", beside a "2%" and another "3%".
        yaxis={"title": "mean character precision", "tickformat": ".2~%", "rangemode": "tozero"},
        # Legend marks of one size: a ring drawn small on a shared point is no smaller a configuration.
        legend={**_LEGEND_BELOW, "itemsizing": "constant"},
    )
    return finish(figure, height=420 + legend, margin={"t": top, "b": legend + 60})


# A point's mark, and each smaller one on the same place (within this share of either axis): four configurations
# of one chunk size on one point are four rings, not one blob.
_MARK_SIZES = (16, 11, 7, 4)
_NEAR = 0.02


def _nested_sizes(x: np.ndarray[Any, Any], y: np.ndarray[Any, Any]) -> list[int]:
    """Each point's marker size: the largest, less one step for each earlier point on (nearly) the same place."""
    scale_y = max(float(np.nanmax(y)) if len(y) else 0.0, 1e-9)
    near = (np.abs(x[:, None] - x[None, :]) <= _NEAR) & (np.abs(y[:, None] - y[None, :]) <= _NEAR * scale_y)
    earlier = np.tril(near, k=-1).sum(axis=1)
    return [_MARK_SIZES[min(int(count), len(_MARK_SIZES) - 1)] for count in earlier]


def _legend_height(entries: Sequence[str], width: int = 480) -> int:
    """Pixels a horizontal legend of ``entries`` takes below a plot ``width`` pixels wide (7 pixels a
    character and 40 for the mark, 20 a line)."""
    lines, used = 1, 0
    for entry in entries:
        wide = 7 * len(entry) + 40
        if used and used + wide > width:
            lines, used = lines + 1, 0
        used += wide
    return 20 * lines + 20


# Past this many configurations a legend of them is longer than the plot: the legend names the parameters.
_NAMED_LEGEND = 12
POINTS_DRAWN = 2000
"""Past this many questions in all, :func:`characters_plot` is given no points: a point per question would be the
slowest mark on the page and hide the boxes."""


def characters_plot(boxes: pd.DataFrame, *, points: pd.DataFrame | None = None) -> Any:
    """Characters retrieved per question, one box per configuration, beside the gold's characters.

    ``boxes`` is :func:`contextgrid.evidence.run_waste.character_boxes`'s
    result: each box is drawn from its numbers (quartiles, whiskers from the
    least to the most), so the figure holds a few numbers per configuration
    however many questions there are. ``points``, the
    :func:`contextgrid.workspace.waste.workspace_waste` table behind
    ``boxes`` (at most :data:`POINTS_DRAWN` rows), draws every question as a
    point instead, plotly computing the same quartiles from them and
    reaching the whiskers to the last point within 1.5 interquartile ranges.
    """
    import plotly.graph_objects as go

    figure = go.Figure()
    configs = list(dict.fromkeys(boxes.index.get_level_values("config")))
    upright = len(configs) > 4
    for column, name, colour in (
        ("retrieved_total", "characters retrieved (repeats included)", COLOURS["waste"]),
        ("gold_characters", "gold evidence characters", COLOURS["found"]),
    ):
        drawn: dict[str, Any] = {"name": name, "marker": {"color": colour, "size": 4}}
        if points is not None:
            drawn |= {
                "x": escaped(list(points.index.get_level_values("config"))),
                "y": points[column],
                "boxpoints": "all",
                "jitter": 0.4,
                "pointpos": 0,
                "text": escaped(list(points.index.get_level_values("question"))),
                "hovertemplate": "%{x}<br>%{text}: %{y:,} characters<extra></extra>",
            }
        else:
            box = boxes.loc[column]
            drawn |= {
                "x": escaped(list(box.index)),
                "q1": box["q1"].to_numpy(),
                "median": box["median"].to_numpy(),
                "q3": box["q3"].to_numpy(),
                "lowerfence": box["min"].to_numpy(),
                "upperfence": box["max"].to_numpy(),
                "mean": box["mean"].to_numpy(),
                "boxpoints": False,
            }
        figure.add_trace(go.Box(**drawn))
    figure.update_layout(
        boxmode="group",
        title="Characters retrieved per question, by configuration",
        xaxis={
            "type": "category",
            "categoryorder": "array",
            "categoryarray": escaped(configs),
            # Upright when there are many: slanted, the boxes of neighbouring names overlap.
            "tickangle": -90 if upright else 0,
        },
        yaxis={"title": "characters", "rangemode": "tozero"},
        legend=_LEGEND_BELOW,
    )
    # Upright names take their length in height (about 7 pixels a character) from the plot: it grows by as much.
    return finish(figure, height=400 + (7 * max(map(len, configs), default=0) if upright else 80), margin={"b": 70})
