"""Nothing is scored or read silently wrong: an id that is not a str is refused by every function taking dicts,
and a JSON Lines file's columns are what any of its lines give, a line missing a value refused by its number."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import contextgrid as cg
from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.engine.counts import question_counts
from contextgrid.engine.trec_eval import trec_eval_lines
from contextgrid.io import read_qrels, read_run

Scorer = Callable[[Any, Any], object]

# Every public function that scores dict qrels and runs, each called the plainest way.
SCORERS: dict[str, Scorer] = {
    "evaluate": lambda qrels, run: cg.evaluate(qrels, run, ks=[2]),
    "per_query": lambda qrels, run: cg.per_query(qrels, run, "recall", 2),
    "mean_rank_of_first_relevant": cg.mean_rank_of_first_relevant,
    "first_relevant_ranks": cg.first_relevant_ranks,
    "question_counts": question_counts,
    "trec_eval_lines": lambda qrels, run: trec_eval_lines(qrels, run),
}


def refusals(qrels: Any, run: Any) -> set[str]:
    """The messages every scorer, and the table built from whichever of the dicts is wrong, refuse them with."""
    calls = [lambda scorer=scorer: scorer(qrels, run) for scorer in SCORERS.values()]
    try:
        QrelsTable.from_dict(qrels)
    except cg.ContextGridError:
        calls.append(lambda: QrelsTable.from_dict(qrels))
    else:
        calls.append(lambda: RunTable.from_dict(run))
    messages = set()
    for call in calls:
        with pytest.raises(cg.ContextGridError) as caught:
            call()
        assert isinstance(caught.value, ValueError)
        messages.add(str(caught.value))
    return messages


# --- the dict API -----------------------------------------------------------------------------------------------


def test_an_int_chunk_id_after_the_first_is_refused_not_scored_as_a_miss() -> None:
    # The case: recall@2 was 0.5, the int 5 never matching the judged "5".
    assert refusals({"q1": {"5": 2, "c0": 1}}, {"q1": ["c0", 5]}) == {
        "the run for query 'q1' holds 5 of type int; a chunk id is a str"
    }


def test_an_int_chunk_id_in_the_qrels_is_refused_as_the_tables_refuse_it() -> None:
    # The case: evaluate gave 0.0 where QrelsTable.from_dict refused.
    assert refusals({"q1": {5: 2}}, {"q1": ["5"]}) == {"qrels for query 'q1' judge 5 of type int; a chunk id is a str"}


def test_a_question_id_that_is_not_a_str_is_refused_in_the_qrels_even_unscored() -> None:
    assert refusals({"q1": {"c1": 2}, 7: {"c1": 0}}, {"q1": ["c1"]}) == {
        "qrels hold the question id 7 of type int; a question id is a str"
    }


def test_a_question_id_that_is_not_a_str_is_refused_in_the_run() -> None:
    assert refusals({"q1": {"c1": 2}}, {"q1": ["c1"], 5: ["c1"]}) == {
        "the run holds the question id 5 of type int; a question id is a str"
    }


@pytest.mark.parametrize(
    ("bad", "shown"),
    [
        (None, "None of type NoneType"),
        (b"c2", "b'c2' of type bytes"),
        (True, "True of type bool"),
        (2.0, "2.0 of type float"),
    ],
)
def test_the_bad_id_is_named_wherever_it_is_in_the_run(bad: object, shown: str) -> None:
    qrels = {"q1": {"a": 1}, "q2": {"c2": 2}}
    run = {"q1": ["a", "b"], "q2": ["c1", "c3", bad, "c4"]}
    assert refusals(qrels, run) == {f"the run for query 'q2' holds {shown}; a chunk id is a str"}


def test_a_dict_scored_against_a_table_is_checked() -> None:
    qrels, run = {"q1": {"c1": 2}}, {"q1": ["c0", 5]}
    expected = "the run for query 'q1' holds 5 of type int; a chunk id is a str"
    with pytest.raises(cg.ContextGridError) as caught:
        cg.evaluate(QrelsTable.from_dict(qrels), run, ks=[2])
    assert str(caught.value) == expected
    with pytest.raises(cg.ContextGridError) as caught:
        cg.evaluate({"q1": {5: 2}}, RunTable.from_dict({"q1": ["c1"]}), ks=[2])
    assert str(caught.value) == "qrels for query 'q1' judge 5 of type int; a chunk id is a str"


def test_a_run_of_score_mappings_is_checked_too() -> None:
    with pytest.raises(cg.ContextGridError) as caught:
        RunTable.from_dict({"q1": {"c1": 0.5, 3: 0.2}})
    assert str(caught.value) == "the run for query 'q1' holds 3 of type int; a chunk id is a str"


def test_a_str_subclass_is_a_str() -> None:
    class Id(str):
        pass

    assert cg.evaluate({"q1": {"c1": 2}}, {"q1": ["c0", Id("c1")]}, ks=[2], metrics=["mrr"]) == {"mrr@2": 0.5}


def test_a_ranking_the_qrels_never_score_is_never_checked() -> None:
    # As for repeated ids (the Metrics page): a ranking that is never averaged is never checked.
    qrels = {"q1": {"c1": 2}, "q2": {"c1": 0}}
    run = {"q1": ["x", "c1"], "q2": [5, 5], "q9": [None]}
    assert cg.evaluate(qrels, run, ks=[2], metrics=["mrr"]) == {"mrr@2": 0.5}


# --- JSON Lines: every line's keys ------------------------------------------------------------------------------


def lines(*rows: dict[str, Any]) -> str:
    return "".join(json.dumps(row) + "\n" for row in rows)


def refused(path: Path, read: Callable[[Path], object]) -> str:
    with pytest.raises(cg.InputFileError) as caught:
        read(path)
    return str(caught.value)


def test_a_score_first_given_on_line_2_is_not_dropped(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    first = {"question_id": "q1", "chunk_id": "c1"}
    path.write_text(lines(first, {"question_id": "q1", "chunk_id": "c2", "score": 0.9}))
    assert (
        refused(path, read_run)
        == f"{path}, line 1: expected a score, as the other rows have one: {json.dumps(first)!r}"
    )


def test_a_score_missing_from_a_later_line_is_refused_with_that_line(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    missing = {"question_id": "q1", "chunk_id": "c3"}
    path.write_text(
        lines(
            {"question_id": "q1", "chunk_id": "c1", "score": 0.2},
            {"question_id": "q1", "chunk_id": "c2", "score": 0.9},
            missing,
        )
    )
    assert (
        refused(path, read_run)
        == f"{path}, line 3: expected a score, as the other rows have one: {json.dumps(missing)!r}"
    )


def test_a_rank_on_some_lines_only_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    missing = {"question_id": "q2", "chunk_id": "c1"}
    path.write_text(
        "\n" + lines({"question_id": "q1", "chunk_id": "c1"}, {"question_id": "q1", "chunk_id": "c2", "rank": 1})
    )
    # Blank lines are not counted as rows but are as lines: the first line without a rank is line 2.
    assert refused(path, read_run) == (
        f"{path}, line 2: expected a rank, as the other rows have one: "
        f"{json.dumps({'question_id': 'q1', 'chunk_id': 'c1'})!r}"
    )
    path.write_text(lines({"question_id": "q1", "chunk_id": "c2", "rank": 1}, missing))
    assert (
        refused(path, read_run)
        == f"{path}, line 2: expected a rank, as the other rows have one: {json.dumps(missing)!r}"
    )


def test_a_score_no_line_gives_is_no_column(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(
        lines({"question_id": "q1", "chunk_id": "c2", "rank": 2}, {"question_id": "q1", "chunk_id": "c1", "rank": 1})
    )
    run = read_run(path)
    assert run.to_dict() == {"q1": ["c1", "c2"]}
    assert not run.has_scores


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ({"question_id": "q1"}, "expected a chunk id, got none"),
        ({"chunk_id": "c2"}, "expected a question id, got none"),
        ({"question_id": "q1", "chunk_id": None}, "expected a chunk id, got none"),
        ({"qid": "q1", "chunk_id": "c2"}, "expected a question id, got none"),
    ],
)
def test_a_missing_required_value_is_refused_with_its_line(tmp_path: Path, row: dict[str, Any], expected: str) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(lines({"question_id": "q1", "chunk_id": "c1"}, row))
    assert refused(path, read_run) == f"{path}, line 2: {expected}: {json.dumps(row)!r}"


def test_a_missing_grade_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "qrels.jsonl"
    row = {"question_id": "q1", "chunk_id": "c2"}
    path.write_text(lines({"question_id": "q1", "chunk_id": "c1", "grade": 2}, row))
    assert refused(path, read_qrels) == f"{path}, line 2: expected a grade, got none: {json.dumps(row)!r}"


# --- ids in files: whole numbers are read as their digits in every format; other types are refused -------------


def write_all(tmp_path: Path, name: str, columns: dict[str, list[Any]]) -> list[Path]:
    """The same rows as JSON Lines, CSV, TSV and Parquet."""
    table = pa.table(columns)
    jsonl, csv, tsv, parquet = (tmp_path / f"{name}{suffix}" for suffix in (".jsonl", ".csv", ".tsv", ".parquet"))
    jsonl.write_text("".join(json.dumps(row) + "\n" for row in table.to_pylist()))
    for path, separator in ((csv, ","), (tsv, "\t")):
        rows = [separator.join(table.column_names)]
        rows += [separator.join(str(value) for value in row.values()) for row in table.to_pylist()]
        path.write_text("\n".join(rows) + "\n")
    pq.write_table(table, parquet)
    return [jsonl, csv, tsv, parquet]


def test_integer_ids_read_the_same_in_every_format(tmp_path: Path) -> None:
    run_columns = {"qid": [7, 7, 12], "docid": [101, 3, 101], "score": [0.5, 0.9, 0.1]}
    qrels_columns = {"query_id": [7, 12], "doc_id": [3, 101], "relevance": [2, 1]}
    runs = [read_run(path).to_dict() for path in write_all(tmp_path, "run", run_columns)]
    qrels = [read_qrels(path).to_dict() for path in write_all(tmp_path, "qrels", qrels_columns)]
    assert runs == [{"7": ["3", "101"], "12": ["101"]}] * 4
    assert qrels == [{"7": {"3": 2}, "12": {"101": 1}}] * 4
    assert cg.evaluate(read_qrels(tmp_path / "qrels.jsonl"), read_run(tmp_path / "run.parquet"), ks=[1]) == (
        cg.evaluate(qrels[0], runs[0], ks=[1])
    )


def test_integer_and_text_ids_mixed_in_json_lines_are_all_text(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(
        lines({"question_id": "7", "chunk_id": "c1", "rank": 1}, {"question_id": 7, "chunk_id": 3, "rank": 2})
    )
    assert read_run(path).to_dict() == {"7": ["c1", "3"]}


@pytest.mark.parametrize(
    ("value", "shown", "kind"), [(1.5, "1.5", "double"), (2.0, "2.0", "double"), (True, "true", "bool")]
)
def test_a_float_or_boolean_id_is_refused_by_json_lines_and_parquet(
    tmp_path: Path, value: object, shown: str, kind: str
) -> None:
    jsonl = tmp_path / "run.jsonl"
    row = {"question_id": "q1", "chunk_id": value}
    jsonl.write_text(lines({"question_id": "q1", "chunk_id": "c1"}, row))
    assert refused(jsonl, read_run) == (
        f"{jsonl}, line 2: expected 'chunk_id' to be text or a whole number, got {shown}: {json.dumps(row)!r}"
    )
    parquet = tmp_path / "run.parquet"
    pq.write_table(pa.table({"question_id": ["q1"], "chunk_id": [value]}), parquet)
    assert refused(parquet, read_run) == (
        f"{parquet}, row 1: expected the chunk id to be text or a whole number, got {kind}: {json.dumps(row)!r}"
    )


def test_a_csv_cell_is_text_whatever_it_looks_like(tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    path.write_text("qid,docid\n007,1.5\n007,true\n007,-3\n")
    assert read_run(path).to_dict() == {"007": ["1.5", "true", "-3"]}
