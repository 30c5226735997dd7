"""read_answer_columns, read_answers: generated answers as a pipeline logged them, from JSON Lines.

One answer per line::

    {"question_id": "q1", "answer": "Within 30 days [1].", "citations": [1], "context_chunk_ids": ["c4", "c9"]}

``citations`` (1-based passage numbers) and ``context_chunk_ids`` (the
chunks of the context, in passage order) are optional.
:func:`read_answer_columns` reads a file into columns, with no record per
answer, and checks them by the one copy of the rules (``_RULES``), over
whole columns, naming the first line that breaks one; :func:`read_answers`
gives the same answers as records. Either keeps the line each answer was
read from (:meth:`AnswerColumns.where`,
:attr:`~contextgrid.data.records.AnswerRecord.source`),
so that a check made later, against the questions or the chunks, names it
without reading the file again. A file whose every line is one object of
the four fields, each of its type, keeping every rule (as a pipeline writes
them) is parsed by pyarrow in one call; any other is read line by line,
which refuses what it refuses.
"""

from __future__ import annotations

import os
from bisect import bisect_left
from collections.abc import Callable, Sequence
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


@dataclass(frozen=True, slots=True)
class _Read:
    """The lines read, before they are checked, one row per line: each object's fields as they are, its lists laid
    end to end (``cited``, ``chunk_ids``, with how many each row has), and the rows whose ``citations`` or
    ``context_chunk_ids`` is not a list, those two kept as they are (the row lays out neither of them)."""

    question_ids: list[Any]
    texts: list[Any]
    cited: list[Any]
    cited_counts: list[int]
    chunk_ids: list[Any]
    chunk_counts: list[int]
    not_lists: dict[int, tuple[Any, Any]]

    def head(self, rows: int) -> _Read:
        """The first ``rows`` rows."""
        return _Read(
            self.question_ids[:rows],
            self.texts[:rows],
            self.cited[: sum(self.cited_counts[:rows])],
            self.cited_counts[:rows],
            self.chunk_ids[: sum(self.chunk_counts[:rows])],
            self.chunk_counts[:rows],
            {row: lists for row, lists in self.not_lists.items() if row < rows},
        )

    def fields(self, row: int) -> dict[str, Any]:
        """Row ``row``'s fields as its line gave them, named as the rules' words name them."""
        cited, chunks = sum(self.cited_counts[:row]), sum(self.chunk_counts[:row])
        citations, context = self.not_lists.get(
            row,
            (
                self.cited[cited : cited + self.cited_counts[row]],
                self.chunk_ids[chunks : chunks + self.chunk_counts[row]],
            ),
        )
        return {
            "question_id": self.question_ids[row],
            "answer": self.texts[row],
            "citations": citations,
            "context_chunk_ids": context,
        }


# The one copy of the rules, in the order a line is held to them: whether rows keep the rule, checked by builtins
# over whole columns (of the values JSON makes, each is of its exact type, and only a bool is an int whose type is
# not int), and the words for a row that breaks it. A rule is checked only of rows that keep the rules before it
# (the citations' maximum, of ints).
_RULES: tuple[tuple[Callable[[_Read], bool], str], ...] = (
    (
        lambda read: _types(read.question_ids) <= _STR and all(read.question_ids),
        "expected 'question_id' to be a non-empty string, got {question_id!r}",
    ),
    (lambda read: _types(read.texts) <= _STR, "expected 'answer' to be a string, got {answer!r}"),
    (
        lambda read: (
            all(type(citations) is list for citations, _ in read.not_lists.values())
            and _types(read.cited) <= _INT
            and min(read.cited, default=1) >= 1
        ),
        "expected 'citations' to be a list of passage numbers, 1 or more, got {citations!r}",
    ),
    (
        lambda read: max(read.cited, default=1) <= MAX_PASSAGE,
        "expected 'citations' to be passage numbers up to 2**63 - 1 (no context holds more), got {citations!r}",
    ),
    (
        lambda read: (
            all(type(context) is list for _, context in read.not_lists.values())
            and _types(read.chunk_ids) <= _STR
            and all(read.chunk_ids)
        ),
        "expected 'context_chunk_ids' to be a list of chunk ids, got {context_chunk_ids!r}",
    ),
    (
        lambda read: len(set(read.question_ids)) == len(read.question_ids),
        "expected one answer per question, got {question_id!r} again",
    ),
)


def _kept(read: _Read) -> bool:
    """Whether every row of ``read`` keeps every rule."""
    return all(keeps(read) for keeps, _ in _RULES)


def _first_wrong(read: _Read) -> tuple[int, str] | None:
    """The first row of ``read`` that breaks a rule, and the words for the first rule it breaks; ``None`` if none.

    Rows that break a rule go on breaking it with more rows after them, so the first wrong row ends the shortest
    head of the rows that does not keep them all: found by halving, each try the rules over whole columns.
    """
    if _kept(read):
        return None
    row = bisect_left(range(len(read.question_ids)), True, key=lambda row: not _kept(read.head(row + 1)))
    head = read.head(row + 1)
    words = next(words for keeps, words in _RULES if not keeps(head))
    return row, words.format(**read.fields(row))


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
    :class:`~contextgrid.core.errors.InputFileError` that names the first
    wrong line, as is a file that holds more than ``max_bytes`` (1 GiB), a
    gzip file that expands more than ``max_ratio`` times (100) or a line
    longer than ``max_line_bytes`` (1 MiB).

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
    >>> _ = path.write_text('{"question_id": "q1", "answer": "a"}\\n{"question_id": "q2", "answer": 3}\\n')
    >>> read_answer_columns(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.InputFileError: ...answers.jsonl, line 2: expected 'answer' to be a string, got 3: ...
    """
    source = Source(
        path,
        max_bytes=max_bytes,
        max_line_bytes=DEFAULT_MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes,
        max_ratio=max_ratio,
        within=within,
    )
    expected = 'a JSON object {"question_id", "answer", "citations", "context_chunk_ids"} per line'
    source.require_content(expected)
    if (parsed := _parsed_whole(source)) is not None:
        return parsed
    # Each object's fields kept as they are read, its lists laid end to end, so that no object or list outlives its
    # line (the collector would walk the many kept ones again and again); checked when all are read.
    read = _Read([], [], [], [], [], [], {})
    question_ids, texts, cited, cited_counts = read.question_ids, read.texts, read.cited, read.cited_counts
    chunk_ids, chunk_counts, not_lists = read.chunk_ids, read.chunk_counts, read.not_lists
    numbers: list[int] = []
    lines: list[str] = []
    try:
        for number, line, value in json_objects(source, expected):
            citations, context = value.get("citations", []), value.get("context_chunk_ids", [])
            if type(citations) is not list or type(context) is not list:
                not_lists[len(numbers)] = citations, context
                citations = citations if type(citations) is list else []
                context = context if type(context) is list else []
            question_ids.append(value.get("question_id"))
            texts.append(value.get("answer"))
            cited.extend(citations)
            cited_counts.append(len(citations))
            chunk_ids.extend(context)
            chunk_counts.append(len(context))
            numbers.append(number)
            lines.append(line)
    except ContextGridError:
        # A line before the one refused that is wrong itself is named first, as it is first in the file.
        _refuse_first_wrong(source, read, numbers, lines)
        raise
    _refuse_first_wrong(source, read, numbers, lines)
    return _flat_columns(
        question_ids,
        texts,
        (cited, cited_counts),
        (chunk_ids, chunk_counts),
        [source.shown] * len(numbers),
        numbers,
        lines,
    )


def _parsed_whole(source: Source) -> AnswerColumns | None:
    """The answers of ``source`` parsed by pyarrow in one call, when every line is one object that gives only the four
    fields, each of its type, and keeps every rule; None otherwise, for the line-by-line reader to read (and refuse
    what it refuses, with its words).

    Each line starts with ``{`` and ends with ``}``: a value holds no ``}`` followed by ``{``, so no value crosses a
    line end, and as many values as lines leaves one per line. pyarrow refuses a repeated or other key, a value of
    another type and what Python's parser refuses (control characters in a string, ``NaN``); the bytes are UTF-8,
    decoded here for the lines' texts.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.json as pajson

    data = source.data
    body = data.removesuffix(b"\n")
    # Left to the line-by-line reader: a line that does not start and end with a brace, a ``\\r`` (a line end its
    # lines drop), a ``\\u`` escape (a lone surrogate, a key spelled otherwise) and a ``null`` (a list given as null,
    # which pyarrow does not tell from a list not given).
    if (
        not (body.startswith(b"{") and body.endswith(b"}"))
        or body.count(b"\n") != body.count(b"}\n{")
        or any(doubtful in body for doubtful in (b"\r", b"\\u", b"null"))
    ):
        return None
    try:
        lines = body.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return None
    schema = pa.schema(
        {
            "question_id": pa.string(),
            "answer": pa.string(),
            "citations": pa.list_(pa.int64()),
            "context_chunk_ids": pa.list_(pa.string()),
        }
    )
    options = pajson.ParseOptions(explicit_schema=schema, unexpected_field_behavior="error")
    try:
        table = pajson.read_json(
            pa.BufferReader(data),
            read_options=pajson.ReadOptions(block_size=1 << 24, use_threads=False),
            parse_options=options,
        )
    except pa.ArrowInvalid:
        return None
    # No null was written, so a null list is one not given (an empty one) and a null string a field missing (None,
    # which the rules refuse).
    citations, context = (table.column(name).combine_chunks() for name in ("citations", "context_chunk_ids"))
    cited_counts, chunk_counts = (
        pc.list_value_length(lists).fill_null(0).to_numpy(zero_copy_only=False) for lists in (citations, context)
    )
    question_ids, texts = (table.column(name).to_numpy(zero_copy_only=False) for name in ("question_id", "answer"))
    cited, chunk_ids = (lists.flatten().to_numpy(zero_copy_only=False) for lists in (citations, context))
    # Held to the one copy of the rules, as the line-by-line reader holds its lines: any row that breaks one is
    # left to it, to be refused in its words.
    read = _Read(
        question_ids.tolist(), texts.tolist(), cited.tolist(), cited_counts.tolist(), chunk_ids.tolist(),
        chunk_counts.tolist(), {},
    )  # fmt: skip
    if table.num_rows != len(lines) or not _kept(read):
        return None
    n = table.num_rows
    return AnswerColumns(
        np.asarray(question_ids, dtype=object),
        np.asarray(texts, dtype=object),
        np.asarray(cited, dtype=np.int64),
        _offsets(read.cited_counts),
        np.asarray(chunk_ids, dtype=object),
        _offsets(read.chunk_counts),
        np.array([source.shown] * n, dtype=object),
        np.arange(1, n + 1, dtype=np.int64),
        np.array(lines, dtype=object),
    )


def _refuse_first_wrong(source: Source, read: _Read, numbers: list[int], lines: list[str]) -> None:
    """Refuse the first line of ``read`` that breaks a rule (its row ``i`` read from line ``numbers[i]``, whose
    text is ``lines[i]``), in the words of the first rule it breaks."""
    if (wrong := _first_wrong(read)) is not None:
        row, words = wrong
        raise source.error(numbers[row], lines[row], words)


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
