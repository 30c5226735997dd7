"""Each configuration's difference to the baseline, with its interval: interval_plot() as a plotly
figure (notebooks, HTML that opens offline), interval_chart() as a Vega-Lite specification (the
dashboard, where it draws several times faster)."""

from __future__ import annotations

import html
from typing import Any

from contextgrid.core.errors import parameter_error
from contextgrid.render.vega import Spec, chart
from contextgrid.significance.comparisons import ComparisonTable, PairedComparison

__all__ = ["VERDICT_COLOURS", "interval_chart", "interval_plot"]

VERDICT_COLOURS: dict[str, str] = {
    "significantly better": "#1a9850",
    "significantly worse": "#d73027",
    "not significant": "#7f7f7f",
}
"""Marker colour per verdict: a grey point is a difference the data cannot vouch for."""


def _hover(comparison: PairedComparison) -> str:
    interval = (
        "n/a (one question)"
        if comparison.ci_low is None or comparison.ci_high is None
        else f"[{comparison.ci_low:+.4f}, {comparison.ci_high:+.4f}]"
    )
    effect = "n/a" if comparison.effect_size is None else f"{comparison.effect_size:+.2f}"
    return (
        f"<b>{html.escape(comparison.a)}</b><br>mean {comparison.mean_a:.4f} vs {comparison.mean_b:.4f}<br>"
        f"difference {comparison.difference:+.4f}<br>{comparison.confidence:.0%} interval {interval}<br>"
        f"p = {comparison.p_value:.4g} ({comparison.correction}: {comparison.p_adjusted:.4g})<br>"
        f"effect size d = {effect}<br>wins/ties/losses {comparison.wins}/{comparison.ties}/{comparison.losses}<br>"
        f"{comparison.verdict}"
    )


def interval_plot(table: ComparisonTable, *, title: str | None = None) -> Any:
    """A forest plot: one row per configuration, its difference to the baseline and the interval.

    Points are coloured by verdict after correction (green better, red
    worse, grey not significant); the dashed line at 0 is the baseline. An
    interval that crosses the line and a grey point say the same thing: the
    data do not show a difference.

    Parameters
    ----------
    table : ComparisonTable
        What :func:`contextgrid.significance.compare_configurations` returns.
    title : str, optional
        Defaults to a title naming the metric, baseline, interval and correction.

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
    >>> [(trace.name, list(trace.y), list(trace.x)) for trace in figure.data]
    [('not significant', ['dense'], [0.3333333333333333])]
    """
    _checked("interval_plot", table, title)
    import plotly.graph_objects as go

    figure = go.Figure()
    for verdict, colour in VERDICT_COLOURS.items():
        members = [c for c in table.comparisons if c.verdict == verdict]
        if not members:
            continue
        figure.add_trace(
            go.Scatter(
                name=verdict,
                x=[c.difference for c in members],
                y=[_label(c) for c in members],
                mode="markers",
                marker={"color": colour, "size": 10},
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": [0.0 if c.ci_high is None else c.ci_high - c.difference for c in members],
                    "arrayminus": [0.0 if c.ci_low is None else c.difference - c.ci_low for c in members],
                    "color": colour,
                },
                hovertext=[_hover(c) for c in members],
                hoverinfo="text",
            )
        )
    figure.add_vline(x=0.0, line_dash="dash", line_color="#444444", annotation_text=html.escape(table.baseline))
    metric = html.escape(table.metric or "score")
    baseline = html.escape(table.baseline)
    figure.update_layout(
        title=title or html.escape(_title(table), quote=False),
        xaxis_title=f"{metric} minus {baseline}",
        # Rows in the table's order, top to bottom, whichever verdict trace drew them.
        yaxis={
            "categoryorder": "array",
            "categoryarray": [_label(c) for c in table.comparisons],
            "autorange": "reversed",
        },
        legend_title="after correction",
        template="plotly_white",
    )
    return figure


def _label(comparison: PairedComparison) -> str:
    # Configuration names are the user's: plotly renders HTML in tick labels.
    name = html.escape(comparison.a)
    return f"{comparison.marker} {name}" if comparison.marker else name


def _title(table: ComparisonTable) -> str:
    first = table.comparisons[0]
    return (
        f"{table.metric or 'score'}: difference to '{table.baseline}' with {first.confidence:.0%} {first.interval} "
        f"intervals; significance by {first.test} test, {first.correction} correction, alpha {first.alpha:g}"
    )


def _checked(function: str, table: object, title: object) -> None:
    if not isinstance(table, ComparisonTable):
        raise parameter_error(function, "table", "a ComparisonTable", type(table).__name__)
    if title is not None and not isinstance(title, str):
        raise parameter_error(function, "title", "a str or None", title)


def interval_chart(table: ComparisonTable, *, title: str | None = None) -> Spec:
    """:func:`interval_plot` as a Vega-Lite specification with its data inline.

    The same rows in the table's order, the same colours by verdict, the
    interval as a bar through each point and a dashed rule at 0; the tooltip
    gives the means, the interval, both p-values, the effect size and the
    wins, ties and losses. Draw it with ``st.vega_lite_chart(spec=...)``.

    Examples
    --------
    >>> from contextgrid.significance import compare_configurations
    >>> from contextgrid.render import interval_chart
    >>> table = compare_configurations(
    ...     {"bm25": {"q1": 0.0, "q2": 1.0, "q3": 0.5}, "dense": {"q1": 1.0, "q2": 1.0, "q3": 0.5}},
    ...     baseline="bm25", metric="recall@5",
    ... )
    >>> [(row["config"], row["difference"], row["verdict"]) for row in interval_chart(table)["data"]["values"]]
    [('dense', 0.3333333333333333, 'not significant')]
    """
    _checked("interval_chart", table, title)
    rows = [
        {
            "config": comparison.a,
            "row": f"{comparison.marker} {comparison.a}" if comparison.marker else comparison.a,
            "difference": comparison.difference,
            # A one-question interval is undefined: the bar shrinks to the point.
            "low": comparison.difference if comparison.ci_low is None else comparison.ci_low,
            "high": comparison.difference if comparison.ci_high is None else comparison.ci_high,
            "mean": comparison.mean_a,
            "baseline mean": comparison.mean_b,
            "p": comparison.p_value,
            "p corrected": comparison.p_adjusted,
            "effect size": comparison.effect_size,
            "wins/ties/losses": f"{comparison.wins}/{comparison.ties}/{comparison.losses}",
            "verdict": comparison.verdict,
        }
        for comparison in table.comparisons
    ]
    metric = table.metric or "score"
    y = {"field": "row", "type": "nominal", "sort": [row["row"] for row in rows], "title": None}
    colour = {
        "field": "verdict",
        "type": "nominal",
        "scale": {"domain": list(VERDICT_COLOURS), "range": list(VERDICT_COLOURS.values())},
        "title": "after correction",
    }
    numbers = ("difference", "low", "high", "mean", "baseline mean", "p", "p corrected", "effect size")
    return chart(
        title or _title(table),
        rows,
        width="container",
        height={"step": 36},
        layer=[
            {
                "mark": {"type": "rule", "strokeWidth": 2},
                "encoding": {
                    "x": {"field": "low", "type": "quantitative", "title": f"{metric} minus {table.baseline}"},
                    "x2": {"field": "high"},
                    "y": y,
                    "color": colour,
                },
            },
            {
                "mark": {"type": "point", "filled": True, "size": 120},
                "encoding": {
                    "x": {"field": "difference", "type": "quantitative"},
                    "y": y,
                    "color": colour,
                    "tooltip": [
                        {"field": "config", "type": "nominal"},
                        *({"field": name, "type": "quantitative", "format": ".4g"} for name in numbers),
                        {"field": "wins/ties/losses", "type": "nominal"},
                        {"field": "verdict", "type": "nominal"},
                    ],
                },
            },
            {
                "data": {"values": [{}]},
                "mark": {"type": "rule", "strokeDash": [4, 4], "color": "#444444"},
                "encoding": {"x": {"datum": 0}},
            },
        ],
    )
