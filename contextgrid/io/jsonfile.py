"""JSON files: ``{qid: {docid: score}}`` (as ranx and pytrec_eval write runs), ``{qid: [docid, ...]}``
(a run, best first) and ``{qid: {docid: grade}}`` (qrels).

A JSON file is one value, not lines, so a shape error names the question
and chunk keys where it is instead of a line. Keys given twice in one object,
which Python's ``json`` would silently collapse, are refused.
"""

from __future__ import annotations

import json
from numbers import Integral, Real
from typing import IO, Any, ClassVar

from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.io.files import Source
from contextgrid.io.formats import FORMATS
from contextgrid.io.jsonl import MAX_SHOWN_DEPTH, deep_line, lone_surrogate, surrogate_message

__all__ = ["JsonFormat"]


class _Pairs(list[tuple[str, Any]]):
    """A JSON object with its keys in order and repeats kept, so that repeats can be refused."""


def _load(source: Source, expected: str) -> _Pairs:
    source.require_content(expected)
    source.check_utf8()
    text = source.data.decode("utf-8")
    try:
        value = json.loads(text, object_pairs_hook=_Pairs)
    except json.JSONDecodeError as error:
        line = text.splitlines()[error.lineno - 1] if error.lineno else None
        raise source.error(error.lineno, line, f"expected {expected}, got invalid JSON ({error.msg})") from None
    except RecursionError:
        number = deep_line(text)
        line = None if number is None else text.splitlines()[number - 1]
        raise source.error(
            number, line, f"expected {expected}, got JSON nested too deeply to read (past {MAX_SHOWN_DEPTH} levels)"
        ) from None
    if not isinstance(value, _Pairs):
        raise source.error(None, json.dumps(value)[:200], f"expected {expected} at the top level")
    if "\\u" in text and (found := lone_surrogate(value)) is not None:
        raise source.error(None, None, surrogate_message(expected, found))
    return value


def _where(question: str, chunk: str | None = None) -> str:
    return f"question {question!r}" if chunk is None else f"question {question!r}, chunk {chunk!r}"


def _shown(value: Any) -> str:
    return json.dumps(dict(value) if isinstance(value, _Pairs) else value)[:200]


def _refuse_repeats(source: Source, pairs: _Pairs, question: str | None) -> None:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            where = "at the top level" if question is None else f"in {_where(question)}"
            what = "question" if question is None else "chunk"
            raise source.error(None, key, f"expected each {what} once {where}, got this key twice")
        seen.add(key)


def _is_number(value: Any, *, whole: bool) -> bool:
    if isinstance(value, bool):
        return False
    # A whole number is held in 64 bits, as every format holds it.
    return isinstance(value, Integral) and -(2**63) <= int(value) < 2**63 if whole else isinstance(value, Real)


def _refuse_empty(source: Source, rows: int, expected: str) -> None:
    """Refuse a file of no (question, chunk): ``{}`` would score 0."""
    if rows == 0:
        raise source.error(None, None, f"expected {expected} with at least one question and chunk, got none")


@FORMATS.register("json")
class JsonFormat:
    """``{qid: {docid: score}}`` or ``{qid: [docid, ...]}`` runs; ``{qid: {docid: grade}}`` qrels."""

    name: ClassVar[str] = "json"
    version: ClassVar[str] = "1"

    def read_run(self, source: Source) -> RunTable:
        expected = "a JSON object {question id: {chunk id: score}} or {question id: [chunk id, ...]}"
        top = _load(source, expected)
        _refuse_repeats(source, top, None)
        questions: list[str] = []
        chunks: list[Any] = []
        scores: list[Any] = []
        lists = [isinstance(ranked, list) and not isinstance(ranked, _Pairs) for _, ranked in top]
        for (question, ranked), is_list in zip(top, lists, strict=True):
            if is_list != lists[0] or not isinstance(ranked, list):
                raise source.error(
                    None, f"{question!r}: {_shown(ranked)}", f"expected {expected}, the same shape for every question"
                )
            if is_list:
                for chunk in ranked:
                    if not isinstance(chunk, str) or not chunk:
                        raise source.error(None, _shown(chunk), f"expected a chunk id (a string) in {_where(question)}")
                chunks.extend(ranked)
            elif isinstance(ranked, _Pairs):
                _refuse_repeats(source, ranked, question)
                for chunk, score in ranked:
                    if not _is_number(score, whole=False):
                        raise source.error(
                            None, _shown(score), f"expected a score (a number) for {_where(question, chunk)}"
                        )
                    chunks.append(chunk)
                    scores.append(score)
            questions.extend([question] * len(ranked))
        _refuse_empty(source, len(chunks), expected)
        try:
            return RunTable.from_columns(questions, chunks, score=None if lists and lists[0] else scores)
        except ValueError as error:
            raise source.error(None, None, f"expected {expected}: {error}") from None

    def read_qrels(self, source: Source) -> QrelsTable:
        expected = "a JSON object {question id: {chunk id: grade}}"
        top = _load(source, expected)
        _refuse_repeats(source, top, None)
        questions: list[str] = []
        chunks: list[str] = []
        grades: list[int] = []
        for question, judgements in top:
            if not isinstance(judgements, _Pairs):
                raise source.error(None, f"{question!r}: {_shown(judgements)}", f"expected {expected}")
            _refuse_repeats(source, judgements, question)
            for chunk, grade in judgements:
                if not _is_number(grade, whole=True):
                    raise source.error(
                        None,
                        _shown(grade),
                        f"expected a grade (a whole number that fits in 64 bits) for {_where(question, chunk)}",
                    )
                questions.append(question)
                chunks.append(chunk)
                grades.append(grade)
        _refuse_empty(source, len(chunks), expected)
        try:
            return QrelsTable.from_columns(questions, chunks, grades)
        except ValueError as error:
            raise source.error(None, None, f"expected {expected}: {error}") from None

    def write_run(self, run: RunTable, out: IO[bytes], *, tag: str) -> None:
        if run.has_scores:
            scores = run.table.column("score").to_pylist()
            ranked = run.to_dict()
            bounds = run.starts.tolist()
            value: dict[str, Any] = {
                question: dict(zip(chunks, scores[bounds[i] : bounds[i + 1]], strict=True))
                for i, (question, chunks) in enumerate(ranked.items())
            }
        else:
            value = dict(run.to_dict())
        out.write(json.dumps(value, ensure_ascii=False).encode("utf-8"))

    def write_qrels(self, qrels: QrelsTable, out: IO[bytes]) -> None:
        out.write(json.dumps(qrels.to_dict(), ensure_ascii=False).encode("utf-8"))
