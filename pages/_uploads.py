"""Uploaded files, kept where only the session that uploaded them finds them, until it ends.

The readers take paths, so uploads are written to disk: each session gets a
private folder (mode 0700) with an unguessable name under :func:`uploads_root`,
removed when Streamlit lets the session go (a closed tab's session is kept a
couple of minutes for a reconnect) or when the server stops. Inside it, a set
of uploads lives in a folder named after its content, so the same files are
the same source; an uploaded file is only ever read as data (a run, qrels,
chunks …), never as a manifest.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import shutil
import tempfile
import weakref
from dataclasses import dataclass
from pathlib import Path

from contextgrid.core.errors import ContextGridError
from contextgrid.io.files import size_text

PREFIX = "contextgrid-uploads-"
"""How the folder of a server's uploads is named, in the system's temporary folder, before its random part."""


@functools.cache
def uploads_root() -> Path:
    """This server's folder of session folders: made once, private, with an unguessable name (never a fixed path
    that another user of the host could make first), removed when the server exits."""
    root = Path(tempfile.mkdtemp(prefix=PREFIX))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    return root


def remove_uploads() -> None:
    """Remove this server's uploads, if it has any: called as the server stops. (An exit handler alone is not
    enough: the server re-raises SIGTERM once it has shut down, and a process a signal ends runs none.)"""
    if uploads_root.cache_info().currsize:
        shutil.rmtree(uploads_root(), ignore_errors=True)


def is_upload_folder(path: str | Path) -> bool:
    """Whether ``path`` (resolved) lies in the uploads of this or any other contextgrid server on the host."""
    resolved = Path(path).resolve()
    temporary = Path(tempfile.gettempdir()).resolve()
    return (
        resolved.is_relative_to(temporary)
        and resolved != temporary
        and (resolved.relative_to(temporary).parts[0].startswith(PREFIX))
    )


class SessionFolder:
    """A private folder with an unguessable name, removed when this object is collected or the server exits."""

    def __init__(self) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="session-", dir=uploads_root()))
        self._removal = weakref.finalize(self, shutil.rmtree, self.path, ignore_errors=True)

    def remove(self) -> None:
        """Remove the folder now."""
        self._removal()


@dataclass(frozen=True, slots=True)
class Upload:
    """Uploaded files as stored: what :func:`~contextgrid.workspace.builder.workspace_from_files` builds the
    workspace from.

    ``digest`` hashes every file's role, name and bytes, so it is the upload's content version; the paths hold
    the names the files were uploaded as.
    """

    digest: str
    qrels: str
    runs: tuple[str, ...]
    documents: str | None = None
    chunks: str | None = None
    questions: str | None = None

    @property
    def files(self) -> tuple[str, ...]:
        """Every stored file, runs after qrels."""
        optional = (self.documents, self.chunks, self.questions)
        return (self.qrels, *self.runs, *(path for path in optional if path is not None))


NAME_MAX = 255
"""The longest file name the host's file systems take, in bytes of UTF-8 (Linux's NAME_MAX)."""


def plain_name(name: str) -> str:
    """``name`` if it is a file name alone that the disk takes; a name that holds a folder (``../x``), is none or
    is longer than :data:`NAME_MAX` bytes is refused."""
    if name in {"", ".", ".."} or any(mark in name for mark in ("/", "\\", "\0")):
        raise ContextGridError(f"an uploaded file's name must be a plain file name, without folders; got {name!r}")
    if len(name.encode("utf-8", errors="surrogatepass")) > NAME_MAX:
        shown = name if len(name) <= 60 else f"{name[:40]}…{name[-15:]}"
        raise ContextGridError(
            f"an uploaded file's name must be at most {NAME_MAX} bytes long; {shown!r} has "
            f"{len(name.encode('utf-8', errors='surrogatepass'))}: rename it"
        )
    return name


def _write_if_changed(path: Path, data: bytes) -> None:
    # The folder is named after the bytes; a file already there that differs is one a write left unfinished.
    if not path.exists() or path.read_bytes() != data:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def uploaded_source(
    qrels: tuple[str, bytes],
    runs: tuple[tuple[str, bytes], ...],
    *,
    folder: SessionFolder,
    chunks: tuple[str, bytes] | None = None,
    documents: tuple[str, bytes] | None = None,
    questions: tuple[str, bytes] | None = None,
    max_total_bytes: int | None = None,
) -> Upload:
    """Store uploaded ``(name, bytes)`` files in the session's ``folder``; the source they make.

    Each run becomes a configuration named after its file (two that would
    share a name are refused by
    :func:`~contextgrid.workspace.builder.workspace_from_files`); an uploaded
    chunks file is the chunking of every run. Each file keeps the name it was
    uploaded as, in a folder of its role (runs one folder each), so that the
    readers' messages name it. A set of uploads replaces the session's earlier
    one on disk. Files that total more than ``max_total_bytes`` (the server's
    ``--max-session-mb``) are refused before any is stored.
    """
    single = {"qrels": qrels, "documents": documents, "chunks": chunks, "questions": questions}
    total = sum(len(upload[1]) for upload in (*runs, *single.values()) if upload is not None)
    if max_total_bytes is not None and total > max_total_bytes:
        raise ContextGridError(
            f"the uploaded files total {size_text(total)}, more than the {size_text(max_total_bytes)} a session may "
            "upload on this server (contextgrid app --max-session-mb); upload fewer or smaller files, or gzip them"
        )
    digest = hashlib.sha256()
    for role, upload in (*(("run", run) for run in runs), *single.items()):
        if upload is not None:
            digest.update(f"{role}\0{plain_name(upload[0])}\0".encode() + hashlib.sha256(upload[1]).digest())
    stored_in = folder.path / digest.hexdigest()[:16]
    for earlier in folder.path.iterdir():
        if earlier != stored_in:
            shutil.rmtree(earlier, ignore_errors=True)
    stored: dict[str, str | None] = {}
    for role, upload in single.items():
        stored[role] = None if upload is None else str(stored_in / role / upload[0])
        if upload is not None:
            _write_if_changed(stored_in / role / upload[0], upload[1])
    run_paths = tuple(str(stored_in / "runs" / str(position) / name) for position, (name, _) in enumerate(runs))
    for path, (_, data) in zip(run_paths, runs, strict=True):
        _write_if_changed(Path(path), data)
    return Upload(
        stored_in.name,
        qrels=str(stored["qrels"]),
        runs=run_paths,
        documents=stored["documents"],
        chunks=stored["chunks"],
        questions=stored["questions"],
    )
