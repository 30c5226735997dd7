"""contextgrid's dashboard: `streamlit run app.py [-- --workspace DIR]`.

The entry point lays out the data source in the sidebar and routes to the
pages in pages/; the pages read the chosen source from the session.
"""

from __future__ import annotations

import argparse
import sys

import streamlit as st

from pages import _data, _loading, _state

PAGES = [
    st.Page("pages/overview.py", title="Overview", icon=":material/grid_on:", default=True),
    st.Page("pages/questions.py", title="Questions", icon=":material/quiz:"),
    st.Page("pages/compare.py", title="Compare", icon=":material/compare_arrows:"),
    st.Page("pages/waste.py", title="Context waste", icon=":material/texture:"),
    st.Page("pages/answers.py", title="Answers", icon=":material/chat:"),
]

SOURCES = {
    "sample": "Bundled sample workspace",
    "folder": "Workspace folder",
    "upload": "Upload files",
}


def _default_workspace() -> str:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--workspace", default=str(_loading.SAMPLE))
    known, _ = parser.parse_known_args(sys.argv[1:])
    return str(known.workspace)


def _source_root() -> str | None:
    """The workspace folder the pages read, from the sidebar's choice of source."""
    with st.sidebar:
        st.header("Data")
        source = _state.choose("Source", list(SOURCES), "source", container=st.sidebar, format_func=SOURCES.__getitem__)
        if source == "sample":
            return _default_workspace()
        if source == "folder":
            st.session_state.setdefault("_widget_workspace", str(st.session_state.get("workspace", "")))
            path = st.text_input("Workspace folder (holds contextgrid.toml)", key="_widget_workspace")
            _state.remember("workspace", path)
            return path or None
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
        return _data.uploaded_workspace(
            (qrels.name, qrels.getvalue()),
            tuple((run.name, run.getvalue()) for run in runs),
            **{key: (upload.name, upload.getvalue()) for key, upload in extras.items() if upload is not None},
        )


st.set_page_config(page_title="contextgrid", page_icon=":material/grid_on:", layout="wide")
_state.restore_from_url()
navigation = st.navigation(PAGES)
wanted = st.session_state.pop("_wanted_page", None)
if wanted is not None:
    st.switch_page(wanted, query_params=st.query_params.to_dict())
st.session_state["root"] = _source_root()
navigation.run()
