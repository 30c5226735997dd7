"""read_answers: generated answers as a pipeline logged them, from JSON Lines.

One answer per line::

    {"question_id": "q1", "answer": "Within 30 days [1].", "citations": [1], "context_chunk_ids": ["c4", "c9"]}

``citations`` (1-based passage numbers) and ``context_chunk_ids`` (the
chunks of the context, in passage order) are optional. Each record keeps the
line it was read from (:attr:`~contextgrid.data.records.AnswerRecord.source`),
so that a check made later, against the questions or the chunks, names it
without reading the file again.
"""

from __future__ import annotations

import os

from contextgrid.data.provenance import SourceLine
from contextgrid.data.records import Answer, AnswerRecord
from contextgrid.io.files import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_RATIO, Folders, Source
from contextgrid.io.jsonl import json_objects

__all__ = ["read_answers"]


def read_answers(
    path: str | os.PathLike[str],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_line_bytes: int | None = None,
    max_ratio: int | None = DEFAULT_MAX_RATIO,
    within: Folders | None = None,
) -> tuple[AnswerRecord, ...]:
    """Read answers from JSON Lines ``{"question_id", "answer", "citations", "context_chunk_ids"}``.

    A malformed line, a citation that is not a passage number (1 or more),
    or a question answered twice is refused with an
    :class:`~contextgrid.core.errors.InputFileError`, as is a file that holds
    more than ``max_bytes`` (1 GiB), a gzip file that expands more than
    ``max_ratio`` times (100) or a line longer than ``max_line_bytes``
    (1 MiB).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from contextgrid.io import read_answers
    >>> path = Path(tempfile.mkdtemp()) / "answers.jsonl"
    >>> _ = path.write_text('{"question_id": "q1", "answer": "30 days [1].", "citations": [1], '
    ...                     '"context_chunk_ids": ["c4"]}\\n')
    >>> read_answers(path)
    (AnswerRecord(question_id='q1', answer=Answer(text='30 days [1].', citations=(1,)), context_chunk_ids=('c4',)),)
    >>> read_answers(path)[0].source.line
    1
    """
    source = Source(
        path,
        max_bytes=max_bytes,
        max_line_bytes=DEFAULT_MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes,
        max_ratio=max_ratio,
        within=within,
    )
    records: dict[str, AnswerRecord] = {}
    expected = 'a JSON object {"question_id", "answer", "citations", "context_chunk_ids"} per line'
    for number, line, value in json_objects(source, expected):
        question_id, text = value.get("question_id"), value.get("answer")
        citations, context = value.get("citations", []), value.get("context_chunk_ids", [])
        if not isinstance(question_id, str) or not question_id:
            raise source.error(number, line, f"expected 'question_id' to be a non-empty string, got {question_id!r}")
        if not isinstance(text, str):
            raise source.error(number, line, f"expected 'answer' to be a string, got {text!r}")
        if not isinstance(citations, list) or not all(
            isinstance(c, int) and not isinstance(c, bool) and c >= 1 for c in citations
        ):
            raise source.error(
                number, line, f"expected 'citations' to be a list of passage numbers, 1 or more, got {citations!r}"
            )
        if not isinstance(context, list) or not all(isinstance(c, str) and c for c in context):
            raise source.error(number, line, f"expected 'context_chunk_ids' to be a list of chunk ids, got {context!r}")
        if question_id in records:
            raise source.error(number, line, f"expected one answer per question, got {question_id!r} again")
        where = SourceLine(source.shown, number, line)
        records[question_id] = AnswerRecord(question_id, Answer(text, tuple(citations)), tuple(context), where)
    return tuple(records.values())
