"""CSV and TSV files with a header row naming the columns: ``question_id,chunk_id,rank,score`` for a run,
``question_id,chunk_id,grade`` for qrels (other spellings: see :mod:`contextgrid.io.named`).

Ids are always read as text, so ``007`` stays ``007``. An empty rank or
score cell is missing; a run whose scores are all missing is ranked by rank.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from typing import IO, Any, ClassVar

from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.io.files import Source
from contextgrid.io.formats import FORMATS
from contextgrid.io.named import ALIASES, qrels_from_named, run_from_named

__all__ = ["CsvFormat", "TsvFormat"]


class _Delimited:
    delimiter: ClassVar[str]
    separator: ClassVar[str]

    def _parse(self, source: Source) -> Any:
        import pyarrow as pa
        import pyarrow.csv as pcsv

        source.require_content("a header row naming the columns, then one row per line")
        ids = {name: pa.string() for field in ("question_id", "chunk_id") for name in ALIASES[field]}
        # Only an empty cell is missing: "NA" or "n/a" in a score column is a mistake to report, not a gap.
        convert = pcsv.ConvertOptions(column_types=ids, null_values=[""], strings_can_be_null=False)
        try:
            return pcsv.read_csv(
                source.stream(),
                read_options=pcsv.ReadOptions(block_size=1 << 24),
                parse_options=pcsv.ParseOptions(delimiter=self.delimiter),
                convert_options=convert,
            )
        except pa.ArrowInvalid as error:
            source.check_utf8()
            width = None
            try:
                for number, record, text in self._records(source):
                    width = len(record) if width is None else width
                    if len(record) != width:
                        raise source.error(
                            number,
                            text,
                            f"expected {width} {self.separator}-separated columns, as in the header, got {len(record)}",
                        ) from None
            except csv.Error as bad:
                raise source.error(
                    bad.args[1], bad.args[2], f"expected {self.separator}-separated columns ({bad.args[0]})"
                ) from None
            raise source.error(None, None, f"expected {self.separator}-separated columns ({error})") from None

    def _records(self, source: Source) -> Iterator[tuple[int, list[str], str]]:
        """(the line it starts on, cells, text) of every record pyarrow reads as a row, header first: a quoted
        cell may hold line ends, and empty lines are no records. Only a refused file is read so, to name a line.

        A malformed record raises :class:`csv.Error` with its message, the line it starts on and its text.
        """
        lines = source.data.decode("utf-8").split("\n")
        reader = csv.reader(iter(line + "\n" for line in lines), delimiter=self.delimiter, strict=True)
        start = 1
        while True:
            try:
                record = next(reader)
            except StopIteration:
                return
            except csv.Error as error:
                reason = "a quoted cell that never ends" if "end of data" in str(error) else str(error)
                raise csv.Error(reason, start, lines[start - 1]) from None
            end = reader.line_num
            if record:
                yield start, record, "\n".join(lines[start - 1 : end]).removesuffix("\r")
            start = end + 1

    def _locate(self, source: Source) -> Any:
        def locate(row: int) -> tuple[int, str]:
            for index, (number, _, text) in enumerate(self._records(source)):
                if index == row + 1:
                    return number, text
            return 0, ""

        return locate

    def read_run(self, source: Source) -> RunTable:
        return run_from_named(self._parse(source), source, self._locate(source))

    def read_qrels(self, source: Source) -> QrelsTable:
        return qrels_from_named(self._parse(source), source, self._locate(source))

    def _write(self, table: Any, out: IO[bytes]) -> None:
        import pyarrow as pa
        import pyarrow.csv as pcsv

        plain = table.set_column(0, "question_id", table.column("question_id").cast(pa.string()))
        pcsv.write_csv(plain, out, write_options=pcsv.WriteOptions(delimiter=self.delimiter))

    def write_run(self, run: RunTable, out: IO[bytes], *, tag: str) -> None:
        self._write(run.table if run.has_scores else run.table.drop_columns(["score"]), out)

    def write_qrels(self, qrels: QrelsTable, out: IO[bytes]) -> None:
        self._write(qrels.table, out)


@FORMATS.register("csv")
class CsvFormat(_Delimited):
    """Comma-separated values with a header row."""

    name: ClassVar[str] = "csv"
    version: ClassVar[str] = "1"
    delimiter: ClassVar[str] = ","
    separator: ClassVar[str] = "comma"


@FORMATS.register("tsv")
class TsvFormat(_Delimited):
    """Tab-separated values with a header row."""

    name: ClassVar[str] = "tsv"
    version: ClassVar[str] = "1"
    delimiter: ClassVar[str] = "\t"
    separator: ClassVar[str] = "tab"
