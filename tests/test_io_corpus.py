"""read_documents, read_chunks, read_questions and read_answers on well-formed files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import contextgrid as cg
from contextgrid.data.records import AnswerRecord
from contextgrid.io import read_answers, read_chunks, read_documents, read_questions

TEXT = "Refunds are available within 30 days of purchase."


def jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_documents_from_a_folder_keep_paths_and_bytes(tmp_path: Path) -> None:
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "refund.md").write_bytes(b"Line one\r\nLine two\n")
    (tmp_path / "faq.txt").write_text("Questions", encoding="utf-8")
    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    docs = read_documents(tmp_path)
    assert docs == {"faq.txt": "Questions", "policies/refund.md": "Line one\r\nLine two\n"}


def test_documents_from_jsonl(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "docs.jsonl", [{"doc_id": "a", "text": TEXT}, {"doc_id": "b", "text": ""}])
    assert read_documents(path) == {"a": TEXT, "b": ""}


def test_chunks_fill_missing_text_from_documents(tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "chunks.jsonl",
        [{"id": "c1", "doc_id": "a", "start": 0, "end": 7}, {"id": "c2", "doc_id": "a", "start": 29, "end": 36}],
    )
    chunks = read_chunks(path, documents={"a": TEXT})
    assert [c.text for c in chunks] == ["Refunds", "30 days"]
    assert chunks[1].span == cg.Span("a", 29, 36)


def test_chunk_text_without_documents_is_taken_as_given(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "chunks.jsonl", [{"id": "c1", "doc_id": "a", "start": 0, "end": 46, "text": TEXT}])
    assert read_chunks(path) == (cg.Chunk("c1", cg.Span("a", 0, 46), TEXT),)


def test_chunk_text_differing_only_in_whitespace_is_accepted_silently(tmp_path: Path) -> None:
    docs = {"a": "Refunds  are\navailable"}
    path = jsonl(
        tmp_path / "chunks.jsonl", [{"id": "c1", "doc_id": "a", "start": 0, "end": 22, "text": "Refunds are available"}]
    )
    log = cg.WarningLog()
    assert read_chunks(path, documents=docs, warnings=log)[0].text == "Refunds are available"
    assert len(log) == 0


def test_chunk_text_that_disagrees_is_reported_in_the_log(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "chunks.jsonl", [{"id": "c1", "doc_id": "a", "start": 0, "end": 7, "text": "Returns"}])
    log = cg.WarningLog()
    chunks = read_chunks(path, documents={"a": TEXT}, warnings=log)
    assert chunks[0].text == "Returns"
    (entry,) = log.entries
    assert entry.severity is cg.Severity.CAUTION
    assert entry.subject == "c1"
    assert f"{path}, line 1" in entry.message
    assert "not what its document holds" in entry.message


def test_chunk_text_that_disagrees_warns_without_a_log(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "chunks.jsonl", [{"id": "c1", "doc_id": "a", "start": 0, "end": 7, "text": "Returns"}])
    with pytest.warns(UserWarning, match="chunk 'c1'"):
        read_chunks(path, documents={"a": TEXT})


def test_questions_offsets_become_gold_spans_and_quotes_anchors(tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "questions.jsonl",
        [
            {
                "id": "q1",
                "question": "What is the refund window?",
                "gold": [
                    {"doc_id": "a", "start": 29, "end": 36, "grade": 1, "quote": "30 days"},
                    {"doc_id": "b", "quote": "within 30 days"},
                ],
                "reference_answer": "30 days",
            },
            {"id": "q2", "question": "Unanswerable?"},
        ],
    )
    first, second = read_questions(path)
    assert first == cg.EvalItem(
        id="q1",
        question="What is the refund window?",
        gold=(cg.GoldSpan(cg.Span("a", 29, 36), 1, "30 days"),),
        anchors=(cg.Anchor("b", "within 30 days", 2),),
        reference_answer="30 days",
    )
    assert not second.is_answerable


def test_answers(tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "answers.jsonl",
        [
            {"question_id": "q1", "answer": "Within 30 days [1].", "citations": [1], "context_chunk_ids": ["c4", "c9"]},
            {"question_id": "q2", "answer": "I don't know."},
        ],
    )
    assert read_answers(path) == (
        AnswerRecord("q1", cg.Answer("Within 30 days [1].", (1,)), ("c4", "c9")),
        AnswerRecord("q2", cg.Answer("I don't know.")),
    )


def test_answer_record_validates() -> None:
    with pytest.raises(cg.ContextGridError, match="question_id"):
        AnswerRecord("", cg.Answer("x"))
    with pytest.raises(cg.ContextGridError, match="context_chunk_ids"):
        AnswerRecord("q1", cg.Answer("x"), ("c1", 2))  # type: ignore[arg-type]
