"""Overview: first the verdict at an equal context budget (which configuration gives the model the most
evidence for the characters it can afford) with every configuration's curve, then the metric@k grid of every
configuration, a pivot over two parameters, metric-vs-k curves, and why questions fail, each bar of which opens
the Questions page filtered on it.

Each view is a tab that runs only when it is open (its name is in the URL as
``view``), so the page costs one table to draw until a chart is asked for.
"""

from __future__ import annotations

import streamlit as st

from contextgrid.metrics import BUILTIN_METRICS, DEFAULT_K, DEFAULT_KS
from contextgrid.render.cause_figures import cause_bars, selected_bar
from contextgrid.render.export import image_config
from contextgrid.render.grid_charts import curves_plot, grid_heatmap, pivot_heatmap
from contextgrid.render.markup import escape_markdown as md
from pages import _data, _loading, _state

st.title("Overview")
source = _data.chosen_source(__file__)

# One version of the folder's content for the whole run: each fingerprint walks every file.
at = _data.guard(lambda: _loading.snapshot(source), source=source)
declared = _data.guard(lambda: _loading.declared(at), source=source)
caption = st.empty()
if not _data.guard(lambda: _loading.scored(at), source=source):
    # Only a line while the runs are read: on two cores, drawing more now would slow the scoring it waits for.
    caption.caption(f"Scoring {len(declared.configs)} configurations …")
workspace = _data.usable_workspace(at)
grid = _data.guard(lambda: _data.grid(at), source=source)
caption.caption(f"Workspace {md(workspace.name)}: {len(workspace.configs)} configurations.")

# The answer first: at an equal budget of characters, not at an equal k (which rewards big chunks).
st.subheader("Most evidence for the context the model can afford")
lacking = _data.missing_evidence(at)
if lacking:
    verdict_line = None
    st.info(
        f"The verdict at an equal context budget needs questions, documents and chunks; {md(workspace.name)} has "
        f"no {md(', no '.join(lacking))}. The metric@k grid below compares configurations at an equal number of "
        "chunks, which favours big chunks."
    )
elif _data.attempt(lambda: _data.budget_means(at), source=source) is None:
    # A file the budget cannot use (chunks that do not match a run) is said above; the grid still draws.
    verdict_line = None
else:
    # Filled once the figure and the grid are drawn: the paired tests take longest, and the figure needs none.
    verdict_line = st.empty()
    verdict_line.caption("Testing the best configuration at each budget against the runner-up …")
    st.plotly_chart(
        _data.budget_figure(at),
        theme=None,
        config=image_config("evidence-at-equal-budgets"),
    )
    st.caption(
        "Each configuration gets the same budget of characters: its chunks in rank order, while they fit. Evidence "
        "recall is the share of the gold characters inside them; the grey line is the frontier, the most evidence "
        "for the characters sent. Comparing at an equal k instead rewards bigger chunks."
    )

table, heatmap, pivot, curves, causes = st.tabs(
    ["metric@k grid", "Heatmap", "Two parameters at once", "Metric against k", "Why questions fail"],
    key="view",
    bind="query-params",
)
if table.open:
    with table:
        shown_metrics = _state.choose_many(
            "Metrics in the grid", list(BUILTIN_METRICS), "metrics", default=list(BUILTIN_METRICS[:2])
        )
        if shown_metrics:
            st.caption("The best value in each column is in bold on green. Choose the metrics to show above.")
            st.dataframe(_data.grid_styler(at, shown_metrics), width="stretch", placeholder="")
        else:
            st.info("Choose at least one metric to show the grid; the CSV below has them all.")
        st.download_button(
            "Download the grid as CSV",
            grid.to_csv().encode(),
            file_name=f"{workspace.name}-grid.csv",
            mime="text/csv",
        )
if heatmap.open:
    with heatmap:
        st.plotly_chart(grid_heatmap(_data.scores(at), _data.best(at)), theme=None, config=image_config("grid-heatmap"))
if pivot.open:
    with pivot:
        params = _data.varying_parameters(at)
        if len(params) < 2:
            st.info("A pivot needs two parameters that vary across configurations.")
        else:
            left, middle, right, last = st.columns(4)
            with left:
                metric = _state.choose("Metric", list(BUILTIN_METRICS), "metric", default=len(BUILTIN_METRICS) - 1)
            with middle:
                k = _state.choose("k", list(DEFAULT_KS), "k", default=DEFAULT_KS.index(DEFAULT_K))
            rows = right.selectbox("Rows", params, index=params.index("size") if "size" in params else 0)
            others = [name for name in params if name != rows]
            columns = last.selectbox("Columns", others, index=others.index("retriever") if "retriever" in others else 0)
            label = f"{metric}@{k}"
            # The cells average the configurations that differ in the other parameters: the figure names them.
            drawn = pivot_heatmap(
                _data.pivot(at, label, rows, columns),
                label,
                _data.pivot_counts(at, rows, columns),
                averaged_over=[name for name in params if name not in (rows, columns)],
            )
            st.plotly_chart(drawn, theme=None, config=image_config(f"{label}-by-{rows}-and-{columns}"))
if curves.open:
    with curves:
        curve_metric = st.selectbox("Metric to follow over k", list(BUILTIN_METRICS), index=0)
        drawn = curves_plot(_data.curves(at, curve_metric), curve_metric, _data.parameters(at))
        st.plotly_chart(drawn, theme=None, config=image_config(f"{curve_metric}-against-k"))
if causes.open:
    with causes:
        missing = _data.guard(lambda: _data.missing_evidence(at), source=source)
        if missing:
            st.info(
                f"Naming why questions fail needs questions, documents and chunks; {md(workspace.name)} has no "
                f"{md(', no '.join(missing))}."
            )
        else:
            cause_k = _state.choose("k", list(DEFAULT_KS), "k", default=DEFAULT_KS.index(DEFAULT_K))
            counts = _data.guard(lambda: _data.causes_by_configuration(at, cause_k), source=source)
            st.caption(
                f"Each question of the questions file under each configuration, by the first rule that names its "
                f"cause at k={cause_k}. Click a bar to list its questions."
            )
            event = st.plotly_chart(
                cause_bars(counts, cause_k),
                theme=None,
                config=image_config(f"causes-at-{cause_k}"),
                on_select="rerun",
                selection_mode="points",
                key="cause_bars",
            )
            best_each = _data.guard(lambda: _data.oracle(at, cause_k), source=source)
            st.markdown(md(best_each.sentence(cause_k)))
            # Audited only once opened: the audit reads every chunking and run again, seconds at scale, which the
            # causes above should not wait for.
            audit = st.expander("Audit of the gold (contextgrid audit)", key="gold_audit", on_change="rerun")
            if audit.open:
                with audit:
                    findings = _data.guard(lambda: _data.gold_audit(at), source=source)
                    st.caption(
                        f"{len(findings):,} findings. Repeated questions, gold never found in the documents, each "
                        "document's share of the gold, and retrieved chunks that may be unlabelled copies of a gold "
                        "passage: listed, never re-scored."
                    )
                    st.dataframe(findings, width="stretch", hide_index=True, placeholder="")
            clicked = selected_bar(event.selection, list(counts.index))
            if clicked is not None:
                # The list then holds exactly the bar's questions: the Questions page's other filters are cleared.
                _state.remember("config", clicked[0])
                _state.remember("cause", clicked[1])
                _state.remember("failing", "false")
                _state.remember("at_most", 1.0)
                _state.remember("contains", "")
                _state.remember("signals", [])
                # The tab's ``view`` is bound to the URL, which switch_page may not clear: every other choice goes.
                chosen = {key: value for key, value in st.query_params.to_dict().items() if key != "view"}
                st.switch_page("pages/questions.py", query_params=chosen)

if verdict_line is not None:
    verdict = _data.guard(lambda: _data.budget_verdict(at), source=source)
    verdict_line.markdown(f"**{md(verdict.sentence())}**")
