"""The dashboard's data layer: every page gets its numbers here, from the library, cached by content.

Each computation is cached with :func:`cached`, by its source and the version
of the source's content: a workspace folder's version is a fingerprint of
every file in it (path, size, modification time), so an edited file is read
again and an unchanged one is not; uploaded files are keyed by their bytes,
never by the UploadedFile objects (:mod:`pages._uploads`). Pages draw what
they get from here with contextgrid's render builders.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Concatenate, ParamSpec, TypeVar

import pandas as pd
import streamlit as st
from pandas.io.formats.style import Styler

from contextgrid import ContextGridError
from contextgrid.analysis.budget import budget_frontier as analysis_budget_frontier
from contextgrid.analysis.budget_verdict import BudgetVerdict
from contextgrid.analysis.causes import (
    CauseOracle,
    cause_counts,
    cause_oracle,
    cause_transitions,
    explain_cause,
)
from contextgrid.analysis.grid import (
    best_per_column,
    metric_curves,
    parameter_columns,
    pivot_grid,
    score_columns,
)
from contextgrid.analysis.grid import pivot_counts as analysis_pivot_counts
from contextgrid.analysis.questions import (
    LISTED_SIGNALS,
    failing_configurations,
    filter_questions,
    first_relevant_chunk,
    question_changes,
    question_listing,
    question_scores,
    ranked_list,
    shared_scores,
)
from contextgrid.answering.batch import (
    ScoredAnswer,
    abstention_matrix,
    invalid_citations,
    passages_frame,
    summarize_answers,
    worst_first,
)
from contextgrid.data.records import Chunk, EvalItem
from contextgrid.evidence.run_waste import character_boxes, coverage_by_configuration
from contextgrid.evidence.waste import Waste, measure_waste, waste_frame
from contextgrid.render.markup import escape_markdown as md
from contextgrid.render.waste_figures import POINTS_DRAWN
from contextgrid.significance import ComparisonTable, compare_configurations
from contextgrid.workspace.answers import workspace_answer, workspace_answers_frame, workspace_answers_frames
from contextgrid.workspace.budget import BudgetCurves
from contextgrid.workspace.model import Workspace
from contextgrid.workspace.summary import ConfigurationSummary, configuration_summary
from pages._loading import Snapshot, Source, at_version, results, snapshot, workspace
from pages._uploads import Upload, on_forget

P = ParamSpec("P")
T = TypeVar("T")


def cached(
    *, max_entries: int, resource: bool = False, spinner: bool | str = False
) -> Callable[[Callable[Concatenate[Snapshot, P], T]], Callable[Concatenate[Source | Snapshot, P], T]]:
    """Cache a computation on a data source by the source and the version of its content.

    The decorated ``compute(at, *args)`` is given a :class:`Snapshot` (the
    source at one version: its ``workspace`` and ``results``); callers pass
    the source, or the snapshot a computation was given, so that computations
    built on one another read one version. Results are kept with
    ``st.cache_data`` (a copy for each caller), or with ``resource=True`` in
    ``st.cache_resource``, for what does not pickle or is too big to copy on
    every run. ``spinner`` is shown while a result is computed.
    """

    def decorate(compute: Callable[Concatenate[Snapshot, P], T]) -> Callable[Concatenate[Source | Snapshot, P], T]:
        def keyed(source: Source, version: str, *args: P.args, **kwargs: P.kwargs) -> T:
            return compute(Snapshot(source, version), *args, **kwargs)

        # Streamlit tells caches apart by module and qualified name: without these, every computation would
        # share one cache under the name of ``keyed``.
        keyed.__module__, keyed.__qualname__ = compute.__module__, compute.__qualname__
        store = (st.cache_resource if resource else st.cache_data)(max_entries=max_entries, show_spinner=spinner)
        stored = store(keyed)

        @functools.wraps(compute)
        def call(source: Source | Snapshot, /, *args: P.args, **kwargs: P.kwargs) -> T:
            at = source if isinstance(source, Snapshot) else snapshot(source)
            if isinstance(at.source, Upload):
                entry = (compute.__qualname__, repr((args, kwargs)))
                _UPLOADED.setdefault(at.source.digest, {})[entry] = functools.partial(
                    stored.clear, at.source, at.version, *args, **kwargs
                )
            return stored(at.source, at.version, *args, **kwargs)

        return call

    return decorate


_UPLOADED: dict[str, dict[tuple[str, str], Callable[[], None]]] = {}
"""How to drop each entry an upload (by digest) has in this module's caches: a cache keyed by the upload and other
arguments cannot be cleared by the upload alone."""


def _forget(upload: Upload) -> None:
    """Drop what ``upload`` left in this module's caches (called as its session folder is removed): else they keep
    its results until other entries push them out, after its session has ended."""
    for clear in _UPLOADED.pop(upload.digest, {}).values():
        clear()


on_forget(_forget)


def _workspace(source: Source | Snapshot) -> Workspace:
    return source.workspace if isinstance(source, Snapshot) else workspace(source)


def chosen_source(page: str) -> Source:
    """The data source the sidebar chose; without one, say so and stop the page.

    ``page`` is the calling page's ``__file__``. A link to a page that is the
    first request a fresh server gets is routed by Streamlit's own pages/
    folder, without app.py; such a run is sent through app.py, which then
    opens ``page`` with the link's choices.
    """
    if "root" not in st.session_state:
        st.session_state["_wanted_page"] = f"pages/{Path(page).name}"
        st.switch_page("app.py", query_params=st.query_params.to_dict())
    source: Source | None = st.session_state.get("root")
    if not source:
        st.info("Choose a data source in the sidebar.")
        st.stop()
    return source


# A library function's call that starts a message ("workspace_from_files('uploaded'): "): for a caller in code,
# not for a visitor, who called no function.
_CALL = re.compile(r"^[A-Za-z_][\w.]*\([^()]*\): ")


def for_visitors(message: str) -> str:
    """``message`` without the library function's call it starts with, its first letter upper case.

    Examples
    --------
    >>> for_visitors("workspace_from_files('uploaded'): the runs 'a.trec' and 'a.trec' would both be a")
    "The runs 'a.trec' and 'a.trec' would both be a"
    >>> for_visitors("qrels.trec, line 3: expected 4 fields")
    'qrels.trec, line 3: expected 4 fields'
    """
    plain = _CALL.sub("", message, count=1)
    return plain[:1].upper() + plain[1:] if plain != message else message


def _shown_rest(count: int) -> str:
    """The configurations still shown beside those left out, in words that agree with their number."""
    return "the other one is shown" if count == 1 else f"the other {count:,} are shown"


def shown(error: ContextGridError, source: Source | None) -> str:
    """The message of ``error`` for a visitor (:func:`for_visitors`), uploaded files named as uploaded."""
    message = for_visitors(str(error))
    if isinstance(source, Upload):
        for path in source.files:
            message = message.replace(path, Path(path).name)
    return message


def guard(action: Callable[[], T], *, source: Source | None = None) -> T:
    """Run ``action``; on bad input show the error as a message and stop this page, never a traceback."""
    try:
        return action()
    except ContextGridError as error:
        # Escaped: a message quotes the offending line of a file, which is the user's text, not markdown.
        st.error(md(shown(error, source)), icon=":material/error:")
        st.stop()


def attempt(action: Callable[[], T], *, source: Source | None = None) -> T | None:
    """Run ``action``; on bad input show the error as a message and return ``None``, so that the rest of the page
    still draws (:func:`guard` stops the page)."""
    try:
        return action()
    except ContextGridError as error:
        st.error(md(shown(error, source)), icon=":material/error:")
        return None


def usable_workspace(given: Source | Snapshot) -> Workspace:
    """The configurations of ``given`` that could be read, once scored; those that could not are listed above
    the page with their errors (every page shows the rest). Stops the page when none could be read."""
    at = at_version(given)
    source = at.source
    scored = guard(lambda: results(at.source, at.version), source=source)
    if scored.unreadable:
        failed = len(scored.unreadable)
        warn_unreadable(
            scored.unreadable,
            f"{failed} configuration{'s' if failed > 1 else ''} could not be read and {'are' if failed > 1 else 'is'} "
            f"left out; {_shown_rest(len(scored.workspace.configs))}",
            source=source,
        )
    return scored.workspace


def warn_unreadable(failed: Mapping[str, ContextGridError], lead: str, *, source: Source | None) -> None:
    """``lead`` above the page, then each configuration of ``failed`` with its error (:func:`shown`)."""
    lines = "\n".join(f"- **{md(name)}**: {md(shown(error, source))}" for name, error in failed.items())
    st.warning(f"{lead}.\n\n{lines}", icon=":material/warning:")


# -- the grid (pages/overview.py) ------------------------------------------------------------------


@cached(max_entries=16)
def grid(at: Snapshot) -> pd.DataFrame:
    """Every configuration's metric@k scores and parameters (``Workspace.evaluate().to_dataframe()``)."""
    return at.results.to_dataframe()


@cached(max_entries=16)
def scores(at: Snapshot) -> pd.DataFrame:
    """The score columns of :func:`grid`."""
    table = grid(at)
    return table[score_columns(table)]


@cached(max_entries=16)
def best(at: Snapshot) -> dict[str, list[str]]:
    """The best configurations of each score column of :func:`grid` (ties too)."""
    return best_per_column(grid(at))


_BEST = "font-weight: bold; background-color: #d9f0d3"


@cached(max_entries=16)
def _best_cells(at: Snapshot) -> pd.DataFrame:
    marked = best(at)
    index = grid(at).index
    return pd.DataFrame(
        {label: [_BEST if config in configs else "" for config in index] for label, configs in marked.items()},
        index=index,
    )


def grid_styler(source: Source | Snapshot, metrics: Sequence[str] | None = None) -> Styler:
    """The score columns of :func:`grid` (those of ``metrics`` only, when given), four decimals, the best of each
    column (ties too) in bold on green."""
    at = at_version(source)
    marked = _best_cells(at)
    if metrics is not None:
        marked = marked[[label for label in marked.columns if label.partition("@")[0] in metrics]]
    table = grid(at)[list(marked.columns)]
    # One CSS frame for the whole table: Styler.highlight_max styles column by column, 30 times slower.
    return table.style.format("{:.4f}").apply(lambda _: marked, axis=None)


def prepare(source: Source) -> None:
    """Everything a first visit to the Overview computes for ``source`` (its scores and its grid, then, with
    the evidence, the curves and the verdict at an equal budget), into the caches that visit reads. The server
    calls it as it starts, before anyone asks."""
    grid_styler(source)
    if not missing_evidence(source):
        # A workspace the budget cannot be measured on is said on the page, where the grid still draws.
        with contextlib.suppress(ContextGridError):
            budget_figure(source)
            budget_verdict(source)


@cached(max_entries=16)
def varying_parameters(at: Snapshot) -> list[str]:
    """The parameters of :func:`grid` that differ between configurations."""
    return list(parameter_columns(grid(at), varying=True))


@cached(max_entries=32)
def pivot(at: Snapshot, label: str, rows: str, columns: str) -> pd.DataFrame:
    """``label`` (a metric@k) of :func:`grid` with one parameter down and one across."""
    return pivot_grid(grid(at), label, rows=rows, columns=columns)


@cached(max_entries=32)
def pivot_counts(at: Snapshot, rows: str, columns: str) -> pd.DataFrame:
    """How many configurations each cell of :func:`pivot` averages."""
    return analysis_pivot_counts(grid(at), rows=rows, columns=columns)


@cached(max_entries=16)
def parameters(at: Snapshot) -> dict[str, dict[str, object]]:
    """Each configuration's parameters, which the figures encode in colour and symbol."""
    return at.workspace.params_by_config()


@cached(max_entries=16)
def curves(at: Snapshot, metric: str) -> pd.DataFrame:
    """``metric`` of every configuration (rows) at each k (columns)."""
    return metric_curves(grid(at), metric)


# -- why questions fail (pages/overview.py, pages/questions.py, pages/compare.py) -------------------

SPLIT_THRESHOLD = 0.5
"""The share of the gold one chunk must hold for a question not to be ``split``: the library's default."""


@cached(max_entries=16, spinner="Finding why questions fail…")
def causes_only(at: Snapshot, k: int) -> pd.DataFrame:
    """``failure_causes_only``: the cause of every question under every configuration at ``k`` (``config``,
    ``question``, ``cause``), without the signals that only one configuration's questions show."""
    from contextgrid.workspace.causes import failure_causes_only

    return failure_causes_only(at.workspace, k=k)


@cached(max_entries=64, spinner="Finding why questions fail…")
def configuration_causes(at: Snapshot, config: str, k: int) -> pd.DataFrame:
    """``config``'s rows of ``failure_causes`` at ``k``, signals included: its ``hit_elsewhere`` counts
    every other configuration's hits, found without their signals."""
    from contextgrid.workspace.causes import failure_causes as causes_of

    return causes_of(at.workspace, k=k, configs=[config], others=at.workspace.names)


@cached(max_entries=16)
def causes_by_configuration(at: Snapshot, k: int) -> pd.DataFrame:
    """``cause_counts`` of :func:`causes_only`: configurations (manifest order) × the causes."""
    return cause_counts(causes_only(at, k))


@cached(max_entries=4, spinner="Auditing the gold…")
def gold_audit(at: Snapshot) -> pd.DataFrame:
    """``audit_workspace``: every finding of the gold audit (kind, question, detail)."""
    from contextgrid.workspace.audit import audit_workspace

    return audit_workspace(at.workspace)


@cached(max_entries=16)
def oracle(at: Snapshot, k: int) -> CauseOracle:
    """``cause_oracle`` of :func:`causes_only`: each question answered by its best configuration at ``k``."""
    return cause_oracle(causes_only(at, k))


# -- questions (pages/questions.py, pages/compare.py) ----------------------------------------------


@cached(max_entries=64)
def per_query(at: Snapshot, metric: str, k: int) -> pd.DataFrame:
    """``metric@k`` per question (rows) and configuration (columns)."""
    return at.workspace.per_query(metric, k)


@cached(max_entries=64)
def question_table(at: Snapshot, config: str, k: int) -> pd.DataFrame:
    """Every metric at ``k`` per question of ``config``, worst first."""
    ws = at.workspace
    return question_scores(ws.qrels(config), ws.run(config), k)


# Read only, and asked for on every run of several pages (once per group of questions on Compare): kept as it is.
@cached(max_entries=16, resource=True)
def question_texts(at: Snapshot) -> Mapping[str, str] | None:
    """Each question's text by id, when the workspace has questions."""
    ws = at.workspace
    return None if ws.questions_path is None else MappingProxyType({entry.id: entry.question for entry in ws.questions})


def questions_by_id(source: Source | Snapshot, ids: tuple[str, ...]) -> pd.DataFrame:
    """``ids`` in order with each question's text (missing without a questions file): a list to read."""
    texts = question_texts(source) or {}
    return pd.DataFrame(
        {"text": pd.array([texts.get(question) for question in ids], dtype="string")},
        index=pd.Index(list(ids), name="question", dtype=object),
    )


@cached(max_entries=64)
def question_list(at: Snapshot, config: str, k: int) -> pd.DataFrame:
    """:func:`question_table` to browse (``question_listing``): the question's text and, when the workspace
    has what causes need, its cause at ``k`` and its signals (``LISTED_SIGNALS``) beside each id; the questions
    without gold added."""
    causes = None
    if not missing_evidence(at):
        causes = configuration_causes(at, config, k).set_index("question")[list(LISTED_SIGNALS)]
    return question_listing(question_table(at, config, k), causes=causes, texts=question_texts(at))


@cached(max_entries=64)
def filtered_questions(
    at: Snapshot,
    config: str,
    k: int,
    *,
    label: str,
    at_most: float,
    failing_only: bool,
    contains: str,
    causes: tuple[str, ...] = (),
    signals: tuple[str, ...] = (),
) -> pd.DataFrame:
    """The rows of :func:`question_list` that pass the filters (see ``filter_questions``).

    Every score is at most 1, so ``at_most`` 1 is no filter: it keeps the questions without a score too.
    """
    return filter_questions(
        question_list(at, config, k),
        label=label if at_most < 1 else None,
        at_most=at_most,
        failing_only=failing_only,
        contains=contains,
        causes=causes,
        signals=signals,
    )


@cached(max_entries=64)
def failing_elsewhere(at: Snapshot, question: str, k: int, config: str) -> list[str]:
    """The configurations other than ``config`` that retrieve nothing relevant for ``question`` in their top ``k``."""
    hits = per_query(at, "hit_rate", k)
    if question not in hits.index:
        return []
    return [name for name in failing_configurations(hits, question) if name != config]


def _chunks_by_id(ws: Workspace, config: str) -> dict[str, Chunk] | None:
    if ws.config(config).chunks is None:
        return None
    return {chunk.id: chunk for chunk in ws.chunks(config)}


@cached(max_entries=64)
def ranking(at: Snapshot, config: str, question: str, depth: int) -> pd.DataFrame:
    """What ``config`` returned for ``question``: rank, chunk, grade, relevance, text; a chunk the qrels never
    judged has the grade "not judged" (a missing grade showed as "None")."""
    ws = at.workspace
    judgements = ws.qrels(config).get(question, {})
    ranked = ws.run(config).get(question, ())
    table = ranked_list(judgements, ranked, chunks=_chunks_by_id(ws, config), depth=depth)
    return table.assign(grade=[NOT_JUDGED if pd.isna(grade) else str(grade) for grade in table["grade"]])


NOT_JUDGED = "not judged"
"""What the ranking shows for the grade of a chunk the qrels never judged."""


# Read only, and asked for on every run of the Questions page: kept as it is, built once per version.
@cached(max_entries=16, resource=True)
def _items_by_id(at: Snapshot) -> Mapping[str, EvalItem]:
    """The question records by id (the questions file holds each id once), their gold evidence found in the
    documents when the workspace has those; empty without questions."""
    ws = at.workspace
    if ws.questions_path is None:
        return MappingProxyType({})
    items = ws.resolved[0] if ws.documents_path is not None else ws.questions
    return MappingProxyType({entry.id: entry for entry in items})


def item(source: Source | Snapshot, question: str) -> EvalItem | None:
    """The question record, when the workspace has questions: its gold evidence found
    in the documents when the workspace has those too."""
    return _items_by_id(source).get(question)


def documents(source: Source | Snapshot) -> Mapping[str, str] | None:
    """The workspace's documents, when it has them: the workspace's own read-only mapping, not a copy."""
    ws = _workspace(source)
    return None if ws.documents_path is None else ws.documents


@cached(max_entries=64)
def explanation(at: Snapshot, config: str, question: str, k: int) -> str | None:
    """One sentence on what happened to ``question`` under ``config`` at ``k`` (``explain_cause``); ``None``
    when the workspace lacks what causes need, or the question is not in its questions file."""
    if missing_evidence(at):
        return None
    table = configuration_causes(at, config, k)
    rows = table.loc[table["question"] == question]
    if rows.empty:
        return None
    ws = at.workspace
    gold = first_relevant_chunk(ws.qrels(config).get(question, {}), ws.run(config).get(question, ()))
    elsewhere = right_elsewhere(at, question, k, config)
    return explain_cause(rows.iloc[0], k=k, split_threshold=SPLIT_THRESHOLD, gold_chunk=gold, elsewhere=elsewhere)


# Whether each question is a hit under each configuration: read, not copied (a bool per question and
# configuration), and the hits ``configuration_causes`` counts in ``hit_elsewhere``, which the workspace keeps.
@cached(max_entries=16, resource=True)
def hits(at: Snapshot, k: int) -> pd.DataFrame:
    """``failure_hits``: whether each question is a ``hit`` at ``k`` under each configuration."""
    from contextgrid.workspace.causes import failure_hits

    return failure_hits(at.workspace, k=k)


@cached(max_entries=64)
def right_elsewhere(at: Snapshot, question: str, k: int, config: str) -> list[str]:
    """The configurations other than ``config`` under which ``question`` is a ``hit`` at ``k``."""
    if missing_evidence(at):
        return []
    table = hits(at, k)
    if question not in table.index:
        return []
    row = table.loc[question]
    return [name for name in table.columns[row.to_numpy()] if name != config]


@cached(max_entries=64)
def transitions(at: Snapshot, k: int, before: str, after: str) -> pd.DataFrame:
    """``cause_transitions`` from ``before`` to ``after`` at ``k``: the changes of cause, largest first, from
    those two configurations' causes alone."""
    from contextgrid.workspace.causes import failure_causes_only

    return cause_transitions(failure_causes_only(at.workspace, k=k, configs=[before, after]), before, after)


@cached(max_entries=64)
def changes(at: Snapshot, metric: str, k: int, a: str, b: str) -> pd.DataFrame:
    """``question_changes`` of ``a`` against ``b`` on ``metric@k``: each question's outcome, biggest first."""
    return question_changes(per_query(at, metric, k), a, b)


# A comparison holds the library's records and is drawn, not copied: kept as it is.
@cached(max_entries=16, resource=True)
def comparison(
    at: Snapshot, metric: str, k: int, configs: tuple[str, ...], baseline: str, test: str, correction: str
) -> ComparisonTable:
    """Each of ``configs`` against ``baseline`` on ``metric@k``, on the questions all of them score."""
    scored = shared_scores(per_query(at, metric, k), configs)
    # No bootstrap: the page shows each test's own interval, never a bootstrap one beside a verdict.
    return compare_configurations(
        scored, baseline=baseline, metric=f"{metric}@{k}", test=test, correction=correction, seed=0, interval=None
    )


# -- answers (pages/answers.py) --------------------------------------------------------------------


# Every answer's scores, all configurations' read and scored at once on the workspace's threads, each failure kept
# with its configuration: only read (the views below sort or concatenate a copy), so not copied on every run.
@cached(max_entries=16, resource=True)
def _scored_answers(at: Snapshot) -> tuple[Mapping[str, pd.DataFrame], Mapping[str, ContextGridError]]:
    return workspace_answers_frames(at.workspace, names=_named_answers(at))


def _answers_frame(at: Snapshot, config: str) -> pd.DataFrame:
    frames, failed = _scored_answers(at)
    if config in frames:
        return frames[config]
    if config in failed:
        raise failed[config].with_traceback(None)
    # A configuration without answers: refused as the library refuses it.
    return workspace_answers_frame(at.workspace, config)


def _named_answers(source: Source | Snapshot) -> list[str]:
    return [config.name for config in _workspace(source).configs if config.answers is not None]


# The errors are kept as raised, to be shown with the source's own file names (:func:`shown`).
def unreadable_answers(at: Snapshot) -> Mapping[str, ContextGridError]:
    """The configurations whose answers cannot be read or scored, each with its error: the answer views leave
    them out and say why (their retrieval scores are still shown everywhere else)."""
    return _scored_answers(at)[1]


def answer_configs(source: Source | Snapshot) -> list[str]:
    """The configurations of the workspace whose answers can be read and scored, in manifest order."""
    at = at_version(source)
    failed = unreadable_answers(at)
    return [name for name in _named_answers(at) if name not in failed]


@cached(max_entries=16)
def answer_summary(at: Snapshot) -> pd.DataFrame:
    """Per configuration with answers that can be read: means of groundedness, citation accuracy, evidence
    overlap; abstentions."""
    names = answer_configs(at)
    return summarize_answers({name: _answers_frame(at, name) for name in names})


@cached(max_entries=32)
def answer_table(at: Snapshot, config: str) -> pd.DataFrame:
    """Every answer of ``config`` with its scores, worst first."""
    return worst_first(_answers_frame(at, config))


@cached(max_entries=32)
def abstentions(at: Snapshot, config: str) -> pd.DataFrame:
    """How many answers of ``config`` abstained (columns) against should have (rows)."""
    return abstention_matrix(answer_table(at, config))


@cached(max_entries=64)
def abstention_mistakes(at: Snapshot, config: str) -> int:
    """How many answers of ``config`` abstained when they should not have, or answered when they should not have."""
    return int((~answer_table(at, config)["abstention_correct"]).sum())


# One answer with its rebuilt context: a record, drawn and not copied, so kept as it is.
@cached(max_entries=64, resource=True)
def scored_answer(at: Snapshot, config: str, question: str) -> ScoredAnswer:
    """One answer of ``config`` with its question, rebuilt context and gold chunks."""
    return workspace_answer(at.workspace, config, question)


@cached(max_entries=64)
def bad_citations(at: Snapshot, config: str, question: str) -> tuple[int, ...]:
    """The passage numbers the answer to ``question`` cites that its context does not have."""
    entry = scored_answer(at, config, question)
    return invalid_citations(entry.record.answer, entry.context)


@cached(max_entries=64)
def passages(at: Snapshot, config: str, question: str) -> pd.DataFrame:
    """The passages of the context of the answer to ``question``, gold and cited ones marked."""
    return passages_frame(scored_answer(at, config, question))


# -- context waste (pages/waste.py) ----------------------------------------------------------------


def missing_evidence(source: Source | Snapshot) -> tuple[str, ...]:
    """What the workspace lacks for the waste and cause views (documents, questions, chunks); empty if nothing."""
    return _workspace(source).missing_evidence()


# Every configuration's row per question: large, and only read (the views select from it, summarise it or draw
# it), so not copied on every run: a copy of 50 configurations x 10,000 questions cost 0.08 s per reader.
@cached(max_entries=16, resource=True, spinner="Measuring context waste…")
def waste_table(at: Snapshot, k: int) -> pd.DataFrame:
    """``workspace_waste``: every configuration's per-question waste at ``k``, index (config, question)."""
    from contextgrid.workspace.waste import workspace_waste

    return workspace_waste(at.workspace, k)


@cached(max_entries=16)
def waste_summary(at: Snapshot, k: int) -> pd.DataFrame:
    """``configuration_waste``: recall@k beside the character-level means, one row per configuration."""
    from contextgrid.workspace.waste import configuration_waste

    return configuration_waste(at.workspace, k, table=waste_table(at, k), scores=grid(at))


@cached(max_entries=16)
def characters(at: Snapshot, k: int) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """``character_boxes`` of :func:`waste_table`, and the table itself while it is small enough to draw every
    question as a point: what the characters chart needs, a few numbers per configuration, never the whole table."""
    table = waste_table(at, k)
    return character_boxes(table), table if len(table) <= POINTS_DRAWN else None


# The chosen configurations' rows alone: Gold coverage shows a few, and measuring all fifty for them cost its first
# view 0.6 s at 50 x 10,000; a configuration's rows are the same whichever others are measured beside it.
@cached(max_entries=16, resource=True, spinner="Measuring context waste…")
def chosen_waste(at: Snapshot, k: int, configs: tuple[str, ...]) -> pd.DataFrame:
    """``workspace_waste`` of ``configs`` alone at ``k``: their rows of :func:`waste_table`, in that order."""
    from contextgrid.workspace.waste import workspace_waste

    return workspace_waste(at.workspace, k, configs=list(configs))


@cached(max_entries=32)
def coverage(at: Snapshot, k: int, configs: tuple[str, ...], value: str) -> pd.DataFrame:
    """``value`` of :func:`chosen_waste` as a configuration × question matrix, for ``configs``."""
    return coverage_by_configuration(chosen_waste(at, k, configs), value=value)


@cached(max_entries=32)
def retrieved(at: Snapshot, config: str, k: int) -> pd.DataFrame:
    """``retrieved_table`` of ``config``: every resolved question's top ``k`` with the gold each chunk holds."""
    from contextgrid.evidence.run_waste import retrieved_table

    ws = at.workspace
    return retrieved_table(ws.gold, ws.run(config), ws.chunking_gold(config), k)


def resolved_items(source: Source | Snapshot) -> dict[str, EvalItem]:
    """The questions whose gold evidence was found in the documents, by id."""
    items, _ = _workspace(source).resolved
    return {entry.id: entry for entry in items if entry.is_resolved}


@cached(max_entries=64)
def resolved_containing(at: Snapshot, contains: str) -> list[str]:
    """The ids of :func:`resolved_items` that hold ``contains``, in file order (all of them for ``""``)."""
    return [question for question in resolved_items(at) if contains in question]


def top_chunks(source: Source | Snapshot, config: str, question: str, k: int) -> list[Chunk]:
    """The chunks ``config`` returned for ``question``, best first, at most ``k``."""
    ws = _workspace(source)
    by_id = _chunks_by_id(ws, config) or {}
    ranked = ws.run(config).get(question, ())[:k]
    missing = [chunk for chunk in ranked if chunk not in by_id]
    if missing:
        raise ContextGridError(
            f"the run of {config!r} returns {missing[0]!r} for question {question!r}, which is not in its chunks file"
        )
    return [by_id[chunk] for chunk in ranked]


@dataclass(frozen=True, slots=True)
class QuestionWaste:
    """One question's top ``k`` under each configuration, what they waste, and the numbers side by side."""

    retrieved: dict[str, list[Chunk]]
    wastes: dict[str, Waste]
    numbers: pd.DataFrame


@cached(max_entries=32)
def question_waste(at: Snapshot, question: str, configs: tuple[str, ...], k: int) -> QuestionWaste:
    """The :class:`QuestionWaste` of resolved question ``question`` under ``configs`` at ``k``."""
    entry = resolved_items(at)[question]
    chunks = {config: top_chunks(at, config, question, k) for config in configs}
    wastes = {config: measure_waste(entry, top) for config, top in chunks.items()}
    return QuestionWaste(chunks, wastes, waste_frame(wastes))


@cached(max_entries=8)
def summary(at: Snapshot, config: str, k: int, baseline: str) -> ConfigurationSummary:
    """The report's first screen on ``config`` at ``k``, against the best and ``baseline``: from the grid and, with
    the evidence, the waste table and the budget verdict and curves the other views keep (not measured again)."""
    if missing_evidence(at):
        return configuration_summary(at.workspace, config, k=k, baseline=baseline, scores=grid(at))
    return configuration_summary(
        at.workspace,
        config,
        k=k,
        baseline=baseline,
        scores=grid(at),
        waste=waste_table(at, k),
        budget_verdict=budget_verdict(at),
        budget_means=budget_means(at),
    )


@cached(max_entries=4)
def report(at: Snapshot, config: str, k: int, baseline: str) -> str:
    """The HTML report on ``config``: its summary against ``baseline``, the waste views at ``k``, its worst
    questions; built on the summary, the waste table, the causes and the figures kept for the pages (building
    those again cost the report's first view half a second at 50 x 10,000)."""
    from contextgrid.render.report import build_report

    kept = summary(at, config, k, baseline)
    if missing_evidence(at):
        return build_report(at.workspace, config, k=k, baseline=baseline, summary=kept)
    figures = {
        "budget": budget_figure(at),
        "precision-recall": precision_recall_figure(at, k),
        "characters": characters_figure(at, k),
    }
    # The page draws the ranks of every resolved question, the report of those with gold graded above 0: the
    # page's figure is the report's when they are the same questions.
    if list(resolved_items(at)) == list(at.workspace.gold.ids):
        figures["ranks"] = rank_figure(at, config, k)
    return build_report(
        at.workspace,
        config,
        k=k,
        baseline=baseline,
        summary=kept,
        waste=waste_table(at, k),
        causes=configuration_causes(at, config, k),
        figures=figures,
    )


# -- evidence at an equal context budget (pages/overview.py, pages/compare.py) ----------------------


@cached(max_entries=4, resource=True, spinner="Measuring evidence at equal budgets…")
def budget_curves(at: Snapshot) -> BudgetCurves:
    """Every configuration's evidence at the default grid of budgets (kept, not copied: it is per question)."""
    from contextgrid.workspace.budget import budget_curves as curves_of

    return curves_of(at.workspace)


@cached(max_entries=16)
def budget_means(at: Snapshot) -> pd.DataFrame:
    """:meth:`BudgetCurves.means`: one row per (configuration, budget)."""
    return budget_curves(at).means()


@cached(max_entries=16)
def budget_frontier(at: Snapshot) -> pd.DataFrame:
    """:meth:`BudgetCurves.frontier`: the (configuration, budget) points no other beats, from the means already
    kept (the frontier's own call would average millions of rows again)."""
    return analysis_budget_frontier(budget_means(at))


@cached(max_entries=16, spinner="Testing the best at each budget…")
def budget_verdict(at: Snapshot) -> BudgetVerdict:
    """:meth:`BudgetCurves.verdict` with Compare's defaults: the best at each budget against the runner-up."""
    return budget_curves(at).verdict()


@cached(max_entries=64)
def budget_parting(at: Snapshot, a: str, b: str) -> tuple[int | None, str | None]:
    """:meth:`BudgetCurves.parting`: the smallest budget at which ``a`` and ``b`` differ significantly."""
    return budget_curves(at).parting(a, b)


# -- figures a page draws on every run (pages/overview.py, pages/compare.py, pages/waste.py) -----------------------
# Building a figure validates every trace, a fifth of a second for thousands of questions or fifty curves: each
# is built once for what it shows and kept as it is (st.plotly_chart only reads it).


@cached(max_entries=4, resource=True)
def budget_figure(at: Snapshot) -> Any:
    """``budget_plot``: every configuration's curve of evidence against the budget, and the frontier."""
    from contextgrid.render.budget_figures import budget_plot

    return budget_plot(budget_means(at), budget_frontier(at), parameters(at))


@cached(max_entries=16, resource=True)
def pair_figure(at: Snapshot, metric: str, k: int, a: str, b: str) -> Any:
    """``pair_scatter`` of :func:`changes`: each question's ``metric@k`` under ``a`` against ``b``."""
    from contextgrid.render.grid_charts import pair_scatter

    return pair_scatter(changes(at, metric, k, a, b), a, b, f"{metric}@{k}")


@cached(max_entries=16, resource=True)
def rank_figure(at: Snapshot, config: str, k: int) -> Any:
    """``rank_heatmap`` of :func:`retrieved`: the gold each of ``config``'s top ``k`` holds, question by rank."""
    from contextgrid.render.waste_figures import rank_heatmap

    return rank_heatmap(retrieved(at, config, k), k, questions=list(resolved_items(at)), config=config)


@cached(max_entries=16, resource=True)
def coverage_figure(at: Snapshot, k: int, configs: tuple[str, ...]) -> Any:
    """``configuration_heatmap`` of :func:`coverage` for ``configs``: how much gold each one's top ``k`` holds."""
    from contextgrid.render.waste_figures import configuration_heatmap

    shares = coverage(at, k, configs, "character_recall")
    return configuration_heatmap(shares, k, best_chunk=coverage(at, k, configs, "best_chunk_coverage"))


@cached(max_entries=16, resource=True)
def precision_recall_figure(at: Snapshot, k: int) -> Any:
    """``precision_recall_plot`` of :func:`waste_summary`: each configuration's precision against recall@k."""
    from contextgrid.render.waste_figures import precision_recall_plot

    return precision_recall_plot(waste_summary(at, k), k, parameters(at))


@cached(max_entries=16, resource=True)
def characters_figure(at: Snapshot, k: int) -> Any:
    """``characters_plot`` of :func:`characters`: the characters each configuration retrieves per question."""
    from contextgrid.render.waste_figures import characters_plot

    boxes, points = characters(at, k)
    return characters_plot(boxes, points=points)


@cached(max_entries=16, resource=True)
def budget_pair_figure(at: Snapshot, a: str, b: str) -> Any:
    """``budget_pair_plot`` of ``a`` and ``b``'s curves, marked where they part (:func:`budget_parting`)."""
    from contextgrid.render.budget_figures import budget_pair_plot

    parted, _ = budget_parting(at, a, b)
    return budget_pair_plot(budget_means(at), a, b, parting=parted, params=parameters(at))
