"""contextgrid's dashboard: `streamlit run app.py [-- --workspace DIR] [--allow-folders DIR ...]
[--max-session-mb MB] [--max-expanded-mb MB] [--max-ratio N]`.

Run as Streamlit's script, it lays out the data source in the sidebar and
routes to the pages in pages/; the pages read the chosen source from the
session. Imported, as `streamlit run` first does to find ``app`` below, it is
the server: as it starts, a thread scores the default workspace, while the
browser is still loading Streamlit's front end. The server's import of this
file stays light (the pages' modules, pandas among them, are imported by the
functions that use them), so that it answers as soon as it can.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import streamlit as st

if TYPE_CHECKING:
    from pages._loading import Source
    from pages._uploads import Upload

# Arrow's memory from the C allocator, not its own pool: what a closed session frees then goes back to the system
# as its uploads are reaped (pages._uploads.release_memory); the default pool kept it, and a server shared by a team
# stayed at its highest (2.4 times its start after three upload sessions had gone, 1.5 with this). Set before
# pyarrow is first imported; an operator's own setting wins.
os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")

SOURCES = {
    "sample": "The server's workspace",
    "folder": "Workspace folder",
    "upload": "Upload files",
}


def _offered() -> list[str]:
    """The sources a visitor may choose: a folder only where the server was started with folders to allow."""
    from pages import _server

    return [source for source in SOURCES if source != "folder" or _server.settings().allowed]


def _folder_source() -> str | None:
    """The workspace folder the visitor typed, if the server may open it; else say why in the sidebar."""
    from contextgrid import ContextGridError
    from contextgrid.render.markup import escape_markdown as md
    from pages import _server, _state

    allowed = _server.settings().allowed
    st.session_state.setdefault("_widget_workspace", str(st.session_state.get("workspace", "")))
    path = st.text_input(
        "Workspace folder (holds contextgrid.toml)",
        key="_widget_workspace",
        help=f"Under {', '.join(allowed)}: the folders this server may open.",
    )
    _state.remember("workspace", path)
    if not path:
        return None
    try:
        return _server.open_folder(path)
    except ContextGridError as error:
        st.error(md(str(error)), icon=":material/block:")
        return None


def _uploaded_source() -> Upload | None:
    """The uploaded files, stored in this session's own folder; a refused name is said in the sidebar."""
    from contextgrid import ContextGridError
    from contextgrid.render.markup import escape_markdown as md
    from pages import _data, _server, _state, _uploads

    limit, server = st.get_option("server.maxUploadSize"), _server.settings()
    expands = "" if server.max_ratio is None else f", a gzip file expanding at most {server.max_ratio} times"
    st.caption(
        f"Each file up to {limit} MB and up to {server.expanded_mb} MB once decompressed{expands}; "
        f"{server.session_mb} MB in all, as uploaded and once decompressed. Uploads stay with this session and are "
        "deleted when it ends."
    )
    qrels = st.file_uploader("Qrels", key="upload_qrels")
    runs = st.file_uploader("Runs (one configuration each)", accept_multiple_files=True, key="upload_runs")
    with st.expander("Optional: documents, chunks, questions"):
        extras = {
            "documents": st.file_uploader("Documents (JSON Lines: doc_id, text)", key="upload_documents"),
            "chunks": st.file_uploader("Chunks of the runs (JSON Lines)", key="upload_chunks"),
            "questions": st.file_uploader("Questions (JSON Lines)", key="upload_questions"),
        }
    if qrels is None or not runs:
        st.info("Upload one qrels file and at least one run.")
        return None
    folder = st.session_state.get("_upload_folder")
    if folder is None:
        folder = st.session_state["_upload_folder"] = _uploads.SessionFolder(_uploads.current_session())
    try:
        return _uploads.uploaded_source(
            (qrels.name, qrels.getvalue()),
            tuple((run.name, run.getvalue()) for run in _state.newest_by_name(runs, lambda run: run.name)),
            folder=folder,
            max_total_bytes=server.session_mb << 20,
            **{key: (upload.name, upload.getvalue()) for key, upload in extras.items() if upload is not None},
        )
    except ContextGridError as error:
        st.error(md(_data.for_visitors(str(error))), icon=":material/error:")
        return None


def _chosen_source() -> Source | None:
    """What the pages read, from the sidebar's choice: the server's workspace, a folder, or uploaded files."""
    from pages import _server, _state

    with st.sidebar:
        st.header("Data")
        source = _state.choose("Source", _offered(), "source", container=st.sidebar, format_func=SOURCES.__getitem__)
        if source == "sample":
            return _server.settings().workspace
        if source == "folder":
            return _folder_source()
        return _uploaded_source()


# The tab's icon, drawn here (Streamlit sends it as a data: URL): a :material/...: page icon is fetched by every
# visitor's browser from fonts.gstatic.com, and nothing of the dashboard leaves the machine. A 3x3 grid.
FAVICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#4a4a4a" d="M3 3h5v5H3zm6.5 0h5v5h-5z'
    'M16 3h5v5h-5zM3 9.5h5v5H3zm6.5 0h5v5h-5zM16 9.5h5v5h-5zM3 16h5v5H3zm6.5 0h5v5h-5zM16 16h5v5h-5z"/></svg>'
)


def _dashboard() -> None:
    from pages import FIRST_IMPORTS

    with FIRST_IMPORTS:
        from pages import _state

    st.set_page_config(page_title="contextgrid", page_icon=FAVICON, layout="wide")
    _state.restore_from_url()
    navigation = st.navigation(
        [
            st.Page("pages/overview.py", title="Overview", icon=":material/grid_on:", default=True),
            st.Page("pages/questions.py", title="Questions", icon=":material/quiz:"),
            st.Page("pages/compare.py", title="Compare", icon=":material/compare_arrows:"),
            st.Page("pages/waste.py", title="Context waste", icon=":material/texture:"),
            st.Page("pages/answers.py", title="Answers", icon=":material/chat:"),
        ]
    )
    wanted = st.session_state.pop("_wanted_page", None)
    if wanted is not None:
        st.switch_page(wanted, query_params=st.query_params.to_dict())
    st.session_state["root"] = _chosen_source()
    navigation.run()


PREPARING = "contextgrid-prepare"
"""The name of the thread that scores the default workspace as the server starts."""


def _not_while_preparing(record: logging.LogRecord) -> bool:
    """Drop Streamlit's warning that a cached function runs outside a visit when the preparing thread gives it:
    that thread does so on purpose, and the warning would be the first thing a new user reads in the terminal."""
    return record.threadName != PREPARING


def _prepare_default(loop: asyncio.AbstractEventLoop) -> None:
    """Score the default workspace and lay out its grid, as a first visit to the Overview would, after telling the
    uploads which loop the server runs on (where sessions whose uploads are reaped are closed).

    A workspace that cannot be read is only mentioned here: the page says what is wrong when it is opened.
    """
    from pages import FIRST_IMPORTS

    with FIRST_IMPORTS:
        from contextgrid import ContextGridError
        from pages import _data, _server
        from pages._uploads import serve_on

    serve_on(loop)
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(_not_while_preparing)

    started = time.perf_counter()
    root = _server.settings().workspace
    try:
        with _server.kept_for_the_server():
            _data.prepare(root)
    except ContextGridError as error:
        print(f"  contextgrid: could not score {root}: {error}", flush=True)
        return
    print(f"  contextgrid: scored {root} in {time.perf_counter() - started:.1f} s", flush=True)


@asynccontextmanager
async def _lifespan(_: object) -> AsyncIterator[None]:
    # Scoring on a thread, so that the server answers at once; the first visit finds the work done or under way.
    # When the server stops, the uploads go with it.
    loop = asyncio.get_running_loop()
    threading.Thread(target=_prepare_default, args=(loop,), name=PREPARING, daemon=True).start()
    yield
    from pages._uploads import remove_uploads

    remove_uploads()


if __name__ == "__main__":
    _dashboard()
else:
    app = st.App(__file__, lifespan=_lifespan)
