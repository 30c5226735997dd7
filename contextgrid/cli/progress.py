"""A dependency-free progress bar on stderr for loading files.

It draws only on a terminal, and only when there is enough to wait for: more
than one file, or one large one. A background thread redraws it so the
elapsed time keeps moving while a single large file is being read.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

__all__ = ["LARGE_FILE_BYTES", "FileProgress", "file_size"]

LARGE_FILE_BYTES = 16 * 1024 * 1024
"""A single file at least this big gets a progress bar of its own."""

_REDRAW_SECONDS = 0.2
_BAR_WIDTH = 24


def file_size(path: Path) -> int:
    """Bytes in ``path``, whole folders summed, 0 for anything unreadable (its reader reports that)."""
    try:
        if path.is_dir():
            return sum(child.stat().st_size for child in path.rglob("*") if child.is_file())
        return path.stat().st_size
    except OSError:
        return 0


def _human(size: float) -> str:
    if size < 1024:
        return f"{size:.0f} B"
    for unit in ("kB", "MB"):
        size /= 1024
        if size < 1024:
            return f"{size:.1f} {unit}"
    return f"{size / 1024:.1f} GB"


class FileProgress:
    """Progress over a known list of files, drawn as one line on ``stream``.

    Parameters
    ----------
    sizes : sequence of int
        Bytes in each file to be loaded; the bar fills by bytes, not by count.
    stream : text stream, optional
        Where to draw; ``sys.stderr`` at the time of the call when not given.
    enabled : bool, optional
        Force the bar on or off. By default it is on when ``stream`` is a
        terminal and there is more than one file or one of
        :data:`LARGE_FILE_BYTES` or more.

    Examples
    --------
    >>> import io
    >>> progress = FileProgress([10, 30], stream=io.StringIO())
    >>> progress.enabled  # a StringIO is not a terminal
    False
    >>> with progress, progress.step("qrels.tsv", 10):
    ...     pass
    >>> progress.done_bytes
    10
    """

    def __init__(self, sizes: Sequence[int], *, stream: TextIO | None = None, enabled: bool | None = None) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.total_files = len(sizes)
        self.total_bytes = sum(sizes)
        if enabled is None:
            enough = self.total_files > 1 or self.total_bytes >= LARGE_FILE_BYTES
            enabled = enough and self.stream.isatty()
        self.enabled = enabled
        self.done_files = 0
        self.done_bytes = 0
        self._current = ""
        self._started = time.monotonic()
        self._drawn = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def render(self) -> str:
        """The bar's current line, without the carriage return."""
        if self.total_bytes:
            fraction = self.done_bytes / self.total_bytes
        else:
            fraction = self.done_files / max(self.total_files, 1)
        filled = round(fraction * _BAR_WIDTH)
        elapsed = time.monotonic() - self._started
        line = (
            f"loading [{'#' * filled}{'.' * (_BAR_WIDTH - filled)}] {self.done_files}/{self.total_files} files, "
            f"{_human(self.done_bytes)} of {_human(self.total_bytes)}, {elapsed:.1f}s"
        )
        return f"{line}  {self._current}" if self._current else line

    def _draw(self) -> None:
        with self._lock:
            line = self.render()
            self.stream.write("\r" + line.ljust(self._drawn))
            self.stream.flush()
            self._drawn = len(line)

    def _tick(self) -> None:
        while not self._stop.wait(_REDRAW_SECONDS):
            self._draw()

    def __enter__(self) -> FileProgress:
        if self.enabled:
            self._draw()
            self._ticker = threading.Thread(target=self._tick, name="contextgrid-progress", daemon=True)
            self._ticker.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if not self.enabled:
            return
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        with self._lock:
            # Erase the bar so the results that follow start on a clean line.
            self.stream.write("\r" + " " * self._drawn + "\r")
            self.stream.flush()

    @contextmanager
    def step(self, label: str, size: int) -> Iterator[None]:
        """Mark the loading of one file of ``size`` bytes, named ``label`` on the bar."""
        self._current = label
        if self.enabled:
            self._draw()
        yield
        self.done_files += 1
        self.done_bytes += size
        self._current = ""
        if self.enabled:
            self._draw()
