"""Figures of the metric@k grid: heatmaps, a pivot over two parameters, metric-against-k curves and a
per-question scatter of two configurations; plotly figures, styled by :mod:`contextgrid.render.style`.

User text (configuration and question ids, parameter names and values) is HTML-escaped wherever plotly
draws it, since plotly renders a subset of HTML in labels and hover text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from contextgrid.render.style import MARKS, escaped, finish, heading, legend_key, marks, plot_text, rows_height

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
            colorbar={"title": {"text": "score", "side": "right"}},
            xgap=1,
            ygap=1,
            hovertemplate="%{y}<br>%{x}: %{z:.4f} %{text}<extra></extra>",
        )
    )
    title, top = heading("metric@k by configuration (★ best in column)")
    # The column labels stand upright above the plot, under the title: the top margin holds both (about 0.6 of
    # the 13-pixel font per character). Upright, each takes a column's width at most; slanted, the boxes of 30
    # neighbouring labels overlapped.
    labels_height = int(max(map(len, labels), default=0) * 13 * 0.6) + 16
    figure.update_layout(
        title=title,
        xaxis={"type": "category", "tickangle": -90, "side": "top"},
        yaxis={"type": "category", "autorange": "reversed", "tickfont": {"size": 11}},
    )
    return finish(
        figure, height=rows_height(len(configs), chrome=190) + labels_height, margin={"t": top + labels_height}
    )


def pivot_heatmap(
    pivot: pd.DataFrame, label: str, counts: pd.DataFrame | None = None, *, averaged_over: Sequence[str] = ()
) -> Any:
    """A :func:`contextgrid.analysis.grid.pivot_grid` table as a heatmap, each cell labelled with its value
    and, from ``counts`` (:func:`contextgrid.analysis.grid.pivot_counts`), "mean of n" where it averages n
    configurations; the subtitle says so, and names ``averaged_over``, the parameters those configurations
    differ in (a recursive and a fixed-size chunker of one size in one cell).

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.render.grid_charts import pivot_heatmap
    >>> pivot = pd.DataFrame([[0.25, None]], index=pd.Index([256], name="size"),
    ...                      columns=pd.Index(["bm25", "dense"], name="retriever"))
    >>> counts = pd.DataFrame([[3, 0]], index=pivot.index, columns=pivot.columns)
    >>> figure = pivot_heatmap(pivot, "ndcg@10", counts, averaged_over=["chunker"])
    >>> print(figure.layout.title.text.replace("<br>", chr(10)))
    ndcg@10 by size × retriever
    <sup>a cell marked “mean of n” averages n configurations, which differ in chunker</sup>
    >>> figure.data[0].text
    (['0.250<br>mean of 3', ''],)
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
            "" if np.isnan(value) else f"{value:.3f}" + (f"<br>mean of {count}" if count > 1 else "")
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
            colorbar={"title": {"text": plot_text(label), "side": "right"}},
            xgap=2,
            ygap=2,
            hovertemplate=f"{plot_text(rows)} %{{y}}<br>{plot_text(columns)} %{{x}}<br>"
            f"{plot_text(label)} %{{z:.4f}}, the mean of %{{customdata}} configurations<extra></extra>",
        )
    )
    differ = f", which differ in {plot_text(', '.join(map(str, averaged_over)))}" if averaged_over else ""
    subtitle = (
        f"a cell marked “mean of n” averages n configurations{differ}"
        if counts is not None and (averaged > 1).any()
        else ""
    )
    title, top = heading(f"{plot_text(label)} by {plot_text(rows)} × {plot_text(columns)}", subtitle, chars=90)
    figure.update_layout(
        title=title,
        xaxis={"type": "category", "title": {"text": plot_text(columns)}},
        yaxis={"type": "category", "title": {"text": plot_text(rows)}},
    )
    return finish(figure, height=rows_height(len(pivot), chrome=200) + 20 * len(pivot), margin={"t": top})


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
                name=plot_text(name),
                mode="lines+markers",
                line={"color": mark.colour, "dash": mark.dash, "width": 2},
                marker={"color": mark.colour, "symbol": mark.symbol, "size": 8},
                showlegend=not by_parameters,
                hovertemplate=f"{plot_text(name)}<br>k = %{{x}}: {plot_text(metric)} %{{y:.4f}}<extra></extra>",
            )
        )
    if by_parameters:
        figure.add_traces(legend_key(channels, drawn, given, lines=True))
    cut = f" (the first {MARKS} of {len(names)} configurations)" if len(names) > MARKS else ""
    figure.update_layout(
        title={"text": f"{plot_text(metric)} against k{cut}"},
        xaxis={"type": "log", "tickvals": ks, "ticktext": [str(k) for k in ks], "title": {"text": "k (log scale)"}},
        yaxis={"range": [0, 1.02], "title": {"text": plot_text(metric)}},
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
    pairs = pd.DataFrame({"a": changes[a].to_numpy(dtype=float), "b": changes[b].to_numpy(dtype=float)})
    # One point per distinct pair of scores, in order of first appearance (the biggest changes first): its first
    # question's outcome, its size, and its first questions' ids, the only ones escaped and joined (groupby's
    # agg and head over every question were three quarters of the figure's 0.13 s at 10,000 questions).
    grouped = pairs.groupby(["a", "b"], sort=False)
    numbered = grouped.ngroup()
    kept = numbered.notna().to_numpy()  # a missing score is in no group, as groupby leaves it out
    group, rank = numbered.fillna(-1).to_numpy(dtype=np.int64), grouped.cumcount().fillna(-1).to_numpy(dtype=np.int64)
    firsts = np.flatnonzero(kept & (rank == 0))
    sizes = np.bincount(group[kept], minlength=len(firsts))
    shown = np.flatnonzero(kept & (rank < EXAMPLES_SHOWN))
    names: list[list[str]] = [[] for _ in firsts]
    for place, question in zip(group[shown].tolist(), changes.index[shown], strict=True):
        names[place].append(plot_text(str(question)))
    flat = pd.DataFrame(
        {
            "a": pairs["a"].to_numpy()[firsts],
            "b": pairs["b"].to_numpy()[firsts],
            "outcome": changes["outcome"].to_numpy()[firsts],
            "questions": sizes,
            "examples": [
                ", ".join(examples) + (" …" if size > EXAMPLES_SHOWN else "")
                for examples, size in zip(names, sizes.tolist(), strict=True)
            ],
        }
    )
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
                hovertemplate=f"%{{customdata[0]}} questions: %{{customdata[1]}}<br>{plot_text(b)} %{{x:.3f}}, "
                f"{plot_text(a)} %{{y:.3f}}<extra></extra>",
            )
        )
    title, top = heading(f"{plot_text(label)} per question: {plot_text(a)} against {plot_text(b)}")
    figure.update_layout(
        title=title,
        xaxis={"range": [-0.05, 1.05], "title": {"text": plot_text(b)}},
        yaxis={"range": [-0.05, 1.05], "title": {"text": plot_text(a)}},
        # Below the plot, where it meets neither the title nor a point; markers of one size: sized by their
        # points' counts, most were drawn a pixel or two wide.
        legend={"orientation": "h", "yref": "container", "yanchor": "bottom", "y": 0, "x": 0, "itemsizing": "constant"},
    )
    return finish(figure, height=520, margin={"t": top, "b": 80})
