"""RunTable and QrelsTable: runs and qrels held as columns, read as the dicts ``evaluate()`` takes.

A run of ten million rows is a few hundred megabytes as columns and several
gigabytes as a dict of lists, so the readers in :mod:`contextgrid.io` build
these tables. Both are read-only :class:`~collections.abc.Mapping` views, so
they can be passed anywhere a plain run or qrels dict goes.

pyarrow is imported inside the functions that need it: ``import contextgrid``
stays fast.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from numbers import Real
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar, cast

import numpy as np
import numpy.typing as npt

from contextgrid.core.checks import is_whole
from contextgrid.core.errors import ContextGridError, RowError
from contextgrid.data.repeats import first_repeated_pair

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["REPEATED_PAIR", "QrelsTable", "RunTable", "check_qrels_ids", "check_question_ids", "check_ranked_ids"]

IntArray = npt.NDArray[np.int64]
_T = TypeVar("_T")

REPEATED_PAIR = "expected each (question, chunk) pair once, got it again"
"""What a :class:`RowError` expected when its row gives a (question, chunk) pair again."""


def _not_str(value: object) -> str:
    return f"{value!r} of type {type(value).__name__}"


# An id that is not a str (the int 5) never equals the str "5" the other side holds, so it would score as a
# silent miss. str.join is the type check: a C-level pass over the ids that raises TypeError at the first
# one of another type, several times cheaper than collecting the ids' types.
_join = cast(Callable[[Iterable[object]], str], "".join)


def check_question_ids(question_ids: Collection[object], holder: str) -> None:
    """Refuse a question id that is not a str; ``holder`` starts the message (``"the run holds"``)."""
    try:
        _join(question_ids)
    except TypeError:
        bad = next(question for question in question_ids if not isinstance(question, str))
        raise ContextGridError(f"{holder} the question id {_not_str(bad)}; a question id is a str") from None


def check_ranked_ids(question_ids: Sequence[object], rankings: Sequence[Iterable[object]]) -> None:
    """Refuse a chunk id that is not a str in any of the rankings (``rankings[i]`` is ``question_ids[i]``'s),
    naming its question."""
    try:
        deque(map(_join, rankings), maxlen=0)
    except TypeError:
        for question, ranked in zip(question_ids, rankings, strict=True):
            for chunk in ranked:
                if not isinstance(chunk, str):
                    raise ContextGridError(
                        f"the run for query {question!r} holds {_not_str(chunk)}; a chunk id is a str"
                    ) from None
        raise


def check_qrels_ids(qrels: Mapping[Any, Mapping[Any, object]]) -> None:
    """Refuse a question id or a judged chunk id that is not a str, in every judgement of ``qrels``."""
    check_question_ids(qrels, "qrels hold")
    try:
        deque(map(_join, qrels.values()), maxlen=0)
    except TypeError:
        for question, judgements in qrels.items():
            for chunk in judgements:
                if not isinstance(chunk, str):
                    raise ContextGridError(
                        f"qrels for query {question!r} judge {_not_str(chunk)}; a chunk id is a str"
                    ) from None
        raise


def _array(values: Any, kind: pa.DataType, name: str) -> pa.Array:
    """``values`` as one contiguous pyarrow array of ``kind``."""
    import pyarrow as pa

    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    if not isinstance(values, pa.Array):
        try:
            values = pa.array(values, type=kind)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError) as error:
            raise ContextGridError(f"the {name} column must hold {kind} values: {error}") from None
    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    if values.type != kind:
        try:
            values = values.cast(kind)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
            raise ContextGridError(f"the {name} column must hold {kind} values: {error}") from None
    return values


def _row_text(row: int, *columns: pa.Array) -> str:
    return " ".join(str(column[row].as_py()) for column in columns)


def _first(mask: npt.NDArray[np.bool_]) -> int:
    return int(np.argmax(mask))


def _check_ids(values: pa.Array, name: str, *context: pa.Array) -> None:
    """Refuse null or empty ids, naming the first such row."""
    import pyarrow.compute as pc

    if values.null_count == 0 and (len(values) == 0 or pc.min(pc.binary_length(values)).as_py() > 0):
        return
    bad = pc.or_kleene(pc.is_null(values), pc.equal(values, "")).fill_null(True)
    if pc.any(bad).as_py():
        row = _first(bad.to_numpy(zero_copy_only=False))
        raise RowError(row, _row_text(row, *context), f"expected a {name}, got none")


def _question_codes(question_id: pa.Array) -> tuple[npt.NDArray[np.int32], pa.Array, IntArray | None]:
    """Codes of the question ids in order of first appearance, the ids themselves, and where each
    question's rows start (plus the row count) when the rows are grouped by question, else ``None``.

    A file written by a retriever lists each question's rows together: then
    the codes follow from where the id changes, hashing one id per question
    rather than one per row.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(question_id)
    if n > 1:
        # indices_nonzero, as a boolean array's to_numpy() is a slow conversion.
        changes = pc.indices_nonzero(pc.not_equal(question_id[1:], question_id[:-1])).to_numpy().astype(np.int64) + 1
        firsts = question_id.take(pa.array(np.concatenate(([0], changes))))
        if len(pc.unique(firsts)) == len(firsts):
            starts = np.concatenate(([0], changes, [n])).astype(np.int64)
            return np.repeat(np.arange(len(firsts), dtype=np.int32), np.diff(starts)), firsts, starts
    encoded = question_id.dictionary_encode()
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32, copy=False)
    return codes, encoded.dictionary, np.arange(n + 1, dtype=np.int64) if n <= 1 else None


def _starts(codes: npt.NDArray[np.int32], questions: int) -> IntArray:
    return np.concatenate(([0], np.cumsum(np.bincount(codes, minlength=questions)))).astype(np.int64)


def _score_order(
    codes: npt.NDArray[np.int32], starts: IntArray | None, score: npt.NDArray[np.float64], chunk_id: pa.Array
) -> IntArray | None:
    """Row order ranking each question's rows by score descending, ties by chunk id descending (trec_eval's rule).

    ``starts`` are where each question's rows start when they are grouped by
    question, else ``None``. The result is ``None`` when the rows are already
    in that order, the usual case for a file a retriever wrote.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    same_question = codes[1:] == codes[:-1]
    in_order = starts is not None and bool(np.all(~same_question | (score[1:] <= score[:-1])))
    order: IntArray | None = None
    if not in_order:
        by_score = np.argsort(-score, kind="stable")
        order = by_score[np.argsort(codes[by_score], kind="stable")].astype(np.int64)
        codes, score = codes[order], score[order]
        same_question = codes[1:] == codes[:-1]
    tied = same_question & (score[1:] == score[:-1])
    if not tied.any():
        return order
    if order is None:
        order = np.arange(len(codes), dtype=np.int64)
    # Only rows in a tie need their chunk ids compared: sort those, group by group.
    follows = np.flatnonzero(tied) + 1
    positions = np.union1d(follows - 1, follows)
    starts_group = ~np.isin(positions, follows)
    group = np.cumsum(starts_group)
    rows = order[positions]
    ties = pa.table({"group": group, "chunk": chunk_id.take(pa.array(rows))})
    within = pc.sort_indices(ties, sort_keys=[("group", "ascending"), ("chunk", "descending")]).to_numpy()
    order[positions] = rows[within]
    return order


def _rank_order(codes: npt.NDArray[np.int32], rank: IntArray, *context: pa.Array) -> IntArray | None:
    """Row order by the given ranks; the same rank twice for a question is refused."""
    same_question = codes[1:] == codes[:-1]
    in_order = bool(np.all(codes[1:] >= codes[:-1])) and bool(np.all(~same_question | (rank[1:] > rank[:-1])))
    if in_order:
        return None
    order = np.lexsort((np.arange(len(codes)), rank, codes)).astype(np.int64)
    ordered_codes, ordered_rank = codes[order], rank[order]
    repeated = (ordered_codes[1:] == ordered_codes[:-1]) & (ordered_rank[1:] == ordered_rank[:-1])
    if repeated.any():
        row = int(order[_first(repeated) + 1])
        raise RowError(row, _row_text(row, *context), "expected a different rank for each chunk of a question")
    return order


def _optional_numbers(values: Any, kind: pa.DataType, name: str, context: tuple[pa.Array, ...]) -> pa.Array | None:
    """A rank or score column: ``None`` when absent or all null; a partly null column is refused."""
    import pyarrow.compute as pc

    if values is None:
        return None
    column = _array(values, kind, name)
    if column.null_count == len(column):
        return None
    if column.null_count:
        row = _first(pc.is_null(column).to_numpy(zero_copy_only=False))
        raise RowError(row, _row_text(row, *context), f"expected a {name}, as the other rows have one")
    return column


class _GroupedTable:
    """Rows grouped by question, in order of each question's first appearance."""

    __slots__ = ("_cache", "_derived", "_derived_lock", "_ids", "_position", "_starts", "_table")

    _table: pa.Table
    _starts: IntArray
    _ids: tuple[str, ...] | None
    _position: dict[str, int] | None
    _cache: dict[str, Any]
    _derived: dict[str, Any]
    _derived_lock: threading.RLock

    def __init__(self, table: pa.Table, starts: IntArray) -> None:
        object.__setattr__(self, "_table", table)
        object.__setattr__(self, "_starts", starts)
        # The ids as Python strings, and their positions, are made on first use: scoring a table needs neither.
        object.__setattr__(self, "_ids", None)
        object.__setattr__(self, "_position", None)
        object.__setattr__(self, "_cache", {})
        object.__setattr__(self, "_derived", {})
        object.__setattr__(self, "_derived_lock", threading.RLock())

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    @property
    def table(self) -> pa.Table:
        """The underlying columns, a :class:`pyarrow.Table` (``question_id`` is dictionary-encoded)."""
        return self._table

    @property
    def num_rows(self) -> int:
        """Number of (question, chunk) rows."""
        return int(self._table.num_rows)

    @property
    def question_ids(self) -> tuple[str, ...]:
        """The questions, in order of first appearance."""
        ids = self._ids
        if ids is None:
            ids = tuple(self.question_array.to_pylist())
            object.__setattr__(self, "_ids", ids)
        return ids

    @property
    def question_array(self) -> pa.Array:
        """The questions, in order of first appearance, as a pyarrow string array."""
        import pyarrow as pa

        column = self._table.column("question_id")
        if len(self._starts) <= 1 or column.num_chunks == 0:
            return pa.array([], type=pa.string())
        return column.chunk(0).dictionary if column.num_chunks == 1 else column.combine_chunks().dictionary

    @property
    def starts(self) -> IntArray:
        """Row where each question's rows start, plus the row count at the end."""
        return self._starts

    def derived(self, name: str, build: Callable[[], _T]) -> _T:
        """The value ``build()`` computes from these rows, built on first use and kept with the table.

        The rows never change, so neither does anything computed from them;
        the scoring engine keeps its per-table layouts here. Threads asking
        at once get the one value, built once.
        """
        if name not in self._derived:
            with self._derived_lock:
                if name not in self._derived:
                    self._derived[name] = build()
        value: _T = self._derived[name]
        return value

    def derived_against(self, name: str, other: object, build: Callable[[], _T], *, keep: int = 2) -> _T:
        """The value ``build()`` computes from these rows and ``other`` (an object that does not change, such as a
        chunking's ids), kept with the table for the last ``keep`` such objects, each known by its identity.

        Each is held with its value, so an identity is never another object's while it is kept; at most ``keep``
        are, so a caller passing a new object on every call holds no more than that.
        """
        with self._derived_lock:
            kept: deque[tuple[object, Any]] = self._derived.setdefault(f"against:{name}", deque(maxlen=keep))
            for known, value in kept:
                if known is other:
                    return cast(_T, value)
            built = build()
            kept.append((other, built))
            return built

    def __len__(self) -> int:
        return len(self._starts) - 1

    def __iter__(self) -> Iterator[str]:
        return iter(self.question_ids)

    def _positions(self) -> dict[str, int]:
        position = self._position
        if position is None:
            position = {question: i for i, question in enumerate(self.question_ids)}
            object.__setattr__(self, "_position", position)
        return position

    def __contains__(self, key: object) -> bool:
        return key in self._positions()

    def _rows(self, key: str) -> tuple[int, int]:
        index = self._positions()[key]
        return int(self._starts[index]), int(self._starts[index + 1])

    def __repr__(self) -> str:
        return f"{type(self).__name__}(questions={len(self)}, rows={self.num_rows})"


def _pairs_sequence(question: str, ranked: object) -> Sequence[str]:
    if isinstance(ranked, (str, bytes)) or not isinstance(ranked, Sequence):
        raise ContextGridError(
            f"the run for query {question!r} must be a list of chunk ids, best first, got {ranked!r}"
        )
    return ranked


class RunTable(_GroupedTable, Mapping[str, tuple[str, ...]]):
    """A run as columns: ``question_id``, ``chunk_id``, ``rank`` (1-based) and ``score`` (may be null).

    Read as a mapping it is ``{question_id: (chunk_id, ...)}``, best first,
    which is what :func:`contextgrid.evaluate` takes.

    Rows with scores are ranked by score descending, ties broken the way
    trec_eval breaks them: by chunk id, descending (``"c9"`` before ``"c10"``
    before ``"c1"``, compared as strings). Rows with ranks and no scores keep
    the order of their ranks; rows with neither keep the order they came in.
    Ranks are then renumbered 1, 2, 3 … per question.

    Examples
    --------
    >>> from contextgrid.data.tables import RunTable
    >>> run = RunTable.from_dict({"q1": {"c1": 0.5, "c2": 0.9, "c3": 0.5}, "q2": {"c9": 0.7, "c4": 0.2}})
    >>> run
    RunTable(questions=2, rows=5)
    >>> run["q1"]
    ('c2', 'c3', 'c1')
    >>> run.to_dict()
    {'q1': ['c2', 'c3', 'c1'], 'q2': ['c9', 'c4']}
    >>> RunTable.from_dict({"q1": ["c3", "c1"]}).has_scores
    False
    """

    __slots__ = ()

    @classmethod
    def from_columns(cls, question_id: Any, chunk_id: Any, *, rank: Any = None, score: Any = None) -> RunTable:
        """Build a run from columns (pyarrow arrays, numpy arrays or lists), one row per retrieved chunk.

        Raises :class:`~contextgrid.core.errors.RowError`, naming the 0-based row,
        for a missing id, a partly missing score or rank, a NaN score, the same
        rank twice in a question or the same (question, chunk) twice.
        """
        import pyarrow as pa

        questions = _array(question_id, pa.string(), "question_id")
        chunks = _array(chunk_id, pa.string(), "chunk_id")
        if len(questions) != len(chunks):
            raise ContextGridError(
                f"question_id and chunk_id must be the same length, got {len(questions)} and {len(chunks)}"
            )
        context = (questions, chunks)
        _check_ids(questions, "question id", *context)
        _check_ids(chunks, "chunk id", *context)
        scores = _optional_numbers(score, pa.float64(), "score", context)
        ranks = _optional_numbers(rank, pa.int64(), "rank", context)
        for column, name in ((scores, "score"), (ranks, "rank")):
            if column is not None and len(column) != len(questions):
                raise ContextGridError(f"the {name} column must have one value per row, got {len(column)}")
        codes, dictionary, starts = _question_codes(questions)
        repeated = first_repeated_pair(codes, starts, chunks)
        if repeated is not None:
            text = _row_text(repeated, *context)
            raise RowError(repeated, text, REPEATED_PAIR)
        if scores is not None:
            values = scores.to_numpy(zero_copy_only=False)
            # min() is NaN when any value is: one pass, where isnan().any() makes two.
            if len(values) and np.isnan(values.min()):
                row = _first(np.isnan(values))
                raise RowError(row, _row_text(row, *context, scores), "expected a score that is a number, got NaN")
            order = _score_order(codes, starts, values, chunks)
        elif ranks is not None:
            order = _rank_order(codes, ranks.to_numpy(zero_copy_only=False), *context)
        else:
            order = None if starts is not None else np.argsort(codes, kind="stable")
        if order is not None:
            indices = pa.array(order)
            codes, chunks = codes[order], chunks.take(indices)
            scores = None if scores is None else scores.take(indices)
        if order is not None or starts is None:
            starts = _starts(codes, len(dictionary))
        sizes = np.diff(starts)
        ranks_out = np.arange(1, len(codes) + 1, dtype=np.int32) - np.repeat(starts[:-1].astype(np.int32), sizes)
        table = pa.table(
            {
                "question_id": pa.DictionaryArray.from_arrays(pa.array(codes, type=pa.int32()), dictionary),
                "chunk_id": chunks,
                "rank": pa.array(ranks_out),
                "score": scores if scores is not None else pa.nulls(len(codes), type=pa.float64()),
            }
        )
        return cls(table, starts)

    @classmethod
    def from_dict(cls, run: Mapping[str, Any]) -> RunTable:
        """Build a run from ``{question: [chunk, ...]}`` (best first) or ``{question: {chunk: score}}``.

        A question with an empty ranking has no rows, so it is not a key of
        the table; :func:`~contextgrid.evaluate` scores a missing and an empty
        ranking alike.
        """
        if isinstance(run, RunTable):
            return run
        if not isinstance(run, Mapping):
            raise ContextGridError(f"run must be a mapping of question id to a list of chunk ids, got {run!r}")
        scored = [isinstance(ranked, Mapping) for ranked in run.values()]
        if any(scored) and not all(scored):
            raise ContextGridError(
                "a run must give every question either a list of chunk ids or a {chunk id: score} mapping, not a mix"
            )
        check_question_ids(run, "the run holds")
        questions: list[str] = []
        chunks: list[Any] = []
        scores: list[Any] | None = [] if scored and all(scored) else None
        for question, ranked in run.items():
            if scores is not None:
                for chunk, value in ranked.items():
                    if not isinstance(value, Real) or isinstance(value, bool):
                        raise ContextGridError(
                            f"the run for query {question!r} gives chunk {chunk!r} the score {value!r}; "
                            "a score is a number"
                        )
                chunks.extend(ranked)
                scores.extend(ranked.values())
            else:
                chunks.extend(_pairs_sequence(question, ranked))
            questions.extend([question] * len(ranked))
        check_ranked_ids(list(run), list(run.values()))
        try:
            return cls.from_columns(questions, chunks, score=scores)
        except RowError as error:
            raise ContextGridError(f"{error.expected} (question and chunk: {error.text})") from None

    def __getitem__(self, key: str) -> tuple[str, ...]:
        cached = self._cache.get(key)
        if cached is None:
            start, stop = self._rows(key)
            cached = tuple(self._table.column("chunk_id").slice(start, stop - start).to_pylist())
            self._cache[key] = cached
        return cached

    @property
    def has_scores(self) -> bool:
        """Whether the rows carry scores (otherwise the ``score`` column is all null)."""
        return self.num_rows > 0 and self._table.column("score").null_count == 0

    def to_dict(self) -> dict[str, list[str]]:
        """``{question_id: [chunk_id, ...]}``, best first."""
        chunks = self._table.column("chunk_id").to_pylist()
        bounds = self._starts.tolist()
        return {question: chunks[bounds[i] : bounds[i + 1]] for i, question in enumerate(self.question_ids)}


class QrelsTable(_GroupedTable, Mapping[str, Mapping[str, int]]):
    """Qrels as columns: ``question_id``, ``chunk_id`` and ``grade`` (a whole number; above 0 is relevant, 0 or
    below judged not relevant, as trec_eval reads a negative grade).

    Read as a mapping it is ``{question_id: {chunk_id: grade}}``, what
    :func:`contextgrid.evaluate` takes. Questions keep the order of their
    first appearance, and each question's chunks the order they came in.

    Examples
    --------
    >>> from contextgrid.data.tables import QrelsTable
    >>> qrels = QrelsTable.from_dict({"q1": {"c1": 2, "c2": 0}, "q2": {"c4": 1}})
    >>> dict(qrels["q1"])
    {'c1': 2, 'c2': 0}
    >>> len(qrels), qrels.num_rows
    (2, 3)
    """

    __slots__ = ()

    @classmethod
    def from_columns(cls, question_id: Any, chunk_id: Any, grade: Any) -> QrelsTable:
        """Build qrels from columns, one row per judged (question, chunk).

        Raises :class:`~contextgrid.core.errors.RowError`, naming the 0-based row,
        for a missing id or grade or the same (question, chunk) twice.
        """
        import pyarrow as pa
        import pyarrow.compute as pc

        questions = _array(question_id, pa.string(), "question_id")
        chunks = _array(chunk_id, pa.string(), "chunk_id")
        grades = _array(grade, pa.int64(), "grade")
        if not len(questions) == len(chunks) == len(grades):
            raise ContextGridError(
                f"question_id, chunk_id and grade must be the same length, got {len(questions)}, {len(chunks)} "
                f"and {len(grades)}"
            )
        context = (questions, chunks, grades)
        _check_ids(questions, "question id", *context)
        _check_ids(chunks, "chunk id", *context)
        if grades.null_count:
            row = _first(pc.is_null(grades).to_numpy(zero_copy_only=False))
            raise RowError(row, _row_text(row, *context), "expected a grade, got none")
        codes, dictionary, starts = _question_codes(questions)
        repeated = first_repeated_pair(codes, starts, chunks)
        if repeated is not None:
            text = _row_text(repeated, *context)
            raise RowError(repeated, text, REPEATED_PAIR)
        if starts is None:
            order = np.argsort(codes, kind="stable")
            indices = pa.array(order)
            codes, chunks, grades = codes[order], chunks.take(indices), grades.take(indices)
            starts = _starts(codes, len(dictionary))
        table = pa.table(
            {
                "question_id": pa.DictionaryArray.from_arrays(pa.array(codes, type=pa.int32()), dictionary),
                "chunk_id": chunks,
                "grade": grades,
            }
        )
        return cls(table, starts)

    @classmethod
    def from_dict(cls, qrels: Mapping[str, Mapping[str, int]]) -> QrelsTable:
        """Build qrels from ``{question: {chunk: grade}}``.

        A question with no judgements has no rows, so it is not a key of the
        table; :func:`~contextgrid.evaluate` leaves such a question out either way.
        """
        if isinstance(qrels, QrelsTable):
            return qrels
        if not isinstance(qrels, Mapping):
            raise ContextGridError(f"qrels must be a mapping of question id to {{chunk id: grade}}, got {qrels!r}")
        for question, judgements in qrels.items():
            if not isinstance(judgements, Mapping):
                raise ContextGridError(
                    f"qrels for query {question!r} must be a mapping of chunk id to grade, got {judgements!r}"
                )
        check_qrels_ids(qrels)
        questions: list[str] = []
        chunks: list[str] = []
        grades: list[int] = []
        for question, judgements in qrels.items():
            for chunk, value in judgements.items():
                if not is_whole(value):
                    raise ContextGridError(
                        f"qrels for query {question!r} give chunk {chunk!r} the grade {value!r}; a grade is a "
                        "whole number (2 fully relevant, 1 partial, 0 or below irrelevant)"
                    )
                questions.append(question)
                chunks.append(chunk)
                grades.append(int(value))
        try:
            return cls.from_columns(questions, chunks, grades)
        except RowError as error:
            raise ContextGridError(f"{error.expected} (question and chunk: {error.text})") from None

    def __getitem__(self, key: str) -> Mapping[str, int]:
        cached = self._cache.get(key)
        if cached is None:
            start, stop = self._rows(key)
            rows = self._table.slice(start, stop - start)
            cached = dict(zip(rows.column("chunk_id").to_pylist(), rows.column("grade").to_pylist(), strict=True))
            self._cache[key] = cached
        # A read-only view of the cached row: a caller cannot change the table through it.
        return MappingProxyType(cached)

    def to_dict(self) -> dict[str, dict[str, int]]:
        """``{question_id: {chunk_id: grade}}``."""
        chunks = self._table.column("chunk_id").to_pylist()
        grades = self._table.column("grade").to_pylist()
        bounds = self._starts.tolist()
        return {
            question: dict(zip(chunks[bounds[i] : bounds[i + 1]], grades[bounds[i] : bounds[i + 1]], strict=True))
            for i, question in enumerate(self.question_ids)
        }
