"""Overview: the metric@k grid of every configuration, a pivot over two parameters, metric-vs-k curves."""

from __future__ import annotations

import streamlit as st

from contextgrid.grid import best_per_column, metric_curves, parameter_columns, pivot_grid, score_columns
from contextgrid.markup import escape_markdown as md
from contextgrid.metrics import BUILTIN_METRICS, DEFAULT_KS
from contextgrid.plots.grid import curves_plot, grid_heatmap, pivot_heatmap
from pages import _data, _state

st.title("Overview")
root = _data.chosen_root(__file__)

grid = _data.guard(lambda: _data.grid(root), root=root)
scores = grid[score_columns(grid)]
best = best_per_column(grid)
workspace = _data.guard(lambda: _data.workspace(root), root=root)
st.caption(f"Workspace {md(workspace.name)}: {len(grid)} configurations. ★ marks the best value in each column.")

st.subheader("metric@k grid")
st.dataframe(
    scores.style.format("{:.4f}").highlight_max(axis=0, props="font-weight: bold; background-color: #d9f0d3"),
    width="stretch",
)
st.plotly_chart(grid_heatmap(scores, best), width="stretch")
st.download_button(
    "Download the grid as CSV",
    grid.to_csv().encode(),
    file_name=f"{workspace.name}-grid.csv",
    mime="text/csv",
)

left, right = st.columns(2)
with left:
    st.subheader("Two parameters at once")
    params = list(parameter_columns(grid, varying=True))
    if len(params) < 2:
        st.info("A pivot needs two parameters that vary across configurations.")
    else:
        metric = _state.choose("Metric", list(BUILTIN_METRICS), "metric", default=len(BUILTIN_METRICS) - 1)
        k = _state.choose("k", list(DEFAULT_KS), "k", default=3)
        rows = st.selectbox("Rows", params, index=params.index("size") if "size" in params else 0)
        others = [name for name in params if name != rows]
        columns = st.selectbox("Columns", others, index=others.index("retriever") if "retriever" in others else 0)
        label = f"{metric}@{k}"
        st.plotly_chart(pivot_heatmap(pivot_grid(grid, label, rows=rows, columns=columns), label), width="stretch")
with right:
    st.subheader("Metric against k")
    curve_metric = st.selectbox("Metric to follow over k", list(BUILTIN_METRICS), index=0)
    st.plotly_chart(curves_plot(metric_curves(grid, curve_metric), curve_metric), width="stretch")
