"""read_questions: evaluation questions and their gold evidence, from JSON Lines.

One question per line::

    {"id": "q1", "question": "What is the refund window?",
     "gold": [{"doc_id": "refund.md", "start": 0, "end": 46, "grade": 2},
              {"doc_id": "faq.md", "quote": "within 30 days", "grade": 1}],
     "reference_answer": "30 days"}

Gold given as offsets becomes a :class:`~contextgrid.data.records.GoldSpan` (with
its ``quote`` if one is given too); gold given as a quoted passage alone
becomes an :class:`~contextgrid.data.records.Anchor`, for a span resolver to find.
``grade`` defaults to 2. Offsets are not checked against documents here: the
span resolver does that.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from contextgrid.data.records import Anchor, EvalItem, GoldSpan, Span
from contextgrid.io.files import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_RATIO, Folders, Source
from contextgrid.io.jsonl import json_objects

__all__ = ["read_located_questions", "read_questions"]


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _gold(source: Source, number: int, line: str, entry: Any) -> GoldSpan | Anchor:
    if not isinstance(entry, dict):
        raise source.error(number, line, f"expected each gold entry to be a JSON object, got {entry!r}")
    doc_id, grade, quote = entry.get("doc_id"), entry.get("grade", 2), entry.get("quote")
    if not isinstance(doc_id, str) or not doc_id:
        raise source.error(number, line, f"expected each gold entry to have a 'doc_id' string, got {doc_id!r}")
    if not _whole(grade):
        raise source.error(number, line, f"expected a gold 'grade' that is a whole number, 0 or more, got {grade!r}")
    if quote is not None and (not isinstance(quote, str) or not quote.strip()):
        raise source.error(number, line, f"expected a gold 'quote' that is a non-empty string, got {quote!r}")
    if "start" not in entry and "end" not in entry:
        if quote is None:
            raise source.error(number, line, "expected each gold entry to give 'start' and 'end', or a 'quote'")
        return Anchor(doc_id, quote, grade)
    start, end = entry.get("start"), entry.get("end")
    if not isinstance(start, int) or not isinstance(end, int) or not _whole(start) or not _whole(end):
        raise source.error(
            number, line, f"expected gold 'start' and 'end' to be whole numbers, 0 or more, got {start!r} and {end!r}"
        )
    if end < start:
        raise source.error(number, line, f"expected gold 'end' to be at or after 'start', got {start}..{end}")
    return GoldSpan(Span(doc_id, start, end), grade, quote)


def read_questions(
    path: str | os.PathLike[str],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_line_bytes: int | None = None,
    max_ratio: int | None = DEFAULT_MAX_RATIO,
    within: Folders | None = None,
) -> tuple[EvalItem, ...]:
    """Read questions from JSON Lines ``{"id", "question", "gold", "reference_answer"}``.

    ``gold`` and ``reference_answer`` are optional. A malformed line, or an
    id given twice, is refused with an :class:`~contextgrid.core.errors.InputFileError`,
    as is a file that holds more than ``max_bytes`` (1 GiB), a gzip file that
    expands more than ``max_ratio`` times (100) or a line longer than
    ``max_line_bytes`` (1 MiB). With ``within``, the file must lie in one of
    those folders once its links are followed (:func:`~contextgrid.io.files.confined`).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from contextgrid.io import read_questions
    >>> path = Path(tempfile.mkdtemp()) / "questions.jsonl"
    >>> _ = path.write_text('{"id": "q1", "question": "Refund window?", "gold": ['
    ...                     '{"doc_id": "a.md", "start": 0, "end": 7}, {"doc_id": "b.md", "quote": "30 days"}]}\\n')
    >>> item = read_questions(path)[0]
    >>> item.gold
    (GoldSpan(span=Span(doc_id='a.md', start=0, end=7), grade=2, quote=None),)
    >>> item.anchors
    (Anchor(doc_id='b.md', quote='30 days', grade=2),)
    """
    return read_located_questions(
        path, max_bytes=max_bytes, max_line_bytes=max_line_bytes, max_ratio=max_ratio, within=within
    )[0]


def read_located_questions(
    path: str | os.PathLike[str],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_line_bytes: int | None = None,
    max_ratio: int | None = DEFAULT_MAX_RATIO,
    within: Folders | None = None,
) -> tuple[tuple[EvalItem, ...], Mapping[str, int]]:
    """:func:`read_questions`, and the line each question was read from, ``{question_id: line}`` (counted from
    1, as an error names a line), for reports of gold evidence that cannot be found (see
    :meth:`~contextgrid.evidence.resolver.SpanResolver.resolve`'s ``origins``).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from contextgrid.io.questions import read_located_questions
    >>> path = Path(tempfile.mkdtemp()) / "questions.jsonl"
    >>> _ = path.write_text('{"id": "q1", "question": "Why?"}\\n\\n{"id": "q2", "question": "How?"}\\n')
    >>> items, lines = read_located_questions(path)
    >>> [lines[item.id] for item in items]
    [1, 3]
    """
    source = Source(
        path,
        max_bytes=max_bytes,
        max_line_bytes=DEFAULT_MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes,
        max_ratio=max_ratio,
        within=within,
    )
    items: dict[str, EvalItem] = {}
    lines: dict[str, int] = {}
    for number, line, value in json_objects(source, 'a JSON object {"id", "question", "gold"} per line'):
        question_id, question = value.get("id"), value.get("question")
        if not isinstance(question_id, str) or not question_id:
            raise source.error(number, line, f"expected 'id' to be a non-empty string, got {question_id!r}")
        if not isinstance(question, str):
            raise source.error(number, line, f"expected 'question' to be a string, got {question!r}")
        if question_id in items:
            raise source.error(number, line, f"expected each question id once, got {question_id!r} again")
        entries = value.get("gold", [])
        if not isinstance(entries, list):
            raise source.error(number, line, f"expected 'gold' to be a list of gold entries, got {entries!r}")
        reference = value.get("reference_answer")
        if reference is not None and not isinstance(reference, str):
            raise source.error(number, line, f"expected 'reference_answer' to be a string, got {reference!r}")
        evidence = [_gold(source, number, line, entry) for entry in entries]
        items[question_id] = EvalItem(
            id=question_id,
            question=question,
            gold=tuple(e for e in evidence if isinstance(e, GoldSpan)),
            anchors=tuple(e for e in evidence if isinstance(e, Anchor)),
            reference_answer=reference,
        )
        lines[question_id] = number
    return tuple(items.values()), lines
