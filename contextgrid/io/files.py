"""Opening input files (``.gz`` by suffix), finding the line a bad row came from, and writing outputs safely.

Input files are only ever opened for reading. Outputs are written to a
temporary file next to the target and renamed into place, so a failed write
never leaves half a file behind.
"""

from __future__ import annotations

import gzip
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import IO, Any, cast

from contextgrid.core.errors import InputFileError, OutputExistsError

__all__ = ["Source", "atomic_output", "is_gzip"]


def is_gzip(path: Path) -> bool:
    """Whether ``path`` names a gzip-compressed file (by its suffix)."""
    return path.suffix.lower() == ".gz"


class Source:
    """One input file: its bytes (decompressed), and where its lines are for error messages."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.shown = str(path)
        if not self.path.is_file():
            raise InputFileError(self.shown, None, None, "expected a file to read, but there is no such file")
        self.compressed = is_gzip(self.path)

    @cached_property
    def data(self) -> bytes:
        """The file's whole content, decompressed."""
        if not self.compressed:
            return self.path.read_bytes()
        try:
            with gzip.open(self.path, "rb") as handle:
                return handle.read()
        except (OSError, EOFError) as error:
            raise InputFileError(self.shown, None, None, f"expected gzip-compressed data ({error})") from None

    def stream(self) -> Any:
        """A pyarrow input stream of the decompressed content."""
        import pyarrow as pa

        if self.compressed:
            return pa.BufferReader(self.data)
        return pa.input_stream(str(self.path))

    def error(self, line: int | None, text: str | None, expected: str, *, unit: str = "line") -> InputFileError:
        return InputFileError(self.shown, line, text, expected, unit=unit)

    def _open(self) -> IO[bytes]:
        return cast(IO[bytes], gzip.open(self.path, "rb")) if self.compressed else self.path.open("rb")

    def sample(self, size: int = 1 << 16) -> bytes:
        """The first ``size`` bytes of the decompressed content."""
        if "data" in self.__dict__:
            return self.data[:size]
        try:
            with self._open() as handle:
                return handle.read(size)
        except (OSError, EOFError) as error:
            raise InputFileError(self.shown, None, None, f"expected gzip-compressed data ({error})") from None

    def require_content(self, expected: str) -> None:
        """Refuse a file with nothing but whitespace in it, reading no further than its first non-blank byte."""
        try:
            with self._open() as handle:
                while block := handle.read(1 << 16):
                    if block.strip():
                        return
        except (OSError, EOFError) as error:
            raise InputFileError(self.shown, None, None, f"expected gzip-compressed data ({error})") from None
        raise self.error(None, None, f"expected {expected}, got an empty file")

    def lines(self) -> Iterator[tuple[int, bytes]]:
        """(1-based line number, raw line without its line ending) for every line."""
        for number, raw in enumerate(self.data.split(b"\n"), start=1):
            yield number, raw.removesuffix(b"\r")

    def text_lines(self) -> Iterator[tuple[int, str]]:
        """(line number, text) for every line that is not blank; undecodable bytes are refused."""
        for number, raw in self.lines():
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise self.error(
                    number,
                    raw.decode("utf-8", errors="backslashreplace"),
                    f"expected UTF-8 text, got undecodable bytes at column {error.start + 1}",
                ) from None
            if line.strip():
                yield number, line

    def check_utf8(self) -> None:
        """Refuse undecodable bytes, naming the first line that holds some."""
        try:
            self.data.decode("utf-8")
        except UnicodeDecodeError:
            for _ in self.text_lines():
                pass
            raise

    def line_of_row(self, row: int, *, header: int = 0) -> tuple[int, str]:
        """The line number and text of data row ``row`` (0-based), skipping blank lines and ``header`` lines."""
        wanted = row + header
        for index, (number, line) in enumerate(self.text_lines()):
            if index == wanted:
                return number, line
        return 0, ""


@contextmanager
def atomic_output(path: str | os.PathLike[str], *, overwrite: bool) -> Iterator[IO[bytes]]:
    """A binary file handle whose content replaces ``path`` only once it is completely written.

    ``.gz`` paths are gzip-compressed. An existing ``path`` is refused unless
    ``overwrite`` is true.
    """
    target = Path(path)
    if target.exists() and not overwrite:
        raise OutputExistsError(f"{path} already exists; pass overwrite=True to replace it")
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    # mkstemp makes the file private (0600); the output should get the permissions any new file gets.
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(temporary, 0o666 & ~umask)
    try:
        with os.fdopen(handle, "wb") as raw:
            if is_gzip(target):
                with gzip.GzipFile(fileobj=raw, mode="wb", filename="", mtime=0) as compressed:
                    yield cast(IO[bytes], compressed)
            else:
                yield raw
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
