"""Questions: per-question scores and causes of one configuration, worst first, and a drill-down into one
question that says what happened to it.

Every filter is in the URL, so a shared link reopens the same list; a link naming a configuration, cause or
question the workspace does not have says so.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from contextgrid.analysis.causes import CAUSES
from contextgrid.analysis.questions import SIGNAL_FILTERS, question_label
from contextgrid.metrics import BUILTIN_METRICS, DEFAULT_K, DEFAULT_KS
from contextgrid.render.markup import escape_markdown as md
from pages import _data, _loading, _state

st.title("Questions")
source = _data.chosen_source(__file__)
# One version of the source's content for the whole run: each fingerprint walks every file of a folder.
at = _data.guard(lambda: _loading.snapshot(source), source=source)

workspace = _data.usable_workspace(at)
notice = st.empty()
left, middle, right = st.columns(3)
with left:
    config = _state.choose("Configuration", list(workspace.names), "config")
with middle:
    k = _state.choose("k", list(DEFAULT_KS), "k", default=DEFAULT_KS.index(DEFAULT_K))
with right:
    metric = _state.choose("Metric", list(BUILTIN_METRICS), "metric", default=len(BUILTIN_METRICS) - 1)

table = _data.guard(lambda: _data.question_list(at, config, k), source=source)
label = f"{metric}@{k}"
has_causes = "cause" in table.columns
_state.report_unknown(
    {
        "config": workspace.names,
        "k": {str(value) for value in DEFAULT_KS},
        "metric": BUILTIN_METRICS,
        "cause": CAUSES if has_causes else (),
        "signals": SIGNAL_FILTERS if has_causes else (),
        "question": table.index,
    },
    names={
        "config": "configuration",
        "k": "k",
        "metric": "metric",
        "cause": "cause",
        "signals": "signal",
        "question": "question",
    },
    container=notice,
)

filters = st.columns(5)
failing_only = _state.checkbox(
    f"Only failing at k={k}", "failing", container=filters[0], help=f"No relevant chunk in the top {k}."
)
threshold = _state.slider(
    f"{label} at most", "at_most", low=0.0, high=1.0, default=1.0, step=0.05, container=filters[1]
)
search = _state.text_input("Question id contains", "contains", container=filters[2])
causes: list[str] = []
signals: list[str] = []
if has_causes:
    causes = _state.choose_many("Cause", list(CAUSES), "cause", default=[], container=filters[3])
    signals = _state.choose_many("Signals (all of)", list(SIGNAL_FILTERS), "signals", default=[], container=filters[4])
else:
    missing = _data.guard(lambda: _data.missing_evidence(at), source=source)
    filters[3].caption(f"No causes: the workspace has no {md(', no '.join(missing))}.")
shown = _data.guard(
    lambda: _data.filtered_questions(
        source,
        config,
        k,
        label=label,
        at_most=threshold,
        failing_only=failing_only,
        contains=search,
        causes=tuple(causes),
        signals=tuple(signals),
    ),
    source=source,
)

st.caption(f"{len(shown)} of {len(table)} questions, worst first.")
if has_causes:
    st.caption(
        f"Signals at k={k} (docs/diagnosing-failures.md has each rule): retrieved, the chunks the ranking holds; "
        "gold_recall_at_k, the share of the gold the top k holds (partial below half); vocabulary_gap, a lexical "
        "gap (lexical retrievers only); gold_density and diluted, the gold's share of the chunk holding most of it; "
        "distractors, chunks above the gold closer to the question or repeating the gold; smallest_k and "
        "smallest_budget (characters), where this configuration would get it; hit_elsewhere, the other "
        "configurations that get it right."
    )
# A signal that does not apply (gold_recall_at_k of a miss or of no gold) is missing: blank, not Streamlit's "None".
st.dataframe(shown, width="stretch", placeholder="")

if shown.empty:
    st.stop()
st.subheader("One question")
offered = _state.offered_questions(list(shown.index), table.index)
if len(shown) > _state.QUESTIONS_OFFERED:
    st.caption(
        f"The list below offers the first {_state.QUESTIONS_OFFERED} rows; filter the table to reach the others."
    )
texts = _data.question_texts(at) or {}
question = _state.choose("Question", offered, "question", format_func=lambda q: question_label(q, texts.get(q)))

said = _data.guard(lambda: _data.explanation(at, config, question, k), source=source)
if said is not None:
    st.markdown(f"**{md(said)}**")
row = table.loc[question]
rank = row["first_relevant_rank"]
st.metric("Rank of the first relevant chunk", "none retrieved" if pd.isna(rank) else int(rank))

entry = _data.guard(lambda: _data.item(at, question), source=source)
if entry is not None:
    st.text(entry.question)
    documents = _data.guard(lambda: _data.documents(at), source=source)
    for gold in entry.gold:
        st.caption(f"Gold evidence, grade {gold.grade}: {md(gold.span.doc_id)} \\[{gold.span.start}, {gold.span.end})")
        if documents is not None and gold.span.doc_id in documents:
            st.text(documents[gold.span.doc_id][gold.span.start : gold.span.end])
    if not entry.is_resolved:
        st.warning("This question's gold evidence was not found in the documents.")

st.caption(f"What {md(config)} returned (top 20):")
st.dataframe(
    _data.guard(lambda: _data.ranking(at, config, question, 20), source=source), width="stretch", placeholder=""
)

if has_causes:
    right_ones = _data.guard(lambda: _data.right_elsewhere(at, question, k, config), source=source)
    if right_ones:
        st.caption(f"Configurations that get it right at k={k} (a relevant chunk in the top {k}):")
        opened = st.selectbox("Open it under", right_ones, key="right_elsewhere")
        st.button("Open this question there", on_click=_state.change, args=("config", opened))
    else:
        st.caption(f"No other configuration gets it right at k={k}.")
also = _data.guard(lambda: _data.failing_elsewhere(at, question, k, config), source=source)
st.caption(
    f"Other configurations that miss it at k={k}: {md(', '.join(also))}"
    if also
    else "No other configuration misses it."
)
