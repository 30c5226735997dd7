"""Parquet files with named columns: ``question_id, chunk_id, rank, score`` for a run,
``question_id, chunk_id, grade`` for qrels (other spellings: see :mod:`contextgrid.io.named`).

A Parquet file has rows, not lines: errors name the 1-based row. Its columns are compressed and encoded inside the
file, so what they decode to and how many rows it holds, as its metadata states them, are held to ``max_bytes``
before any is read (:data:`ROW_BYTES`).
"""

from __future__ import annotations

import json
from typing import IO, Any, ClassVar

from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.io.files import Source, size_text
from contextgrid.io.formats import FORMATS
from contextgrid.io.named import qrels_from_named, run_from_named

__all__ = ["ROW_BYTES", "ParquetFormat", "decoded_size"]


ROW_BYTES = 64
"""What a Parquet row counts as, at least, against ``max_bytes``: about what reading a row of a run costs in
memory, once its ids, rank and score are columns and the table is built (a TREC line is 20 to 60 bytes of text).

Parquet encodes repeated values in a few bits each (dictionaries, run lengths): a 203 KB file can hold 20 million
identical rows, whose columns' stated sizes are as small as the file. So a file is held to its rows too, read
from its metadata before any column is: at 1 GiB, 16,777,216 rows."""

_WIDTHS = {"BOOLEAN": 1, "INT32": 4, "FLOAT": 4, "INT64": 8, "DOUBLE": 8, "INT96": 12}
"""Bytes a value of each Parquet physical type takes once decoded; text takes its length and a 4-byte offset."""


def decoded_size(metadata: Any) -> int:
    """What the file's columns take once decoded, from its metadata alone: each value at its type's width, a
    text value at 4 bytes and the mean of its column chunk's shortest and longest (when their statistics say),
    and never less than the columns' stated uncompressed sizes."""
    decoded = stated = 0
    for group in range(metadata.num_row_groups):
        for index in range(metadata.num_columns):
            column = metadata.row_group(group).column(index)
            stated += column.total_uncompressed_size
            width = _WIDTHS.get(column.physical_type)
            if width is None:
                statistics = column.statistics
                bounds = (
                    (statistics.min, statistics.max) if statistics is not None and statistics.has_min_max else ("", "")
                )
                width = 4 + sum(len(bound) for bound in bounds) // 2
            decoded += column.num_values * width
    return max(decoded, stated)


def _read(source: Source) -> Any:
    import pyarrow as pa
    import pyarrow.parquet as pq

    source.require_content("a Parquet file")
    try:
        parquet = pq.ParquetFile(source.stream() if source.compressed else str(source.path))
        metadata = parquet.metadata
        rows = metadata.num_rows
        if rows * ROW_BYTES > source.limit:
            raise source.too_large(
                f"got {rows:,} rows, which count as {size_text(rows * ROW_BYTES)} ({ROW_BYTES} bytes a row, what "
                "reading one costs, however few bytes the file encodes it in)",
                compressed=True,
            )
        if (decoded := decoded_size(metadata)) > source.limit:
            raise source.too_large(f"got {size_text(decoded)} in its columns once decoded", compressed=True)
        return parquet.read()
    except (pa.ArrowInvalid, OSError) as error:
        raise source.error(None, None, f"expected a Parquet file ({error})") from None


def _locate(table: Any) -> Any:
    return lambda row: (row + 1, json.dumps(table.slice(row, 1).to_pylist()[0], default=str))


@FORMATS.register("parquet")
class ParquetFormat:
    """Apache Parquet, one row per (question, chunk)."""

    name: ClassVar[str] = "parquet"
    version: ClassVar[str] = "1"

    def read_run(self, source: Source) -> RunTable:
        table = _read(source)
        return run_from_named(table, source, _locate(table), unit="row")

    def read_qrels(self, source: Source) -> QrelsTable:
        table = _read(source)
        return qrels_from_named(table, source, _locate(table), unit="row")

    def _write(self, table: Any, out: IO[bytes]) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        plain = table.set_column(0, "question_id", table.column("question_id").cast(pa.string()))
        pq.write_table(plain, out)

    def write_run(self, run: RunTable, out: IO[bytes], *, tag: str) -> None:
        self._write(run.table, out)

    def write_qrels(self, qrels: QrelsTable, out: IO[bytes]) -> None:
        self._write(qrels.table, out)
