"""Parquet files with named columns: ``question_id, chunk_id, rank, score`` for a run,
``question_id, chunk_id, grade`` for qrels (other spellings: see :mod:`contextgrid.io.named`).

A Parquet file has rows, not lines: errors name the 1-based row. Its columns are compressed inside the file, so
what they expand to, as its metadata states it, is held to ``max_bytes`` before any is read.
"""

from __future__ import annotations

import json
from typing import IO, Any, ClassVar

from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.io.files import Source, size_text
from contextgrid.io.formats import FORMATS
from contextgrid.io.named import qrels_from_named, run_from_named

__all__ = ["ParquetFormat"]


def _read(source: Source) -> Any:
    import pyarrow as pa
    import pyarrow.parquet as pq

    source.require_content("a Parquet file")
    try:
        parquet = pq.ParquetFile(source.stream() if source.compressed else str(source.path))
        metadata = parquet.metadata
        expands = sum(
            metadata.row_group(group).column(column).total_uncompressed_size
            for group in range(metadata.num_row_groups)
            for column in range(metadata.num_columns)
        )
        if expands > source.max_bytes:
            raise source.too_large(f"got {size_text(expands)} in its columns", compressed=True)
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
