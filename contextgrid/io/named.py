"""Runs and qrels from tables with named columns (JSONL, CSV/TSV, Parquet), checked column by column.

Columns are found by name, with the spellings other tools use:

============  ==========================================
column        also accepted as
============  ==========================================
question_id   ``qid``, ``query_id``
chunk_id      ``docid``, ``doc_id``, ``docno``
rank          (none)
score         (none)
grade         ``relevance``, ``rel``
============  ==========================================
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from contextgrid.core.errors import RowError
from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.io.files import Source
from contextgrid.io.formats import located

__all__ = ["ALIASES", "qrels_columns", "qrels_from_named", "run_columns", "run_from_named"]

ALIASES: dict[str, tuple[str, ...]] = {
    "question_id": ("question_id", "qid", "query_id"),
    "chunk_id": ("chunk_id", "docid", "doc_id", "docno"),
    "rank": ("rank",),
    "score": ("score",),
    "grade": ("grade", "relevance", "rel"),
}

Locate = Callable[[int], tuple[int, str]]

_INT64_MAX = 2**63 - 1


def _column(table: Any, field: str, source: Source, *, required: bool) -> Any:
    present = [name for name in ALIASES[field] if name in table.column_names]
    shown = f"columns {table.column_names}"
    for name in present:
        if (count := table.column_names.count(name)) > 1:
            raise source.error(None, shown, f"expected one column named {name!r}, got {count}")
    if len(present) > 1:
        raise source.error(None, shown, f"expected one column for {field}, got {len(present)}: {present}")
    if not present:
        if required:
            spellings = ", ".join(repr(name) for name in ALIASES[field])
            raise source.error(None, shown, f"expected a column named {spellings}")
        return None
    column = table.column(present[0])
    return column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)


def _ids(column: Any, name: str) -> Any:
    import pyarrow as pa

    kind = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_null(kind):
        return column
    if pa.types.is_integer(kind):
        return column.cast(pa.string())
    row = max(int(np.argmax(column.is_valid().to_numpy(zero_copy_only=False))), 0)
    raise RowError(row, "", f"expected the {name} to be text or a whole number, got {kind}")


def _numbers(column: Any, name: str, *, whole: bool) -> Any:
    """``column`` as int64 (``whole``) or float64, refusing the first row that is not such a number."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = pa.int64() if whole else pa.float64()
    wanted = "a whole number" if whole else "a number"
    if pa.types.is_boolean(column.type):
        # A boolean is no number, though pyarrow (and Python) would cast true to 1.
        row = _first(column.is_valid())
        raise RowError(row, "", f"expected {name} to be {wanted}, got a boolean ({str(column[row].as_py()).lower()})")
    if pa.types.is_null(column.type) or pa.types.is_integer(column.type):
        if whole and pa.types.is_uint64(column.type):
            beyond = pc.greater(column, pa.scalar(_INT64_MAX, pa.uint64()))
            if pc.any(beyond).as_py():
                row = _first(beyond)
                raise RowError(row, "", f"expected {name} to be {wanted} that fits in 64 bits, got {column[row]}")
        return column.cast(kind)
    if pa.types.is_floating(column.type):
        if not whole:
            return column.cast(kind)
        values = column.to_numpy(zero_copy_only=False)
        fractional = ~np.isnan(values) & (values != np.floor(values))
        fractional |= np.isnan(values) & column.is_valid().to_numpy(zero_copy_only=False)
        if fractional.any():
            row = int(np.argmax(fractional))
            raise RowError(row, "", f"expected {name} to be {wanted}, got {values[row].item()!r}")
        # A whole float past int64 (CSV's 99999999999999999999 is read as a float) would cast to garbage.
        beyond = ~np.isnan(values) & ((values >= 2.0**63) | (values < -(2.0**63)))
        if beyond.any():
            row = int(np.argmax(beyond))
            raise RowError(row, "", f"expected {name} to be {wanted} that fits in 64 bits, got {float(values[row]):g}")
        return pc.cast(column, kind, safe=False)
    parse = int if whole else float
    parsed: list[Any] = []
    for row, value in enumerate(column.to_pylist()):
        try:
            number = None if value is None else parse(value)
        except (TypeError, ValueError):
            raise RowError(row, "", f"expected {name} to be {wanted}, got {value!r}") from None
        if whole and number is not None and not -(2**63) <= number <= _INT64_MAX:
            raise RowError(row, "", f"expected {name} to be {wanted} that fits in 64 bits, got {value!r}")
        parsed.append(number)
    return pa.array(parsed, type=kind)


def _first(mask: Any) -> int:
    """The first row where boolean array ``mask`` is true (nulls are false)."""
    return int(np.argmax(mask.to_numpy(zero_copy_only=False).astype(bool, copy=False)))


def _refuse_empty(table: Any, source: Source) -> None:
    """Refuse a table of no rows: a header alone, a Parquet file of none, scores nothing (it would score 0)."""
    if table.num_rows == 0:
        raise source.error(None, None, "expected at least one row (a question and a chunk), got none")


def run_columns(table: Any, source: Source) -> dict[str, Any]:
    """The run columns of ``table``, each converted to its type; bad rows raise :class:`RowError`."""
    rank = _column(table, "rank", source, required=False)
    score = _column(table, "score", source, required=False)
    return {
        "question_id": _ids(_column(table, "question_id", source, required=True), "question id"),
        "chunk_id": _ids(_column(table, "chunk_id", source, required=True), "chunk id"),
        "rank": None if rank is None else _numbers(rank, "the rank", whole=True),
        "score": None if score is None else _numbers(score, "the score", whole=False),
    }


def qrels_columns(table: Any, source: Source) -> dict[str, Any]:
    """The qrels columns of ``table``, each converted to its type; bad rows raise :class:`RowError`."""
    return {
        "question_id": _ids(_column(table, "question_id", source, required=True), "question id"),
        "chunk_id": _ids(_column(table, "chunk_id", source, required=True), "chunk id"),
        "grade": _numbers(_column(table, "grade", source, required=True), "the grade", whole=True),
    }


def run_from_named(table: Any, source: Source, locate: Locate, *, unit: str = "line") -> RunTable:
    """A :class:`RunTable` from a parsed table; a bad row is reported at the line ``locate`` gives."""
    _refuse_empty(table, source)
    with located(source, locate, unit=unit):
        columns = run_columns(table, source)
        return RunTable.from_columns(
            columns["question_id"], columns["chunk_id"], rank=columns["rank"], score=columns["score"]
        )


def qrels_from_named(table: Any, source: Source, locate: Locate, *, unit: str = "line") -> QrelsTable:
    """A :class:`QrelsTable` from a parsed table; a bad row is reported at the line ``locate`` gives."""
    _refuse_empty(table, source)
    with located(source, locate, unit=unit):
        columns = qrels_columns(table, source)
        return QrelsTable.from_columns(columns["question_id"], columns["chunk_id"], columns["grade"])
