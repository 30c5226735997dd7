"""Each configuration's difference to the baseline, with its test's own interval: :func:`interval_plot`, the one
figure the dashboard, notebooks and downloads draw."""

from __future__ import annotations

import math
from typing import Any

from contextgrid.core.errors import parameter_error
from contextgrid.render.style import finish, plot_text, rows_height
from contextgrid.significance.comparisons import ComparisonTable, PairedComparison
from contextgrid.significance.wording import format_level, limits, verdict_phrase

__all__ = ["UNBOUNDED_ROOM", "VERDICT_COLOURS", "interval_plot"]

UNBOUNDED_ROOM = 0.05
"""How far inside the plot's edge, as a share of its width, an unbounded interval end stops (and its arrow sits)."""

VERDICT_COLOURS: dict[str, str] = {
    "significantly better": "#009E73",
    "significantly worse": "#D55E00",
    "not significant": "#999999",
}
"""Marker colour per verdict (Okabe–Ito): a grey point is a difference the data cannot vouch for."""


def _hover(comparison: PairedComparison) -> str:
    effect = "n/a" if comparison.effect_size is None else f"{comparison.effect_size:+.2f}"
    return (
        f"<b>{plot_text(comparison.a)}</b><br>mean {comparison.mean_a:.4f} vs {comparison.mean_b:.4f}<br>"
        f"{plot_text(verdict_phrase(comparison))}<br>"
        f"effect size d = {effect}<br>wins/ties/losses {comparison.wins}/{comparison.ties}/{comparison.losses}<br>"
        + "<br>".join(plot_text(sentence) for sentence in limits(comparison))
    )


def interval_plot(table: ComparisonTable, *, title: str | None = None) -> Any:
    """A forest plot: one row per configuration, its difference to the baseline and the test's own interval.

    Points are coloured by verdict after the correction for many comparisons (green better, red worse, grey
    not significant); the dashed line at 0 is the baseline. Each interval is the test's inversion at the level
    the correction set for that comparison, so it crosses 0 exactly when the point is grey: the picture never
    says more, or less, than the test. An unbounded end (a test that cannot reject any shift that way) runs
    nearly to the plot's edge and ends in an arrow, and the subtitle names the interval, the test and the
    correction.

    Parameters
    ----------
    table : ComparisonTable
        What :func:`contextgrid.significance.compare_configurations` returns.
    title : str, optional
        Defaults to a title naming the metric and the baseline; the subtitle always names the interval,
        the test and the correction.

    Returns
    -------
    plotly.graph_objects.Figure

    Examples
    --------
    >>> from contextgrid.significance import compare_configurations
    >>> from contextgrid.render import interval_plot
    >>> table = compare_configurations(
    ...     {"bm25": {"q1": 0.0, "q2": 1.0, "q3": 0.5}, "dense": {"q1": 1.0, "q2": 1.0, "q3": 0.5}},
    ...     baseline="bm25", metric="recall@5",
    ... )
    >>> figure = interval_plot(table)
    >>> [(trace.name, list(trace.y), list(trace.x)) for trace in figure.data if trace.mode == "markers"]
    [('not significant', ['dense'], [0.3333333333333333])]
    """
    _checked("interval_plot", table, title)
    import plotly.graph_objects as go

    figure = go.Figure()
    low_edge, high_edge = _padded(table)
    # An unbounded end stops just inside the plot, with an arrow saying it goes on.
    room = UNBOUNDED_ROOM * (high_edge - low_edge)
    x: list[float | None] = []
    y: list[str | None] = []
    arrows: list[tuple[float, str, str]] = []
    for c in table.comparisons:
        low = c.ci_low if math.isfinite(c.ci_low) else low_edge + room
        high = c.ci_high if math.isfinite(c.ci_high) else high_edge - room
        x += [low, high, None]
        y += [_label(c), _label(c), None]
        arrows += [(low, _label(c), "◀")] if not math.isfinite(c.ci_low) else []
        arrows += [(high, _label(c), "▶")] if not math.isfinite(c.ci_high) else []
    figure.add_trace(
        go.Scatter(
            x=x,
            y=y,
            mode="lines",
            name=f"{table.comparisons[0].interval_name} interval",
            line={"color": "#555555", "width": 2},
            hoverinfo="skip",
        )
    )
    if arrows:
        figure.add_trace(
            go.Scatter(
                x=[end for end, _, _ in arrows],
                y=[row for _, row, _ in arrows],
                text=[arrow for _, _, arrow in arrows],
                mode="text",
                name="unbounded: no shift that way is rejected",
                # Smaller where many rows share the screen: a 14-pixel arrow overlapped its neighbours' at 50 rows.
                textfont={"color": "#555555", "size": 10 if len(table.comparisons) > 20 else 14},
                hoverinfo="skip",
            )
        )
    for verdict, colour in VERDICT_COLOURS.items():
        members = [c for c in table.comparisons if c.verdict == verdict]
        if not members:
            continue
        figure.add_trace(
            go.Scatter(
                name=verdict,
                x=[c.estimate for c in members],
                y=[_label(c) for c in members],
                mode="markers",
                marker={"color": colour, "size": 11, "line": {"color": "#333333", "width": 1}},
                hovertext=[_hover(c) for c in members],
                hoverinfo="text",
            )
        )
    figure.add_vline(x=0.0, line_dash="dash", line_color="#444444")
    metric = plot_text(table.metric or "score")
    baseline = plot_text(table.baseline)
    heading = plot_text(title) if title else f"{metric}: difference to {baseline}"
    figure.update_layout(
        title={"text": f"{heading}<br><sup>{plot_text(_subtitle(table))}</sup>"},
        xaxis={"title": {"text": f"{metric} minus {baseline}"}, "zeroline": False, "range": [low_edge, high_edge]},
        # Rows in the table's order, top to bottom, whichever verdict trace drew them.
        yaxis={
            "type": "category",
            "categoryorder": "array",
            "categoryarray": [_label(c) for c in table.comparisons],
            "autorange": "reversed",
            # Every row named, however many: plotly would otherwise label every other one.
            "tickmode": "array",
            "tickvals": [_label(c) for c in table.comparisons],
            "tickfont": {"size": 11 if len(table.comparisons) > 20 else 13},
        },
        legend={"orientation": "h", "yref": "container", "yanchor": "bottom", "y": 0, "x": 0},
    )
    return finish(
        figure,
        height=rows_height(len(table.comparisons), chrome=260) + 14 * len(table.comparisons),
        margin={"t": 90, "b": 90},
    )


def _padded(table: ComparisonTable) -> list[float]:
    """The x range holding every bounded interval end, point and 0 with a margin: plotly's own range for lines
    has none, so the widest interval ended on the plot's edge, where it looked cut. An unbounded end is drawn to
    the edge of a range twice as wide as the bounded values need."""
    values = [0.0] + [
        value
        for c in table.comparisons
        for value in (c.ci_low, c.ci_high, c.estimate, c.difference)
        if math.isfinite(value)
    ]
    low, high = min(values), max(values)
    unbounded = any(not math.isfinite(value) for c in table.comparisons for value in (c.ci_low, c.ci_high))
    margin = (0.5 if unbounded else 0.05) * (high - low) or 0.05
    return [low - margin, high + margin]


def _subtitle(table: ComparisonTable) -> str:
    first = table.comparisons[0]
    if first.correction == "none":
        corrected = f"{format_level(first.ci_level)} intervals, p-values not corrected"
    else:
        corrected = f"p-values and interval levels {first.correction}-corrected for {len(table.comparisons)} " + (
            "comparison" if len(table.comparisons) == 1 else "comparisons"
        )
    return f"{first.test} test with its {first.interval_name} intervals, {corrected}, alpha {first.alpha:g}"


def _label(comparison: PairedComparison) -> str:
    # Configuration names are the user's: plotly renders HTML in tick labels.
    name = plot_text(comparison.a)
    return f"{comparison.marker} {name}" if comparison.marker else name


def _checked(function: str, table: object, title: object) -> None:
    if not isinstance(table, ComparisonTable):
        raise parameter_error(function, "table", "a ComparisonTable", type(table).__name__)
    if title is not None and not isinstance(title, str):
        raise parameter_error(function, "title", "a str or None", title)
