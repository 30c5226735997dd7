"""Figures of the metric@k grid: heatmaps, a pivot over two parameters, metric-against-k curves and a
per-question scatter of two configurations; plotly figures, styled by :mod:`contextgrid.render.style`.

User text (configuration and question ids, parameter names and values) is HTML-escaped wherever plotly
draws it, since plotly renders a subset of HTML in labels and hover text.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from contextgrid.render.style import MARKS, escaped, finish, legend_key, marks, rows_height

__all__ = ["EXAMPLES_SHOWN", "OUTCOME_COLOURS", "curves_plot", "grid_heatmap", "pair_scatter", "pivot_heatmap"]

OUTCOME_COLOURS: dict[str, str] = {"win": "#009E73", "tie": "#999999", "loss": "#D55E00"}
"""Point colour per outcome of A against B in :func:`pair_scatter` (Okabe–Ito: green and vermilion stay apart
for the common colour-vision deficiencies)."""

# Past this many configurations a legend of them is longer than the plot: the legend names the parameters.
_NAMED_LEGEND = 12


def grid_heatmap(grid: pd.DataFrame, best: Mapping[str, Sequence[str]] | None = None) -> Any:
    """Configurations (rows) x ``metric@k`` (columns), each cell coloured by its score; the best per
    column starred in the cell and named in the hover, which gives every score.

    ``grid`` holds only score columns (see :func:`contextgrid.analysis.grid.score_columns`);
    ``best`` is what :func:`contextgrid.analysis.grid.best_per_column` returns.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.render.grid_charts import grid_heatmap
    >>> grid = pd.DataFrame({"recall@5": [0.5, 0.75]}, index=["a", "b"])
    >>> [heatmap] = grid_heatmap(grid, {"recall@5": ["b"]}).data
    >>> heatmap.y, heatmap.z.tolist(), heatmap.text
    (('a', 'b'), [[0.5], [0.75]], ([''], ['★']))
    """
    import plotly.graph_objects as go

    best = best or {}
    configs = [str(config) for config in grid.index]
    labels = [str(label) for label in grid.columns]
    stars = [["★" if config in best.get(label, ()) else "" for label in labels] for config in configs]
    figure = go.Figure(
        go.Heatmap(
            z=grid.to_numpy(dtype=float),
            x=escaped(labels),
            y=escaped(configs),
            text=stars,
            texttemplate="%{text}",
            colorscale="Viridis",
            zmin=0.0,
            zmax=1.0,
            colorbar={"title": {"text": "score"}},
            xgap=1,
            ygap=1,
            hovertemplate="%{y}<br>%{x}: %{z:.4f} %{text}<extra></extra>",
        )
    )
    figure.update_layout(
        title={"text": "metric@k by configuration (★ best in column)"},
        xaxis={"type": "category", "tickangle": -60, "side": "top"},
        yaxis={"type": "category", "autorange": "reversed", "tickfont": {"size": 11}},
    )
    return finish(figure, height=rows_height(len(configs), chrome=190))


def pivot_heatmap(pivot: pd.DataFrame, label: str, counts: pd.DataFrame | None = None) -> Any:
    """A :func:`contextgrid.analysis.grid.pivot_grid` table as a heatmap, each cell labelled with its value
    and, from ``counts`` (:func:`contextgrid.analysis.grid.pivot_counts`), how many configurations it averages.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.render.grid_charts import pivot_heatmap
    >>> pivot = pd.DataFrame([[0.25, None]], index=pd.Index([256], name="size"),
    ...                      columns=pd.Index(["bm25", "dense"], name="retriever"))
    >>> counts = pd.DataFrame([[3, 0]], index=pivot.index, columns=pivot.columns)
    >>> figure = pivot_heatmap(pivot, "ndcg@10", counts)
    >>> figure.layout.title.text
    'ndcg@10 by size × retriever<br><sup>each cell the mean of the configurations it counts (n)</sup>'
    >>> figure.data[0].text
    (['0.250<br>n = 3', ''],)
    """
    import plotly.graph_objects as go

    rows, columns = str(pivot.index.name), str(pivot.columns.name)
    values = pivot.to_numpy(dtype=float)
    averaged = (
        counts.reindex(index=pivot.index, columns=pivot.columns).fillna(0).to_numpy(dtype=int)
        if counts is not None
        else np.ones(values.shape, dtype=int)
    )
    text = [
        [
            "" if np.isnan(value) else f"{value:.3f}" + (f"<br>n = {count}" if counts is not None else "")
            for value, count in zip(value_row, count_row, strict=True)
        ]
        for value_row, count_row in zip(values, averaged, strict=True)
    ]
    figure = go.Figure(
        go.Heatmap(
            z=values,
            x=escaped(list(pivot.columns)),
            y=escaped(list(pivot.index)),
            text=text,
            texttemplate="%{text}",
            customdata=averaged,
            colorscale="Viridis",
            zmin=0.0,
            zmax=1.0,
            colorbar={"title": {"text": html.escape(label)}},
            xgap=2,
            ygap=2,
            hovertemplate=f"{html.escape(rows)} %{{y}}<br>{html.escape(columns)} %{{x}}<br>"
            f"{html.escape(label)} %{{z:.4f}}, the mean of %{{customdata}} configurations<extra></extra>",
        )
    )
    subtitle = "each cell the mean of the configurations it counts (n)" if counts is not None else ""
    figure.update_layout(
        title={
            "text": f"{html.escape(label)} by {html.escape(rows)} × {html.escape(columns)}"
            + (f"<br><sup>{subtitle}</sup>" if subtitle else "")
        },
        xaxis={"type": "category", "title": {"text": html.escape(columns)}},
        yaxis={"type": "category", "title": {"text": html.escape(rows)}},
    )
    return finish(figure, height=rows_height(len(pivot), chrome=200) + 20 * len(pivot))


def curves_plot(curves: pd.DataFrame, metric: str, params: Mapping[str, Mapping[str, object]] | None = None) -> Any:
    """A :func:`contextgrid.analysis.grid.metric_curves` table: one line per configuration over k.

    k is a numeric axis on a log scale, each cut-off ticked: 1, 3, 5, 10 and 20 are as far apart as their
    ratios, not evenly spaced as labels would be. Each configuration's colour and symbol encode its
    ``params`` (see :func:`contextgrid.render.style.marks`); with many configurations the legend names the
    parameters and the hover names the configuration.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.render.grid_charts import curves_plot
    >>> curves = pd.DataFrame([[0.25, 0.6]], index=["bm25-200"], columns=[1, 5])
    >>> [(trace.name, trace.x, trace.y) for trace in curves_plot(curves, "recall").data]
    [('bm25-200', (1, 5), (0.25, 0.6))]
    """
    import plotly.graph_objects as go

    ks = [int(k) for k in curves.columns]
    names = [str(config) for config in curves.index]
    given = params or {}
    drawn, channels = marks(names, given)
    by_parameters = bool(channels) and len(drawn) > _NAMED_LEGEND
    figure = go.Figure()
    values = curves.to_numpy(dtype=float)
    for row, name in enumerate(names[: len(drawn)]):
        mark = drawn[name]
        figure.add_trace(
            go.Scatter(
                x=ks,
                y=[None if np.isnan(value) else float(value) for value in values[row]],
                name=html.escape(name),
                mode="lines+markers",
                line={"color": mark.colour, "dash": mark.dash, "width": 2},
                marker={"color": mark.colour, "symbol": mark.symbol, "size": 8},
                showlegend=not by_parameters,
                hovertemplate=f"{html.escape(name)}<br>k = %{{x}}: {html.escape(metric)} %{{y:.4f}}<extra></extra>",
            )
        )
    if by_parameters:
        figure.add_traces(legend_key(channels, drawn, given, lines=True))
    cut = f" (the first {MARKS} of {len(names)} configurations)" if len(names) > MARKS else ""
    figure.update_layout(
        title={"text": f"{html.escape(metric)} against k{cut}"},
        xaxis={"type": "log", "tickvals": ks, "ticktext": [str(k) for k in ks], "title": {"text": "k (log scale)"}},
        yaxis={"range": [0, 1.02], "title": {"text": html.escape(metric)}},
        hovermode="closest",
    )
    legend_rows = len(figure.data) if not by_parameters else len(figure.data) - len(drawn) + 2 * len(channels)
    return finish(figure, height=max(460, 22 * legend_rows + 120))


EXAMPLES_SHOWN = 3
"""Question ids a point of :func:`pair_scatter` names in its hover; the count says how many it stands for."""


def pair_scatter(changes: pd.DataFrame, a: str, b: str, label: str) -> Any:
    """Per-question scores of ``b`` (x) against ``a`` (y), from :func:`contextgrid.analysis.questions.question_changes`.

    Points above the diagonal are questions ``a`` wins. Questions with the
    same pair of scores share one point, sized by how many they are (scores
    are few distinct values: thousands of questions are often a few dozen
    points); the hover gives the count and names the first questions in
    ``changes``' order.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.render.grid_charts import pair_scatter
    >>> changes = pd.DataFrame(
    ...     {"A": [1.0, 1.0, 0.0], "B": [0.5, 0.5, 0.0], "outcome": ["win", "win", "tie"]}, index=["q1", "q2", "q3"]
    ... )
    >>> for trace in pair_scatter(changes, "A", "B", "recall@5").data[1:]:
    ...     print(trace.name, trace.x, trace.y, trace.customdata.tolist())
    win (2) (0.5,) (1.0,) [[2, 'q1, q2']]
    tie (1) (0.0,) (0.0,) [[1, 'q3']]
    loss (0) () () []
    """
    import plotly.graph_objects as go

    counts = changes["outcome"].value_counts()
    pairs = pd.DataFrame(
        {
            "a": changes[a].to_numpy(dtype=float),
            "b": changes[b].to_numpy(dtype=float),
            "outcome": changes["outcome"].to_numpy(),
            "question": [html.escape(str(question)) for question in changes.index],
        }
    )
    # One point per distinct pair of scores, in order of first appearance (the biggest changes first).
    groups = pairs.groupby(["a", "b"], sort=False)
    points = groups.agg(outcome=("outcome", "first"), questions=("question", "size"))
    points["examples"] = groups.head(EXAMPLES_SHOWN).groupby(["a", "b"], sort=False)["question"].agg(", ".join)
    flat = points.reset_index()
    flat["examples"] = [
        examples + (" …" if size > EXAMPLES_SHOWN else "")
        for examples, size in zip(flat["examples"], flat["questions"], strict=True)
    ]
    largest = max(int(flat["questions"].max()), 1) if len(flat) else 1
    # The diagonal first, under the points: above it A wins.
    figure = go.Figure(
        go.Scatter(
            x=[0, 1],
            y=[0, 1],
            mode="lines",
            line={"color": "#999999", "dash": "dash"},
            hoverinfo="skip",
            showlegend=False,
        )
    )
    for outcome, colour in OUTCOME_COLOURS.items():
        part = flat[flat["outcome"] == outcome]
        figure.add_trace(
            go.Scatter(
                x=part["b"].tolist(),
                y=part["a"].tolist(),
                name=f"{outcome} ({int(counts.get(outcome, 0))})",
                mode="markers",
                marker={
                    "color": colour,
                    "opacity": 0.75,
                    "size": part["questions"].tolist(),
                    "sizemode": "area",
                    "sizeref": largest / 40**2,
                    "sizemin": 5,
                },
                # Scores of 0 and 1 lie on the plot's edges: a point sized by many questions is drawn whole.
                cliponaxis=False,
                customdata=part[["questions", "examples"]].to_numpy(dtype=object),
                hovertemplate=f"%{{customdata[0]}} questions: %{{customdata[1]}}<br>{html.escape(b)} %{{x:.3f}}, "
                f"{html.escape(a)} %{{y:.3f}}<extra></extra>",
            )
        )
    figure.update_layout(
        title={"text": f"{html.escape(label)} per question: {html.escape(a)} against {html.escape(b)}"},
        xaxis={"range": [-0.05, 1.05], "title": {"text": html.escape(b)}},
        yaxis={"range": [-0.05, 1.05], "title": {"text": html.escape(a)}},
        # Legend markers of one size: sized by their points' counts, most were drawn a pixel or two wide.
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0, "itemsizing": "constant"},
        margin={"t": 100},
    )
    return finish(figure, height=480, margin={"t": 100})
