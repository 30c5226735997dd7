"""Answers: how each configuration's generated answers did, and why one of them went wrong."""

from __future__ import annotations

import streamlit as st

from contextgrid.answering.batch import SCORE_COLUMNS
from contextgrid.render.answer_html import ANSWER_MARKS, answer_html
from contextgrid.render.markup import escape_markdown as md
from pages import _data, _loading, _state
from pages._columns import headed_columns

SUMMARY_HEADINGS: dict[str, tuple[str, str, str | None]] = {
    "answers": ("answers", "Every answer, abstentions too: answered plus abstained", "%d"),
    "answered": ("answered", "The answers that did not abstain, over which the means are taken", "%d"),
    "groundedness": ("grounded", "Mean groundedness: the share of an answer's words found in its context", "%.4f"),
    "citation_accuracy": (
        "citation acc.",
        "Mean citation accuracy: the share of the distinct passage numbers an answer cites that name a passage of "
        "its context (answers citing nothing left out)",
        "%.4f",
    ),
    "evidence_overlap": (
        "overlap",
        "Mean evidence overlap: the share of the gold chunks' words an answer used",
        "%.4f",
    ),
    "abstained": ("abstained", "Answers that abstained", "%d"),
    "should_have_abstained": (
        "should have abstained",
        "Questions that called for abstaining: unresolved gold, or an empty context",
        "%d",
    ),
    "correct_refusals": ("right refusals", "Abstained when it should have: abstained minus wrong refusals", "%d"),
    "wrong_refusals": ("wrong refusals", "Abstained when there was evidence to answer from", "%d"),
    "unwarranted_answers": ("unwarranted", "Answered when there was nothing to answer from", "%d"),
}
"""Each column of the per-configuration table: its heading, what it holds and how its numbers are written."""

ANSWER_HEADINGS: dict[str, tuple[str, str, str | None]] = {
    "groundedness": ("grounded", "The share of the answer's words found in its context", "%.4f"),
    "citation_accuracy": (
        "citation acc.",
        "The share of the distinct passage numbers the answer cites that name a passage of its context (empty: it "
        "cites nothing)",
        "%.4f",
    ),
    "evidence_overlap": ("overlap", "The share of the gold chunks' words the answer used", "%.4f"),
    "abstained": ("abstained", "Ticked when the answer abstained", None),
    "should_have_abstained": ("should have abstained", "Ticked when the question called for abstaining", None),
    "problems": ("problems", "How many problems scoring found (listed under One answer)", "%d"),
}
"""Each score column of the worst-answers table: its heading, what it holds and how its numbers are written
(``None``: a tick)."""

FEWER_COLUMNS = ("answers", "should_have_abstained", "correct_refusals")
"""The columns the per-configuration table hides unless asked: each follows from those shown (answers = answered +
abstained, right refusals = abstained - wrong refusals, should have abstained = right refusals + unwarranted),
and with them the table scrolled sideways at 1440 px. "should have abstained" is the matrix's name for its rows
too: one term for one thing on the page."""

st.title("Answers")
source = _data.chosen_source(__file__)
# One version of the source's content for the whole run: each fingerprint walks every file of a folder.
at = _data.guard(lambda: _loading.snapshot(source), source=source)

_data.usable_workspace(at)
failed = _data.guard(lambda: _data.unreadable_answers(at), source=source)
if failed:
    _data.warn_unreadable(
        failed,
        f"The answers of {len(failed)} configuration{'s' if len(failed) > 1 else ''} could not be read and "
        f"{'are' if len(failed) > 1 else 'is'} left out of this page",
        source=source,
    )
configs = _data.guard(lambda: _data.answer_configs(at), source=source)
if failed and not configs:
    st.stop()
if not configs:
    st.info(
        'No configuration of this workspace has answers. Add answers = "answers/NAME.jsonl" to a [[config]] of '
        "its contextgrid.toml: one JSON object per line with question_id, answer, citations and context_chunk_ids."
    )
    st.stop()

st.subheader("Per configuration")
summary = _data.guard(lambda: _data.answer_summary(at), source=source)
every_column = _state.checkbox(
    "Every column",
    "answer_columns",
    help="Also answers, should have abstained and right refusals, which follow from the columns shown by default",
)
hidden = (
    ""
    if every_column
    else ' The columns "answers", "should have abstained" and "right refusals" are hidden: tick Every column.'
)
st.caption(
    "Means over the answers that did not abstain (citation accuracy also leaves out answers that cite nothing); "
    f"counts over every answer. A heading's help says what its column holds.{hidden}"
)
# Short headings, so that the table fits a 1440-px window without scrolling; each one's help gives the library's
# name. The columns hidden by default are one tick away.
headings = headed_columns(SUMMARY_HEADINGS, index=summary.index)
st.dataframe(
    summary,
    width="stretch",
    column_config=headings,
    column_order=[name for name in summary.columns if every_column or name not in FEWER_COLUMNS],
    placeholder="",
)

config = _state.choose("Configuration", configs, "config")
table = _data.guard(lambda: _data.answer_table(at, config), source=source)

left, right = st.columns([1, 2])
with left:
    st.caption("Abstained (columns) against should have abstained (rows)")
    st.dataframe(_data.guard(lambda: _data.abstentions(at, config), source=source), placeholder="")
with right:
    mistakes = _data.guard(lambda: _data.abstention_mistakes(at, config), source=source)
    st.metric(
        "Abstention mistakes",
        f"{mistakes} of {len(table)}",
        help="Wrong refusals (abstained with evidence to answer from) plus unwarranted answers (answered with "
        "nothing to answer from): the two cells off the diagonal of the table beside this.",
    )

st.subheader("Worst answers first")
shown = [*SCORE_COLUMNS, "invalid_citations", "answer"]
# The per-configuration table's short headings, so that the answer's text starts within a 1440-px window.
answer_headings = headed_columns(ANSWER_HEADINGS)
answer_headings["invalid_citations"] = st.column_config.ListColumn(
    "bad citations", help="Cited passage numbers the context does not have (`invalid_citations`)"
)
# The text takes what the score columns leave of a 1440-px window (hovering a cell shows all of it).
answer_headings["answer"] = st.column_config.TextColumn("answer", help="The answer's text", width=276)
st.dataframe(table[shown], width="stretch", column_config=answer_headings, placeholder="")

if table.empty:
    st.stop()
st.subheader("One answer")
if len(table) > _state.QUESTIONS_OFFERED:
    st.caption(
        f"The list below offers the {_state.QUESTIONS_OFFERED} worst answers (and a question chosen elsewhere); the "
        "table above holds them all."
    )
question = _state.choose("Question", _state.offered_questions(list(table.index), table.index), "question")
entry = _data.guard(lambda: _data.scored_answer(at, config, question), source=source)
st.text(entry.item.question)
st.html(answer_html(entry.record.answer.text, entry.context))
st.caption(" · ".join(f"{name}: {meaning}" for name, meaning in ANSWER_MARKS.items()))

bad = _data.guard(lambda: _data.bad_citations(at, config, question), source=source)
if bad:
    st.warning(
        f"Cites passage(s) {', '.join(map(str, bad))}, but the context held {len(entry.context.chunks)} passage(s).",
        icon=":material/link_off:",
    )
for warning in entry.score.warnings:
    st.caption(f"- {md(warning)}")

st.caption(
    f"The context: {len(entry.context.chunks)} passage(s), {entry.context.tokens} tokens; "
    f"gold chunks of this question: {md(', '.join(entry.gold_chunk_ids)) or 'none'}"
)
st.dataframe(
    _data.guard(lambda: _data.passages(at, config, question), source=source),
    width="stretch",
    # The text takes what the other columns leave of a 1440-px window (hovering a cell shows all of it).
    column_config={"text": st.column_config.TextColumn("text", width=280)},
    placeholder="",
)
