"""The dashboard's data layer: every page gets its numbers here, from the library, cached by content.

Workspaces are keyed by their folder and a fingerprint of every file in it
(path, size, modification time), so an edited file is read again and an
unchanged one is not. Uploads are keyed by their bytes, never by the
UploadedFile object, and written to a folder named after their hash.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import pandas as pd
import streamlit as st
from pandas.io.formats.style import Styler

from contextgrid import ContextGridError
from contextgrid.analysis.questions import question_scores, ranked_list, shared_scores
from contextgrid.answering.batch import (
    ScoredAnswer,
    answers_frame,
    summarize_answers,
    worst_first,
)
from contextgrid.data.records import Chunk, EvalItem
from contextgrid.significance import ComparisonTable, compare_configurations
from contextgrid.workspace.answers import workspace_answers
from contextgrid.workspace.manifest import manifest_text
from contextgrid.workspace.model import MANIFEST, Workspace
from pages._loading import cached_workspace, fingerprint, results, workspace

UPLOADS = Path(tempfile.gettempdir()) / "contextgrid-uploads"

T = TypeVar("T")


def chosen_root(page: str) -> str:
    """The workspace folder the sidebar chose; without one, say so and stop the page.

    ``page`` is the calling page's ``__file__``. A link to a page that is the
    first request a fresh server gets is routed by Streamlit's own pages/
    folder, without app.py; such a run is sent through app.py, which then
    opens ``page`` with the link's choices.
    """
    if "root" not in st.session_state:
        st.session_state["_wanted_page"] = f"pages/{Path(page).name}"
        st.switch_page("app.py", query_params=st.query_params.to_dict())
    root = st.session_state.get("root")
    if not root:
        st.info("Choose a data source in the sidebar.")
        st.stop()
    return str(root)


@st.cache_data(max_entries=16, show_spinner=False)
def _grid(root: str, version: str) -> pd.DataFrame:
    return results(root, version).to_dataframe()


def grid(root: str) -> pd.DataFrame:
    """Every configuration's metric@k scores and parameters (``Workspace.evaluate().to_dataframe()``)."""
    return _grid(root, fingerprint(root))


_BEST = "font-weight: bold; background-color: #d9f0d3"


@st.cache_data(max_entries=16, show_spinner=False)
def _best_cells(root: str, version: str) -> pd.DataFrame:
    from contextgrid.analysis.grid import best_per_column, score_columns

    grid = _grid(root, version)
    best = best_per_column(grid)
    return pd.DataFrame(
        {label: [_BEST if config in best[label] else "" for config in grid.index] for label in score_columns(grid)},
        index=grid.index,
    )


def grid_styler(root: str) -> Styler:
    """The score columns of :func:`grid`, four decimals, the best of each column (ties too) in bold on green."""
    version = fingerprint(root)
    marked = _best_cells(root, version)
    scores = _grid(root, version)[list(marked.columns)]
    # One CSS frame for the whole table: Styler.highlight_max styles column by column, 30 times slower.
    return scores.style.format("{:.4f}").apply(lambda _: marked, axis=None)


def prepare(root: str) -> None:
    """Everything a first visit to the Overview computes for ``root`` (its scores and its grid), into the
    caches that visit reads. The server calls it as it starts, before anyone asks."""
    grid_styler(root)


@st.cache_data(max_entries=64, show_spinner=False)
def _per_query(root: str, version: str, metric: str, k: int) -> pd.DataFrame:
    return cached_workspace(root, version).per_query(metric, k)


def per_query(root: str, metric: str, k: int) -> pd.DataFrame:
    """``metric@k`` per question (rows) and configuration (columns)."""
    return _per_query(root, fingerprint(root), metric, k)


@st.cache_data(max_entries=64, show_spinner=False)
def _question_table(root: str, version: str, config: str, k: int) -> pd.DataFrame:
    ws = cached_workspace(root, version)
    return question_scores(ws.qrels(config), ws.run(config), k)


def question_table(root: str, config: str, k: int) -> pd.DataFrame:
    """Every metric at ``k`` per question of ``config``, worst first."""
    return _question_table(root, fingerprint(root), config, k)


def _chunks_by_id(ws: Workspace, config: str) -> dict[str, Chunk] | None:
    if ws.config(config).chunks is None:
        return None
    return {chunk.id: chunk for chunk in ws.chunks(config)}


@st.cache_data(max_entries=64, show_spinner=False)
def _ranking(root: str, version: str, config: str, question: str, depth: int) -> pd.DataFrame:
    ws = cached_workspace(root, version)
    qrels = ws.qrels(config)
    run = ws.run(config)
    judgements = qrels.get(question, {})
    ranked = run.get(question, ())
    return ranked_list(judgements, ranked, chunks=_chunks_by_id(ws, config), depth=depth)


def ranking(root: str, config: str, question: str, depth: int) -> pd.DataFrame:
    """What ``config`` returned for ``question``: rank, chunk, grade, relevance, text."""
    return _ranking(root, fingerprint(root), config, question, depth)


def item(root: str, question: str) -> EvalItem | None:
    """The question record, when the workspace has questions: its gold evidence found
    in the documents when the workspace has those too."""
    ws = workspace(root)
    if ws.questions_path is None:
        return None
    items = ws.resolved[0] if ws.documents_path is not None else ws.questions
    return next((entry for entry in items if entry.id == question), None)


def documents(root: str) -> dict[str, str] | None:
    """The workspace's documents, when it has them."""
    ws = workspace(root)
    return None if ws.documents_path is None else dict(ws.documents)


@st.cache_resource(max_entries=16, show_spinner=False)
def _comparison(
    root: str, version: str, metric: str, k: int, configs: tuple[str, ...], baseline: str, test: str, correction: str
) -> ComparisonTable:
    scores = shared_scores(_per_query(root, version, metric, k), configs)
    return compare_configurations(
        scores, baseline=baseline, metric=f"{metric}@{k}", test=test, correction=correction, seed=0
    )


def comparison(
    root: str, metric: str, k: int, configs: Sequence[str], baseline: str, test: str, correction: str
) -> ComparisonTable:
    """Each of ``configs`` against ``baseline`` on ``metric@k``, on the questions all of them score."""
    return _comparison(root, fingerprint(root), metric, k, tuple(configs), baseline, test, correction)


def _write_if_changed(path: Path, data: bytes) -> None:
    # Rewriting identical bytes would move the modification time and defeat the cache.
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)


def uploaded_workspace(
    qrels: tuple[str, bytes],
    runs: tuple[tuple[str, bytes], ...],
    *,
    chunks: tuple[str, bytes] | None = None,
    documents: tuple[str, bytes] | None = None,
    questions: tuple[str, bytes] | None = None,
) -> str:
    """Write uploaded files into a workspace folder named after their content; return its path.

    Each run becomes a configuration named after its file; an uploaded chunks
    file is the chunking of every run.
    """
    shared = {"qrels": qrels, "documents": documents, "questions": questions}
    digest = hashlib.sha256()
    for name, data in (*runs, *(upload for upload in (*shared.values(), chunks) if upload is not None)):
        digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    root = UPLOADS / digest.hexdigest()[:16]
    (root / "runs").mkdir(parents=True, exist_ok=True)
    names = {}
    for key, upload in shared.items():
        if upload is not None:
            _write_if_changed(root / Path(upload[0]).name, upload[1])
            names[key] = Path(upload[0]).name
    if chunks is not None:
        _write_if_changed(root / Path(chunks[0]).name, chunks[1])
    configs: list[dict[str, object]] = []
    for name, data in runs:
        file_name = Path(name).name
        _write_if_changed(root / "runs" / file_name, data)
        config = file_name.split(".")[0] or "run"
        while config in {entry["name"] for entry in configs}:
            config += "'"
        entry: dict[str, object] = {"name": config, "run": f"runs/{file_name}"}
        if chunks is not None:
            entry["chunks"] = Path(chunks[0]).name
        configs.append(entry)
    _write_if_changed(root / MANIFEST, manifest_text("uploaded", configs, **names).encode())
    return str(root)


def guard(action: Callable[[], T], *, root: str | None = None) -> T:
    """Run ``action``; on bad input show the error as a message and stop this page, never a traceback.

    Paths inside an upload folder are shown as the names the user uploaded.
    """
    try:
        return action()
    except ContextGridError as error:
        message = str(error)
        if root is not None and root.startswith(str(UPLOADS)):
            message = message.replace(root + "/runs/", "").replace(root + "/", "")
        st.error(message, icon=":material/error:")
        st.stop()


@st.cache_resource(max_entries=32, show_spinner=False)
def _scored_answers(root: str, version: str, config: str) -> tuple[ScoredAnswer, ...]:
    return workspace_answers(cached_workspace(root, version), config)


def answer_configs(root: str) -> list[str]:
    """The configurations of the workspace that have answers, in manifest order."""
    return [config.name for config in workspace(root).configs if config.answers is not None]


@st.cache_data(max_entries=16, show_spinner=False)
def _answer_summary(root: str, version: str, configs: tuple[str, ...]) -> pd.DataFrame:
    return summarize_answers({name: answers_frame(_scored_answers(root, version, name)) for name in configs})


def answer_summary(root: str) -> pd.DataFrame:
    """Per configuration with answers: means of groundedness, citation accuracy, evidence overlap; abstentions."""
    return _answer_summary(root, fingerprint(root), tuple(answer_configs(root)))


@st.cache_data(max_entries=32, show_spinner=False)
def _answer_table(root: str, version: str, config: str) -> pd.DataFrame:
    return worst_first(answers_frame(_scored_answers(root, version, config)))


def answer_table(root: str, config: str) -> pd.DataFrame:
    """Every answer of ``config`` with its scores, worst first."""
    return _answer_table(root, fingerprint(root), config)


def scored_answer(root: str, config: str, question: str) -> ScoredAnswer:
    """One answer of ``config`` with its question, rebuilt context and gold chunks."""
    scored = _scored_answers(root, fingerprint(root), config)
    return next(entry for entry in scored if entry.record.question_id == question)


# Context waste (pages/waste.py): tables from contextgrid.evidence.waste, cached per version of the workspace's files.


def waste_missing(root: str) -> tuple[str, ...]:
    """What the workspace lacks for the waste views (documents, questions, chunks); empty if nothing."""
    from contextgrid.workspace.waste import missing_for_waste

    return missing_for_waste(workspace(root))


@st.cache_data(max_entries=16, show_spinner="Measuring context waste…")
def _waste_table(root: str, version: str, k: int) -> pd.DataFrame:
    from contextgrid.workspace.waste import workspace_waste

    return workspace_waste(cached_workspace(root, version), k)


def waste_table(root: str, k: int) -> pd.DataFrame:
    """``workspace_waste``: every configuration's per-question waste at ``k``, index (config, question)."""
    return _waste_table(root, fingerprint(root), k)


@st.cache_data(max_entries=16, show_spinner=False)
def _waste_summary(root: str, version: str, k: int) -> pd.DataFrame:
    from contextgrid.workspace.waste import configuration_waste

    return configuration_waste(cached_workspace(root, version), k, table=_waste_table(root, version, k))


def waste_summary(root: str, k: int) -> pd.DataFrame:
    """``configuration_waste``: recall@k beside the character-level means, one row per configuration."""
    return _waste_summary(root, fingerprint(root), k)


@st.cache_data(max_entries=32, show_spinner=False)
def _retrieved(root: str, version: str, config: str, k: int) -> pd.DataFrame:
    from contextgrid.evidence.waste import retrieved_table

    ws = cached_workspace(root, version)
    items, _ = ws.resolved
    return retrieved_table(items, ws.run(config), ws.chunks(config), k)


def retrieved(root: str, config: str, k: int) -> pd.DataFrame:
    """``retrieved_table`` of ``config``: every resolved question's top ``k`` with the gold each chunk holds."""
    return _retrieved(root, fingerprint(root), config, k)


def resolved_items(root: str) -> dict[str, EvalItem]:
    """The questions whose gold evidence was found in the documents, by id."""
    items, _ = workspace(root).resolved
    return {entry.id: entry for entry in items if entry.is_resolved}


def top_chunks(root: str, config: str, question: str, k: int) -> list[Chunk]:
    """The chunks ``config`` returned for ``question``, best first, at most ``k``."""
    ws = workspace(root)
    by_id = _chunks_by_id(ws, config) or {}
    ranked = ws.run(config).get(question, ())[:k]
    missing = [chunk for chunk in ranked if chunk not in by_id]
    if missing:
        raise ContextGridError(
            f"the run of {config!r} returns {missing[0]!r} for question {question!r}, which is not in its chunks file"
        )
    return [by_id[chunk] for chunk in ranked]
