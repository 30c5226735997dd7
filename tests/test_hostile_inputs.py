"""Hostile and malformed inputs from issue #34: each is refused with a message naming the file and, where it has
one, the line or row; none raises anything but an InputFileError, and nothing is read silently."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import contextgrid as cg
from contextgrid.io import read_answers, read_chunks, read_documents, read_qrels, read_questions, read_run
from contextgrid.io.jsonl import deep_line
from contextgrid.workspace.manifest import load_workspace

DEEP = "[" * 1000 + "]" * 1000
DEEP_OBJECT = '{"a": ' * 1000 + "1" + "}" * 1000
TOO_DEEP = "got JSON nested too deeply to read (past 100 levels)"


def refused(path: Path, read: Callable[..., object]) -> cg.InputFileError:
    with pytest.raises(cg.InputFileError) as caught:
        read(path)
    return caught.value


def written(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def parquet(path: Path, table: pa.Table) -> Path:
    pq.write_table(table, path)
    return path


# -- nested too deeply (RecursionError) ------------------------------------------------------------------------


@pytest.mark.parametrize("deep", [DEEP, DEEP_OBJECT], ids=["arrays", "objects"])
@pytest.mark.parametrize(
    ("name", "read", "first", "expected"),
    [
        ("run.jsonl", read_run, '{"question_id": "q1", "chunk_id": "c1", "score": 1}\n', "a JSON object per line"),
        ("qrels.jsonl", read_qrels, '{"question_id": "q1", "chunk_id": "c1", "grade": 1}\n', "a JSON object per line"),
        (
            "questions.jsonl",
            read_questions,
            '{"id": "q0", "question": "?"}\n',
            'a JSON object {"id", "question", "gold"} per line',
        ),
        (
            "answers.jsonl",
            read_answers,
            '{"question_id": "q0", "answer": "a"}\n',
            'a JSON object {"question_id", "answer", "citations", "context_chunk_ids"} per line',
        ),
        (
            "chunks.jsonl",
            read_chunks,
            '{"id": "c0", "doc_id": "a", "start": 0, "end": 1, "text": "x"}\n',
            'a JSON object {"id", "doc_id", "start", "end"} per line',
        ),
        (
            "documents.jsonl",
            read_documents,
            '{"doc_id": "a", "text": "x"}\n',
            'a JSON object {"doc_id", "text"} per line',
        ),
    ],
)
def test_json_lines_nested_a_thousand_deep_names_its_line(
    tmp_path: Path, deep: str, name: str, read: Callable[..., object], first: str, expected: str
) -> None:
    # Under a field the reader reads: pyarrow skips a field it is not asked for, however deep.
    field = {"run.jsonl": "score", "qrels.jsonl": "grade"}.get(name, "text")
    line = f'{{"question_id": "q1", "chunk_id": "c2", "id": "q1", "doc_id": "a", "{field}": {deep}}}'
    path = written(tmp_path / name, first + line + "\n")
    error = refused(path, read)
    assert (error.path, error.line, error.text) == (str(path), 2, line)
    assert error.expected == f"expected {expected}, {TOO_DEEP}"


@pytest.mark.parametrize("read", [read_run, read_qrels])
def test_a_json_value_nested_a_thousand_deep_names_the_line_it_nests_on(
    tmp_path: Path, read: Callable[..., object]
) -> None:
    path = written(tmp_path / "file.json", '{\n"q1": {"c1": 1},\n"q2": ' + DEEP + "\n}")
    error = refused(path, read)
    assert (error.line, error.text) == (3, '"q2": ' + DEEP)
    assert error.expected.endswith(TOO_DEEP)


def test_a_manifest_nested_a_thousand_deep_names_its_line(tmp_path: Path) -> None:
    (tmp_path / "contextgrid.toml").write_text('name = "w"\nx = ' + DEEP + "\n")
    error = refused(tmp_path, load_workspace)
    assert (error.path, error.line) == (str(tmp_path / "contextgrid.toml"), 2)
    assert error.expected == "expected TOML that nests less deeply (past 100 levels here)"


def test_deep_line_skips_brackets_in_strings_and_counts_lines() -> None:
    assert deep_line('{"a": "[[[[",\n "b": [[[1]]]}', depth=3) == 2
    assert deep_line('{"a": "[[[["}', depth=3) is None
    assert deep_line('{"a": "\\"[[[["}', depth=1) is None  # an escaped quote does not end the string


# -- repeated and duplicate names -------------------------------------------------------------------------------


def test_a_json_lines_key_given_twice_is_refused_with_its_line(tmp_path: Path) -> None:
    line = '{"question_id": "q1", "chunk_id": "c1", "chunk_id": "c9", "score": 1}'
    path = written(tmp_path / "run.jsonl", '{"question_id": "q0", "chunk_id": "c1", "score": 1}\n' + line + "\n")
    assert str(refused(path, read_run)) == (
        f"{path}, line 2: expected each key once in an object, got 'chunk_id' twice: {line!r}"
    )


@pytest.mark.parametrize(
    ("read", "line"),
    [
        (read_questions, '{"id": "q1", "id": "q2", "question": "?"}'),
        (read_documents, '{"doc_id": "a", "text": "x", "text": "y"}'),
        (read_answers, '{"question_id": "q1", "answer": "a", "answer": "b"}'),
        (read_qrels, '{"question_id": "q1", "chunk_id": "c1", "grade": 1, "grade": 2}'),
    ],
)
def test_every_json_lines_reader_refuses_a_repeated_key(tmp_path: Path, read: Callable[..., object], line: str) -> None:
    error = refused(written(tmp_path / "file.jsonl", line + "\n"), read)
    assert (error.line, error.text) == (1, line)
    assert error.expected.startswith("expected each key once in an object, got ")


def test_a_csv_with_two_score_columns_is_refused(tmp_path: Path) -> None:
    path = written(tmp_path / "run.csv", "question_id,chunk_id,score,score\nq1,c1,1,2\n")
    assert str(refused(path, read_run)) == (
        f"{path}: expected one column named 'score', got 2: \"columns ['question_id', 'chunk_id', 'score', 'score']\""
    )


def test_a_parquet_file_with_duplicate_columns_is_refused(tmp_path: Path) -> None:
    table = pa.Table.from_arrays(
        [pa.array(["q1"]), pa.array(["c1"]), pa.array([1]), pa.array([2])], names=["qid", "docid", "grade", "grade"]
    )
    error = refused(parquet(tmp_path / "qrels.parquet", table), read_qrels)
    assert error.expected == "expected one column named 'grade', got 2"


# -- numbers that do not fit, booleans --------------------------------------------------------------------------


def test_a_parquet_uint64_grade_past_int64_names_its_row(tmp_path: Path) -> None:
    table = pa.table(
        {"question_id": ["q1", "q2"], "chunk_id": ["c1", "c2"], "grade": pa.array([1, 2**64 - 1], pa.uint64())}
    )
    error = refused(parquet(tmp_path / "qrels.parquet", table), read_qrels)
    assert (error.line, error.unit) == (2, "row")
    assert error.expected == "expected the grade to be a whole number that fits in 64 bits, got 18446744073709551615"


def test_a_small_uint64_grade_is_read(tmp_path: Path) -> None:
    table = pa.table({"question_id": ["q1"], "chunk_id": ["c1"], "grade": pa.array([3], pa.uint64())})
    assert dict(read_qrels(parquet(tmp_path / "qrels.parquet", table))["q1"]) == {"c1": 3}


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("qrels.csv", "question_id,chunk_id,grade\nq1,c1,1\nq2,c2,99999999999999999999\n", 3),
        (
            "qrels.jsonl",
            '{"qid": "q1", "docid": "c1", "grade": 1}\n{"qid": "q2", "docid": "c2", "grade": 9223372036854775808}\n',
            2,
        ),
    ],
)
def test_a_grade_past_int64_names_its_line(tmp_path: Path, name: str, text: str, line: int) -> None:
    error = refused(written(tmp_path / name, text), read_qrels)
    assert error.line == line
    assert "a whole number that fits in 64 bits" in error.expected


def test_a_json_grade_past_int64_names_its_question_and_chunk(tmp_path: Path) -> None:
    path = written(tmp_path / "qrels.json", '{"q1": {"c1": 1, "c2": 9223372036854775808}}')
    assert str(refused(path, read_qrels)) == (
        f"{path}: expected a grade (a whole number that fits in 64 bits) for question 'q1', chunk 'c2': "
        "'9223372036854775808'"
    )


def test_the_largest_int64_grade_is_read(tmp_path: Path) -> None:
    path = written(tmp_path / "qrels.csv", f"question_id,chunk_id,grade\nq1,c1,{2**63 - 1}\n")
    assert dict(read_qrels(path)["q1"]) == {"c1": 2**63 - 1}


@pytest.mark.parametrize(
    ("name", "make", "read", "where"),
    [
        ("qrels.csv", "question_id,chunk_id,grade\nq1,c1,2\nq2,c2,true\n", read_qrels, 3),
        ("run.csv", "question_id,chunk_id,score\nq1,c1,false\n", read_run, 2),
        ("qrels.parquet", {"question_id": ["q1"], "chunk_id": ["c1"], "grade": [True]}, read_qrels, 1),
        ("run.parquet", {"question_id": ["q1", "q1"], "chunk_id": ["c1", "c2"], "score": [None, True]}, read_run, 2),
    ],
)
def test_a_boolean_is_no_score_and_no_grade(
    tmp_path: Path, name: str, make: str | dict[str, list[object]], read: Callable[..., object], where: int
) -> None:
    path = written(tmp_path / name, make) if isinstance(make, str) else parquet(tmp_path / name, pa.table(make))
    error = refused(path, read)
    assert error.line == where
    # A column of booleans is named so; a boolean among numbers is text that is no number.
    assert error.expected.startswith(
        ("expected the grade to be a whole number, got", "expected the score to be a number, got")
    )
    assert "true" in error.expected or "false" in error.expected


# -- nothing silent: empty runs and qrels ------------------------------------------------------------------------


@pytest.mark.parametrize("read", [read_run, read_qrels])
@pytest.mark.parametrize("kind", ["csv", "tsv", "parquet", "json", "json-lists"])
def test_a_file_of_no_rows_is_refused_in_every_format(tmp_path: Path, read: Callable[..., object], kind: str) -> None:
    last = "grade" if read is read_qrels else "score"
    if kind == "parquet":
        empty = pa.table(
            {name: pa.array([], pa.string()) for name in ("question_id", "chunk_id")} | {last: pa.array([], pa.int64())}
        )
        path = parquet(tmp_path / "file.parquet", empty)
    elif kind.startswith("json"):
        path = written(tmp_path / "file.json", '{"q1": []}' if kind == "json-lists" else "{}")
    else:
        separator = "," if kind == "csv" else "\t"
        path = written(tmp_path / f"file.{kind}", separator.join(("question_id", "chunk_id", last)) + "\n")
    if kind == "json-lists" and read is read_qrels:
        with pytest.raises(cg.InputFileError):
            read(path)  # a list is no qrels at all
        return
    error = refused(path, read)
    assert error.line is None
    assert "got none" in error.expected


# -- line numbers -----------------------------------------------------------------------------------------------


def test_a_csv_row_after_a_quoted_line_end_is_named_at_its_own_line(tmp_path: Path) -> None:
    path = written(tmp_path / "qrels.csv", 'question_id,chunk_id,grade\n"q\n1",c1,1\n\nq2,c2,x\n')
    assert (
        str(refused(path, read_qrels)) == f"{path}, line 5: expected the grade to be a whole number, got 'x': 'q2,c2,x'"
    )


def test_a_csv_row_with_a_quoted_line_end_is_named_where_it_starts(tmp_path: Path) -> None:
    path = written(tmp_path / "qrels.csv", 'question_id,chunk_id,grade\nq1,c1,1\n"q\n2",c2,x\n')
    error = refused(path, read_qrels)
    assert (error.line, error.text) == (3, '"q\n2",c2,x')


def test_a_csv_quote_that_never_ends_is_named_at_the_line_it_opens(tmp_path: Path) -> None:
    path = written(tmp_path / "qrels.csv", 'question_id,chunk_id,grade\nq1,c1,1\n"q2,c2,1\nq3,c3,1\n')
    assert str(refused(path, read_qrels)) == (
        f"{path}, line 3: expected comma-separated columns (a quoted cell that never ends): '\"q2,c2,1'"
    )


def test_a_quoted_separator_is_no_extra_column(tmp_path: Path) -> None:
    path = written(tmp_path / "qrels.csv", 'question_id,chunk_id,grade\n"q,1",c1,1\nq2,c2\n')
    assert str(refused(path, read_qrels)) == (
        f"{path}, line 3: expected 3 comma-separated columns, as in the header, got 2: 'q2,c2'"
    )


@pytest.mark.parametrize("line", [1, 2])
def test_a_json_lines_null_id_is_a_missing_value_on_its_line(tmp_path: Path, line: int) -> None:
    rows = ['{"question_id": "q1", "chunk_id": "c1", "score": 1}'] * 2
    rows[line - 1] = '{"question_id": null, "chunk_id": "c2", "score": 1}'
    path = written(tmp_path / "run.jsonl", "\n".join(rows) + "\n")
    assert str(refused(path, read_run)) == f"{path}, line {line}: expected a question id, got none: {rows[line - 1]!r}"


@pytest.mark.parametrize("name", ["qrels.jsonl", "qrels.csv", "qrels.parquet"])
def test_a_null_grade_names_its_line(tmp_path: Path, name: str) -> None:
    if name.endswith(".parquet"):
        path = parquet(
            tmp_path / name,
            pa.table({"question_id": ["q1", "q2"], "chunk_id": ["c1", "c2"], "grade": pa.array([1, None], pa.int64())}),
        )
    elif name.endswith(".csv"):
        path = written(tmp_path / name, "question_id,chunk_id,grade\nq1,c1,1\nq2,c2,\n")
    else:
        path = written(
            tmp_path / name, '{"qid": "q1", "docid": "c1", "grade": 1}\n{"qid": "q2", "docid": "c2", "grade": null}\n'
        )
    error = refused(path, read_qrels)
    assert (error.line, error.expected) == (
        2 if name.endswith(("jsonl", "parquet")) else 3,
        "expected a grade, got none",
    )


def test_json_lines_rows_are_read_as_before(tmp_path: Path) -> None:
    rows = [
        {"question_id": "q1", "chunk_id": "c1", "score": 0.5},
        {"question_id": "q1", "chunk_id": "c2", "score": 0.9},
    ]
    path = written(tmp_path / "run.jsonl", "".join(json.dumps(row) + "\n" for row in rows))
    assert read_run(path)["q1"] == ("c2", "c1")


def test_a_json_lines_null_grade_on_the_first_line_is_a_missing_value_there(tmp_path: Path) -> None:
    line = '{"qid": "q1", "docid": "c1", "grade": null}'
    path = written(tmp_path / "qrels.jsonl", line + '\n{"qid": "q2", "docid": "c2", "grade": null}\n')
    assert str(refused(path, read_qrels)) == f"{path}, line 1: expected a grade, got none: {line!r}"
