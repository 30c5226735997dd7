"""What the server was started with: ``streamlit run app.py -- [--workspace DIR] [--allow-folders DIR ...]
[--max-session-mb MB] [--max-expanded-mb MB] [--max-ratio N]``.

The dashboard is shared by everyone who can reach it, so it opens no folder of
the host a visitor names unless the server was started with the folders it
may open (``contextgrid app --allow-folders DIR``), and then only under them;
the workspace it was started on is always open. Each session may upload
``--max-session-mb`` in all, and every file the dashboard reads may hold
``--max-expanded-mb`` once decompressed and, gzip-compressed, expand at most
``--max-ratio`` times (``contextgrid app`` passes its own options on).

What the server reads as it starts lives as long as it does (:func:`kept_for_the_server`).
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from contextgrid.cli.app import DEFAULT_EXPANDED_MB, DEFAULT_SESSION_MB
from contextgrid.cli.commands import ratio_option
from contextgrid.core.collector import collector_paused
from contextgrid.core.errors import AccessDeniedError
from contextgrid.io.files import DEFAULT_MAX_RATIO
from contextgrid.workspace.access import allowed_path
from pages._uploads import NAME_MAX, is_upload_folder

HOW = "the server opens only folders under those it was started with (contextgrid app --allow-folders DIR)"


@dataclass(frozen=True, slots=True)
class Settings:
    """The workspace the server shows first, the folders a visitor may open (none: no folder source), what a
    session may upload in all and what a file may hold once decompressed (both in megabytes, 2**20 bytes), and how
    many times a gzip file may expand (``None``: no limit)."""

    workspace: str
    allowed: tuple[str, ...]
    session_mb: int = DEFAULT_SESSION_MB
    expanded_mb: int = DEFAULT_EXPANDED_MB
    max_ratio: int | None = DEFAULT_MAX_RATIO

    @property
    def max_bytes(self) -> int:
        """What one file may hold once decompressed, in bytes: the ``max_bytes`` every workspace is read within."""
        return self.expanded_mb << 20


def settings() -> Settings:
    """The server's settings, from its command line (read on each call: it is short, and tests change it)."""
    from contextgrid.workspace.sample import SAMPLE

    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--workspace", default=str(SAMPLE))
    parser.add_argument("--allow-folders", nargs="*", default=[])
    parser.add_argument("--max-session-mb", type=int, default=DEFAULT_SESSION_MB)
    parser.add_argument("--max-expanded-mb", type=int, default=DEFAULT_EXPANDED_MB)
    parser.add_argument("--max-ratio", type=ratio_option, default=DEFAULT_MAX_RATIO)
    known, _ = parser.parse_known_args(sys.argv[1:])
    return Settings(
        str(known.workspace),
        tuple(str(Path(folder).resolve()) for folder in known.allow_folders),
        known.max_session_mb,
        known.max_expanded_mb,
        known.max_ratio,
    )


def open_folder(path: str) -> str:
    """The workspace folder a visitor asked for, resolved, if the server may open it; else an
    :class:`~contextgrid.AccessDeniedError` that says why. Uploads are never a folder to open."""
    server = settings()
    if "\0" in path:
        # A NUL would make every system call on the path fail (ValueError: embedded null byte).
        raise AccessDeniedError(f"the workspace folder {path!r} is no folder name: it holds a NUL character")
    if any(len(part.encode("utf-8", errors="surrogatepass")) > NAME_MAX for part in Path(path).parts):
        raise AccessDeniedError(
            f"the workspace folder {path if len(path) <= 80 else path[:80] + '…'!r} is no folder name: a part of it "
            f"is longer than {NAME_MAX} bytes"
        )
    if Path(path).resolve() == Path(server.workspace).resolve():
        return server.workspace
    if is_upload_folder(path):
        raise AccessDeniedError(f"the folder {path!r} holds uploaded files, which are data, never a workspace")
    return str(allowed_path(path, server.allowed, what="the workspace folder", how=HOW))


def confinement(root: str) -> tuple[str, ...] | None:
    """Where the files of workspace ``root``'s manifest may lie, besides its own folder: anywhere for the
    workspace the server was started on (its user chose it), only the allowed folders for any other."""
    server = settings()
    if Path(root).resolve() == Path(server.workspace).resolve():
        return None
    open_folder(root)
    return server.allowed


@contextmanager
def kept_for_the_server() -> Iterator[None]:
    """Run the block with Python's cyclic garbage collector paused, then leave all it made out of later
    collections (``gc.freeze``): for what the server reads as it starts, which lives as long as the server.

    A workspace's records are a few hundred thousand objects at 50 configurations: while they are made, each full
    collection walks them all again (four of them, a third of a second of the cold Overview), and every
    collection after would too. The collector is paused for every thread (the server is starting) and restarted
    after the block, whatever happens in it (:func:`~contextgrid.core.collector.collector_paused`). Cyclic
    garbage the block makes is kept with the rest (about 1,400 objects on that workspace); what it made that is
    later dropped is still freed, by its reference count.
    """
    try:
        with collector_paused():
            yield
    finally:
        gc.freeze()
