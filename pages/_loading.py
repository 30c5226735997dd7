"""Data sources — a workspace folder, or uploaded files — loaded once per version of their content, and
scored on a thread of their own.

Scoring every configuration is the one slow step of a first visit. On its own
thread it goes on when the user leaves the page before it ends (a cached
function would be stopped with the page's run and start again), and a page can
ask whether it is done and show something else meanwhile.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from contextgrid.core.errors import ContextGridError
from contextgrid.workspace.builder import workspace_from_files
from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.model import MANIFEST, Workspace
from contextgrid.workspace.results import WorkspaceResults
from pages._server import confinement, settings
from pages._uploads import Upload, on_forget

Source = str | Upload
"""What the pages read: a workspace folder (holding a ``contextgrid.toml``), or uploaded files."""


@dataclass(frozen=True, slots=True)
class Scored:
    """A workspace's configurations that could be read, scored; and the error of each that could not."""

    workspace: Workspace
    unreadable: Mapping[str, ContextGridError]
    results: WorkspaceResults


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A source at one version of its content; what the data layer's cached computations are given."""

    source: Source
    version: str

    @property
    def workspace(self) -> Workspace:
        """The source's workspace at this version without the configurations that cannot be read (see
        :func:`results`)."""
        return results(self.source, self.version).workspace

    @property
    def results(self) -> WorkspaceResults:
        """Every readable configuration scored, once (see :func:`results`)."""
        return results(self.source, self.version).results

    @property
    def unreadable(self) -> Mapping[str, ContextGridError]:
        """The configurations that could not be read, with their errors."""
        return results(self.source, self.version).unreadable


def fingerprint(root: str) -> str:
    """A digest of every file under ``root``: its relative path, size and modification time. A folder without a
    manifest is not walked (it is refused as no workspace; an allowed folder may hold 200,000 files, 3 to 4 s of
    walking on every page run): its version is the manifest's absence."""
    digest = hashlib.sha256()
    base = Path(root)
    if not (base / MANIFEST).is_file():
        return "no-manifest"
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
    """The workspace of ``source`` at ``version`` (see :func:`version`) as its manifest declares it, loaded once.

    A folder other than the server's own is opened only if the server may open it, and its manifest may name
    files only inside it and the allowed folders (:func:`~pages._server.confinement`). Every file is read within
    the server's ``--max-expanded-mb`` and ``--max-ratio``: one past them is its configuration's error, and the rest
    are shown."""
    server = settings()
    if isinstance(source, Upload):
        return workspace_from_files(
            "uploaded",
            qrels=source.qrels,
            runs=source.runs,
            documents=source.documents,
            chunks=source.chunks,
            questions=source.questions,
            max_bytes=server.max_bytes,
            max_ratio=server.max_ratio,
        )
    return load_workspace(source, within=confinement(source), max_bytes=server.max_bytes, max_ratio=server.max_ratio)


def at_version(source: Source | Snapshot) -> Snapshot:
    """``source`` at the version of its content now, or the snapshot given: a page fingerprints a folder once."""
    return source if isinstance(source, Snapshot) else snapshot(source)


def declared(source: Source | Snapshot) -> Workspace:
    """The workspace of ``source`` as declared, before any file is read: every configuration, readable or not."""
    at = at_version(source)
    return cached_workspace(at.source, at.version)


def workspace(source: Source) -> Workspace:
    """The readable part of ``source``'s workspace, once it is scored (see :func:`results`)."""
    return snapshot(source).workspace


@st.cache_resource(max_entries=4, show_spinner=False)
def scoring(source: Source, version: str) -> Future[Scored]:
    """Every configuration of ``source`` at ``version`` read (``Workspace.readable()``) and those that could be
    scored (``evaluate()``) on a thread of its own, started once; the caller waits on the result, which re-raises
    the library's error if no configuration could be read."""
    ws = cached_workspace(source, version)

    def score() -> Scored:
        part, unreadable = ws.readable()
        return Scored(part, unreadable, part.evaluate())

    pool = ThreadPoolExecutor(1, thread_name_prefix="contextgrid-scoring")
    try:
        return pool.submit(score)
    finally:
        pool.shutdown(wait=False)


def _forget(upload: Upload) -> None:
    """Drop what ``upload`` left in this module's caches: its workspace and its scores, the most memory a
    session holds (called as its session folder is removed)."""
    cached_workspace.clear(upload, upload.digest)
    scoring.clear(upload, upload.digest)


on_forget(_forget)


def results(source: Source, version: str) -> Scored:
    """The scores of :func:`scoring`, once it ends. A failure is raised and forgotten, so that the next
    visit tries again (as a cached function that raised would), rather than showing it until a file changes."""
    future = scoring(source, version)
    try:
        return future.result()
    except Exception:
        scoring.clear(source, version)
        raise


def scored(source: Source | Snapshot) -> bool:
    """Whether every configuration of ``source`` is scored (or failed to be), starting the scoring if need be."""
    at = at_version(source)
    return scoring(at.source, at.version).done()
