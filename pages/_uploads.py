"""Uploaded files, kept where only the session that uploaded them finds them, until it ends.

The readers take paths, so uploads are written to disk: each session gets a
private folder (mode 0700) with an unguessable name under :func:`uploads_root`,
removed once its session has been gone for a minute and a half (a closed
tab's time to reconnect, Streamlit's ``server.disconnectedSessionTTL``,
less 30 s; a thread looks every 15 s, :func:`reap`) or when the server
stops, with the session itself and what its uploads left in the caches. Inside it, a set
of uploads lives in a folder named after its content, so the same files are
the same source; an uploaded file is only ever read as data (a run, qrels,
chunks …), never as a manifest.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import functools
import gzip
import hashlib
import io
import shutil
import tempfile
import threading
import time
import weakref
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from contextgrid.core.errors import ContextGridError
from contextgrid.io.files import size_text
from contextgrid.io.parquet import ROW_BYTES, decoded_size

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
    """A private folder with an unguessable name, removed when its session ends (:func:`reap`), when this object
    is collected or when the server exits; ``session`` is the Streamlit session it belongs to, if any."""

    def __init__(self, session: str | None = None) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="session-", dir=uploads_root()))
        self.session = session
        self.uploads: list[Upload] = []
        self.last_active = time.monotonic()
        self._removal = weakref.finalize(self, shutil.rmtree, self.path, ignore_errors=True)
        if session is not None:
            with _LOCK:
                _OWNED[session] = self
            if _serving():
                _start_reaper()

    def remove(self) -> None:
        """Remove the folder now, and forget what its uploads left in the server's caches."""
        self._removal()
        uploads, self.uploads = self.uploads, []
        for upload in uploads:
            for forget in _FORGETTERS:
                forget(upload)
        release_memory()


REAP_EVERY = 15.0
"""How often, in seconds, the server looks for sessions that have ended, to remove their uploads."""

_OWNED: dict[str, SessionFolder] = {}
"""The upload folder of each session that has one, by Streamlit session id."""

_LOCK = threading.Lock()

_FORGETTERS: list[Callable[[Upload], None]] = []
"""What drops an upload's entries from the server's caches: registered by the layer that caches them
(:mod:`pages._loading`), so that this one need not import it."""


def on_forget(forget: Callable[[Upload], None]) -> None:
    """Have ``forget(upload)`` called for each upload of a session folder as it is removed."""
    _FORGETTERS.append(forget)


def current_session() -> str | None:
    """The id of the Streamlit session this script run serves, if it runs in one."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    context = get_script_run_ctx(suppress_warning=True)
    return None if context is None else context.session_id


def _serving() -> bool:
    """Whether a Streamlit server runs in this process (not a script or a test, where sessions are simulated)."""
    from streamlit.runtime import Runtime

    return bool(Runtime.exists())


def session_exists(session: str) -> bool:
    """Whether session ``session`` is connected to this server now. Without a running server (a script, a test),
    no session exists."""
    from streamlit.runtime import Runtime

    return _serving() and Runtime.instance().get_app_session(session) is not None


def grace() -> float:
    """How long, in seconds, a session's uploads outlive its last connection: the time Streamlit gives a closed
    tab to reconnect (``server.disconnectedSessionTTL``, 2 minutes by default) less two of :data:`REAP_EVERY`, so
    that the session is ended while Streamlit still holds it (90 s by default)."""
    import streamlit as st

    return max(0.0, float(st.get_option("server.disconnectedSessionTTL")) - 2 * REAP_EVERY)


_LOOP: list[asyncio.AbstractEventLoop] = []
"""The server's event loop, once it serves (:func:`serve_on`): where a session is closed."""


def serve_on(loop: asyncio.AbstractEventLoop) -> None:
    """Record the event loop the server runs on (called from the server's lifespan, on that loop), and have the C
    allocator give large freed blocks back to the system (:func:`_allocate_for_sessions`)."""
    _LOOP[:] = [loop]
    _allocate_for_sessions()


M_MMAP_THRESHOLD, M_ARENA_MAX = -3, -8
"""glibc's ``mallopt`` parameters (malloc.h)."""


def _allocate_for_sessions() -> None:
    """Have glibc's allocator serve blocks of 4 MiB and more (a session's arrays, its uploaded bytes) from memory
    mapped apart, unmapped as soon as they are freed, and keep two arenas at most. By default the threshold rises
    with each large block freed, and each thread may get an arena of its own: a server's freed frames then stayed
    in the heap, among smaller live blocks that malloc_trim cannot release around. Elsewhere than glibc: nothing."""
    import ctypes

    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):  # not glibc: its allocator returns memory its own way
        return
    mallopt(M_MMAP_THRESHOLD, 4 << 20)
    mallopt(M_ARENA_MAX, 2)


def _close_session(session: str) -> None:
    """End Streamlit's session ``session`` for good, on the server's loop, and wait for it.

    Streamlit keeps a closed tab's session to let it reconnect, then forgets it without shutting it down: its
    state, the files its uploaders hold and its media stay in memory. Closing it frees them, and its state is
    emptied: Streamlit's own loop (``Runtime._loop_coroutine``) keeps the last session it sent messages to in a
    variable until another session connects, so the last of the sessions to close stayed in memory with its state,
    its uploaders' bytes among them (24 MiB of a 26 MB run in bench_limits).
    """
    from streamlit.runtime import Runtime

    if not _LOOP or not _serving():
        return

    async def close() -> None:
        runtime = Runtime.instance()
        held = runtime._session_mgr.get_session_info(session)
        runtime.close_session(session)
        if held is not None:
            held.session.session_state.clear()

    # A loop that has stopped, or does not answer: the server is stopping, and its uploads go with it.
    with contextlib.suppress(RuntimeError, TimeoutError, concurrent.futures.TimeoutError):
        asyncio.run_coroutine_threadsafe(close(), _LOOP[0]).result(timeout=30)


def reap(
    exists: Callable[[str], bool] = session_exists,
    *,
    after: float | None = None,
    now: Callable[[], float] = time.monotonic,
) -> list[Path]:
    """Remove the upload folders of the sessions that ended: not connected (``exists`` says which are) for more
    than ``after`` seconds (default :func:`grace`). With each go what its uploads left in the caches and what
    Streamlit still holds of the session's uploaded files; the folders removed.

    Streamlit forgets a closed tab's session once its time to reconnect has passed, without shutting it down:
    the session is closed here (:func:`_close_session`), and the bytes its uploaders hold released.
    """
    waited = grace() if after is None else after
    with _LOCK:
        ended = []
        for session, folder in _OWNED.items():
            if exists(session):
                folder.last_active = now()
            elif now() - folder.last_active > waited:
                ended.append((session, folder))
        for session, _ in ended:
            del _OWNED[session]
    for session, folder in ended:
        _close_session(session)
        _drop_uploaded_files(session)
        folder.remove()
    return [folder.path for _, folder in ended]


def _drop_uploaded_files(session: str) -> None:
    """Release the bytes Streamlit's file uploaders hold for ``session``, if a server runs."""
    from streamlit.runtime import Runtime

    if _serving():
        Runtime.instance().uploaded_file_mgr.remove_session_files(session)


@functools.cache
def _start_reaper() -> threading.Thread:
    """The thread that calls :func:`reap` every :data:`REAP_EVERY` seconds, started with the first session
    folder. (Streamlit has no hook for a session's end, and a folder left to be collected with its session lived
    on for up to 25 minutes.)"""

    def loop() -> None:
        # A closed session's threads and buffers are freed a little after it is closed: the next two rounds hand
        # that memory back too.
        pending = 0
        while True:
            time.sleep(REAP_EVERY)
            if reap():
                pending = 2
            elif pending:
                pending -= 1
                release_memory()

    thread = threading.Thread(target=loop, name="contextgrid-upload-reaper", daemon=True)
    thread.start()
    return thread


def release_memory() -> None:
    """Hand memory freed by a session back to the system: pyarrow's pool keeps freed buffers for reuse, and so
    does the C allocator, so that a server's memory would stay at its highest after every session has gone."""
    import gc

    import pyarrow as pa

    # A closed session's objects hold one another (its state, its widgets' uploaded bytes): only a full collection
    # frees them, and Python runs one rarely.
    gc.collect()
    pa.default_memory_pool().release_unused()
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: its allocator returns memory its own way
        pass


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


def content_bytes(name: str, data: bytes, *, stop_after: int) -> int:
    """What uploaded file ``name`` holds once read, counted up to a little past ``stop_after``: a gzip file
    decompressed (block by block, never whole), a Parquet file decoded as its reader counts it against
    ``max_bytes`` (:data:`~contextgrid.io.parquet.ROW_BYTES` a row, at least), any other its bytes.

    A file that cannot be decompressed or read as Parquet counts as its bytes: its reader refuses it.

    Examples
    --------
    >>> import gzip
    >>> content_bytes("run.trec.gz", gzip.compress(b"q1 Q0 c1 1 0.5 x\\n" * 1000), stop_after=1 << 30)
    17000
    """
    if name.lower().endswith(".gz"):
        read = 0
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as unpacked:
                while read <= stop_after and (block := unpacked.read(1 << 20)):
                    read += len(block)
        except (OSError, EOFError, zlib.error):
            return max(read, len(data))
        return read
    if name.lower().endswith(".parquet"):
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            metadata = pq.ParquetFile(pa.BufferReader(data)).metadata
        except (pa.ArrowInvalid, OSError):
            return len(data)
        return max(len(data), int(metadata.num_rows) * ROW_BYTES, decoded_size(metadata))
    return len(data)


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
    ``--max-session-mb``), as uploaded or once decompressed and decoded
    (:func:`content_bytes`), are refused before any is stored: the bound on
    what one session's files hold, whatever each file may hold.
    """
    single = {"qrels": qrels, "documents": documents, "chunks": chunks, "questions": questions}
    total = sum(len(upload[1]) for upload in (*runs, *single.values()) if upload is not None)
    if max_total_bytes is not None and total > max_total_bytes:
        raise ContextGridError(
            f"the uploaded files total {size_text(total)}, more than the {size_text(max_total_bytes)} a session may "
            "upload on this server (contextgrid app --max-session-mb); upload fewer or smaller files, or gzip them"
        )
    if max_total_bytes is not None:
        held = 0
        for upload in (*runs, *single.values()):
            if upload is not None:
                held += content_bytes(upload[0], upload[1], stop_after=max_total_bytes - held)
        if held > max_total_bytes:
            raise ContextGridError(
                f"the uploaded files hold more than the {size_text(max_total_bytes)} a session may hold on this server "
                "once decompressed (a Parquet file decoded, at least 64 bytes a row; contextgrid app "
                "--max-session-mb); upload fewer or smaller files"
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
    made = Upload(
        stored_in.name,
        qrels=str(stored["qrels"]),
        runs=run_paths,
        documents=stored["documents"],
        chunks=stored["chunks"],
        questions=stored["questions"],
    )
    # The earlier uploads' files are gone: their cache entries go too.
    replaced = [kept for kept in folder.uploads if kept != made]
    folder.uploads = [made]
    for kept in replaced:
        for forget in _FORGETTERS:
            forget(kept)
    return made
