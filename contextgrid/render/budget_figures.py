"""Figures of evidence at an equal context budget: every configuration's curve of evidence recall against the
characters it sends, with the frontier over them, and two configurations' curves against the budget with the
budget at which they part. Both take :meth:`contextgrid.workspace.budget.BudgetCurves.means` (and its
frontier); user text (configuration names, parameters) is HTML-escaped wherever plotly draws it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from contextgrid.render.style import MARKS, finish, legend_key, log_ticks, marks, plot_text

__all__ = ["FRONTIER_COLOUR", "budget_pair_plot", "budget_plot"]

FRONTIER_COLOUR = "rgba(38, 39, 48, 0.45)"
"""The frontier's line: dark and half transparent, so the curves under it still show."""

# Past this many configurations a legend of them is longer than the plot: the legend names the parameters.
_NAMED_LEGEND = 12


def _hover(name: str, unit: str) -> str:
    return (
        f"<b>{plot_text(name)}</b><br>budget %{{customdata[0]:,}} {unit}<br>"
        "evidence recall %{y:.3f}<br>characters sent %{x:,.0f} (mean)<br>"
        "chunks taken %{customdata[1]:.1f} (mean)<extra></extra>"
    )


def budget_plot(
    means: pd.DataFrame,
    frontier: pd.DataFrame | None = None,
    params: Mapping[str, Mapping[str, object]] | None = None,
    *,
    unit: str = "characters",
) -> Any:
    """Evidence recall (y) against the mean characters sent (x, log scale), one curve per configuration
    through its budgets, and the ``frontier`` drawn over them. The axis starts at a third of the smallest budget:
    further left hardly any question takes a chunk.

    ``means`` is indexed by ``(config, budget)`` with ``evidence_recall``, ``characters`` and ``chunks``;
    ``frontier`` is :func:`contextgrid.analysis.budget.budget_frontier`'s table. Each configuration's colour,
    symbol and dash encode its ``params`` (:func:`contextgrid.render.style.marks`); with many configurations
    the legend names the parameters and each point's hover names the configuration, the budget and the mean
    number of chunks taken. A point that sends no characters has no place on a log axis and is left out.

    Examples
    --------
    >>> import pandas as pd
    >>> index = pd.MultiIndex.from_tuples([("a<b>", 100), ("a<b>", 1000)], names=["config", "budget"])
    >>> means = pd.DataFrame({"evidence_recall": [0.0, 0.5], "characters": [0.0, 800.0], "chunks": [0, 2]}, index=index)
    >>> [(trace.name, trace.x, trace.y) for trace in budget_plot(means).data]
    [('a&lt;b&gt;', (None, 800.0), (None, 0.5))]
    """
    import plotly.graph_objects as go

    names = [str(name) for name in dict.fromkeys(means.index.get_level_values("config"))]
    given = params or {}
    drawn, channels = marks(names, given)
    by_parameters = bool(channels) and len(drawn) > _NAMED_LEGEND
    many = len(drawn) > _NAMED_LEGEND
    # Each configuration's rows found in one pass over the index (a cross-section per configuration cost a
    # millisecond each), and every trace given to the figure at once: each added alone was validated twice.
    rows = means.groupby(level="config", sort=False).indices
    budget = means.index.get_level_values("budget").to_numpy(dtype=np.int64)
    characters = means["characters"].to_numpy(dtype=float)
    recall, chunks = means["evidence_recall"].to_numpy(), means["chunks"].to_numpy(dtype=float)
    traces: list[Any] = []
    for name in names[: len(drawn)]:
        at = rows[name]
        mark = drawn[name]
        sent = characters[at]
        shown = sent > 0
        traces.append(
            {
                "type": "scatter",
                "x": [float(x) if ok else None for x, ok in zip(sent, shown, strict=True)],
                "y": [float(y) if ok else None for y, ok in zip(recall[at], shown, strict=True)],
                "customdata": np.column_stack([budget[at], chunks[at]]),
                "name": plot_text(name),
                "mode": "lines+markers",
                "line": {"color": mark.colour, "dash": mark.dash, "width": 1.3 if many else 2},
                "marker": {"color": mark.colour, "symbol": mark.symbol, "size": 6 if many else 8},
                "opacity": 0.75 if many else 1.0,
                "showlegend": not by_parameters,
                "hovertemplate": _hover(name, unit),
            }
        )
    if frontier is not None and len(frontier):
        configs = [plot_text(str(name)) for name in frontier["config"]]
        traces.append(
            {
                "type": "scatter",
                "x": frontier["characters"].astype(float).tolist(),
                "y": frontier["evidence_recall"].astype(float).tolist(),
                "customdata": np.column_stack([configs, frontier["budget"].astype(np.int64).to_numpy()]),
                "name": "frontier: the most evidence for its characters",
                "mode": "lines",
                "line": {"color": FRONTIER_COLOUR, "width": 5},
                "hovertemplate": "<b>frontier</b>: %{customdata[0]}<br>budget %{customdata[1]} "
                f"{unit}<br>evidence recall %{{y:.3f}}<br>characters sent %{{x:,.0f}}<extra></extra>",
            }
        )
    if by_parameters:
        traces += legend_key(channels, drawn, given, lines=True)
    figure = go.Figure(data=traces)
    cut = f" (the first {MARKS} of {len(names)} configurations)" if len(names) > MARKS else ""
    # From a third of the smallest budget: further left, hardly any question takes a chunk, and the curves crowd.
    budgets = means.index.get_level_values("budget")
    sent = means["characters"].to_numpy(dtype=float)
    low = np.log10(max(float(budgets.min()) / 3, 1.0))
    high = np.log10(max(float(sent.max(initial=1.0)), float(budgets.min()), 1.0) * 1.15)
    figure.update_layout(
        title={
            "text": f"Evidence recall against characters sent, at equal budgets{cut}"
            f"<br><sup>each point a budget in {unit}: chunks taken in rank order while they fit</sup>"
        },
        xaxis={
            "type": "log",
            "range": [low, high],
            "dtick": 1,
            "tickformat": ",",
            "title": {"text": "characters sent per question (mean, log scale)"},
        },
        yaxis={"range": [0, 1.02], "title": {"text": "evidence recall (share of gold characters)"}},
        hovermode="closest",
        margin={"t": 90},
    )
    legend_rows = len(figure.data) if not by_parameters else len(figure.data) - len(drawn) + 2 * len(channels)
    return finish(figure, height=max(480, 22 * legend_rows + 140), margin={"t": 90})


def budget_pair_plot(
    means: pd.DataFrame,
    a: str,
    b: str,
    *,
    parting: int | None = None,
    unit: str = "characters",
    params: Mapping[str, Mapping[str, object]] | None = None,
) -> Any:
    """Two configurations' evidence recall against the budget (log scale), with a line at ``parting``, the
    budget from which they differ significantly (:meth:`~contextgrid.workspace.budget.BudgetCurves.parting`).

    Examples
    --------
    >>> import pandas as pd
    >>> index = pd.MultiIndex.from_product([["a", "b"], [100, 1000]], names=["config", "budget"])
    >>> means = pd.DataFrame({"evidence_recall": [0.1, 0.5, 0.3, 0.4], "characters": [90.0, 800, 95, 900],
    ...                       "chunks": [1, 2, 1, 3]}, index=index)
    >>> figure = budget_pair_plot(means, "a", "b", parting=100)
    >>> [(trace.name, trace.x) for trace in figure.data], figure.layout.shapes[0].x0
    ([('a', (100, 1000)), ('b', (100, 1000))], 100)
    """
    import plotly.graph_objects as go

    drawn, _ = marks([a, b], params or {})
    budgets = means.index.get_level_values("budget").to_numpy(dtype=float)
    figure = go.Figure()
    for name in (a, b):
        part = means.xs(name, level="config")
        mark = drawn[name]
        figure.add_trace(
            go.Scatter(
                x=[int(budget) for budget in part.index],
                y=part["evidence_recall"].astype(float).tolist(),
                customdata=np.column_stack([part.index.to_numpy(dtype=np.int64), part["chunks"].to_numpy(dtype=float)]),
                name=plot_text(name),
                mode="lines+markers",
                line={"color": mark.colour, "dash": mark.dash, "width": 2},
                marker={"color": mark.colour, "symbol": mark.symbol, "size": 8},
                hovertemplate=f"<b>{plot_text(name)}</b><br>budget %{{x:,}} {unit}<br>evidence recall "
                "%{y:.3f}<br>chunks taken %{customdata[1]:.1f} (mean)<extra></extra>",
            )
        )
    if parting is not None:
        figure.add_vline(x=parting, line={"color": "#6b6b6b", "dash": "dot"})
        # An annotation on a log axis is placed at the log10 of its x (a shape is not): given the budget itself,
        # add_vline's own annotation stretched the axis to 10^budget and squeezed the curves into its left edge.
        figure.add_annotation(
            x=float(np.log10(parting)),
            y=1,
            yref="paper",
            xanchor="left",
            yanchor="top",
            text=f"they part at {parting:,} {unit}",
            showarrow=False,
        )
    figure.update_layout(
        title={"text": f"Evidence recall at equal budgets: {plot_text(a)} against {plot_text(b)}"},
        xaxis={
            "type": "log",
            **log_ticks(float(np.min(budgets)), float(np.max(budgets))),
            "title": {"text": f"budget ({unit}, log scale)"},
        },
        yaxis={"range": [0, 1.02], "title": {"text": "evidence recall"}},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0},
        hovermode="closest",
        margin={"t": 100},
    )
    return finish(figure, height=440, margin={"t": 100})
