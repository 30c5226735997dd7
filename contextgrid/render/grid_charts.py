"""Figures of the metric@k grid as Vega-Lite specifications: heatmaps, a pivot over
two parameters, metric-vs-k curves and a per-question scatter of two configurations.

They are Vega-Lite, not plotly, because the dashboard draws them on every visit
of its busiest pages and a browser draws these several times faster (plotly.js
alone is 4.7 MB to load). Each function returns a plain dict with its data
inline: ``st.vega_lite_chart(spec=...)`` draws it, ``json.dumps`` saves it.

User text (configuration and question ids, parameter names) goes only into data
values and titles, which Vega draws as text, never as HTML or as field names
(a ``.`` or ``[`` in a field name would be read as a path).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from contextgrid.render.vega import Spec, chart, number

__all__ = ["EXAMPLES_SHOWN", "OUTCOME_COLOURS", "curves_plot", "grid_heatmap", "pair_scatter", "pivot_heatmap"]

_SCALE = {"scheme": "viridis", "domain": [0, 1]}
# Every label shown in full: a heatmap with every other row named cannot be read.
_AXIS = {"labelOverlap": False, "labelLimit": 400}

OUTCOME_COLOURS: dict[str, str] = {"win": "#1a9850", "tie": "#7f7f7f", "loss": "#d73027"}
"""Point colour per outcome of A against B in :func:`pair_scatter`."""


def _cell_text(shown: str, text: Spec, **mark: Any) -> Spec:
    """A heatmap layer writing ``text`` in the cells where ``shown`` holds, dark on light cells, light on dark."""
    return {
        "mark": {"type": "text", **mark},
        "transform": [{"filter": shown}],
        "encoding": {
            "text": text,
            "color": {"condition": {"test": "datum.value > 0.6", "value": "black"}, "value": "white"},
        },
    }


def grid_heatmap(grid: pd.DataFrame, best: Mapping[str, Sequence[str]] | None = None) -> Spec:
    """Configurations (rows) x ``metric@k`` (columns), each cell coloured by its score; the best per
    column starred in the cell and named in the tooltip, which gives every score.

    ``grid`` holds only score columns (see :func:`contextgrid.analysis.grid.score_columns`);
    ``best`` is what :func:`contextgrid.analysis.grid.best_per_column` returns.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.render.grid_charts import grid_heatmap
    >>> grid = pd.DataFrame({"recall@5": [0.5, 0.75]}, index=["a", "b"])
    >>> spec = grid_heatmap(grid, {"recall@5": ["b"]})
    >>> for cell in spec["data"]["values"]:
    ...     print(cell)
    {'config': 'a', 'label': 'recall@5', 'value': 0.5, 'best': ''}
    {'config': 'b', 'label': 'recall@5', 'value': 0.75, 'best': '★'}
    """
    best = best or {}
    configs = [str(config) for config in grid.index]
    labels = [str(label) for label in grid.columns]
    values = grid.to_numpy(dtype=float)
    data = [
        {
            "config": config,
            "label": label,
            "value": number(values[row, column]),
            "best": "★" if config in best.get(label, ()) else "",
        }
        for row, config in enumerate(configs)
        for column, label in enumerate(labels)
    ]
    # Every label shown in full: a heatmap with every other row named cannot be read.
    return chart(
        "metric@k by configuration (★ best in column)",
        data,
        width="container",
        height={"step": 20},
        encoding={
            "x": {
                "field": "label",
                "type": "nominal",
                "sort": labels,
                "title": None,
                "axis": {**_AXIS, "labelAngle": -60},
            },
            "y": {"field": "config", "type": "nominal", "sort": configs, "title": None, "axis": _AXIS},
        },
        layer=[
            {
                "mark": "rect",
                "encoding": {
                    "color": {"field": "value", "type": "quantitative", "scale": _SCALE, "title": "score"},
                    "tooltip": [
                        {"field": "config", "type": "nominal"},
                        {"field": "label", "type": "nominal", "title": "metric@k"},
                        {"field": "value", "type": "quantitative", "format": ".4f"},
                        {"field": "best", "type": "nominal", "title": "best in column"},
                    ],
                },
            },
            _cell_text("datum.best !== ''", {"field": "best", "type": "nominal"}, fontSize=12),
        ],
    )


def pivot_heatmap(pivot: pd.DataFrame, label: str) -> Spec:
    """A :func:`contextgrid.analysis.grid.pivot_grid` table as a heatmap, each cell labelled with its value.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.render.grid_charts import pivot_heatmap
    >>> pivot = pd.DataFrame([[0.25, None]], index=pd.Index([256], name="size"),
    ...                      columns=pd.Index(["bm25", "dense"], name="retriever"))
    >>> spec = pivot_heatmap(pivot, "ndcg@10")
    >>> spec["title"]
    'ndcg@10 by size × retriever'
    >>> spec["data"]["values"]
    [{'row': '256', 'column': 'bm25', 'value': 0.25}, {'row': '256', 'column': 'dense', 'value': None}]
    """
    rows, columns = str(pivot.index.name), str(pivot.columns.name)
    row_values = [str(value) for value in pivot.index]
    column_values = [str(value) for value in pivot.columns]
    values = pivot.to_numpy(dtype=float)
    data = [
        {"row": row, "column": column, "value": number(values[i, j])}
        for i, row in enumerate(row_values)
        for j, column in enumerate(column_values)
    ]
    return chart(
        f"{label} by {rows} × {columns}",
        data,
        width="container",
        height={"step": 40},
        encoding={
            "x": {
                "field": "column",
                "type": "nominal",
                "sort": column_values,
                "title": columns,
                "axis": {**_AXIS, "labelAngle": 0},
            },
            "y": {"field": "row", "type": "nominal", "sort": row_values, "title": rows, "axis": _AXIS},
        },
        layer=[
            {
                "mark": "rect",
                "encoding": {
                    "color": {"field": "value", "type": "quantitative", "scale": _SCALE, "title": label},
                    "tooltip": [
                        {"field": "row", "type": "nominal", "title": rows},
                        {"field": "column", "type": "nominal", "title": columns},
                        {"field": "value", "type": "quantitative", "format": ".4f", "title": label},
                    ],
                },
            },
            _cell_text("datum.value !== null", {"field": "value", "type": "quantitative", "format": ".3f"}),
        ],
    )


def curves_plot(curves: pd.DataFrame, metric: str) -> Spec:
    """A :func:`contextgrid.analysis.grid.metric_curves` table: one line per configuration over k.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.render.grid_charts import curves_plot
    >>> curves = pd.DataFrame([[0.25, 0.6]], index=["bm25-200"], columns=[1, 5])
    >>> curves_plot(curves, "recall")["data"]["values"]
    [{'config': 'bm25-200', 'k': 1, 'value': 0.25}, {'config': 'bm25-200', 'k': 5, 'value': 0.6}]
    """
    ks = [int(k) for k in curves.columns]
    values = curves.to_numpy(dtype=float)
    data = [
        {"config": str(config), "k": k, "value": number(values[row, column])}
        for row, config in enumerate(curves.index)
        for column, k in enumerate(ks)
    ]
    legend_rows = -(-len(curves) // 3)
    return chart(
        f"{metric} against k",
        data,
        width="container",
        # Drawn to fit, legend included: room for the plot and one line per legend row.
        height=320 + 30 * legend_rows,
        mark={"type": "line", "point": True},
        encoding={
            "x": {"field": "k", "type": "ordinal", "sort": ks, "axis": {"labelAngle": 0}},
            "y": {"field": "value", "type": "quantitative", "scale": {"domain": [0, 1]}, "title": metric},
            "color": {
                "field": "config",
                "type": "nominal",
                "sort": [str(config) for config in curves.index],
                # Below the plot in columns: fifty configurations would not fit in one column beside it.
                "legend": {"orient": "bottom", "columns": 3, "labelLimit": 400, "symbolLimit": 0},
            },
            "tooltip": [
                {"field": "config", "type": "nominal"},
                {"field": "k", "type": "ordinal"},
                {"field": "value", "type": "quantitative", "format": ".4f", "title": metric},
            ],
        },
    )


EXAMPLES_SHOWN = 3
"""Question ids a point of :func:`pair_scatter` names in its tooltip; the count says how many it stands for."""


def pair_scatter(changes: pd.DataFrame, a: str, b: str, label: str) -> Spec:
    """Per-question scores of ``b`` (x) against ``a`` (y), from :func:`contextgrid.analysis.questions.question_changes`.

    Points above the diagonal are questions ``a`` wins. Questions with the
    same pair of scores share one point, sized by how many they are (scores
    are few distinct values: thousands of questions are often a few dozen
    points, drawn at once and without hiding one another); the tooltip gives
    the count and names the first questions in ``changes``' order.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.render.grid_charts import pair_scatter
    >>> changes = pd.DataFrame(
    ...     {"A": [1.0, 1.0, 0.0], "B": [0.5, 0.5, 0.0], "outcome": ["win", "win", "tie"]}, index=["q1", "q2", "q3"]
    ... )
    >>> for point in pair_scatter(changes, "A", "B", "recall@5")["data"]["values"]:
    ...     print(point)
    {'a': 1.0, 'b': 0.5, 'outcome': 'win (2)', 'questions': 2, 'examples': 'q1, q2'}
    {'a': 0.0, 'b': 0.0, 'outcome': 'tie (1)', 'questions': 1, 'examples': 'q3'}
    """
    counts = changes["outcome"].value_counts()
    # The legend counts each outcome: "win (12)".
    shown = {outcome: f"{outcome} ({int(counts.get(outcome, 0))})" for outcome in OUTCOME_COLOURS}
    pairs = pd.DataFrame(
        {
            "a": changes[a].to_numpy(),
            "b": changes[b].to_numpy(),
            "outcome": changes["outcome"].to_numpy(),
            "question": changes.index.astype(str).to_numpy(),
        }
    )
    # One point per distinct pair of scores, in order of first appearance (the biggest changes first).
    groups = pairs.groupby(["a", "b"], sort=False)
    points = groups.agg(outcome=("outcome", "first"), questions=("question", "size"))
    points["examples"] = groups.head(EXAMPLES_SHOWN).groupby(["a", "b"], sort=False)["question"].agg(", ".join)
    flat = points.reset_index()
    data = [
        {
            "a": number(score_a),
            "b": number(score_b),
            "outcome": shown[str(outcome)],
            "questions": int(size),
            "examples": examples + (" …" if size > EXAMPLES_SHOWN else ""),
        }
        for score_a, score_b, outcome, size, examples in zip(
            *(flat[column].tolist() for column in ("a", "b", "outcome", "questions", "examples")), strict=True
        )
    ]
    domain = [0, 1]
    return chart(
        f"{label} per question: {a} against {b}",
        data,
        width="container",
        height=420,
        layer=[
            {
                "mark": {"type": "circle", "opacity": 0.7},
                "encoding": {
                    "x": {"field": "b", "type": "quantitative", "scale": {"domain": domain}, "title": b},
                    "y": {"field": "a", "type": "quantitative", "scale": {"domain": domain}, "title": a},
                    "color": {
                        "field": "outcome",
                        "type": "nominal",
                        "scale": {"domain": list(shown.values()), "range": list(OUTCOME_COLOURS.values())},
                        "title": None,
                    },
                    "size": {
                        "field": "questions",
                        "type": "quantitative",
                        "scale": {"type": "sqrt", "range": [30, 900]},
                        "title": "questions",
                    },
                    "tooltip": [
                        {"field": "questions", "type": "quantitative"},
                        {"field": "examples", "type": "nominal"},
                        {"field": "b", "type": "quantitative", "format": ".3f", "title": b},
                        {"field": "a", "type": "quantitative", "format": ".3f", "title": a},
                    ],
                },
            },
            {
                # Its own one-row data: on the questions' data it would draw the diagonal once per point.
                "data": {"values": [{}]},
                "mark": {"type": "rule", "strokeDash": [4, 4], "color": "#999"},
                "encoding": {"x": {"datum": 0}, "y": {"datum": 0}, "x2": {"datum": 1}, "y2": {"datum": 1}},
            },
        ],
    )
