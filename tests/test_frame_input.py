"""evaluate(), per_query() and the first relevant ranks from frames: a pandas DataFrame, a pyarrow Table and an
object that only exports ``__arrow_c_stream__`` give the dict API's numbers exactly, and every bad frame is refused
by name."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from strategies import BUILTIN, ks, scored_cases

import contextgrid as cg
from contextgrid.io import read_run

QRELS = {"q1": {"c1": 2, "c2": 1, "c3": 0}, "q2": {"c4": 2}}
RUN = {"q1": ["c3", "c1", "c5", "c2"], "q2": ["c9", "c4", "c1"]}


class Stream:
    """Nothing but the Arrow PyCapsule stream interface, as polars or DuckDB export it."""

    def __init__(self, table: pa.Table) -> None:
        self._table = table

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        return self._table.__arrow_c_stream__(requested_schema)


def qrels_table(qrels: Mapping[str, Mapping[str, int]]) -> pa.Table:
    rows = [(question, chunk, grade) for question, judgements in qrels.items() for chunk, grade in judgements.items()]
    return pa.table(
        {
            "question_id": pa.array([row[0] for row in rows], pa.string()),
            "chunk_id": pa.array([row[1] for row in rows], pa.string()),
            "grade": pa.array([row[2] for row in rows], pa.int64()),
        }
    )


def run_table(run: Mapping[str, Sequence[str]], *, by: str) -> pa.Table:
    """The run's rows, best first, with a rank (1 first) or a score (higher first, no ties)."""
    rows = [(question, chunk, position) for question, ranked in run.items() for position, chunk in enumerate(ranked)]
    order = [row[2] + 1 for row in rows] if by == "rank" else [-float(row[2]) for row in rows]
    return pa.table(
        {
            "question_id": pa.array([row[0] for row in rows], pa.string()),
            "chunk_id": pa.array([row[1] for row in rows], pa.string()),
            by: pa.array(order, pa.int64() if by == "rank" else pa.float64()),
        }
    )


KINDS: dict[str, Callable[[pa.Table], Any]] = {
    "pandas": lambda table: table.to_pandas(),
    "pandas, Arrow-backed": lambda table: table.to_pandas(types_mapper=pd.ArrowDtype),
    "pyarrow": lambda table: table,
    "capsule only": Stream,
}


def deduplicated(run: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """A frame refuses a repeat in any question, as a run file does; the dict API only in the scored ones."""
    return {question: list(dict.fromkeys(ranked)) for question, ranked in run.items()}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("by", ["rank", "score"])
@settings(max_examples=40, deadline=None)
@given(case=scored_cases(), cutoffs=ks)
def test_every_frame_gives_the_dict_apis_numbers(kind: str, by: str, case: Any, cutoffs: list[int]) -> None:
    run = deduplicated(case.run)
    convert = KINDS[kind]
    qrels_frame, run_frame = convert(qrels_table(case.qrels)), convert(run_table(run, by=by))
    assert cg.evaluate(qrels_frame, run_frame, ks=cutoffs) == cg.evaluate(case.qrels, run, ks=cutoffs)
    for metric in BUILTIN:
        k = cutoffs[0]
        assert cg.per_query(qrels_frame, run_frame, metric, k) == cg.per_query(case.qrels, run, metric, k)
    assert cg.first_relevant_ranks(qrels_frame, run_frame) == cg.first_relevant_ranks(case.qrels, run)
    framed, given = cg.WarningLog(), cg.WarningLog()
    mean = cg.mean_rank_of_first_relevant(qrels_frame, run_frame, warnings=framed)
    assert mean == cg.mean_rank_of_first_relevant(case.qrels, run, warnings=given)
    assert [str(entry) for entry in framed.entries] == [str(entry) for entry in given.entries]


@settings(max_examples=40, deadline=None)
@given(case=scored_cases(), cutoffs=ks)
def test_a_frame_and_a_dict_mix(case: Any, cutoffs: list[int]) -> None:
    run = deduplicated(case.run)
    expected = cg.evaluate(case.qrels, run, ks=cutoffs)
    assert cg.evaluate(qrels_table(case.qrels), run, ks=cutoffs) == expected
    assert cg.evaluate(case.qrels, run_table(run, by="score"), ks=cutoffs) == expected


def test_the_pages_example_from_frames_by_hand() -> None:
    qrels = qrels_table(QRELS).to_pandas()
    run = run_table(RUN, by="rank").to_pandas()
    assert cg.evaluate(qrels, run, ks=[1, 3], metrics=["recall", "ndcg"]) == {
        "recall@1": 0.0,
        "recall@3": 0.75,
        "ndcg@1": 0.0,
        "ndcg@3": 0.5552773433538603,
    }
    assert cg.per_query(qrels, run, "recall", 3) == {"q1": 0.5, "q2": 1.0}


def test_rows_in_any_order_are_ranked_by_score() -> None:
    rows = run_table(RUN, by="score").to_pandas().sample(frac=1.0, random_state=3)
    assert cg.per_query(QRELS, rows, "ndcg", 3) == cg.per_query(QRELS, RUN, "ndcg", 3)


def test_tied_scores_are_broken_as_the_trec_reader_breaks_them(tmp_path: Path) -> None:
    # trec_eval's rule: equal scores rank by chunk id descending, as strings: c9, then c10, then c1.
    frame = pd.DataFrame({"question_id": ["q1"] * 3, "chunk_id": ["c1", "c10", "c9"], "score": [0.5, 0.5, 0.5]})
    qrels = {"q1": {"c9": 1, "c10": 2, "c1": 1}}
    assert cg.per_query(qrels, frame, "mrr", 1) == {"q1": 1.0}
    assert cg.per_query({"q1": {"c10": 1}}, frame, "mrr", 3) == {"q1": 0.5}
    path = tmp_path / "run.trec"
    path.write_text("".join(f"q1 Q0 {chunk} 1 0.5 tag\n" for chunk in ["c1", "c10", "c9"]))
    for metric in BUILTIN:
        assert cg.per_query(qrels, frame, metric, 2) == cg.per_query(qrels, read_run(path), metric, 2)


def test_with_a_score_and_a_rank_the_score_ranks() -> None:
    frame = pd.DataFrame({"question_id": ["q1", "q1"], "chunk_id": ["c1", "c2"], "score": [0.1, 0.9], "rank": [1, 2]})
    assert cg.per_query({"q1": {"c2": 1}}, frame, "mrr", 1) == {"q1": 1.0}


def test_other_column_names_are_mapped() -> None:
    names = cg.FrameColumns(question_id="qid", chunk_id="docid", grade="relevance", score="sim")
    qrels = qrels_table(QRELS).rename_columns(["qid", "docid", "relevance"])
    run = run_table(RUN, by="score").rename_columns(["qid", "docid", "sim"])
    assert cg.evaluate(qrels, run, columns=names) == cg.evaluate(QRELS, RUN)
    assert cg.per_query(qrels, run, "map", 3, columns=names) == cg.per_query(QRELS, RUN, "map", 3)
    assert cg.first_relevant_ranks(qrels, run, columns=names) == cg.first_relevant_ranks(QRELS, RUN)
    assert cg.mean_rank_of_first_relevant(qrels, run, columns=names) == cg.mean_rank_of_first_relevant(QRELS, RUN)


def test_empty_frames_score_nothing() -> None:
    qrels = pd.DataFrame({"question_id": [], "chunk_id": [], "grade": pd.Series([], dtype="int64")})
    run = pd.DataFrame({"question_id": [], "chunk_id": [], "rank": pd.Series([], dtype="int64")})
    assert cg.evaluate(qrels, run) == cg.evaluate({}, {}) == {}


# --- refusals ---------------------------------------------------------------------------------------------------


def refused(qrels: Any, run: Any, **options: Any) -> str:
    with pytest.raises(cg.ContextGridError) as error:
        cg.evaluate(qrels, run, **options)
    return str(error.value)


def test_a_repeated_chunk_is_refused_naming_its_question_and_row() -> None:
    run = pd.DataFrame({"question_id": ["q1", "q2", "q1"], "chunk_id": ["c1", "c1", "c1"], "rank": [1, 1, 2]})
    with pytest.raises(cg.DuplicateChunkError) as error:
        cg.evaluate(QRELS, run)
    assert str(error.value) == (
        "the run for query 'q1' returns the same chunk id more than once: 'c1' (again in row 2 of the run frame, "
        "counting from 0). A ranking is a list of distinct chunks, and scoring one with repeats in it would report "
        "a retriever's bug as a score. De-duplicate the ranking, keeping each chunk at its best position."
    )


def test_a_repeated_judgement_is_refused() -> None:
    qrels = pd.DataFrame({"question_id": ["q1", "q1"], "chunk_id": ["c1", "c1"], "grade": [2, 1]})
    assert (
        refused(qrels, RUN)
        == "qrels judge chunk 'c1' for query 'q1' twice (again in row 1 of the qrels frame, counting from 0)"
    )


def test_a_grade_that_is_not_whole_is_refused_naming_it() -> None:
    qrels = pd.DataFrame({"question_id": ["q1", "q2"], "chunk_id": ["c1", "c4"], "grade": [2.0, 1.5]})
    assert refused(qrels, RUN) == (
        "qrels for query 'q2' give chunk 'c4' the grade 1.5 (row 1 of the qrels frame, counting from 0); a grade is "
        "a whole number (2 fully relevant, 1 partial, 0 or below irrelevant): give the column an integer type"
    )


def test_a_whole_grade_held_as_a_float_is_refused_as_the_dict_api_refuses_2_0() -> None:
    qrels = pd.DataFrame({"question_id": ["q1"], "chunk_id": ["c1"], "grade": [2.0]})
    assert "the grade 2.0 (row 0 of the qrels frame" in refused(qrels, RUN)
    with pytest.raises(cg.ContextGridError, match=r"the grade 2\.0"):
        cg.evaluate({"q1": {"c1": 2.0}}, RUN)


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (
            pd.DataFrame({"question_id": ["q1"], "chunk_id": ["c1"]}),
            "the run frame has neither a 'score' nor a 'rank' column; its columns are ['question_id', 'chunk_id']. "
            "A frame's row order ranks nothing: give each row a score or a rank",
        ),
        (
            pd.DataFrame({"qid": ["q1"], "chunk_id": ["c1"], "rank": [1]}),
            "the run frame has no column named 'question_id'; its columns are ['qid', 'chunk_id', 'rank']",
        ),
        (
            pd.DataFrame({"question_id": ["q1"], "chunk_id": [7], "rank": [1]}),
            "the run frame's column 'chunk_id' holds int64 values; a chunk id is a str, as in the dict API "
            "(convert the column to strings first)",
        ),
        (
            pd.DataFrame({"question_id": ["q1", "q1"], "chunk_id": ["c1", 7], "rank": [1, 2]}),
            "the run frame's column 'chunk_id' mixes types: row 1 (counting from 0) holds 7 of type int, "
            "after str values",
        ),
        (
            pd.DataFrame({"question_id": ["q1", "q1"], "chunk_id": ["c1", "c2"], "score": [0.5, None]}),
            "the run frame's column 'score' has no value in row 1 (counting from 0)",
        ),
        (
            pd.DataFrame({"question_id": ["q1", "q1"], "chunk_id": ["c1", "c2"], "score": ["high", "low"]}),
            "the run frame's column 'score' holds large_string values; expected numbers (an integer or "
            "floating-point column)",
        ),
        (
            pd.DataFrame({"question_id": ["q1", "q1"], "chunk_id": ["c1", "c2"], "rank": [1.0, 2.0]}),
            "the run frame's column 'rank' holds double values; expected whole numbers (an integer column)",
        ),
        (
            pd.DataFrame({"question_id": ["q1", "q1"], "chunk_id": ["c1", "c2"], "rank": [1, 1]}),
            "expected a different rank for each chunk of a question (row 1 of the run frame, counting from 0: "
            "question 'q1', chunk 'c2')",
        ),
    ],
)
def test_a_bad_run_frame_is_refused_naming_the_column_and_row(frame: Any, message: str) -> None:
    assert refused(QRELS, frame) == message
    if "mixes types" not in message:  # pyarrow cannot make such a column, so no Arrow source holds one
        assert refused(QRELS, Stream(pa.Table.from_pandas(frame, preserve_index=False))) == message


def test_a_column_name_given_twice_is_refused() -> None:
    message = "the run frame has 2 columns named 'rank'; expected one"
    frame = pd.DataFrame([["q1", "c1", 1, 2]], columns=["question_id", "chunk_id", "rank", "rank"])
    assert refused(QRELS, frame) == message
    columns = [pa.array(["q1"]), pa.array(["c1"]), pa.array([1]), pa.array([2])]
    table = pa.Table.from_arrays(columns, names=["question_id", "chunk_id", "rank", "rank"])
    assert refused(QRELS, table) == refused(QRELS, Stream(table)) == message


def test_a_nan_score_is_refused_naming_its_row() -> None:
    run = pa.table({"question_id": ["q1", "q1"], "chunk_id": ["c1", "c2"], "score": [0.5, float("nan")]})
    assert refused(QRELS, run) == (
        "expected a score that is a number, got NaN (row 1 of the run frame, counting from 0: question 'q1', "
        "chunk 'c2')"
    )


def test_a_missing_id_is_refused_naming_its_row() -> None:
    qrels = pa.table({"question_id": ["q1", None], "chunk_id": ["c1", "c2"], "grade": [1, 1]})
    assert refused(qrels, RUN) == "the qrels frame's column 'question_id' has no value in row 1 (counting from 0)"


def test_an_empty_id_is_refused_naming_its_row() -> None:
    run = pa.table({"question_id": ["q1", "q1"], "chunk_id": ["c1", ""], "rank": [1, 2]})
    assert refused(QRELS, run) == (
        "expected a chunk id, got none (row 1 of the run frame, counting from 0: question 'q1', chunk '')"
    )


def test_columns_must_be_a_frame_columns_record() -> None:
    with pytest.raises(cg.InvalidParameterError, match="The 'columns' parameter of per_query must be a FrameColumns"):
        cg.per_query(QRELS, RUN, "recall", 3, columns={"question_id": "qid"})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (
            {"grade": ""},
            "The 'grade' parameter of FrameColumns must be a column name (a non-empty str). Got '' instead.",
        ),
        (
            {"chunk_id": "question_id"},
            "The 'chunk_id' parameter of FrameColumns must be a column name other than "
            "question_id's. Got 'question_id' instead.",
        ),
    ],
)
def test_frame_columns_are_checked(names: dict[str, str], message: str) -> None:
    with pytest.raises(cg.InvalidParameterError) as error:
        cg.FrameColumns(**names)
    assert str(error.value) == message
