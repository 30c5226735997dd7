"""Bad input: every reader refuses a malformed file whole, naming the file, the line or row and the offending text.

Each test also checks that the input file's bytes are exactly what they were.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from contextgrid.core.errors import ContextGridError, InputFileError
from contextgrid.io import (
    read_answers,
    read_chunks,
    read_documents,
    read_qrels,
    read_questions,
    read_run,
)
from contextgrid.io.answers import read_answer_columns

Reader = Callable[..., Any]


def refused(path: Path, reader: Reader, *shown: str, **options: Any) -> InputFileError:
    """Read ``path``, expect an InputFileError naming the file and every string in ``shown``; file untouched."""
    before = path.read_bytes()
    with pytest.raises(InputFileError) as caught:
        reader(path, **options)
    message = str(caught.value)
    assert str(path) in message
    for text in shown:
        assert text in message, message
    assert path.read_bytes() == before
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, ContextGridError)
    return caught.value


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


GOOD_RUN = "".join(f"q1 Q0 c{i} {i} {10 - i}.5 bm25\n" for i in range(1, 20))
DOCUMENTS = {"a.md": "Refunds are available within 30 days."}


def test_wrong_column_count(tmp_path: Path) -> None:
    lines = GOOD_RUN.splitlines(keepends=True)
    lines[16] = "q1 Q0 c3 1 0.8\n"
    path = write(tmp_path / "bm25.trec", "".join(lines))
    error = refused(path, read_run, "line 17", "expected 6 whitespace-separated columns", "got 5", "'q1 Q0 c3 1 0.8'")
    assert error.line == 17
    assert str(error) == (
        f"{path}, line 17: expected 6 whitespace-separated columns (qid Q0 docid rank score tag; any after tag are "
        "ignored), got 5: 'q1 Q0 c3 1 0.8'"
    )


def test_trec_qrels_line_indented_before_its_hash(tmp_path: Path) -> None:
    path = write(tmp_path / "test.qrels", "# judged 2026\nq1 0 c1 2\n\t# 0 c2 1\n")
    error = refused(path, read_qrels, "line 3", "expected a comment line to start with '#'", "'\\t# 0 c2 1'")
    assert error.line == 3


def test_trec_file_of_comments_alone(tmp_path: Path) -> None:
    path = write(tmp_path / "run.trec", "# no run yet\n  # still none\n")
    refused(path, read_run, "got only comment lines")


def test_trec_carriage_return_inside_the_text_after_a_tag(tmp_path: Path) -> None:
    path = write(tmp_path / "run.trec", "q1 Q0 c1 1 0.9 x\rq1 Q0 c2 2 0.8 x\rq1 Q0 c3 3 0.7 x\n")
    refused(path, read_run, "line 1", "no carriage return (\\r)", "'q1 Q0 c1 1 0.9 x\\rq1 Q0 c2")


def test_non_integer_grade(tmp_path: Path) -> None:
    path = write(tmp_path / "test.qrels", "q1 0 c1 2\nq1 0 c2 1.5\n")
    refused(path, read_qrels, "line 2", "grade to be a whole number", "'q1 0 c2 1.5'")


def test_non_numeric_score(tmp_path: Path) -> None:
    path = write(tmp_path / "run.trec", "q1 Q0 c1 1 0.9 x\n\nq1 Q0 c2 2 high x\n")
    refused(path, read_run, "line 3", "score to be a number", "'q1 Q0 c2 2 high x'")


def test_rank_that_is_not_a_number_is_ignored(tmp_path: Path) -> None:
    # trec_eval never reads the rank column, so neither does read_run.
    path = write(tmp_path / "run.trec", "q1 Q0 c1 first 0.9 x\nq1 Q0 c2 1.0 0.95 x\n")
    assert read_run(path).to_dict() == {"q1": ["c2", "c1"]}


def test_negative_span(tmp_path: Path) -> None:
    path = write(tmp_path / "chunks.jsonl", '{"id": "c1", "doc_id": "a.md", "start": -4, "end": 10}\n')
    refused(path, read_chunks, "line 1", "'start' to be a whole number, 0 or more", '"start": -4')


def test_inverted_span(tmp_path: Path) -> None:
    text = (
        '{"id": "c1", "doc_id": "a.md", "start": 0, "end": 5, "text": "Refun"}\n'
        '{"id": "c2", "doc_id": "a.md", "start": 9, "end": 3, "text": "x"}\n'
    )
    path = write(tmp_path / "chunks.jsonl", text)
    refused(path, read_chunks, "line 2", "at or after 'start', got 9..3", '"id": "c2"')


def test_inverted_gold_span(tmp_path: Path) -> None:
    line = '{"id": "q1", "question": "?", "gold": [{"doc_id": "a.md", "start": 8, "end": 2}]}'
    path = write(tmp_path / "questions.jsonl", line + "\n")
    refused(path, read_questions, "line 1", "at or after 'start', got 8..2", '"start": 8')


def test_span_past_the_end_of_its_document(tmp_path: Path) -> None:
    path = write(tmp_path / "chunks.jsonl", '{"id": "c1", "doc_id": "a.md", "start": 30, "end": 90}\n')
    refused(path, read_chunks, "line 1", "inside 'a.md' (37 characters), got 30..90", '"end": 90', documents=DOCUMENTS)


def test_unknown_document(tmp_path: Path) -> None:
    path = write(tmp_path / "chunks.jsonl", '{"id": "c1", "doc_id": "b.md", "start": 0, "end": 4, "text": "Refu"}\n')
    refused(path, read_chunks, "line 1", "known document, got 'b.md'", '"doc_id": "b.md"', documents=DOCUMENTS)


def test_same_question_and_chunk_twice_in_a_run(tmp_path: Path) -> None:
    path = write(tmp_path / "run.trec", "q1 Q0 c1 1 0.9 x\nq2 Q0 c1 1 0.9 x\nq1 Q0 c2 2 0.8 x\nq1 Q0 c1 3 0.7 x\n")
    refused(path, read_run, "line 4", "each (question, chunk) pair once", "'q1 Q0 c1 3 0.7 x'")


def test_same_question_and_chunk_twice_in_qrels(tmp_path: Path) -> None:
    path = write(tmp_path / "qrels.csv", "question_id,chunk_id,grade\nq1,c1,2\nq1,c1,0\n")
    refused(path, read_qrels, "line 3", "each (question, chunk) pair once", "'q1,c1,0'")


def test_empty_file(tmp_path: Path) -> None:
    path = write(tmp_path / "run.trec", "\n  \n")
    refused(path, read_run, "got an empty file")


def test_empty_gzip_file(tmp_path: Path) -> None:
    path = tmp_path / "run.trec.gz"
    path.write_bytes(gzip.compress(b""))
    refused(path, read_run, "got an empty file")


def test_undecodable_bytes(tmp_path: Path) -> None:
    path = tmp_path / "run.trec"
    path.write_bytes(b"q1 Q0 c1 1 0.9 x\nq1 Q0 c\xff2 2 0.8 x\n")
    refused(path, read_run, "line 2", "expected UTF-8 text", r"c\\xff2")


def test_json_of_the_wrong_shape(tmp_path: Path) -> None:
    path = write(tmp_path / "run.json", '{"q1": {"c1": 0.5}, "q2": {"c3": "high"}}')
    refused(path, read_run, "question 'q2', chunk 'c3'", "expected a score (a number)", '"high"')


def test_json_not_an_object(tmp_path: Path) -> None:
    path = write(tmp_path / "run.json", '[["q1", "c1"]]')
    refused(path, read_run, "at the top level", '[["q1", "c1"]]')


def test_invalid_json(tmp_path: Path) -> None:
    path = write(tmp_path / "qrels.json", '{"q1": {"c1": 2,\n "c2": }}')
    refused(path, read_qrels, "line 2", "invalid JSON", '"c2": }}')


def test_json_repeated_key(tmp_path: Path) -> None:
    path = write(tmp_path / "qrels.json", '{"q1": {"c1": 2, "c1": 0}}')
    refused(path, read_qrels, "in question 'q1'", "'c1'", "twice")


def test_parquet_missing_a_column(tmp_path: Path) -> None:
    path = tmp_path / "qrels.parquet"
    pq.write_table(pa.table({"question_id": ["q1"], "chunk_id": ["c1"]}), path)
    refused(path, read_qrels, "expected a column named 'grade'", "['question_id', 'chunk_id']")


def test_parquet_bad_value_names_the_row(tmp_path: Path) -> None:
    path = tmp_path / "qrels.parquet"
    pq.write_table(
        pa.table({"question_id": ["q1", "q1", "q2"], "chunk_id": ["c1", "c2", "c1"], "grade": [2.0, 1.5, 0.0]}), path
    )
    refused(path, read_qrels, "row 2", "expected the grade to be a whole number, got 1.5")


def test_jsonl_line_that_is_not_an_object(tmp_path: Path) -> None:
    path = write(tmp_path / "run.jsonl", '{"question_id": "q1", "chunk_id": "c1", "score": 1}\n["q1", "c2"]\n')
    refused(path, read_run, "line 2", "got a JSON list", '["q1", "c2"]')


@pytest.mark.parametrize("filler", ["\u00a0", "\u2003", "\x1c"])
def test_jsonl_line_of_unicode_spaces_is_no_blank_line(tmp_path: Path, filler: str) -> None:
    # Python's str.strip() would take it for a blank line and skip it; only C's isspace() makes a line blank.
    text = (
        '{"question_id": "q1", "chunk_id": "c1", "score": 1}\n'
        + filler
        + '\n \t\n{"question_id": "q1", "chunk_id": "c2", "score": 0.5}\n'
    )
    path = write(tmp_path / "run.jsonl", text)
    error = refused(path, read_run, "line 2", "expected a JSON object per line, got invalid JSON")
    assert error.line == 2


def test_jsonl_blank_lines_are_skipped(tmp_path: Path) -> None:
    first, second = (
        json.dumps({"question_id": "q1", "chunk_id": chunk, "score": score}) for chunk, score in [("c1", 1), ("c2", 2)]
    )
    text = first + "\n \t\v\f\r\n\n" + second + "\n"
    assert read_run(write(tmp_path / "run.jsonl", text)).to_dict() == {"q1": ["c2", "c1"]}


def test_jsonl_score_of_the_wrong_type(tmp_path: Path) -> None:
    text = (
        '{"question_id": "q1", "chunk_id": "c1", "score": 1}\n\n{"question_id": "q1", "chunk_id": "c2", "score": "x"}\n'
    )
    path = write(tmp_path / "run.jsonl", text)
    refused(path, read_run, "line 3", "'score' to be a number", '"score": "x"')


def test_csv_wrong_column_count(tmp_path: Path) -> None:
    path = write(tmp_path / "run.csv", "question_id,chunk_id,score\nq1,c1,0.5\nq1,c2\n")
    refused(path, read_run, "line 3", "expected 3 comma-separated columns", "'q1,c2'")


@pytest.mark.parametrize("blank", [" ", "\t", " \r"])
def test_csv_line_of_whitespace_is_named(tmp_path: Path, blank: str) -> None:
    # pyarrow skips only empty lines: one of whitespace is a row of one cell, refused with its line.
    path = write(tmp_path / "run.csv", f"question_id,chunk_id,score\nq1,c1,0.5\n{blank}\nq1,c2,0.4\n")
    error = refused(path, read_run, "line 3", "expected 3 comma-separated columns, as in the header, got 1")
    assert error.line == 3


def test_csv_empty_lines_are_skipped(tmp_path: Path) -> None:
    path = write(tmp_path / "run.csv", "question_id,chunk_id,score\nq1,c1,0.5\n\n\r\nq1,c2,0.9\n")
    assert read_run(path).to_dict() == {"q1": ["c2", "c1"]}


def test_csv_non_numeric_score(tmp_path: Path) -> None:
    path = write(tmp_path / "run.tsv", "qid\tdocid\tscore\nq1\tc1\t0.5\nq1\tc2\tn/a\n")
    refused(path, read_run, "line 3", "the score to be a number", "'q1\\tc2\\tn/a'")


def test_nan_score(tmp_path: Path) -> None:
    path = write(tmp_path / "run.trec", "q1 Q0 c1 1 0.5 x\nq1 Q0 c2 2 nan x\n")
    refused(path, read_run, "line 2", "NaN", "'q1 Q0 c2 2 nan x'")


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="no such file"):
        read_run(tmp_path / "absent.trec")


def test_documents_jsonl_repeated_id(tmp_path: Path) -> None:
    path = write(tmp_path / "docs.jsonl", '{"doc_id": "a", "text": "x"}\n{"doc_id": "a", "text": "y"}\n')
    refused(path, read_documents, "line 2", "each doc_id once", '"text": "y"')


def test_documents_folder_with_undecodable_file(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    bad = tmp_path / "docs" / "bad.txt"
    bad.write_bytes(b"fine\nnot \xfe fine\n")
    refused(bad, lambda _: read_documents(tmp_path / "docs"), "line 2", "expected UTF-8 text", r"not \\xfe fine")


def test_documents_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match=r"\.txt or \.md files"):
        read_documents(tmp_path)


def test_questions_bad_grade(tmp_path: Path) -> None:
    line = '{"id": "q1", "question": "?", "gold": [{"doc_id": "a.md", "quote": "30 days", "grade": "high"}]}'
    path = write(tmp_path / "questions.jsonl", line + "\n")
    refused(path, read_questions, "line 1", "'grade' that is a whole number", '"grade": "high"')


def test_questions_repeated_id(tmp_path: Path) -> None:
    path = write(tmp_path / "questions.jsonl", '{"id": "q1", "question": "a"}\n{"id": "q1", "question": "b"}\n')
    refused(path, read_questions, "line 2", "each question id once", '"question": "b"')


@pytest.mark.parametrize("reader", [read_answers, read_answer_columns])
def test_answers_bad_citation(tmp_path: Path, reader: Reader) -> None:
    path = write(tmp_path / "answers.jsonl", '{"question_id": "q1", "answer": "x", "citations": [0]}\n')
    refused(path, reader, "line 1", "passage numbers, 1 or more", '"citations": [0]')


@pytest.mark.parametrize("reader", [read_answers, read_answer_columns])
def test_answers_twice_for_one_question(tmp_path: Path, reader: Reader) -> None:
    path = write(
        tmp_path / "answers.jsonl", '{"question_id": "q1", "answer": "x"}\n{"question_id": "q1", "answer": "y"}\n'
    )
    refused(path, reader, "line 2", "one answer per question", '"answer": "y"')


def test_chunk_without_text_or_documents(tmp_path: Path) -> None:
    path = write(tmp_path / "chunks.jsonl", '{"id": "c1", "doc_id": "a.md", "start": 0, "end": 4}\n')
    refused(path, read_chunks, "line 1", "documents= to fill it from")


def test_chunk_id_twice(tmp_path: Path) -> None:
    line = '{"id": "c1", "doc_id": "a.md", "start": 0, "end": 4, "text": "Refu"}\n'
    path = write(tmp_path / "chunks.jsonl", line + line)
    refused(path, read_chunks, "line 2", "each chunk id once")


def test_long_offending_text_is_shortened(tmp_path: Path) -> None:
    path = write(tmp_path / "test.qrels", "q1 0 c1 " + "x" * 500 + " extra\n")
    error = refused(path, read_qrels, "line 1", "got 5")
    assert len(str(error)) < 300


def test_a_json_line_led_by_a_byte_order_mark_is_refused_as_json_loads_refuses_it(tmp_path: Path) -> None:
    good = '{"id": "c0", "doc_id": "a", "start": 0, "end": 1, "text": "x"}'
    path = tmp_path / "chunks.jsonl"
    path.write_text(f"{good}\n\ufeff{good}\n", encoding="utf-8")
    with pytest.raises(json.JSONDecodeError) as parsed:
        json.loads(f"\ufeff{good}")
    refused(path, read_chunks, "line 2: ", f"got invalid JSON ({parsed.value.msg})")
