"""Figures of the metric@k grid: heatmaps, a pivot over two parameters, metric-vs-k
curves and a per-question scatter of two configurations.

Labels that come from users (configuration and question ids) are HTML-escaped,
since plotly renders a subset of HTML in titles, ticks and hover text.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

__all__ = ["LABELLED_CELLS", "curves_plot", "grid_heatmap", "pair_scatter", "pivot_heatmap"]

_SCALE = "Viridis"
LABELLED_CELLS = 400
"""Above this many cells a heatmap leaves its cells unlabelled (hover still tells): a browser draws
thousands of text labels slowly, and nobody reads them."""


def _labels(values: Sequence[object]) -> list[str]:
    return [html.escape(str(value)) for value in values]


def grid_heatmap(grid: pd.DataFrame, best: Mapping[str, Sequence[str]] | None = None) -> Any:
    """Configurations (rows) x ``metric@k`` (columns), each cell its score; the best per column starred
    (in the cell when it is labelled, see :data:`LABELLED_CELLS`, and in the hover text).

    ``grid`` holds only score columns (see :func:`contextgrid.grid.score_columns`);
    ``best`` is what :func:`contextgrid.grid.best_per_column` returns.
    """
    import plotly.graph_objects as go

    best = best or {}
    text = [
        [
            "" if pd.isna(value) else f"{value:.3f}{' ★' if str(config) in best.get(str(label), ()) else ''}"
            for label, value in row.items()
        ]
        for config, row in grid.iterrows()
    ]
    figure = go.Figure(
        go.Heatmap(
            z=grid.to_numpy(dtype=float),
            x=_labels(list(grid.columns)),
            y=_labels(list(grid.index)),
            text=text,
            texttemplate="%{text}" if grid.size <= LABELLED_CELLS else None,
            colorscale=_SCALE,
            zmin=0.0,
            zmax=1.0,
            hovertemplate="%{y}<br>%{x} = %{text}<extra></extra>",
        )
    )
    figure.update_layout(
        title="metric@k by configuration (★ best in column)",
        yaxis={"autorange": "reversed"},
        height=max(300, 40 * len(grid) + 150),
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
    )
    return figure


def pivot_heatmap(pivot: pd.DataFrame, label: str) -> Any:
    """A :func:`contextgrid.grid.pivot_grid` table as a heatmap."""
    import plotly.graph_objects as go

    figure = go.Figure(
        go.Heatmap(
            z=pivot.to_numpy(dtype=float),
            x=_labels(list(pivot.columns)),
            y=_labels(list(pivot.index)),
            texttemplate="%{z:.3f}",
            colorscale=_SCALE,
            zmin=0.0,
            zmax=1.0,
            hovertemplate=f"{html.escape(str(pivot.index.name))} %{{y}}<br>"
            f"{html.escape(str(pivot.columns.name))} %{{x}}<br>{html.escape(label)} = %{{z:.4f}}<extra></extra>",
        )
    )
    figure.update_layout(
        title=f"{html.escape(label)} by {html.escape(str(pivot.index.name))} × {html.escape(str(pivot.columns.name))}",
        xaxis={"type": "category", "title": html.escape(str(pivot.columns.name))},
        yaxis={"type": "category", "title": html.escape(str(pivot.index.name))},
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
    )
    return figure


def curves_plot(curves: pd.DataFrame, metric: str) -> Any:
    """A :func:`contextgrid.grid.metric_curves` table: one line per configuration over k."""
    import plotly.graph_objects as go

    figure = go.Figure()
    for config, row in curves.iterrows():
        figure.add_trace(
            go.Scatter(
                x=list(curves.columns), y=row.to_numpy(dtype=float), mode="lines+markers", name=html.escape(str(config))
            )
        )
    figure.update_layout(
        title=f"{html.escape(metric)} against k",
        xaxis={"title": "k", "type": "category"},
        yaxis={"title": html.escape(metric), "range": [0, 1.02]},
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
    )
    return figure


def pair_scatter(changes: pd.DataFrame, a: str, b: str, label: str) -> Any:
    """Per-question scores of ``b`` (x) against ``a`` (y), from :func:`contextgrid.diagnose.question_changes`.

    Points above the diagonal are questions ``a`` wins; jitter-free, so equal
    scores stack, and the hover names each question.
    """
    import plotly.graph_objects as go

    colours = {"win": "#1a9850", "tie": "#7f7f7f", "loss": "#d73027"}
    figure = go.Figure()
    for outcome, colour in colours.items():
        part = changes[changes["outcome"] == outcome]
        figure.add_trace(
            go.Scatter(
                x=part[b],
                y=part[a],
                mode="markers",
                name=f"{outcome} ({len(part)})",
                marker={"color": colour, "opacity": 0.6},
                text=_labels(list(part.index)),
                hovertemplate="%{text}<br>"
                + f"{html.escape(b)} %{{x:.3f}} → {html.escape(a)} %{{y:.3f}}<extra></extra>",
            )
        )
    figure.add_shape(type="line", x0=0, y0=0, x1=1, y1=1, line={"dash": "dash", "color": "#999"})
    figure.update_layout(
        title=f"{html.escape(label)} per question: {html.escape(a)} against {html.escape(b)}",
        xaxis={"title": html.escape(b), "range": [-0.02, 1.02]},
        yaxis={"title": html.escape(a), "range": [-0.02, 1.02], "scaleanchor": "x"},
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
    )
    return figure
