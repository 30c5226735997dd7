"""What the dashboard's cause views are built from: ids in natural order, the question list with its causes,
one sentence per cause, how causes move between two configurations, and the figure of causes."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
from functools import cache
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextgrid.analysis.causes import (
    CAUSES,
    CauseOracle,
    cause_counts,
    cause_oracle,
    cause_transitions,
    configurations_with,
    explain_cause,
    transition_sentence,
)
from contextgrid.analysis.questions import (
    SIGNAL_FILTERS,
    filter_questions,
    first_relevant_chunk,
    natural_key,
    natural_order,
    question_label,
    question_listing,
    question_scores,
)
from contextgrid.core.errors import ContextGridError
from contextgrid.render.cause_figures import BAR_ORDER, CAUSE_COLOURS, cause_bars, selected_bar
from contextgrid.render.style import SCREEN
from contextgrid.workspace.causes import failure_causes
from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.sample import SAMPLE


@cache
def sample_causes(k: int = 5) -> pd.DataFrame:
    return failure_causes(load_workspace(SAMPLE), k=k)


# -- natural order -----------------------------------------------------------------------------------------

ids = st.text(alphabet="aQq-_0123456789", max_size=8)


@settings(max_examples=300, deadline=None)
@given(st.lists(ids, unique=True, max_size=12))
def test_natural_order_is_a_total_order_that_never_ties_two_ids(names: list[str]) -> None:
    ordered = sorted(names, key=natural_key)
    keys = [natural_key(name) for name in ordered]
    assert all(a < b for a, b in itertools.pairwise(keys))  # strictly: no two ids share a key


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abq-", max_size=4), st.lists(st.integers(0, 10**6), unique=True, min_size=1, max_size=10))
def test_ids_that_differ_in_a_number_follow_the_number(prefix: str, numbers: list[int]) -> None:
    assert sorted((f"{prefix}{n}" for n in numbers), key=natural_key) == [f"{prefix}{n}" for n in sorted(numbers)]


def test_q2_comes_before_q10() -> None:
    assert sorted(["q10", "q2", "q1"], key=natural_key) == ["q1", "q2", "q10"]


_TEXT = st.text(alphabet="aAbBzZ-_ .éß", max_size=3)
_ID = st.one_of(
    st.builds(lambda text, number: f"{text}{number}", _TEXT, st.from_regex(r"[0-9]{1,20}", fullmatch=True)),
    st.builds(lambda text, number, tail: f"{text}{number}{tail}", _TEXT, st.integers(0, 999), _TEXT),
    st.text(alphabet="ab1٣", min_size=1, max_size=4),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ID, unique=True, max_size=12), st.booleans())
def test_ids_are_placed_as_their_natural_keys_sort_them(ids: list[str], plain: bool) -> None:
    # Plain ids (text, then at most 18 digits, in ASCII) take pyarrow's path, any other list natural_key's own.
    if plain:
        ascii_ids = (re.sub(r"[^A-Za-z0-9 ._-]", "x", each) for each in ids)
        ids = list(dict.fromkeys(each for each in ascii_ids if re.fullmatch(r"[^0-9]*[0-9]{1,18}", each)))
    place = natural_order(ids).tolist()
    by_place = [ids[position] for position in sorted(range(len(ids)), key=place.__getitem__)]
    assert by_place == sorted(ids, key=natural_key)


# -- the question list -------------------------------------------------------------------------------------


def test_the_list_puts_text_and_cause_beside_each_id_and_keeps_the_unscored_questions() -> None:
    workspace = load_workspace(SAMPLE)
    config = "bm25-recursive-200-0"
    table = sample_causes()
    causes = table.loc[table["config"] == config].set_index("question")["cause"]
    texts = {entry.id: entry.question for entry in workspace.questions}
    scores = question_scores(workspace.qrels(config), workspace.run(config), 5)
    listing = question_listing(scores, causes=causes, texts=texts)
    assert list(listing.columns[:2]) == ["text", "cause"]
    assert set(listing.index) == set(causes.index)  # 274: the 253 scored and the 21 without gold
    assert listing["cause"].dtype == causes.dtype
    assert (listing["failing"] == ~listing["cause"].isin(["hit", "partial", "no_gold"])).all()
    assert listing.loc["q001", "text"] == texts["q001"]
    assert (listing.loc[listing["cause"] == "no_gold", "recall@5"].isna()).all()
    assert list(filter_questions(listing, causes=["split"]).index) == list(causes.index[causes == "split"])


def test_the_list_breaks_ties_in_natural_order() -> None:
    scores = pd.DataFrame(
        {"recall@1": [0.0, 0.0, 0.0, 1.0], "failing": [True, True, True, False]},
        index=pd.Index(["q10", "q9", "q100", "q2"], name="question"),
    )
    assert list(question_listing(scores).index) == ["q9", "q10", "q100", "q2"]


def test_a_cause_filter_needs_a_cause_column() -> None:
    with pytest.raises(ContextGridError, match="no 'cause' column"):
        filter_questions(pd.DataFrame({"failing": [True]}, index=["q1"]), causes=["hit"])


def test_picker_labels_and_the_first_relevant_chunk() -> None:
    assert question_label("q$1*", "Fee?") == "q$1* — Fee?"
    assert first_relevant_chunk({"c2": 2}, ["c1", "c3"]) is None


# -- one sentence per cause --------------------------------------------------------------------------------

FIX = r"( What would fix it: .+\.)?$"

SENTENCES = {
    "no_gold": r"^This question has no gold evidence, so there is nothing to retrieve: it is not a failure\.$",
    "unresolved": r"^Its gold evidence was not found in the documents",
    "hit": r"^The first relevant chunk, \S+, is ranked \d+(st|nd|rd|th), within the top 5; \d+% of the top-5 text is "
    r"gold\.$",
    "partial": r"^The first relevant chunk, \S+, is ranked \d+\w\w, within the top 5, but the top 5 holds only \d+% of "
    r"the gold evidence \(less than half\): a sliver of it\." + FIX,
    "split": r"^No single chunk holds half of the gold evidence \(the best holds \d+%\): it is scattered over chunks "
    r"too small for it(; the first relevant chunk, \S+, is ranked \d+\w\w of the \d+ retrieved|, and no relevant "
    r"chunk was retrieved)\." + FIX,
    "ranked_low": r"^The gold passage is in \S+, ranked \d+\w\w of the \d+ retrieved, below the top 5: .+\. What would "
    r"fix it: this configuration would get it at k = \d+ \(a context budget of [\d,]+ characters\)(; .+)?\.$",
    "not_retrieved": r"^Nothing relevant in the top \d+ retrieved(: .+)?\." + FIX,
}


def test_every_row_of_the_sample_gets_its_causes_sentence() -> None:
    workspace = load_workspace(SAMPLE)
    table = sample_causes()
    seen = set()
    for row in table.itertuples(index=False):
        judged, ranked = (
            workspace.qrels(row.config).get(row.question, {}),
            workspace.run(row.config).get(row.question, ()),
        )
        said = explain_cause(row._asdict(), k=5, gold_chunk=first_relevant_chunk(judged, ranked))
        assert re.match(SENTENCES[row.cause], said), (row.cause, said)
        assert "at any depth" not in said
        if workspace.config(row.config).params.get("retriever") not in ("bm25", "hybrid"):
            assert "lexical gap" not in said, (row.config, said)
        seen.add(row.cause)
    assert seen == set(CAUSES) - {"unresolved"}  # the sample's gold is all found


def test_the_sentence_names_the_gold_chunk_its_rank_the_signals_and_the_fixes() -> None:
    row = {"cause": "ranked_low", "first_relevant_rank": 22, "distractor": "faq.md#3", "distractor_rank": 2,
           "distractor_similarity": 0.5, "retrieved": 30, "vocabulary_gap": False, "gold_density": 0.1,
           "diluted": True, "distractors": 3, "smallest_k": 22, "smallest_budget": 4400,
           "hit_elsewhere": 2}  # fmt: skip
    said = explain_cause(row, k=10, gold_chunk="returns-policy.md#14")
    assert said == (
        "The gold passage is in returns-policy.md#14, ranked 22nd of the 30 retrieved, below the top 10: the gold is "
        "only 10% of the chunk that holds it (diluted: smaller chunks would concentrate it); 3 chunks above it share "
        "more of the question's words than the gold's chunk or nearly repeat the gold; the closest to the gold is "
        "faq.md#3 (ranked 2nd, 50% of content words shared). What would fix it: this configuration would get it at "
        "k = 22 (a context budget of 4,400 characters); 2 other configurations get it right at k = 10."
    )
    gap = {"cause": "not_retrieved", "retrieved": 20, "vocabulary_gap": True, "hit_elsewhere": 0}
    assert explain_cause(gap, k=5) == (
        "Nothing relevant in the top 20 retrieved: no word of the question, stemmed as this retriever stems it, is in "
        "the gold passage (a lexical gap: rephrase the question or add a dense retriever). What would fix it: no "
        "other configuration gets it right at k = 5."
    )
    assert "lexical" not in explain_cause({**gap, "vocabulary_gap": None}, k=5)
    named = explain_cause(gap, k=5, elsewhere=["a", "b", "c", "d"])
    assert named.endswith("What would fix it: a, b, c and 1 more get it right at k = 5.")
    assert explain_cause({"cause": "unresolved"}, k=5).startswith("Its gold evidence was not found")
    assert "holds 25%" in explain_cause({"cause": "split", "best_chunk_share": 0.1}, k=5, split_threshold=0.25)
    assert explain_cause({"cause": "hit", "first_relevant_rank": 11}, k=20) == (
        "A relevant chunk is ranked 11th, within the top 20."
    )
    with pytest.raises(ContextGridError, match="unknown cause"):
        explain_cause({"cause": "bad"}, k=5)


def test_configurations_that_get_a_question_right_are_its_hits() -> None:
    table = sample_causes()
    question = "q001"
    rows = table[table["question"] == question]
    assert configurations_with(table, question) == list(rows.loc[rows["cause"] == "hit", "config"])
    assert configurations_with(table, question, "no_gold") == []


# -- how causes move ---------------------------------------------------------------------------------------

causes_of = st.lists(st.sampled_from(CAUSES), min_size=1, max_size=30)


@settings(max_examples=200, deadline=None)
@given(causes_of, st.data())
def test_transitions_count_every_change_once_largest_first(before: list[str], data: st.DataObject) -> None:
    after = data.draw(st.lists(st.sampled_from(CAUSES), min_size=len(before), max_size=len(before)))
    questions = [f"q{i}" for i in range(len(before))]
    table = pd.DataFrame(
        {"config": ["a"] * len(before) + ["b"] * len(after), "question": questions * 2, "cause": before + after}
    )
    moves = cause_transitions(table, "a", "b")
    expected: dict[tuple[str, str], list[str]] = {}
    for question, start, end in zip(questions, before, after, strict=True):
        if start != end:
            expected.setdefault((start, end), []).append(question)
    got = {(str(row["from"]), str(row["to"])): list(row["questions"]) for _, row in moves.iterrows()}
    assert got == expected
    assert list(moves["count"]) == [len(ids) for ids in moves["questions"]]
    assert list(moves["count"]) == sorted(moves["count"], reverse=True)


def test_transitions_on_the_sample_and_in_words() -> None:
    table = sample_causes()
    counts = cause_counts(table)
    moves = cause_transitions(table, "bm25-recursive-200-0", "bm25-recursive-2000-0")
    gained = moves.loc[moves["to"] == "hit", "count"].sum() - moves.loc[moves["from"] == "hit", "count"].sum()
    assert gained == counts.loc["bm25-recursive-2000-0", "hit"] - counts.loc["bm25-recursive-200-0", "hit"]
    said = transition_sentence(moves, limit=2)
    first, second = moves.iloc[0], moves.iloc[1]
    assert said.startswith(
        f"{first['count']} questions went from {first['from']} to {first['to']}, "
        f"{second['count']} from {second['from']} to {second['to']}; "
    )
    with pytest.raises(ContextGridError, match="no configuration named 'nope'"):
        cause_transitions(table, "nope", "bm25-recursive-200-0")


# -- the figure --------------------------------------------------------------------------------------------


def figure_json() -> str:
    return str(cause_bars(cause_counts(sample_causes(5)), 5).to_json())


def test_the_figure_has_one_trace_per_cause_in_fixed_distinct_colours() -> None:
    counts = cause_counts(sample_causes())
    figure = cause_bars(counts, 5)
    assert [trace.name for trace in figure.data] == list(BAR_ORDER)
    assert set(BAR_ORDER) == set(CAUSES)
    assert [trace.marker.color for trace in figure.data] == [CAUSE_COLOURS[cause] for cause in BAR_ORDER]
    assert len(set(CAUSE_COLOURS.values())) == len(CAUSES)
    for trace in figure.data:
        assert trace.orientation == "h"
        assert list(trace.x) == list(counts[trace.name])
        assert [pair[0] for pair in trace.customdata] == list(counts.index)
    assert figure.layout.yaxis.automargin or figure.layout.template.layout.yaxis.automargin
    assert figure.layout.template.layout.paper_bgcolor == "#ffffff"
    assert figure.layout.barmode == "stack"


def test_the_figure_grows_with_the_configurations_up_to_a_bound_and_escapes_names() -> None:
    def counts(n: int) -> pd.DataFrame:
        return pd.DataFrame({"hit": [1] * n}, index=[f"<b>c{i}</b>" for i in range(n)])

    heights = [cause_bars(counts(n), 5).layout.height for n in (1, 10, 50, 500)]
    assert heights[0] < heights[1] <= heights[2] <= heights[3] == SCREEN
    figure = cause_bars(counts(2), 5)
    assert figure.data[0].y == ("&lt;b&gt;c0&lt;/b&gt;", "&lt;b&gt;c1&lt;/b&gt;")
    assert figure.data[0].customdata[0][0] == "<b>c0</b>"  # the raw name comes back from a click
    with pytest.raises(ContextGridError, match="unknown causes"):
        cause_bars(pd.DataFrame({"lost": [1]}, index=["c"]), 5)


def test_the_figure_is_the_same_with_and_without_streamlit_imported() -> None:
    import streamlit  # noqa: F401  # its import changes plotly's default template

    code = (
        "import sys; sys.path.insert(0, 'tests'); from test_cause_views import figure_json; "
        "import sys; assert 'streamlit' not in sys.modules; print(figure_json())"
    )
    alone = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=SAMPLE.parents[1]
    )
    assert json.loads(alone.stdout) == json.loads(figure_json())


def test_a_click_is_read_back_as_the_configuration_and_the_cause() -> None:
    configs = ["a", "b", "c"]
    point: dict[str, Any] = {"curve_number": BAR_ORDER.index("ranked_low"), "point_index": 2, "x": 4, "y": "c"}
    assert selected_bar({"points": [point]}, configs) == ("c", "ranked_low")
    assert selected_bar({"points": [{"curve_number": 9, "point_index": 0}]}, configs) is None
    assert selected_bar({}, configs) is None


# -- signals in the question list, and the oracle ---------------------------------------------------------------


def test_the_list_takes_signal_columns_and_filters_on_every_signal_asked() -> None:
    scores = pd.DataFrame(
        {"recall@5": [0.0, 0.0, 0.0, 1.0], "failing": [True, True, True, False]},
        index=pd.Index(["q1", "q2", "q3", "q4"], name="question"),
    )
    signals = pd.DataFrame(
        {
            "cause": ["not_retrieved", "ranked_low", "split", "hit"],
            "vocabulary_gap": pd.array([True, False, None, None], dtype="boolean"),
            "diluted": pd.array([False, True, None, None], dtype="boolean"),
            "distractors": pd.array([0, 3, None, None], dtype="Int64"),
            "smallest_k": pd.array([None, 9, 12, None], dtype="Int64"),
            "hit_elsewhere": pd.array([0, 2, 1, None], dtype="Int64"),
        },
        index=["q1", "q2", "q3", "q4"],
    )
    listing = question_listing(scores, causes=signals)
    assert list(listing.columns) == [*signals.columns, "recall@5", "failing"]
    kept = {name: list(filter_questions(listing, signals=[name]).index) for name in SIGNAL_FILTERS}
    assert kept == {
        "lexical gap": ["q1"],
        "diluted": ["q2"],
        "distractors": ["q2"],
        "deeper k finds it": ["q2", "q3"],
        "right elsewhere": ["q2", "q3"],
        "right nowhere": ["q1"],
    }
    assert list(filter_questions(listing, signals=["diluted", "right nowhere"]).index) == []
    with pytest.raises(ContextGridError, match="unknown signal filter 'loud'"):
        filter_questions(listing, signals=["loud"])
    with pytest.raises(ContextGridError, match="no 'diluted' column"):
        filter_questions(scores, signals=["diluted"])


def test_the_oracle_by_hand() -> None:
    table = pd.DataFrame(
        {
            "config": ["a"] * 4 + ["b"] * 4,
            "question": ["q1", "q2", "q3", "q4"] * 2,
            "cause": ["hit", "split", "no_gold", "partial", "hit", "hit", "no_gold", "not_retrieved"],
        }
    )
    # Answerable: q1, q2, q4. Some configuration hits q1 and q2; b alone hits both. q4 is partial under a: found.
    assert cause_oracle(table) == CauseOracle(3, 2, 2, "b", ())
    assert cause_oracle(table.iloc[4:]) == CauseOracle(3, 2, 2, "b", ("q4",))
    with pytest.raises(ContextGridError, match="unknown causes"):
        cause_oracle(table.assign(cause="lost"))
    with pytest.raises(ValueError, match="best <= oracle <= questions"):
        CauseOracle(1, 2, 0, None, ())


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(CAUSES), min_size=4, max_size=4), min_size=1, max_size=4).filter(
        # A question's gold is the same under every configuration: no_gold and unresolved are all or nothing.
        lambda rows: all(
            len({cause in ("no_gold", "unresolved") for cause in column}) == 1 for column in zip(*rows, strict=True)
        )
    )
)
def test_the_oracle_equals_a_loop_over_questions(rows: list[list[str]]) -> None:
    configs = [f"c{i}" for i in range(len(rows))]
    questions = ["q1", "q2", "q3", "q4"]
    table = pd.DataFrame(
        [(config, question, cause) for config, row in zip(configs, rows, strict=True)
         for question, cause in zip(questions, row, strict=True)],
        columns=["config", "question", "cause"],
    )  # fmt: skip
    answerable = [q for i, q in enumerate(questions) if rows[0][i] not in ("no_gold", "unresolved")]
    oracle = sum(any(row[questions.index(q)] == "hit" for row in rows) for q in answerable)
    hits = [sum(row[questions.index(q)] == "hit" for q in answerable) for row in rows]
    never = tuple(q for q in answerable if not any(row[questions.index(q)] in ("hit", "partial") for row in rows))
    best = max(hits)
    assert cause_oracle(table) == CauseOracle(len(answerable), oracle, best, configs[hits.index(best)], never)
