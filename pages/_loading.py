"""Data sources — a workspace folder, or uploaded files — loaded once per version of their content, and
scored on a thread of their own.

Scoring every configuration is the one slow step of a first visit. On its own
thread it goes on when the user leaves the page before it ends (a cached
function would be stopped with the page's run and start again), and a page can
ask whether it is done and show something else meanwhile.
"""

from __future__ import annotations

import hashlib
import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from contextgrid.workspace.builder import workspace_from_files
from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.model import Workspace
from contextgrid.workspace.results import WorkspaceResults

UPLOADS = Path(tempfile.gettempdir()) / "contextgrid-uploads"
"""Where uploaded files are kept, each upload in a folder named after its content: the readers take paths."""


@dataclass(frozen=True, slots=True)
class Upload:
    """Uploaded files as stored under :data:`UPLOADS`: what :func:`workspace_from_files` builds the workspace from.

    ``digest`` hashes every file's name and bytes, so it is the upload's content version; the paths hold the
    names the files were uploaded as.
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


Source = str | Upload
"""What the pages read: a workspace folder (holding a ``contextgrid.toml``), or uploaded files."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A source at one version of its content; what the data layer's cached computations are given."""

    source: Source
    version: str

    @property
    def workspace(self) -> Workspace:
        """The source's workspace at this version, loaded once."""
        return cached_workspace(self.source, self.version)

    @property
    def results(self) -> WorkspaceResults:
        """Every configuration scored, once (see :func:`results`)."""
        return results(self.source, self.version)


def fingerprint(root: str) -> str:
    """A digest of every file under ``root``: its relative path, size and modification time."""
    digest = hashlib.sha256()
    base = Path(root)
    for path in sorted(base.rglob("*")):
        if path.is_file():
            stat = path.stat()
            digest.update(f"{path.relative_to(base)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def version(source: Source) -> str:
    """The version of ``source``'s content: a folder's :func:`fingerprint`; an upload's digest (its bytes,
    stored under a folder named after them, never change)."""
    return source.digest if isinstance(source, Upload) else fingerprint(source)


def snapshot(source: Source) -> Snapshot:
    """``source`` at the version of its content now."""
    return Snapshot(source, version(source))


@st.cache_resource(max_entries=4, show_spinner=False)
def cached_workspace(source: Source, version: str) -> Workspace:
    """The workspace of ``source`` at ``version`` (see :func:`version`), loaded once."""
    if isinstance(source, Upload):
        return workspace_from_files(
            "uploaded",
            qrels=source.qrels,
            runs=source.runs,
            documents=source.documents,
            chunks=source.chunks,
            questions=source.questions,
        )
    return load_workspace(source)


def workspace(source: Source) -> Workspace:
    """The workspace of ``source``, loaded once per version of its content."""
    return snapshot(source).workspace


@st.cache_resource(max_entries=4, show_spinner=False)
def scoring(source: Source, version: str) -> Future[WorkspaceResults]:
    """Every configuration of ``source`` at ``version`` scored (``Workspace.evaluate()``) on a thread of its own,
    started once; the caller waits on the result, which re-raises the library's error if there was one."""
    ws = cached_workspace(source, version)
    pool = ThreadPoolExecutor(1, thread_name_prefix="contextgrid-scoring")
    try:
        return pool.submit(ws.evaluate)
    finally:
        pool.shutdown(wait=False)


def results(source: Source, version: str) -> WorkspaceResults:
    """The scores of :func:`scoring`, once it ends. A failure is raised and forgotten, so that the next
    visit tries again (as a cached function that raised would), rather than showing it until a file changes."""
    future = scoring(source, version)
    try:
        return future.result()
    except Exception:
        scoring.clear(source, version)
        raise


def scored(source: Source) -> bool:
    """Whether every configuration of ``source`` is scored (or failed to be), starting the scoring if need be."""
    return scoring(source, version(source)).done()
