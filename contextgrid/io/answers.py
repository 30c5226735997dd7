"""read_answer_columns, read_answers: generated answers as a pipeline logged them, from JSON Lines.

One answer per line::

    {"question_id": "q1", "answer": "Within 30 days [1].", "citations": [1], "context_chunk_ids": ["c4", "c9"]}

``citations`` (1-based passage numbers) and ``context_chunk_ids`` (the
chunks of the context, in passage order) are optional.
:func:`read_answer_columns` reads a file into columns, with no record per
answer, and holds the one copy of the rules; :func:`read_answers` gives the
same answers as records. Either keeps the line each answer was read from
(:meth:`AnswerColumns.where`, :attr:`~contextgrid.data.records.AnswerRecord.source`),
so that a check made later, against the questions or the chunks, names it
without reading the file again.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, pairwise
from typing import Any

import numpy as np
import numpy.typing as npt

from contextgrid.core.errors import ContextGridError
from contextgrid.data.provenance import SourceLine
from contextgrid.data.records import MAX_PASSAGE, Answer, AnswerRecord
from contextgrid.io.files import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_RATIO, Folders, Source
from contextgrid.io.jsonl import json_objects

__all__ = ["AnswerColumns", "read_answer_columns", "read_answers"]

IntArray = npt.NDArray[np.int64]
ObjectArray = npt.NDArray[np.object_]


@dataclass(frozen=True, slots=True, eq=False)
class AnswerColumns:
    """Answers as columns, one row per answer: what :func:`read_answer_columns` reads.

    Answer ``i`` answers ``question_id[i]`` with ``text[i]``; it cites
    ``citation[citation_offsets[i]:citation_offsets[i + 1]]`` (int64, or
    Python ints where one does not fit in 64 bits) and its context's chunks
    are ``chunk_id[chunk_offsets[i]:chunk_offsets[i + 1]]``, in passage order.
    It was read from line ``line[i]`` of file ``file[i]``, whose text is
    ``line_text[i]`` (``0``, ``None`` and ``None`` for an answer made in
    code, as :meth:`from_records` makes one from a record without a source).

    Examples
    --------
    >>> from contextgrid.data.records import MAX_PASSAGE, Answer, AnswerRecord
    >>> columns = AnswerColumns.from_records(
    ...     [AnswerRecord("q1", Answer("30 days [1].", (1,)), ("c4", "c9")), AnswerRecord("q2", Answer("No idea."))]
    ... )
    >>> len(columns), columns.passages.tolist(), columns.citations()
    (2, [2, 0], [(1,), ()])
    >>> columns.record(0)
    AnswerRecord(question_id='q1', answer=Answer(text='30 days [1].', citations=(1,)), context_chunk_ids=('c4', 'c9'))
    """

    question_id: ObjectArray
    text: ObjectArray
    citation: npt.NDArray[Any]
    citation_offsets: IntArray
    chunk_id: ObjectArray
    chunk_offsets: IntArray
    file: ObjectArray
    line: IntArray
    line_text: ObjectArray

    def __post_init__(self) -> None:
        n = len(self.question_id)
        if not len(self.text) == len(self.file) == len(self.line) == len(self.line_text) == n:
            raise ContextGridError("AnswerColumns: question_id, text, file, line and line_text must be one per answer")
        for name, offsets, flat in (
            ("citation_offsets", self.citation_offsets, self.citation),
            ("chunk_offsets", self.chunk_offsets, self.chunk_id),
        ):
            if len(offsets) != n + 1 or offsets[0] != 0 or offsets[-1] != len(flat) or np.any(np.diff(offsets) < 0):
                raise ContextGridError(
                    f"AnswerColumns: {name} must rise from 0 to the length of what it cuts, one more than the answers"
                )

    def __len__(self) -> int:
        return len(self.question_id)

    @property
    def passages(self) -> IntArray:
        """How many passages each answer's context has."""
        return np.diff(self.chunk_offsets)

    def citations(self) -> list[tuple[int, ...]]:
        """Each answer's citations, as :attr:`Answer.citations <contextgrid.data.records.Answer.citations>` holds
        them."""
        flat, offsets = self.citation.tolist(), self.citation_offsets.tolist()
        return [tuple(flat[start:end]) for start, end in pairwise(offsets)]

    def context_chunk_ids(self, row: int) -> tuple[str, ...]:
        """The chunks of answer ``row``'s context, in passage order."""
        return tuple(self.chunk_id[self.chunk_offsets[row] : self.chunk_offsets[row + 1]].tolist())

    def where(self, row: int) -> SourceLine | None:
        """The line answer ``row`` was read from, if it was read from a file."""
        file = self.file[row]
        return None if file is None else SourceLine(file, int(self.line[row]), self.line_text[row])

    def record(self, row: int) -> AnswerRecord:
        """Answer ``row`` as a record."""
        cited = self.citation[self.citation_offsets[row] : self.citation_offsets[row + 1]].tolist()
        return AnswerRecord(
            self.question_id[row],
            Answer(self.text[row], tuple(cited)),
            self.context_chunk_ids(row),
            self.where(row),
        )

    def records(self) -> tuple[AnswerRecord, ...]:
        """Every answer as a record, in order (:meth:`record` of each)."""
        chunk_ids, offsets = self.chunk_id.tolist(), self.chunk_offsets.tolist()
        return tuple(
            AnswerRecord(
                question_id,
                Answer(text, cited),
                tuple(chunk_ids[start:end]),
                None if file is None else SourceLine(file, line, line_text),
            )
            for question_id, text, cited, start, end, file, line, line_text in zip(
                self.question_id.tolist(),
                self.text.tolist(),
                self.citations(),
                offsets[:-1],
                offsets[1:],
                self.file.tolist(),
                self.line.tolist(),
                self.line_text.tolist(),
                strict=True,
            )
        )

    @classmethod
    def from_records(cls, records: Sequence[AnswerRecord]) -> AnswerColumns:
        """The columns of ``records``, each keeping the line its record keeps."""
        sources = [record.source for record in records]
        return _columns(
            [record.question_id for record in records],
            [record.answer.text for record in records],
            [record.answer.citations for record in records],
            [record.context_chunk_ids for record in records],
            [None if where is None else where.path for where in sources],
            [0 if where is None else where.line for where in sources],
            [None if where is None else where.text for where in sources],
        )


def _offsets(counts: Sequence[int]) -> IntArray:
    """Where each group of ``counts`` items starts in the groups laid end to end, and where the last ends."""
    return np.concatenate(([0], np.cumsum(np.fromiter(counts, dtype=np.int64, count=len(counts)))))


def _columns(
    question_ids: Sequence[str],
    texts: Sequence[str],
    citations: Sequence[Sequence[int]],
    contexts: Sequence[Sequence[str]],
    files: Sequence[str | None],
    lines: Sequence[int],
    line_texts: Sequence[str | None],
) -> AnswerColumns:
    return _flat_columns(
        question_ids,
        texts,
        (list(chain.from_iterable(citations)), [len(cited) for cited in citations]),
        (list(chain.from_iterable(contexts)), [len(context) for context in contexts]),
        files,
        lines,
        line_texts,
    )


def _flat_columns(
    question_ids: Sequence[str],
    texts: Sequence[str],
    citations: tuple[Sequence[int], Sequence[int]],
    contexts: tuple[Sequence[str], Sequence[int]],
    files: Sequence[str | None],
    lines: Sequence[int],
    line_texts: Sequence[str | None],
) -> AnswerColumns:
    """The columns, each answer's citations and chunk ids given laid end to end with how many each answer has."""
    (cited, cited_counts), (chunk_ids, chunk_counts) = citations, contexts
    return AnswerColumns(
        np.array(question_ids, dtype=object),
        np.array(texts, dtype=object),
        np.array(cited, dtype=np.int64),
        _offsets(cited_counts),
        np.array(chunk_ids, dtype=object),
        _offsets(chunk_counts),
        np.array(files, dtype=object),
        np.array(lines, dtype=np.int64),
        np.array(line_texts, dtype=object),
    )


_INT, _STR = frozenset({int}), frozenset({str})


def _types(values: list[Any]) -> set[type]:
    """The types of ``values``."""
    return set(map(type, values))


def read_answer_columns(
    path: str | os.PathLike[str],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_line_bytes: int | None = None,
    max_ratio: int | None = DEFAULT_MAX_RATIO,
    within: Folders | None = None,
) -> AnswerColumns:
    """Read answers from JSON Lines ``{"question_id", "answer", "citations", "context_chunk_ids"}`` into columns.

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
    >>> path = Path(tempfile.mkdtemp()) / "answers.jsonl"
    >>> _ = path.write_text('{"question_id": "q1", "answer": "30 days [1].", "citations": [1], '
    ...                     '"context_chunk_ids": ["c4", "c9"]}\\n{"question_id": "q2", "answer": "No idea."}\\n')
    >>> columns = read_answer_columns(path)
    >>> columns.question_id.tolist(), columns.chunk_id.tolist(), columns.chunk_offsets.tolist(), columns.line.tolist()
    (['q1', 'q2'], ['c4', 'c9'], [0, 2, 2], [1, 2])
    """
    source = Source(
        path,
        max_bytes=max_bytes,
        max_line_bytes=DEFAULT_MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes,
        max_ratio=max_ratio,
        within=within,
    )
    expected = 'a JSON object {"question_id", "answer", "citations", "context_chunk_ids"} per line'
    # Each object's fields kept as they are read, its lists laid end to end, so that no object or list outlives its
    # line (the collector would walk the many kept ones again and again); checked when all are read.
    question_ids: list[Any] = []
    texts: list[Any] = []
    cited: list[Any] = []
    cited_counts: list[int] = []
    chunk_ids: list[Any] = []
    chunk_counts: list[int] = []
    numbers: list[int] = []
    lines: list[str] = []
    try:
        for number, line, value in json_objects(source, expected):
            citations, context = value.get("citations", []), value.get("context_chunk_ids", [])
            if type(citations) is not list or type(context) is not list:
                return _read_line_by_line(source, expected)
            question_ids.append(value.get("question_id"))
            texts.append(value.get("answer"))
            cited.extend(citations)
            cited_counts.append(len(citations))
            chunk_ids.extend(context)
            chunk_counts.append(len(context))
            numbers.append(number)
            lines.append(line)
    except ContextGridError:
        # The lines before the one refused are checked first, as they are when read line by line.
        return _read_line_by_line(source, expected)
    if not _valid(question_ids, texts, cited, chunk_ids):
        # Something is wrong: read line by line, to name the first wrong line as it is wrong.
        return _read_line_by_line(source, expected)
    return _flat_columns(
        question_ids,
        texts,
        (cited, cited_counts),
        (chunk_ids, chunk_counts),
        [source.shown] * len(numbers),
        numbers,
        lines,
    )


def _valid(question_ids: list[Any], texts: list[Any], cited: list[Any], chunk_ids: list[Any]) -> bool:
    """Whether the answers are as :func:`_read_line_by_line` wants them (given their citations and chunk ids laid
    end to end, each a list), checked by builtins over whole columns: of the values JSON makes, each is of its exact
    type, and only a bool is an int whose type is not int."""
    return (
        _types(question_ids) <= _STR
        and all(question_ids)
        and _types(texts) <= _STR
        and _types(cited) <= _INT
        and min(cited, default=1) >= 1
        and max(cited, default=1) <= MAX_PASSAGE
        and _types(chunk_ids) <= _STR
        and all(chunk_ids)
        and len(set(question_ids)) == len(question_ids)
    )


def _read_line_by_line(source: Source, expected: str) -> AnswerColumns:
    """The answers of ``source`` checked line by line, the first line that is not an answer, or answers a question
    again, refused in words for it: the one copy of the rules."""
    question_ids: list[str] = []
    texts: list[str] = []
    citations: list[list[int]] = []
    contexts: list[list[str]] = []
    numbers: list[int] = []
    lines: list[str] = []
    seen: set[str] = set()
    for number, line, value in json_objects(source, expected):
        question_id, text = value.get("question_id"), value.get("answer")
        cited, context = value.get("citations", []), value.get("context_chunk_ids", [])
        if not isinstance(question_id, str) or not question_id:
            raise source.error(number, line, f"expected 'question_id' to be a non-empty string, got {question_id!r}")
        if not isinstance(text, str):
            raise source.error(number, line, f"expected 'answer' to be a string, got {text!r}")
        # Each list checked by builtins over it, not by a Python expression per item: of the values JSON makes,
        # only a bool is an int whose type is not int.
        if not isinstance(cited, list) or not (_types(cited) <= _INT and min(cited, default=1) >= 1):
            raise source.error(
                number, line, f"expected 'citations' to be a list of passage numbers, 1 or more, got {cited!r}"
            )
        if max(cited, default=1) > MAX_PASSAGE:
            raise source.error(
                number,
                line,
                f"expected 'citations' to be passage numbers up to 2**63 - 1 (no context holds more), got {cited!r}",
            )
        if not isinstance(context, list) or not (_types(context) <= _STR and all(context)):
            raise source.error(number, line, f"expected 'context_chunk_ids' to be a list of chunk ids, got {context!r}")
        if question_id in seen:
            raise source.error(number, line, f"expected one answer per question, got {question_id!r} again")
        seen.add(question_id)
        question_ids.append(question_id)
        texts.append(text)
        citations.append(cited)
        contexts.append(context)
        numbers.append(number)
        lines.append(line)
    return _columns(question_ids, texts, citations, contexts, [source.shown] * len(numbers), numbers, lines)


def read_answers(
    path: str | os.PathLike[str],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_line_bytes: int | None = None,
    max_ratio: int | None = DEFAULT_MAX_RATIO,
    within: Folders | None = None,
) -> tuple[AnswerRecord, ...]:
    """:func:`read_answer_columns`' answers as records, each keeping its line
    (:attr:`~contextgrid.data.records.AnswerRecord.source`); refused as it refuses them.

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
    return read_answer_columns(
        path, max_bytes=max_bytes, max_line_bytes=max_line_bytes, max_ratio=max_ratio, within=within
    ).records()
