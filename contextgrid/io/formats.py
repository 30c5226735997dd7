"""The file formats runs and qrels are read from and written to, found by name or by file suffix.

Each format is a class registered in :data:`FORMATS`; a suffix maps to a
format name in :data:`SUFFIXES`. A trailing ``.gz`` means gzip, whatever the
format.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, ClassVar, Protocol

from contextgrid.core.errors import ContextGridError, InputFileError, RowError
from contextgrid.core.registry import Registry
from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.io.files import JSON_SHARE, Source, is_gzip

__all__ = ["FORMATS", "LINE_FORMATS", "SHARES", "SUFFIXES", "FileFormat", "format_for", "located"]


class FileFormat(Protocol):
    """What a registered format provides: a reader and a writer for runs and for qrels."""

    name: ClassVar[str]
    version: ClassVar[str]

    def read_run(self, source: Source) -> RunTable: ...

    def read_qrels(self, source: Source) -> QrelsTable: ...

    def write_run(self, run: RunTable, out: IO[bytes], *, tag: str) -> None: ...

    def write_qrels(self, qrels: QrelsTable, out: IO[bytes]) -> None: ...


FORMATS: Registry[type[FileFormat]] = Registry("file format")

SUFFIXES: dict[str, str] = {
    ".trec": "trec",
    ".txt": "trec",
    ".run": "trec",
    ".qrels": "trec",
    ".json": "json",
    ".jsonl": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv",
    ".parquet": "parquet",
}


LINE_FORMATS: set[str] = {"trec", "jsonl", "csv", "tsv"}
"""The formats read as lines, whose lines ``max_line_bytes`` limits. A JSON value (often written on one line) and
a Parquet file (binary) are limited in size only; a registered format read as lines adds its name here."""


SHARES: dict[str, int] = {"json": JSON_SHARE}
"""The formats held to a share of ``max_bytes`` because reading them takes many times their size
(:data:`~contextgrid.io.files.JSON_SHARE`); every other format may hold ``max_bytes``."""


def format_for(path: str | os.PathLike[str], format: str | None) -> FileFormat:
    """The format named by ``format``, or else by the suffix of ``path`` (ignoring ``.gz``)."""
    if format is not None:
        return FORMATS.get(format)()
    target = Path(path)
    suffix = (target.with_suffix("") if is_gzip(target) else target).suffix.lower()
    name = SUFFIXES.get(suffix)
    if name is None:
        known = ", ".join(sorted(SUFFIXES))
        raise ContextGridError(
            f"cannot tell the format of {str(path)!r} from its suffix {suffix!r}; expected one of {known} "
            f"(optionally followed by .gz), or pass format= one of {', '.join(FORMATS.names())}"
        )
    return FORMATS.get(name)()


@contextmanager
def located(source: Source, locate: Callable[[int], tuple[int, str]], *, unit: str = "line") -> Iterator[None]:
    """Turn a :class:`RowError` from building a table into an :class:`InputFileError` naming the line or row."""
    try:
        yield
    except RowError as error:
        line, text = locate(error.row)
        raise InputFileError(source.shown, line, text, error.expected, unit=unit) from None
