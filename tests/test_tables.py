"""RunTable and QrelsTable: ranking rules, the Mapping views, validation, and the columnar engine path."""

from __future__ import annotations

import numpy as np
import pytest
import reference
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import CHUNKS, QUESTIONS, distinct_ranking, qrels

import contextgrid as cg
from contextgrid.core.errors import ContextGridError, RowError
from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.engine.columns import ranked_grades_from_tables
from contextgrid.engine.grades import build_ranked_grades

# --- ranking rules ------------------------------------------------------------------------------------------------


def test_scores_rank_descending() -> None:
    run = RunTable.from_columns(["q1"] * 3, ["a", "b", "c"], score=[0.1, 0.9, 0.5])
    assert run["q1"] == ("b", "c", "a")
    assert run.table.column("rank").to_pylist() == [1, 2, 3]
    assert run.table.column("score").to_pylist() == [0.9, 0.5, 0.1]


def test_ties_break_by_chunk_id_descending_as_trec_eval_does() -> None:
    # trec_eval's comp_sim_docno: sim descending, then strcmp(docno2, docno1), i.e. docno descending, as strings.
    run = RunTable.from_columns(["q1"] * 5, ["c1", "c10", "c9", "c2", "top"], score=[1.0, 1.0, 1.0, 0.5, 2.0])
    assert run["q1"] == ("top", "c9", "c10", "c1", "c2")


def test_ties_in_an_already_ordered_file_are_still_reordered() -> None:
    run = RunTable.from_columns(["q1", "q1", "q1", "q2"], ["a", "b", "c", "a"], score=[3.0, 3.0, 1.0, 1.0])
    assert run.to_dict() == {"q1": ["b", "a", "c"], "q2": ["a"]}


def test_tie_order_does_not_depend_on_input_order() -> None:
    chunks = ["d1", "d3", "d2", "d5", "d4"]
    one = RunTable.from_columns(["q"] * 5, chunks, score=[1.0] * 5)
    other = RunTable.from_columns(["q"] * 5, chunks[::-1], score=[1.0] * 5)
    assert one["q"] == other["q"] == ("d5", "d4", "d3", "d2", "d1")


def test_ranks_without_scores_keep_their_order() -> None:
    run = RunTable.from_columns(["q1", "q1", "q1"], ["a", "b", "c"], rank=[3, 1, 7])
    assert run["q1"] == ("b", "a", "c")
    assert run.table.column("rank").to_pylist() == [1, 2, 3]
    assert not run.has_scores


def test_scores_win_over_ranks_as_in_trec_eval() -> None:
    run = RunTable.from_columns(["q1", "q1"], ["a", "b"], rank=[1, 2], score=[0.1, 0.2])
    assert run["q1"] == ("b", "a")


def test_neither_rank_nor_score_keeps_row_order() -> None:
    run = RunTable.from_columns(["q2", "q1", "q2"], ["x", "y", "z"])
    assert run.to_dict() == {"q2": ["x", "z"], "q1": ["y"]}


def test_questions_keep_first_appearance_order() -> None:
    qrels = QrelsTable.from_columns(["b", "a", "b"], ["c1", "c2", "c3"], [1, 2, 0])
    assert list(qrels) == ["b", "a"]
    assert qrels.to_dict() == {"b": {"c1": 1, "c3": 0}, "a": {"c2": 2}}


# --- validation -------------------------------------------------------------------------------------------------------


def test_repeated_pair_names_second_row() -> None:
    with pytest.raises(RowError) as caught:
        RunTable.from_columns(["q1", "q2", "q1", "q1"], ["a", "a", "b", "a"], score=[1.0, 1.0, 1.0, 1.0])
    assert caught.value.row == 3


def test_same_chunk_under_two_questions_is_fine() -> None:
    run = RunTable.from_columns(["q1", "q2"], ["a", "a"])
    assert run.to_dict() == {"q1": ["a"], "q2": ["a"]}


def test_repeated_rank_is_refused() -> None:
    with pytest.raises(RowError, match="different rank") as caught:
        RunTable.from_columns(["q1", "q1", "q1"], ["a", "b", "c"], rank=[2, 1, 2])
    assert caught.value.row == 2


def test_partly_missing_scores_are_refused() -> None:
    with pytest.raises(RowError, match="expected a score") as caught:
        RunTable.from_columns(["q1", "q1"], ["a", "b"], score=[1.0, None])
    assert caught.value.row == 1


def test_nan_score_is_refused() -> None:
    with pytest.raises(RowError, match="NaN"):
        RunTable.from_columns(["q1", "q1"], ["a", "b"], score=[1.0, float("nan")])


def test_empty_ids_are_refused_and_negative_grades_kept() -> None:
    with pytest.raises(RowError, match="chunk id") as caught:
        RunTable.from_columns(["q1", "q1"], ["a", ""])
    assert caught.value.row == 1
    # A negative grade is judged and not relevant (as trec_eval reads it): kept as it is.
    assert QrelsTable.from_columns(["q1", "q1"], ["a", "b"], [-1, 2]).to_dict() == {"q1": {"a": -1, "b": 2}}


def test_from_dict_refuses_bad_shapes() -> None:
    with pytest.raises(ContextGridError, match="not a mix"):
        RunTable.from_dict({"q1": ["a"], "q2": {"b": 1.0}})
    with pytest.raises(ContextGridError, match="pair once"):
        RunTable.from_dict({"q1": ["a", "b", "a"]})
    with pytest.raises(ContextGridError, match="grade"):
        QrelsTable.from_dict({"q1": {"a": 1.5}})  # type: ignore[dict-item]
    with pytest.raises(ContextGridError, match="score"):
        RunTable.from_dict({"q1": {"a": "high"}})


def test_tables_are_immutable() -> None:
    run = RunTable.from_dict({"q1": ["a"]})
    with pytest.raises(AttributeError):
        run.x = 1
    with pytest.raises(AttributeError):
        del run._table


def test_mapping_protocol() -> None:
    run = RunTable.from_dict({"q1": ["a", "b"], "q2": ["c"]})
    assert len(run) == 2
    assert run.num_rows == 3
    assert "q1" in run
    assert "q9" not in run
    assert run.get("q9") is None
    assert run["q1"] is run["q1"]  # built once, then cached
    assert dict(run.items()) == {"q1": ("a", "b"), "q2": ("c",)}
    with pytest.raises(KeyError):
        run["q9"]
    assert repr(run) == "RunTable(questions=2, rows=3)"


def test_hash_collisions_are_checked_exactly() -> None:
    # Thousands of similar ids under one question: any equal hashes must be verified, never refused blindly.
    chunks = [f"doc-{i:05d}" for i in range(5000)]
    run = RunTable.from_columns(["q"] * len(chunks), chunks)
    assert run["q"] == tuple(chunks)


# --- laws ---------------------------------------------------------------------------------------------------------

scored_run = st.dictionaries(
    st.sampled_from(QUESTIONS),
    st.dictionaries(st.sampled_from(CHUNKS), st.sampled_from([0.0, 0.5, 1.0, 2.5, -1.0]), max_size=8),
    max_size=6,
)


@settings(max_examples=80, deadline=None)
@given(scored_run)
def test_ranking_matches_a_plain_sort(run: dict[str, dict[str, float]]) -> None:
    table = RunTable.from_dict(run)
    expected = {
        q: [c for c, _ in sorted(scores.items(), key=lambda item: (item[1], item[0]), reverse=True)]
        for q, scores in run.items()
        if scores
    }
    assert table.to_dict() == expected


@settings(max_examples=80, deadline=None)
@given(qrels, st.dictionaries(st.sampled_from(QUESTIONS), distinct_ranking, max_size=6), st.sampled_from([1, 3, 20]))
def test_tables_score_exactly_like_dicts(judged: dict[str, dict[str, int]], run: dict[str, list[str]], k: int) -> None:
    qrels_table, run_table = QrelsTable.from_dict(judged), RunTable.from_dict(run)
    assert cg.evaluate(qrels_table, run_table, ks=[k]) == cg.evaluate(judged, run, ks=[k])
    expected = reference.evaluate(judged, run, [k], list(cg.available_metrics()))
    for name, value in cg.evaluate(qrels_table, run_table, ks=[k]).items():
        assert value == pytest.approx(expected[name])


@settings(max_examples=120, deadline=None)
@given(
    qrels,
    st.dictionaries(st.sampled_from(QUESTIONS), distinct_ranking, max_size=6),
    st.one_of(st.none(), st.integers(1, 12)),
)
def test_columnar_grades_equal_the_dict_path(
    judged: dict[str, dict[str, int]], run: dict[str, list[str]], depth: int | None
) -> None:
    # Questions the dict path keeps with an empty ranking are absent from a table; both must lay out the same.
    assert_same_grades(judged, run, depth)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["q1", "q2", "q3"]), st.text(alphabet="ab\x00é", min_size=1, max_size=19)),
        min_size=1,
        max_size=40,
    ),
    st.booleans(),
)
def test_repeated_pairs_are_found_exactly(rows: list[tuple[str, str]], grouped: bool) -> None:
    # Both duplicate searches: rows grouped by question (as files are) and interleaved.
    assert_first_repeat_found(rows, grouped)


def assert_first_repeat_found(rows: list[tuple[str, str]], grouped: bool) -> None:
    """RunTable.from_columns refuses the first row that repeats a (question, chunk) pair, or takes all the rows."""
    if grouped:
        rows = sorted(rows, key=lambda row: row[0])
    seen: set[tuple[str, str]] = set()
    first_repeat = None
    for position, row in enumerate(rows):
        if row in seen and first_repeat is None:
            first_repeat = position
        seen.add(row)
    questions, chunks = zip(*rows, strict=True)
    if first_repeat is None:
        assert RunTable.from_columns(list(questions), list(chunks)).num_rows == len(rows)
    else:
        with pytest.raises(RowError) as caught:
            RunTable.from_columns(list(questions), list(chunks))
        assert caught.value.row == first_repeat


@settings(max_examples=100, deadline=None)
@given(
    st.integers(1, 19).flatmap(
        lambda width: st.lists(
            st.tuples(st.sampled_from(["q1", "q2", "q3"]), st.text(alphabet="ab\x00", min_size=width, max_size=width)),
            min_size=1,
            max_size=40,
        )
    ),
    st.booleans(),
)
def test_repeated_pairs_among_ids_of_one_length_are_found_exactly(rows: list[tuple[str, str]], grouped: bool) -> None:
    # Ids all of one length are fingerprinted in place, without the gather that mixed lengths need.
    assert_first_repeat_found(rows, grouped)


def test_a_qrels_row_cannot_be_changed_through_the_table() -> None:
    table = QrelsTable.from_dict({"q1": {"c1": 2}})
    with pytest.raises(TypeError):
        table["q1"]["c1"] = 0  # type: ignore[index]
    assert table.to_dict() == {"q1": {"c1": 2}}


def test_evaluate_and_per_query_score_tables_as_they_score_dicts() -> None:
    import contextgrid as cg

    qrels = {"q1": {"c1": 2, "c2": 1, "c3": 0}, "q2": {"c4": 2}, "q3": {"c9": 0}, "q4": {"c5": 1}}
    run = {"q1": ["c3", "c1", "c5", "c2"], "q2": ["c9", "c4", "c1"], "q3": ["c9"], "q9": ["c1"]}
    tables = (QrelsTable.from_dict(qrels), RunTable.from_dict(run))
    assert cg.evaluate(*tables) == cg.evaluate(qrels, run)
    assert cg.per_query(*tables, "ndcg", 3) == cg.per_query(qrels, run, "ndcg", 3)
    assert cg.mean_rank_of_first_relevant(*tables) == cg.mean_rank_of_first_relevant(qrels, run)
    assert cg.first_relevant_ranks(*tables) == cg.first_relevant_ranks(qrels, run)


def assert_same_grades(judged: dict[str, dict[str, int]], run: dict[str, list[str]], depth: int | None) -> None:
    from_dicts = build_ranked_grades(judged, run, depth)
    from_tables = ranked_grades_from_tables(QrelsTable.from_dict(judged), RunTable.from_dict(run), depth)
    assert from_tables.question_ids == from_dicts.question_ids
    np.testing.assert_array_equal(from_tables.gains, from_dicts.gains)
    np.testing.assert_array_equal(from_tables.ideal, from_dicts.ideal)
    np.testing.assert_array_equal(from_tables.relevant, from_dicts.relevant)


def test_judgements_are_found_in_shallow_rankings_row_by_row() -> None:
    # Few relevant judgements against many retrieved rows: each is compared with its question's row.
    judged = {f"q{i}": {f"c{i}": 2, f"c{i + 1}": 1, "x": 0} for i in range(30)}
    run = {f"q{i}": [f"c{j}" for j in range(i, i + 10)][::-1] for i in range(40)}
    assert_same_grades(judged, run, 10)


def test_repeats_among_long_ids_of_one_length_are_found() -> None:
    # A length past 255 bytes overflows the fingerprint's length byte: the ids still decide.
    long_ids = ["a" * 300, "b" * 300, "a" * 299 + "b"]
    assert_first_repeat_found([("q1", chunk) for chunk in long_ids], True)
    assert_first_repeat_found([("q1", chunk) for chunk in [*long_ids, long_ids[2]]], True)


def test_ids_of_one_fingerprint_are_told_apart_by_the_ids_themselves() -> None:
    # "abcdefg" (7 bytes) and "abcdefg\x0f" share a fingerprint: the length byte and the eighth byte overlap.
    # The match found by fingerprint is checked on the ids, and the run is looked up id by id instead.
    assert_same_grades({"q1": {"abcdefg": 2, "c2": 1}}, {"q1": ["abcdefg\x0f", "c2", "abcdefg"]}, None)
    assert_same_grades({"q1": {"abcdefg": 2}}, {"q1": ["c1", "abcdefg\x0f"]}, None)
    pairs = [("q1", "abcdefg"), ("q1", "abcdefg\x0f"), ("q1", "abcdefg")]
    assert_first_repeat_found(pairs[:2], True)
    assert_first_repeat_found(pairs, True)


def test_judgements_are_found_in_deep_rankings_by_search() -> None:
    # Many relevant judgements against few retrieved rows: the retrieved (row, chunk) pairs are looked up instead.
    judged = {f"q{i}": {f"c{j}": 1 + j % 2 for j in range(40)} for i in range(20)}
    run = {"q3": [f"c{j}" for j in range(50, 0, -3)], "q7": ["c5", "zz", "c39"], "q99": ["c1"]}
    assert_same_grades(judged, run, None)
    assert_same_grades(judged, run, 4)


def test_a_qrels_table_lays_itself_out_once_for_every_run() -> None:
    qrels = QrelsTable.from_dict({"q1": {"c1": 2, "c2": 0}, "q2": {"c3": 1}, "q3": {"c4": 0}})
    one = ranked_grades_from_tables(qrels, RunTable.from_dict({"q1": ["c2", "c1"]}), 2)
    other = ranked_grades_from_tables(qrels, RunTable.from_dict({"q2": ["c3"]}), 2)
    assert one.relevant is other.relevant  # one layout, shared: so it is read-only
    with pytest.raises(ValueError, match="read-only"):
        one.relevant[0] = 5
    one.question_ids.append("mine")  # each matrix has its own list of questions
    assert other.question_ids == ["q1", "q2"]


def test_derived_values_are_built_once_even_when_threads_ask_at_once() -> None:
    from concurrent.futures import ThreadPoolExecutor

    table = QrelsTable.from_dict({"q1": {"c1": 2}})
    builds: list[int] = []

    def build() -> list[int]:
        builds.append(1)
        return builds

    with ThreadPoolExecutor(4) as pool:
        values = list(pool.map(lambda _: table.derived("test", build), range(16)))
    assert builds == [1]
    assert all(value is builds for value in values)


def test_question_ids_are_the_questions_in_order_of_first_appearance() -> None:
    run = RunTable.from_columns(["q2", "q1", "q2", "q3"], ["a", "b", "c", "d"])
    assert run.question_ids == ("q2", "q1", "q3")
    assert run.question_array.to_pylist() == ["q2", "q1", "q3"]
    assert len(run) == 3
    assert "q1" in run
    assert "q9" not in run
    empty = RunTable.from_columns([], [])
    assert (empty.question_ids, empty.question_array.to_pylist(), len(empty)) == ((), [], 0)
