"""Why questions fail, over a whole workspace: :func:`~contextgrid.analysis.causes.question_causes`
for every configuration, against its own chunks, run and qrels, told for its own retriever.

What configurations share is prepared once: the questions for all of them
(:func:`~contextgrid.analysis.causes.cause_questions`, on the workspace's merged gold), each chunks file for
the configurations retrieving from it (:func:`~contextgrid.analysis.causes.cause_chunking`, on the workspace's
:meth:`~contextgrid.workspace.model.Workspace.chunking_gold`) and the lexical gaps for each analyzer
(:func:`~contextgrid.analysis.causes.lexical_gaps`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from contextgrid.analysis.causes import (
    CAUSES,
    Analyzer,
    CauseQrels,
    CauseQuestions,
    cause_chunking,
    cause_qrels,
    cause_questions,
    check_split_threshold,
    lexical_gaps,
    question_causes,
    question_causes_only,
    question_hits,
)
from contextgrid.core.checks import check_k
from contextgrid.core.errors import ContextGridError, MissingWorkspaceInputError, parameter_error

if TYPE_CHECKING:
    import numpy.typing as npt
    import pandas as pd

    from contextgrid.workspace.configuration import Configuration
    from contextgrid.workspace.model import Workspace

__all__ = ["LEXICAL_RETRIEVERS", "failure_causes", "failure_causes_only", "failure_hits", "retriever_analyzer"]

LEXICAL_RETRIEVERS = ("bm25", "hybrid")
"""The retrievers that match words (hybrid through its BM25 part): only their misses have a lexical gap."""


def retriever_analyzer(config: Configuration) -> Analyzer | None:
    """The analyzer of ``config``'s retriever when it is lexical (its ``retriever`` parameter is one of
    :data:`LEXICAL_RETRIEVERS`), with the configuration's own ``stemmer`` and ``stopwords`` parameters
    (``"none"`` for off, BM25's defaults when absent); ``None`` for any other retriever.

    Examples
    --------
    >>> from pathlib import Path
    >>> from contextgrid.workspace.configuration import Configuration
    >>> def config(**params):
    ...     return Configuration("c", params, run=Path("run.trec"), qrels=Path("qrels.trec"))
    >>> retriever_analyzer(config(retriever="bm25", stemmer="none"))("Refunds are running")
    ['refunds', 'running']
    >>> retriever_analyzer(config(retriever="hybrid"))("Refunds are running")
    ['refund', 'run']
    >>> retriever_analyzer(config(retriever="lsa")) is None
    True
    """
    from contextgrid.index.bm25 import Analyzer as BM25Analyzer

    if config.params.get("retriever") not in LEXICAL_RETRIEVERS:
        return None
    defaults = BM25Analyzer()
    options = {}
    for name, default in (("stemmer", defaults.stemmer), ("stopwords", defaults.stopwords)):
        value = config.params.get(name, default)
        options[name] = None if value in (None, "none") else str(value)
    return BM25Analyzer(**options)


def _names(
    workspace: Workspace, configs: Sequence[str] | None, parameter: str = "configs", function: str = "failure_causes"
) -> tuple[str, ...]:
    if configs is None:
        return workspace.names
    if isinstance(configs, str) or not isinstance(configs, Sequence) or not configs:
        raise parameter_error(function, parameter, "a non-empty sequence of configuration names", configs)
    for name in configs:
        workspace.config(name)  # an unknown name raises, naming the available ones
    return tuple(dict.fromkeys(configs))


def _questions(workspace: Workspace, names: tuple[str, ...], function: str) -> CauseQuestions:
    """The questions prepared once, on the workspace's merged gold, which its chunkings' layouts share; refused
    when the workspace lacks what causes need. Kept with the workspace, so that another k, threshold or
    configuration does not prepare them again."""
    missing = workspace.missing_evidence(names)
    if missing:
        raise MissingWorkspaceInputError(
            f"{function}: workspace {workspace.name!r} has no {', no '.join(missing)}; naming why questions fail "
            "needs questions, documents and chunks in the workspace (a sweep writes all three)"
        )
    return workspace.shared(
        ("cause questions",),
        lambda: cause_questions(workspace.resolved[0], workspace.documents, gold=workspace.gold, function=function),
    )


def failure_causes(
    workspace: Workspace,
    *,
    k: int = 5,
    configs: Sequence[str] | None = None,
    split_threshold: float = 0.5,
    partial_threshold: float = 0.5,
    others: Sequence[str] | None = None,
) -> pd.DataFrame:
    """The cause of every question of ``workspace``'s questions file under every configuration, at ``k``.

    Parameters
    ----------
    workspace : Workspace
        Needs questions, documents and each configuration's chunks (a sweep writes all three).
    k : int, keyword-only
        The cut-off, at least 1.
    configs : sequence of str, keyword-only
        The configurations, in this order; default every one, in manifest order.
    split_threshold : float, keyword-only
        As for :func:`~contextgrid.analysis.causes.question_causes`: in (0, 1], default 0.5.
    partial_threshold : float, keyword-only
        As for :func:`~contextgrid.analysis.causes.question_causes`: in (0, 1], default 0.5.
    others : sequence of str, keyword-only
        More configurations whose hits ``hit_elsewhere`` counts, besides those of the table, found by
        :func:`failure_causes_only` (no signals): one configuration's rows with ``others`` every
        configuration are that configuration's rows of the whole table. Default none.

    Returns
    -------
    pandas.DataFrame
        One row per (configuration, question): the configurations in order,
        each with the questions in file order. Columns ``config``, then
        :data:`~contextgrid.analysis.causes.CAUSE_COLUMNS`, as
        :func:`~contextgrid.analysis.causes.question_causes` documents them
        (the lexical gap by each configuration's :func:`retriever_analyzer`),
        then ``hit_elsewhere``: for a question that is not a ``hit``, how many
        of the other configurations of the table and of ``others`` make it one at ``k``
        (missing for ``no_gold`` and ``unresolved``).

    Examples
    --------
    >>> from contextgrid.workspace.causes import failure_causes
    >>> from contextgrid.workspace.manifest import load_workspace
    >>> from contextgrid.workspace.sample import SAMPLE
    >>> table = failure_causes(load_workspace(SAMPLE), configs=["bm25-recursive-200-0"])
    >>> len(table), int((table["cause"] == "no_gold").sum())
    (274, 21)
    >>> workspace = load_workspace(SAMPLE)
    >>> one = failure_causes(workspace, configs=["bm25-recursive-200-0"], others=workspace.names)
    >>> whole = failure_causes(workspace)
    >>> one.equals(whole[whole["config"] == "bm25-recursive-200-0"].reset_index(drop=True))
    True
    """
    import pandas as pd

    function = "failure_causes"
    cutoff = check_k(k, function=function)
    threshold = check_split_threshold(split_threshold, function=function)
    partial = check_split_threshold(partial_threshold, function=function, parameter="partial_threshold")
    names = _names(workspace, configs)
    extra = () if others is None else tuple(name for name in _names(workspace, others, "others") if name not in names)
    questions = _questions(workspace, names + extra, function)

    def explained(name: str) -> pd.DataFrame:
        workspace.check_alignment(name)  # qrels or a run of another chunking are refused, not explained
        path, analyzer = workspace.config(name).chunks, retriever_analyzer(workspace.config(name))
        try:
            chunking = workspace.shared(
                ("cause chunking", path),
                lambda: cause_chunking(questions, workspace.chunking_gold(name), function=function),
            )
            gaps = (
                None
                if analyzer is None
                else workspace.shared(("lexical gaps", analyzer), lambda: lexical_gaps(questions, analyzer))
            )
            frame = question_causes(
                questions,
                chunking,
                workspace.run(name),
                _cause_qrels(workspace, name, questions),
                workspace.documents,
                k=cutoff,
                split_threshold=threshold,
                partial_threshold=partial,
                analyzer=gaps,
            )
        except ContextGridError as error:  # the inputs disagree: say which configuration's do
            raise ContextGridError(f"{function}: configuration {name!r}: {error}") from error
        _keep_hits(workspace, name, frame, cutoff, partial)
        frame.insert(0, "config", pd.Series([name] * len(frame), dtype=object))
        return frame

    # The table's configurations explained and the others' hits found on the same threads, in that order: one
    # configuration's signals (its chunking's words among them) are found while the others' hits are.
    chosen = set(names)
    done: list[pd.DataFrame | npt.NDArray[np.bool_]] = workspace.each_config(
        lambda config: (
            explained(config.name)
            if config.name in chosen
            else _hits(workspace, config.name, questions, cutoff, partial, function)
        ),
        names=names + extra,
    )
    table = pd.concat([frame for frame in done[: len(names)] if isinstance(frame, pd.DataFrame)], ignore_index=True)
    # Hits per question over every configuration, less the row's own: the others that get it right. Every
    # frame holds the questions in the same order, and the others' hits are read from their top k alone.
    hit = (table["cause"] == "hit").to_numpy()
    position = np.tile(np.arange(len(questions.ids), dtype=np.int64), len(names))
    per_question = np.bincount(position[hit], minlength=len(questions.ids)).astype(np.int64)
    for elsewhere in done[len(names) :]:
        per_question += elsewhere
    hits = per_question[position]
    failing = table["cause"].isin(CAUSES[CAUSES.index("partial") :]).to_numpy()
    table["hit_elsewhere"] = pd.arrays.IntegerArray((hits - hit).astype("int64"), ~failing)
    return table


def _hits(
    workspace: Workspace, name: str, questions: CauseQuestions, cutoff: int, partial: float, function: str
) -> npt.NDArray[np.bool_]:
    """Whether configuration ``name`` makes each question a hit, by
    :func:`~contextgrid.analysis.causes.question_hits`; kept with the workspace, as its causes are, and its
    qrels prepared once for every configuration judged by them on its chunking."""
    workspace.check_alignment(name)  # qrels or a run of another chunking are refused, not counted
    try:
        judged = _cause_qrels(workspace, name, questions)
        return workspace.shared(
            ("hits", name, cutoff, partial),
            lambda: question_hits(
                questions,
                workspace.chunking_gold(name),
                workspace.run(name),
                judged,
                workspace.documents,
                k=cutoff,
                partial_threshold=partial,
            ),
        )
    except ContextGridError as error:  # the inputs disagree: say which configuration's do
        raise ContextGridError(f"{function}: configuration {name!r}: {error}") from error


def _keep_hits(workspace: Workspace, name: str, causes: pd.DataFrame, cutoff: int, partial: float) -> None:
    """Keep configuration ``name``'s hits, read off its ``causes`` at ``cutoff`` and ``partial``, as :func:`_hits`
    keeps them (the hit rule comes before the split one, so any split threshold gives them): a question is a
    ``hit`` in its causes exactly where :func:`~contextgrid.analysis.causes.question_hits` finds one, so the
    hits another view counts (the Questions page, after the Overview's causes) are not looked for again."""
    workspace.shared(("hits", name, cutoff, partial), lambda: (causes["cause"] == "hit").to_numpy())


def _cause_qrels(workspace: Workspace, name: str, questions: CauseQuestions) -> CauseQrels:
    """Configuration ``name``'s qrels prepared against ``questions`` and its chunking
    (:func:`~contextgrid.analysis.causes.cause_qrels`), once for every configuration they judge there."""
    config = workspace.config(name)
    return workspace.shared(
        ("cause qrels", config.qrels or ("gold", config.chunks), config.chunks),
        lambda: cause_qrels(questions, workspace.chunking_gold(name), workspace.qrels(name)),
    )


def failure_hits(
    workspace: Workspace,
    *,
    k: int = 5,
    configs: Sequence[str] | None = None,
    partial_threshold: float = 0.5,
) -> pd.DataFrame:
    """Whether each question of ``workspace``'s questions file is a ``hit`` at ``k`` under each configuration
    (its cause in :func:`failure_causes` is ``hit``), found without the other causes: what listing the
    configurations that get one question right needs.

    Each configuration's hits are read from its top ``k`` alone
    (:func:`~contextgrid.analysis.causes.question_hits`) and kept with the workspace, as
    :func:`failure_causes` keeps the hits ``hit_elsewhere`` counts: either reuses the other's.

    Parameters
    ----------
    workspace : Workspace
        Needs questions, documents and each configuration's chunks (a sweep writes all three).
    k : int, keyword-only
        The cut-off, at least 1.
    configs : sequence of str, keyword-only
        The configurations, in this order; default every one, in manifest order.
    partial_threshold : float, keyword-only
        As for :func:`~contextgrid.analysis.causes.question_causes`: in (0, 1], default 0.5.

    Returns
    -------
    pandas.DataFrame
        One bool column per configuration, index ``question`` (the questions file's ids, in its order).

    Examples
    --------
    >>> from contextgrid.workspace.causes import failure_causes_only, failure_hits
    >>> from contextgrid.workspace.manifest import load_workspace
    >>> from contextgrid.workspace.sample import SAMPLE
    >>> workspace = load_workspace(SAMPLE)
    >>> hits = failure_hits(workspace, k=3)
    >>> hits.shape, hits.columns[0], int(hits["bm25-recursive-200-0"].sum())
    ((274, 10), 'bm25-recursive-200-0', 124)
    >>> causes = failure_causes_only(workspace, k=3)
    >>> hits.to_numpy().T.ravel().tolist() == (causes["cause"] == "hit").tolist()
    True
    """
    import pandas as pd

    function = "failure_hits"
    cutoff = check_k(k, function=function)
    partial = check_split_threshold(partial_threshold, function=function, parameter="partial_threshold")
    names = _names(workspace, configs, function=function)
    questions = _questions(workspace, names, function)
    hits = workspace.each_config(
        lambda config: _hits(workspace, config.name, questions, cutoff, partial, function), names=names
    )
    return pd.DataFrame(
        dict(zip(names, hits, strict=True)), index=pd.Index(questions.ids, name="question", dtype=object)
    )


def failure_causes_only(
    workspace: Workspace,
    *,
    k: int = 5,
    configs: Sequence[str] | None = None,
    split_threshold: float = 0.5,
    partial_threshold: float = 0.5,
) -> pd.DataFrame:
    """The ``config``, ``question`` and ``cause`` columns of :func:`failure_causes` (same arguments), without the
    signals of a miss (:func:`~contextgrid.analysis.causes.question_causes_only` for each configuration): what
    counting causes (:func:`~contextgrid.analysis.causes.cause_counts`), the oracle or the configurations that
    get a question right (:func:`~contextgrid.analysis.causes.configurations_with`) need.

    Examples
    --------
    >>> from contextgrid.workspace.causes import failure_causes, failure_causes_only
    >>> from contextgrid.workspace.manifest import load_workspace
    >>> from contextgrid.workspace.sample import SAMPLE
    >>> workspace = load_workspace(SAMPLE)
    >>> causes = failure_causes_only(workspace, k=3)
    >>> list(causes.columns), len(causes)
    (['config', 'question', 'cause'], 2740)
    >>> causes.equals(failure_causes(workspace, k=3)[["config", "question", "cause"]])
    True
    """
    import numpy as np
    import pandas as pd

    function = "failure_causes_only"
    cutoff = check_k(k, function=function)
    threshold = check_split_threshold(split_threshold, function=function)
    partial = check_split_threshold(partial_threshold, function=function, parameter="partial_threshold")
    names = _names(workspace, configs, function=function)
    questions = _questions(workspace, names, function)

    def causes(config: Configuration) -> pd.DataFrame:
        name = config.name
        workspace.check_alignment(name)  # qrels or a run of another chunking are refused, not explained
        try:
            # Kept with the workspace: the Overview's counts and the Questions page's hits elsewhere read them alike.
            frame = workspace.shared(
                ("causes only", name, cutoff, threshold, partial),
                lambda: question_causes_only(
                    questions,
                    workspace.chunking_gold(name),
                    workspace.run(name),
                    _cause_qrels(workspace, name, questions),
                    workspace.documents,
                    k=cutoff,
                    split_threshold=threshold,
                    partial_threshold=partial,
                ),
            )
        except ContextGridError as error:  # the inputs disagree: say which configuration's do
            raise ContextGridError(f"{function}: configuration {name!r}: {error}") from error
        _keep_hits(workspace, name, frame, cutoff, partial)
        return frame

    # One thread per CPU: aligning and looking up each run is Arrow's and numpy's work, mostly outside the GIL.
    frames = workspace.each_config(causes, names=names)
    table = pd.concat(frames, ignore_index=True)  # a new frame: the shared ones stay as they are
    configs_column = np.repeat(np.array(names, dtype=object), [len(frame) for frame in frames])
    table.insert(0, "config", pd.Series(configs_column, dtype=object))
    return table
