"""Runs and qrels from data frames: a pandas DataFrame, a pyarrow Table, or anything that exports the Arrow
C stream interface (``__arrow_c_stream__``: polars, DuckDB, ...), turned into a :class:`RunTable` or a
:class:`QrelsTable` column by column, never row by row.

A run frame has a row per retrieved chunk (question id, chunk id, and a score or a rank); a qrels frame a row
per judgement (question id, chunk id, grade). :class:`FrameColumns` names the columns. The rules are those of
the dict API: ids are str, a grade is a whole number, a (question, chunk) pair comes once; and, as for a
frame nothing is implied, no cell may be missing.

pyarrow (and pandas) are imported inside the functions: ``import contextgrid`` stays fast.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Protocol, cast, runtime_checkable

import numpy as np

from contextgrid.core.errors import ContextGridError, DuplicateChunkError, RowError, parameter_error
from contextgrid.data.tables import REPEATED_PAIR, QrelsTable, RunTable

__all__ = ["ArrowStream", "FrameColumns", "is_frame", "qrels_from_frame", "run_from_frame", "tables_from_frames"]


@runtime_checkable
class ArrowStream(Protocol):
    """An object that exports its rows through the Arrow PyCapsule stream interface."""

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...


@dataclass(frozen=True, slots=True)
class FrameColumns:
    """The names of a run frame's and a qrels frame's columns.

    A run frame needs ``question_id``, ``chunk_id`` and ``score`` or ``rank``
    (with both, the score ranks, as trec_eval ranks by it); a qrels frame needs
    ``question_id``, ``chunk_id`` and ``grade``. Other columns are ignored.

    Examples
    --------
    >>> from contextgrid.data.frames import FrameColumns
    >>> FrameColumns(question_id="qid", chunk_id="docid")
    FrameColumns(question_id='qid', chunk_id='docid', score='score', rank='rank', grade='grade')
    >>> FrameColumns(chunk_id="qid", question_id="qid")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.InvalidParameterError: The 'chunk_id' parameter of FrameColumns must be a column ...
    """

    question_id: str = "question_id"
    chunk_id: str = "chunk_id"
    score: str = "score"
    rank: str = "rank"
    grade: str = "grade"

    def __post_init__(self) -> None:
        taken: dict[str, str] = {}
        for field in fields(self):
            name = getattr(self, field.name)
            if not isinstance(name, str) or not name:
                raise parameter_error("FrameColumns", field.name, "a column name (a non-empty str)", name)
            # Only the ids must differ from every other column: a run has no grade, qrels no score or rank.
            clash = taken.get(name)
            if clash is not None and "_id" in clash + field.name:
                raise parameter_error("FrameColumns", field.name, f"a column name other than {clash}'s", name)
            taken.setdefault(name, field.name)


def is_frame(value: object) -> bool:
    """Whether ``value`` is a frame to convert (and not a mapping, which the dict API takes as it is).

    Examples
    --------
    >>> import pyarrow as pa
    >>> is_frame(pa.table({"question_id": ["q1"]})), is_frame({"q1": ["c1"]})
    (True, False)
    """
    if isinstance(value, Mapping):
        return False
    pandas = sys.modules.get("pandas")
    return (pandas is not None and isinstance(value, pandas.DataFrame)) or isinstance(value, ArrowStream)


def _column_names(frame: Any) -> list[str]:
    return [str(name) for name in frame.columns] if _is_pandas(frame) else list(frame.column_names)


def _is_pandas(frame: Any) -> bool:
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(frame, pandas.DataFrame)


def _arrow(frame: Any, what: str) -> Any:
    """A pyarrow Table, or a pandas DataFrame as it is (its columns are converted one by one)."""
    import pyarrow as pa

    if isinstance(frame, pa.Table) or _is_pandas(frame):
        return frame
    try:
        return pa.table(frame)
    except (pa.ArrowException, TypeError, ValueError) as error:
        raise ContextGridError(f"the {what} could not be read as Arrow columns: {error}") from None


def _pick(frame: Any, name: str, what: str, *, required: bool) -> Any:
    """The column ``name`` of ``frame`` as a pyarrow array (or chunked array); ``None`` when absent and optional."""
    import pyarrow as pa

    names = _column_names(frame)
    count = names.count(name)
    if count > 1:
        raise ContextGridError(f"the {what} has {count} columns named {name!r}; expected one")
    if count == 0:
        if not required:
            return None
        raise ContextGridError(f"the {what} has no column named {name!r}; its columns are {names}")
    if not _is_pandas(frame):
        return frame.column(name)
    series = frame[name]
    try:
        # pandas' own missing values (None, NaN, NaT) become nulls, refused below with their row.
        return pa.array(series, from_pandas=True)
    except (pa.ArrowException, TypeError, ValueError):
        # An object column of mixed types: find the first value of another type than the first's.
        values = series.tolist()
        kind = type(values[0])
        row = next(row for row, value in enumerate(values) if type(value) is not kind)
        raise ContextGridError(
            f"the {what}'s column {name!r} mixes types: row {row} (counting from 0) holds {values[row]!r} of type "
            f"{type(values[row]).__name__}, after {kind.__name__} values"
        ) from None


def _kind(column: Any) -> Any:
    import pyarrow as pa

    return column.type.value_type if pa.types.is_dictionary(column.type) else column.type


def _first(mask: Any) -> int:
    """The first row where the boolean pyarrow array ``mask`` is true."""
    import pyarrow.compute as pc

    return int(pc.index(mask, True).as_py())


def _no_nulls(column: Any, name: str, what: str) -> None:
    import pyarrow.compute as pc

    if column.null_count:
        row = _first(pc.is_null(column))
        raise ContextGridError(f"the {what}'s column {name!r} has no value in row {row} (counting from 0)")


def _ids(column: Any, name: str, what: str, holds: str) -> Any:
    import pyarrow as pa

    if len(column) == 0:  # an empty column holds no value of a wrong type, whatever its type (pandas: float64)
        return pa.array([], pa.string())
    kind = _kind(column)
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind)):
        raise ContextGridError(
            f"the {what}'s column {name!r} holds {kind} values; {holds} is a str, as in the dict API "
            "(convert the column to strings first)"
        )
    _no_nulls(column, name, what)
    return column


def _numbers(column: Any, name: str, what: str, *, whole: bool) -> Any:
    import pyarrow as pa

    if len(column) == 0:
        return pa.array([], pa.int64())
    kind = _kind(column)
    if not (pa.types.is_integer(kind) or (not whole and pa.types.is_floating(kind))):
        wanted = "whole numbers (an integer column)" if whole else "numbers (an integer or floating-point column)"
        raise ContextGridError(f"the {what}'s column {name!r} holds {kind} values; expected {wanted}")
    _no_nulls(column, name, what)
    return column


def _value(column: Any, row: int) -> Any:
    return column[row].as_py()


def _grades(column: Any, name: str, questions: Any, chunks: Any) -> Any:
    """The grade column; a floating-point one is refused, naming its first grade that is not whole (as the
    dict API refuses 1.5), or its first row when all are (as the dict API refuses 2.0)."""
    import pyarrow as pa

    what = "qrels frame"
    if not pa.types.is_floating(_kind(column)):
        return _numbers(column, name, what, whole=True)
    _no_nulls(column, name, what)
    values = column.to_numpy()
    fractional = values != np.floor(values)
    row = int(np.argmax(fractional)) if fractional.any() else 0
    raise ContextGridError(
        f"qrels for query {_value(questions, row)!r} give chunk {_value(chunks, row)!r} the grade "
        f"{values[row].item()!r} (row {row} of the {what}, counting from 0); a grade is a whole number "
        "(2 fully relevant, 1 partial, 0 or below irrelevant): give the column an integer type"
    )


def _row_refused(error: RowError, what: str, questions: Any, chunks: Any) -> ContextGridError:
    """``error`` from building a table, told in the frame's terms: its question, chunk and row."""
    question, chunk = _value(questions, error.row), _value(chunks, error.row)
    where = f"row {error.row} of the {what}, counting from 0"
    if error.expected == REPEATED_PAIR:
        if what == "run frame":
            return DuplicateChunkError(
                f"the run for query {question!r} returns the same chunk id more than once: {chunk!r} (again in "
                f"{where}). A ranking is a list of distinct chunks, and scoring one with repeats in it would report "
                "a retriever's bug as a score. De-duplicate the ranking, keeping each chunk at its best position."
            )
        return ContextGridError(f"qrels judge chunk {chunk!r} for query {question!r} twice (again in {where})")
    return ContextGridError(f"{error.expected} ({where}: question {question!r}, chunk {chunk!r})")


def run_from_frame(frame: Any, columns: FrameColumns) -> RunTable:
    """A run frame as a :class:`RunTable`, ranked by score (ties as trec_eval breaks them) or by rank.

    Examples
    --------
    >>> import pyarrow as pa
    >>> frame = pa.table({"qid": ["q1", "q1", "q1"], "chunk_id": ["c1", "c2", "c3"], "score": [0.5, 0.9, 0.5]})
    >>> run_from_frame(frame, FrameColumns(question_id="qid")).to_dict()
    {'q1': ['c2', 'c3', 'c1']}
    """
    what = "run frame"
    table = _arrow(frame, what)
    questions = _ids(_pick(table, columns.question_id, what, required=True), columns.question_id, what, "a question id")
    chunks = _ids(_pick(table, columns.chunk_id, what, required=True), columns.chunk_id, what, "a chunk id")
    score = _pick(table, columns.score, what, required=False)
    rank = None if score is not None else _pick(table, columns.rank, what, required=False)
    if score is None and rank is None:
        raise ContextGridError(
            f"the {what} has neither a {columns.score!r} nor a {columns.rank!r} column; its columns are "
            f"{_column_names(table)}. A frame's row order ranks nothing: give each row a score or a rank"
        )
    if score is not None:
        score = _numbers(score, columns.score, what, whole=False)
    else:
        rank = _numbers(rank, columns.rank, what, whole=True)
    try:
        return RunTable.from_columns(questions, chunks, score=score, rank=rank)
    except RowError as error:
        raise _row_refused(error, what, questions, chunks) from None


def qrels_from_frame(frame: Any, columns: FrameColumns) -> QrelsTable:
    """A qrels frame as a :class:`QrelsTable`.

    Examples
    --------
    >>> import pyarrow as pa
    >>> frame = pa.table({"question_id": ["q1", "q1"], "chunk_id": ["c1", "c2"], "rel": [2, 0]})
    >>> qrels_from_frame(frame, FrameColumns(grade="rel")).to_dict()
    {'q1': {'c1': 2, 'c2': 0}}
    """
    what = "qrels frame"
    table = _arrow(frame, what)
    questions = _ids(_pick(table, columns.question_id, what, required=True), columns.question_id, what, "a question id")
    chunks = _ids(_pick(table, columns.chunk_id, what, required=True), columns.chunk_id, what, "a chunk id")
    grades = _grades(_pick(table, columns.grade, what, required=True), columns.grade, questions, chunks)
    try:
        return QrelsTable.from_columns(questions, chunks, grades)
    except RowError as error:
        raise _row_refused(error, what, questions, chunks) from None


def tables_from_frames(
    qrels: object, run: object, columns: FrameColumns, *, function: str
) -> tuple[Mapping[str, Mapping[str, int]], Mapping[str, Sequence[str]]]:
    """``qrels`` and ``run`` with each frame turned into its table; anything else is passed on untouched, for
    the dict API to check."""
    if not isinstance(columns, FrameColumns):
        raise parameter_error(function, "columns", "a FrameColumns", columns)
    return (
        qrels_from_frame(qrels, columns) if is_frame(qrels) else cast(Mapping[str, Mapping[str, int]], qrels),
        run_from_frame(run, columns) if is_frame(run) else cast(Mapping[str, Sequence[str]], run),
    )
