"""Workspaces, loaded once per version of their files, and scored on a thread of their own.

Scoring every configuration is the one slow step of a first visit. On its own
thread it goes on when the user leaves the page before it ends (a cached
function would be stopped with the page's run and start again), and a page can
ask whether it is done and show something else meanwhile.
"""

from __future__ import annotations

import hashlib
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import streamlit as st

from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.model import Workspace
from contextgrid.workspace.results import WorkspaceResults

SAMPLE = Path(__file__).resolve().parent.parent / "sample_data" / "workspace"


def fingerprint(root: str) -> str:
    """A digest of every file under ``root``: its relative path, size and modification time."""
    digest = hashlib.sha256()
    base = Path(root)
    for path in sorted(base.rglob("*")):
        if path.is_file():
            stat = path.stat()
            digest.update(f"{path.relative_to(base)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


@st.cache_resource(max_entries=4, show_spinner=False)
def cached_workspace(root: str, version: str) -> Workspace:
    """The workspace in ``root`` at ``version`` (a :func:`fingerprint`), loaded once."""
    return load_workspace(root)


def workspace(root: str) -> Workspace:
    """The workspace in ``root``, loaded once per version of its files."""
    return cached_workspace(root, fingerprint(root))


@st.cache_resource(max_entries=4, show_spinner=False)
def scoring(root: str, version: str) -> Future[WorkspaceResults]:
    """Every configuration of ``root`` at ``version`` scored (``Workspace.evaluate()``) on a thread of its own,
    started once; the caller waits on the result, which re-raises the library's error if there was one."""
    ws = cached_workspace(root, version)
    pool = ThreadPoolExecutor(1, thread_name_prefix="contextgrid-scoring")
    try:
        return pool.submit(ws.evaluate)
    finally:
        pool.shutdown(wait=False)


def results(root: str, version: str) -> WorkspaceResults:
    """The scores of :func:`scoring`, once it ends. A failure is raised and forgotten, so that the next
    visit tries again (as a cached function that raised would), rather than showing it until a file changes."""
    future = scoring(root, version)
    try:
        return future.result()
    except Exception:
        scoring.clear(root, version)
        raise


def scored(root: str) -> bool:
    """Whether every configuration of ``root`` is scored (or failed to be), starting the scoring if need be."""
    return scoring(root, fingerprint(root)).done()
