"""Opening input files (``.gz`` by suffix), within limits on their size and their lines, finding the line a bad
row came from, and writing outputs safely.

Input files are only ever opened for reading, and read in blocks: a file is
refused as soon as what it decompresses to passes ``max_bytes``, expands more
than ``max_ratio`` times what it was compressed to, or a line passes
``max_line_bytes``, so that a small gzip file that expands to gigabytes
(a "gzip bomb") or a file of one enormous line costs a few megabytes and a
fraction of a second, not the memory of the machine. Outputs are written to a
temporary file next to the target and renamed into place, so a failed write
never leaves half a file behind.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import tempfile
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import IO, Any, cast

from contextgrid.core.checks import check_int
from contextgrid.core.errors import InputFileError, InvalidParameterError, OutputExistsError, OutputFileError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINE_BYTES",
    "DEFAULT_MAX_RATIO",
    "DOCUMENT_MAX_LINE_BYTES",
    "JSON_SHARE",
    "RATIO_FLOOR",
    "SHARES_WHY",
    "Folders",
    "Source",
    "atomic_output",
    "confined",
    "is_gzip",
    "is_within",
    "numbered_lines",
    "parse_ratio",
    "parse_size",
    "size_text",
    "utf8",
    "write_output",
]

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30

DEFAULT_MAX_BYTES = GIB
"""The most a file may hold, decompressed, by default: 1 GiB.

Far above a real run or qrels file (a 1,000-deep run of MS MARCO's 6,980 dev
questions is about 300 MB), yet a bound on what one file makes a reader hold:
reading a run takes a few times its size in memory.
"""

JSON_SHARE = 32
"""The share of ``max_bytes`` a JSON file (one value, not lines) may hold: a 32nd, 32 MiB by default.

A JSON value is parsed whole by Python, into objects that take about 24 times the file's size (a 256 MiB run:
6 GB), where a file read as lines or columns takes a few times its size. So a JSON file is held to
``max_bytes / 32``, and read in at most about ``0.75 * max_bytes``. JSON Lines, read in columns, has no such share.
"""

SHARES_WHY = {JSON_SHARE: "a JSON value is parsed whole, at about 24 times its size; JSON Lines is not"}
"""Why a format is held to a share of ``max_bytes``, as its refusal says."""

DEFAULT_MAX_LINE_BYTES = MIB
"""The longest line by default, in bytes: 1 MiB, a thousand times a long TREC or JSON Lines line of a run."""

DOCUMENT_MAX_LINE_BYTES = 64 * MIB
"""The longest line of a documents or chunks JSON Lines file by default: 64 MiB, a whole book as one document."""

DEFAULT_MAX_RATIO = 100
"""The most a compressed file may expand by default: 100 times what it was compressed to (Apache POI's minimum
inflate ratio, 0.01, for the parts of an Office file).

Real inputs expand 3 to 13 times under gzip (``-6`` or ``-9``): documents and questions about 3, runs and qrels
5 to 13, a run that ranks the same chunks for every question 10. A gzip file of one short line repeated, valid
lines that say nothing, expands about 1,000 times.
"""

RATIO_FLOOR = 64 * MIB
"""What a compressed file may hold before its expansion is checked: 64 MiB, so a small file compresses as well as
it likes, and a file refused for its expansion costs no more than this."""

_BLOCK = 16 * MIB
"""How much is read (decompressed) at a time: large enough to read at full speed, small enough to refuse early."""

_UNITS = {"": 1, "k": KIB, "kib": KIB, "m": MIB, "mib": MIB, "g": GIB, "gib": GIB}
_SIZE = re.compile(r"\s*([0-9]+)\s*([a-z]*)\s*", re.IGNORECASE)


def size_text(size: int) -> str:
    """``size`` bytes as a person reads it, in the largest binary unit it reaches (a limit, a whole number of
    units, is shown exactly).

    Examples
    --------
    >>> size_text(1 << 30), size_text(3 << 20), size_text(1500), size_text(1000)
    ('1 GiB', '3 MiB', '1.5 KiB', '1000 bytes')
    """
    for unit, name in ((GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")):
        if size >= unit:
            return f"{size // unit} {name}" if size % unit == 0 else f"{size / unit:.1f} {name}"
    return f"{size} bytes"


def parse_size(text: str) -> int:
    """A size written as bytes, or with a binary unit: ``4096``, ``64KiB``, ``512M``, ``2GiB`` (any case).

    Examples
    --------
    >>> parse_size("2GiB"), parse_size("512m"), parse_size("100")
    (2147483648, 536870912, 100)
    """
    match = _SIZE.fullmatch(text)
    unit = None if match is None else _UNITS.get(match.group(2).lower())
    if match is None or unit is None or int(match.group(1)) < 1:
        raise InvalidParameterError(
            f"expected a size of 1 or more: bytes, or a number with KiB, MiB or GiB (such as 2GiB), got {text!r}"
        )
    return int(match.group(1)) * unit


def parse_ratio(text: str) -> int | None:
    """A ``max_ratio`` as written on a command line: a whole number of 1 or more, or ``off`` for no limit (``None``).

    Examples
    --------
    >>> parse_ratio("100"), parse_ratio("off")
    (100, None)
    """
    if text.strip().lower() == "off":
        return None
    if not text.strip().isdigit() or int(text) < 1:
        raise InvalidParameterError(f"expected a whole number of 1 or more, or off for no limit, got {text!r}")
    return int(text)


def is_gzip(path: Path) -> bool:
    """Whether ``path`` names a gzip-compressed file (by its suffix)."""
    return path.suffix.lower() == ".gz"


_SETTINGS = {
    "max_bytes": ("--max-bytes", "--max-expanded-mb"),
    "max_ratio": ("--max-ratio", "--max-ratio"),
    "max_line_bytes": ("--max-line-bytes", None),
}
"""Where each limit is set: its command-line option, and the dashboard server's (``contextgrid app``), if any."""


def _raise_hint(keyword: str) -> str:
    """How to raise limit ``keyword`` wherever it is set, so that the message a dashboard visitor sees names what
    the dashboard's operator can change too."""
    flag, server = _SETTINGS[keyword]
    dashboard = "" if server is None else f"; for the dashboard, contextgrid app {server}"
    return f"to read it, raise the limit with {keyword}= (on the command line, {flag}{dashboard})"


def _long_line(block: bytes, start: int, length: int, limit: int) -> tuple[int | None, int]:
    """Where in ``block`` a line longer than ``limit`` bytes starts (``None`` if none), and how long the line
    ``block`` ends in is; ``length`` bytes of the line at ``start`` (0, or a line the last block ended in) came
    before.

    Each step looks for the last line end within ``limit`` bytes of a line's start: lines before it are short
    enough, and the next starts after it. So a block of short lines costs a step per ``limit`` bytes, not a
    step per line.
    """
    while True:
        window = start + limit - length + 1  # the line end must lie before this
        end = block.rfind(b"\n", start, window)
        if end == -1:
            if window <= len(block):
                return start - length, 0
            return None, length + len(block) - start
        start, length = end + 1, 0


Folders = Sequence[str | os.PathLike[str]]
"""Folders a file must lie in: :func:`confined`'s ``within``."""


def is_within(path: str | os.PathLike[str], folders: Folders) -> bool:
    """Whether ``path``, resolved (links followed, ``..`` removed), is one of ``folders`` (resolved) or lies
    under one.

    Examples
    --------
    >>> is_within("/srv/ws/runs/../qrels.trec", ["/srv/ws"])
    True
    >>> is_within("/srv/ws/../etc/passwd", ["/srv/ws"])
    False
    >>> is_within("/srv/workspace2", ["/srv/ws"])
    False
    """
    try:
        resolved = Path(path).resolve()
    except (RuntimeError, OSError, ValueError):  # a loop of links, a name no system call takes: lies nowhere
        return False
    return any(resolved.is_relative_to(Path(folder).resolve()) for folder in folders)


def confined(path: str | os.PathLike[str], within: Folders | None) -> Path:
    """The file ``path`` as it is to be opened: with ``within``, resolved and refused with an
    :class:`~contextgrid.core.errors.InputFileError` naming ``path`` unless it lies inside one of those folders
    once every link is followed; ``within=None``: ``path`` as given, anywhere.

    The check is made as the file is opened, not when a manifest names it, so a link inside a documents folder,
    or one put in place after the manifest was read, is followed before it is judged. Where the link leads is
    not said: that would tell a visitor about the host.

    Examples
    --------
    >>> confined("/etc/passwd", None)
    PosixPath('/etc/passwd')
    >>> confined("/srv/ws/../../etc/passwd", ["/srv/ws"])
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.InputFileError: /srv/ws/../../etc/passwd: expected a file inside the folders this may \
read (links followed), got one that lies outside them
    """
    if within is None:
        return Path(path)
    if not is_within(path, within):
        raise InputFileError(
            str(path),
            None,
            None,
            "expected a file inside the folders this may read (links followed), got one that lies outside them",
        )
    return Path(path).resolve()


def numbered_lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """(1-based line number, line) for every line of ``data``, without its ``\\n`` or a ``\\r`` before it, one at a
    time: a reader that looks only at the first lines does not split the whole file."""
    for number, raw in enumerate(io.BytesIO(data), start=1):
        yield number, raw.removesuffix(b"\n").removesuffix(b"\r")


class Source:
    """One input file: its bytes (decompressed), read within limits, and where its lines are for error messages.

    ``max_bytes`` bounds what the file holds once decompressed (a plain file's
    size is checked before it is opened); ``max_ratio`` (``None``: no limit)
    bounds how many times a compressed file expands, checked once
    :data:`RATIO_FLOOR` of it is read; ``max_line_bytes``, when given,
    bounds each line, for readers that read lines. A limit passed raises
    an :class:`~contextgrid.core.errors.InputFileError` naming the file, the
    limit and how to raise it, as soon as it is passed. With ``within``, the
    file must lie inside one of those folders once its links are followed
    (:func:`confined`), and it is the resolved file that is read. ``share``
    holds a format that takes many times its size to read to
    ``max_bytes // share`` (:data:`JSON_SHARE`); :attr:`limit` is what the
    file may hold.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        max_line_bytes: int | None = None,
        max_ratio: int | None = DEFAULT_MAX_RATIO,
        within: Folders | None = None,
        share: int = 1,
    ) -> None:
        self.shown = str(path)
        # Checked before existence, so that a refused path tells nothing about what lies outside.
        self.path = confined(path, within)
        self.max_bytes = check_int(max_bytes, function="Source", parameter="max_bytes", minimum=1)
        # A format held whole in memory at many times its size may hold only a share of max_bytes.
        self.share = check_int(share, function="Source", parameter="share", minimum=1)
        self.limit = max(1, self.max_bytes // self.share)
        self.max_ratio = (
            None if max_ratio is None else check_int(max_ratio, function="Source", parameter="max_ratio", minimum=1)
        )
        self.max_line_bytes = (
            None
            if max_line_bytes is None
            else check_int(max_line_bytes, function="Source", parameter="max_line_bytes", minimum=1)
        )
        if not self.path.is_file():
            raise InputFileError(self.shown, None, None, "expected a file to read, but there is no such file")
        # By the name given: a link's target may be named otherwise.
        self.compressed = is_gzip(Path(path))
        if not self.compressed and (size := self.path.stat().st_size) > self.limit:
            raise self.too_large(f"got {size_text(size)}")

    def too_large(self, got: str, *, compressed: bool = False) -> InputFileError:
        """The error for content past ``max_bytes``; ``got`` says what it holds, ``compressed`` that the format
        compresses it itself (as Parquet does)."""
        decompressed = " once decompressed" if self.compressed or compressed else ""
        limit = (
            f"the limit max_bytes={self.max_bytes}"
            if self.share == 1
            else f"1/{self.share} of the limit max_bytes={self.max_bytes}: {SHARES_WHY.get(self.share, 'held whole')}"
        )
        return self.error(
            None,
            None,
            f"expected at most {size_text(self.limit)}{decompressed} ({limit}), {got}; {_raise_hint('max_bytes')}",
        )

    def _expands(self, read: int, compressed: int) -> InputFileError:
        return self.error(
            None,
            None,
            f"expected to expand at most {self.max_ratio} times once decompressed (the limit max_ratio="
            f"{self.max_ratio}), got {read // compressed} times: {size_text(read)} from the first "
            f"{size_text(compressed)} of the file; {_raise_hint('max_ratio')}, or lift it with max_ratio=None "
            "(--max-ratio off)",
        )

    def _too_long(self, offset: int, limit: int) -> InputFileError:
        """The error for a line longer than ``limit``, starting ``offset`` bytes into the content (its number found
        by counting line ends again up to it: only a refused file pays for that)."""
        line = 1
        with self._open() as (handle, _):
            while offset > 0 and (block := handle.read(min(_BLOCK, offset))):
                line += block.count(b"\n")
                offset -= len(block)
        return self.error(
            line,
            None,
            f"expected lines of at most {size_text(limit)} (the limit max_line_bytes={limit}), got a longer one; "
            f"{_raise_hint('max_line_bytes')}",
        )

    def _blocks(self) -> Iterator[bytes]:
        """The decompressed content, block by block, refused as soon as it passes a limit."""
        read = 0
        line = 0  # the length of the line the blocks so far end in
        ratio = self.max_ratio if self.compressed else None
        try:
            with self._open() as (handle, raw):
                # One byte more than the limit allows: reading it is what shows that the file is too large.
                while block := handle.read(min(_BLOCK, self.limit - read + 1)):
                    if read + len(block) > self.limit:
                        raise self.too_large("got more")
                    # raw.tell() is what gzip has taken of the file so far, a little ahead of what it has decompressed.
                    total = read + len(block)
                    if ratio is not None and total >= RATIO_FLOOR and total > ratio * raw.tell():
                        raise self._expands(total, raw.tell())
                    if self.max_line_bytes is not None:
                        start, line = _long_line(block, 0, line, self.max_line_bytes)
                        if start is not None:
                            raise self._too_long(read + start, self.max_line_bytes)
                    read += len(block)
                    yield block
        except (OSError, EOFError, zlib.error) as error:
            if not self.compressed:
                raise
            raise InputFileError(self.shown, None, None, f"expected gzip-compressed data ({error})") from None

    @cached_property
    def data(self) -> bytes:
        """The file's whole content, decompressed."""
        return b"".join(self._blocks())

    def stream(self) -> Any:
        """A pyarrow input stream of the decompressed content.

        pyarrow reads a plain file itself when no line limit applies (its size is already checked); else from
        :attr:`data`, which the limits have checked.
        """
        import pyarrow as pa

        if self.compressed or self.max_line_bytes is not None:
            return pa.BufferReader(self.data)
        return pa.input_stream(str(self.path))

    def error(self, line: int | None, text: str | None, expected: str, *, unit: str = "line") -> InputFileError:
        return InputFileError(self.shown, line, text, expected, unit=unit)

    @contextmanager
    def _open(self) -> Iterator[tuple[IO[bytes], IO[bytes]]]:
        """The decompressed content, and the file it is read from (whose position is what has been read of it)."""
        with self.path.open("rb") as raw:
            if not self.compressed:
                yield raw, raw
                return
            with gzip.GzipFile(fileobj=raw, mode="rb") as handle:
                yield cast(IO[bytes], handle), raw

    def sample(self, size: int = 1 << 16) -> bytes:
        """The first ``size`` bytes of the decompressed content."""
        if "data" in self.__dict__:
            return self.data[:size]
        taken = bytearray()
        for block in self._blocks():
            taken += block[: size - len(taken)]
            if len(taken) >= size:
                break
        return bytes(taken)

    def require_content(self, expected: str) -> None:
        """Refuse a file with nothing but whitespace in it, reading no further than its first non-blank byte
        (or looking at :attr:`data`, when it is read already)."""
        # The content already read is not read again; isspace() stops at the first other byte, where strip() copies.
        blocks = (self.data,) if "data" in self.__dict__ else self._blocks()
        for block in blocks:
            if block and not block.isspace():
                return
        raise self.error(None, None, f"expected {expected}, got an empty file")

    def lines(self) -> Iterator[tuple[int, bytes]]:
        """(1-based line number, raw line without its line ending) for every line (see :func:`numbered_lines`)."""
        return numbered_lines(self.data)

    def text_lines(self) -> Iterator[tuple[int, str]]:
        """(line number, text) for every line that is not blank (nothing but spaces, ``\\t``, ``\\r``, ``\\v`` or
        ``\\f``); undecodable bytes are refused."""
        for number, raw in self.lines():
            # Blank as C's isspace() says, which bytes.strip() follows (as TREC text is read): a line of a no-break
            # space is no blank line.
            if not raw.strip():
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise self.error(
                    number,
                    raw.decode("utf-8", errors="backslashreplace"),
                    f"expected UTF-8 text, got undecodable bytes at column {error.start + 1}",
                ) from None
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
def atomic_output(
    path: str | os.PathLike[str], *, overwrite: bool, replace_hint: str = "pass overwrite=True to replace it"
) -> Iterator[IO[bytes]]:
    """A binary file handle whose content replaces ``path`` only once it is completely written: the one way
    contextgrid writes a file.

    ``.gz`` paths are gzip-compressed. An existing ``path`` is refused
    (:class:`~contextgrid.core.errors.OutputExistsError`, saying ``replace_hint``: a command says its
    ``--force``) unless ``overwrite`` is true. The content goes to a temporary file beside ``path``, renamed
    over it once complete; whatever fails on the way (the caller's code, a full disk) removes the temporary
    file and leaves ``path`` as it was. A folder in its place, or a file that cannot be written, is an
    :class:`~contextgrid.core.errors.OutputFileError`.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> target = Path(tempfile.mkdtemp()) / "report.html"
    >>> _ = target.write_text("the old report")
    >>> try:
    ...     with atomic_output(target, overwrite=True) as out:
    ...         _ = out.write(b"half a new rep")
    ...         raise ValueError("the rest could not be made")
    ... except ValueError:
    ...     pass
    >>> target.read_text(), [path.name for path in target.parent.iterdir()]
    ('the old report', ['report.html'])
    """
    target = Path(path)
    if target.is_dir():
        raise OutputFileError(f"{path} is a folder; expected the path of a file to write")
    if target.exists() and not overwrite:
        raise OutputExistsError(f"{path} already exists; {replace_hint}")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name[:200]}.", suffix=".part", dir=target.parent)
    except OSError as error:
        raise OutputFileError(f"cannot write {path}: {error.strerror or error}") from None
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
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise OutputFileError(f"cannot write {path}: {error.strerror or error}; it is left as it was") from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def utf8(text: str) -> bytes:
    """``text`` as UTF-8, as every output is written; a lone surrogate, which JSON's ``\\ud800`` escape puts in a
    document and UTF-8 cannot hold, as that escape (encoding would fail on it).

    Examples
    --------
    >>> utf8("caf\\u00e9 \\ud800")
    b'caf\\xc3\\xa9 \\\\ud800'
    """
    return text.encode("utf-8", errors="backslashreplace")


def write_output(
    path: str | os.PathLike[str],
    content: str | bytes,
    *,
    overwrite: bool,
    replace_hint: str = "pass overwrite=True to replace it",
) -> int:
    """Write ``content`` to ``path`` through :func:`atomic_output`; the number of bytes written.

    Text is written as :func:`utf8` says, encoded before ``path`` is touched.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> target = Path(tempfile.mkdtemp()) / "page.html"
    >>> write_output(target, "caf\\u00e9 \\ud800", overwrite=False)
    12
    >>> target.read_bytes()
    b'caf\\xc3\\xa9 \\\\ud800'
    """
    data = content if isinstance(content, bytes) else utf8(content)
    with atomic_output(path, overwrite=overwrite, replace_hint=replace_hint) as out:
        out.write(data)
    return len(data)
