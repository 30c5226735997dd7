"""Questions: per-question scores of one configuration, worst first, and a drill-down into one question."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from contextgrid.metrics import BUILTIN_METRICS, DEFAULT_KS
from contextgrid.render.markup import escape_markdown as md
from pages import _data, _loading, _state

QUESTIONS_OFFERED = 200

st.title("Questions")
source = _data.chosen_source(__file__)

workspace = _data.guard(lambda: _loading.workspace(source), source=source)
left, middle, right = st.columns(3)
with left:
    config = _state.choose("Configuration", list(workspace.names), "config")
with middle:
    k = _state.choose("k", list(DEFAULT_KS), "k", default=3)
with right:
    metric = _state.choose("Metric", list(BUILTIN_METRICS), "metric", default=len(BUILTIN_METRICS) - 1)

table = _data.guard(lambda: _data.question_table(source, config, k), source=source)
label = f"{metric}@{k}"

filters = st.columns(3)
failing_only = filters[0].checkbox(f"Only failing at k={k} (no relevant chunk in the top {k})")
threshold = filters[1].slider(f"{label} at most", 0.0, 1.0, 1.0, 0.05)
search = filters[2].text_input("Question id contains")
shown = _data.guard(
    lambda: _data.filtered_questions(
        source, config, k, label=label, at_most=threshold, failing_only=failing_only, contains=search
    ),
    source=source,
)

st.caption(f"{len(shown)} of {len(table)} scored questions, worst first.")
st.dataframe(shown, width="stretch")

if shown.empty:
    st.stop()
st.subheader("One question")
# A select box of thousands of options is slow to draw and no one scrolls it: offer the first rows of the
# table (and the remembered question); the filters above reach the rest.
offered = list(dict.fromkeys([*shown.index[:QUESTIONS_OFFERED], *_state.remembered("question", shown.index)]))
if len(shown) > QUESTIONS_OFFERED:
    st.caption(f"The list below offers the first {QUESTIONS_OFFERED} rows; filter the table to reach the others.")
question = _state.choose("Question", offered, "question")
row = table.loc[question]
rank = row["first_relevant_rank"]
st.metric("Rank of the first relevant chunk", "none retrieved" if pd.isna(rank) else int(rank))

entry = _data.guard(lambda: _data.item(source, question), source=source)
if entry is not None:
    st.text(entry.question)
    texts = _data.guard(lambda: _data.documents(source), source=source)
    for gold in entry.gold:
        st.caption(f"Gold evidence, grade {gold.grade}: {md(gold.span.doc_id)} \\[{gold.span.start}, {gold.span.end})")
        if texts is not None and gold.span.doc_id in texts:
            st.text(texts[gold.span.doc_id][gold.span.start : gold.span.end])
    if not entry.is_resolved:
        st.warning("This question's gold evidence was not found in the documents.")

st.caption(f"What {md(config)} returned (top 20):")
st.dataframe(_data.guard(lambda: _data.ranking(source, config, question, 20), source=source), width="stretch")

also = _data.guard(lambda: _data.failing_elsewhere(source, question, k, config), source=source)
st.caption(
    f"Other configurations that miss it at k={k}: {md(', '.join(also))}"
    if also
    else "No other configuration misses it."
)
