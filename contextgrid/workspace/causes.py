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

from contextgrid.analysis.causes import (
    CAUSES,
    Analyzer,
    cause_chunking,
    cause_questions,
    check_split_threshold,
    lexical_gaps,
    question_causes,
)
from contextgrid.core.checks import check_k
from contextgrid.core.errors import ContextGridError, MissingWorkspaceInputError, parameter_error

if TYPE_CHECKING:
    import pandas as pd

    from contextgrid.workspace.configuration import Configuration
    from contextgrid.workspace.model import Workspace

__all__ = ["LEXICAL_RETRIEVERS", "failure_causes", "retriever_analyzer"]

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


def _names(workspace: Workspace, configs: Sequence[str] | None) -> tuple[str, ...]:
    if configs is None:
        return workspace.names
    if isinstance(configs, str) or not isinstance(configs, Sequence) or not configs:
        raise parameter_error("failure_causes", "configs", "a non-empty sequence of configuration names", configs)
    for name in configs:
        workspace.config(name)  # an unknown name raises, naming the available ones
    return tuple(dict.fromkeys(configs))


def failure_causes(
    workspace: Workspace,
    *,
    k: int = 5,
    configs: Sequence[str] | None = None,
    split_threshold: float = 0.5,
    partial_threshold: float = 0.5,
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

    Returns
    -------
    pandas.DataFrame
        One row per (configuration, question): the configurations in order,
        each with the questions in file order. Columns ``config``, then
        :data:`~contextgrid.analysis.causes.CAUSE_COLUMNS`, as
        :func:`~contextgrid.analysis.causes.question_causes` documents them
        (the lexical gap by each configuration's :func:`retriever_analyzer`),
        then ``hit_elsewhere``: for a question that is not a ``hit``, how many
        of the other configurations of the table make it one at ``k``
        (missing for ``no_gold`` and ``unresolved``).

    Examples
    --------
    >>> from contextgrid.workspace.causes import failure_causes
    >>> from contextgrid.workspace.manifest import load_workspace
    >>> from contextgrid.workspace.sample import SAMPLE
    >>> table = failure_causes(load_workspace(SAMPLE), configs=["bm25-recursive-200-0"])
    >>> len(table), int((table["cause"] == "no_gold").sum())
    (274, 21)
    """
    import pandas as pd

    function = "failure_causes"
    cutoff = check_k(k, function=function)
    threshold = check_split_threshold(split_threshold, function=function)
    partial = check_split_threshold(partial_threshold, function=function, parameter="partial_threshold")
    names = _names(workspace, configs)
    missing = workspace.missing_evidence(names)
    if missing:
        raise MissingWorkspaceInputError(
            f"{function}: workspace {workspace.name!r} has no {', no '.join(missing)}; naming why questions fail "
            "needs questions, documents and chunks in the workspace (a sweep writes all three)"
        )
    # The questions prepared once, on the workspace's merged gold, which its chunkings' layouts share.
    # Kept with the workspace, so that another k or threshold does not prepare them again.
    questions = workspace.shared(
        ("cause questions",),
        lambda: cause_questions(workspace.resolved[0], workspace.documents, gold=workspace.gold, function=function),
    )
    frames = []
    for name in names:
        workspace.check_alignment(name)  # qrels or a run of another chunking are refused, not explained
        path, analyzer = workspace.config(name).chunks, retriever_analyzer(workspace.config(name))
        try:
            chunking = workspace.shared(
                ("cause chunking", path),
                lambda: cause_chunking(questions, workspace.chunking_gold(name), function=function),  # noqa: B023
            )
            gaps = (
                None
                if analyzer is None
                else workspace.shared(("lexical gaps", analyzer), lambda: lexical_gaps(questions, analyzer))  # noqa: B023
            )
            frame = question_causes(
                questions,
                chunking,
                workspace.run(name),
                workspace.qrels(name),
                workspace.documents,
                k=cutoff,
                split_threshold=threshold,
                partial_threshold=partial,
                analyzer=gaps,
            )
        except ContextGridError as error:  # the inputs disagree: say which configuration's do
            raise ContextGridError(f"{function}: configuration {name!r}: {error}") from error
        frame.insert(0, "config", pd.Series([name] * len(frame), dtype=object))
        frames.append(frame)
    table = pd.concat(frames, ignore_index=True)
    # Hits per question over every configuration, less the row's own: the others that get it right.
    hit = (table["cause"] == "hit").to_numpy()
    hits = pd.Series(hit).groupby(table["question"].to_numpy()).transform("sum").to_numpy()
    failing = table["cause"].isin(CAUSES[CAUSES.index("partial") :]).to_numpy()
    table["hit_elsewhere"] = pd.arrays.IntegerArray((hits - hit).astype("int64"), ~failing)
    return table
