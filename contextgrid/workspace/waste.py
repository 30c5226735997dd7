"""Context waste over a whole workspace: every configuration's retrieved characters against the resolved gold."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from contextgrid.core.checks import check_k
from contextgrid.core.errors import MissingWorkspaceInputError, parameter_error
from contextgrid.evidence.run_waste import question_waste
from contextgrid.workspace.results import scores_at_hand

if TYPE_CHECKING:
    import pandas as pd

    from contextgrid.workspace.configuration import Configuration
    from contextgrid.workspace.model import Workspace

__all__ = ["configuration_waste", "workspace_waste"]


def _configs(workspace: Workspace, configs: Sequence[str] | None, function: str) -> tuple[str, ...]:
    """The configurations to measure: ``configs`` checked (each named once, in the order given), else every one."""
    if configs is None:
        return workspace.names
    if isinstance(configs, str) or not isinstance(configs, Sequence) or not configs:
        raise parameter_error(function, "configs", "a non-empty sequence of configuration names", configs)
    for name in configs:
        workspace.config(name)  # an unknown name raises, naming the available ones
    return tuple(dict.fromkeys(configs))


def _require_waste_inputs(workspace: Workspace, names: tuple[str, ...], function: str) -> None:
    missing = workspace.missing_evidence(names)
    if missing:
        raise MissingWorkspaceInputError(
            f"{function}: workspace {workspace.name!r} has no {', no '.join(missing)}; measuring context waste "
            "needs documents, questions and chunks in the workspace (a sweep writes all three)"
        )


def workspace_waste(workspace: Workspace, k: int, *, configs: Sequence[str] | None = None) -> pd.DataFrame:
    """:func:`question_waste` of every configuration of ``workspace`` (or of ``configs``, in that order), index
    ``(config, question)``.

    The questions are the workspace's, resolved against its documents; each
    configuration's run is measured against its own chunks. A configuration's
    rows are the same whichever others are measured beside it.

    Examples
    --------
    >>> from contextgrid.workspace.manifest import load_workspace
    >>> from contextgrid.workspace.sample import SAMPLE
    >>> workspace = load_workspace(SAMPLE)
    >>> table = workspace_waste(workspace, 5, configs=["bm25-recursive-200-0"])
    >>> list(table.index.names), table.index.get_level_values("config").unique().tolist()
    (['config', 'question'], ['bm25-recursive-200-0'])
    """
    import pandas as pd

    names = _configs(workspace, configs, "workspace_waste")
    _require_waste_inputs(workspace, names, "workspace_waste")
    for name in names:
        workspace.check_alignment(name)  # a run or qrels of another chunking are refused, not measured
    gold = workspace.gold  # merged once, before the threads share it

    def measured(config: Configuration) -> pd.DataFrame:
        # Each chunking laid out against the gold once, for every configuration.
        return question_waste(gold, workspace.run(config.name), workspace.chunking_gold(config.name), k)

    # One configuration per thread, a CPU each (at 50 x 10,000, 0.47 s on one thread, 0.3 s on two).
    frames = workspace.each_config(measured, names=names)
    return pd.concat(dict(zip(names, frames, strict=True)), names=["config", "question"])


def configuration_waste(
    workspace: Workspace,
    k: int,
    *,
    table: pd.DataFrame | None = None,
    configs: Sequence[str] | None = None,
    scores: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per configuration: chunk-level ``recall@k`` beside the character-level picture at ``k``.

    Columns: ``recall@k`` (:func:`contextgrid.evaluate` over the qrels), the
    means over resolved questions of ``character_recall``,
    ``character_precision`` and ``character_f1``, the mean characters per
    question (``retrieved_total``, ``retrieved_characters``,
    ``gold_characters``, ``gold_retrieved``, ``not_gold``, ``repeated``), and
    ``share_gold``: of every character retrieved for every question (repeats
    included), the fraction that was gold the first time it came back.
    ``table`` is :func:`workspace_waste`'s result, when already at hand.
    ``configs`` keeps those configurations only, in that order (default: every one of ``table``, else of the
    workspace); each row is the same whichever others are measured beside it.
    ``scores`` is the workspace's scores (``workspace.evaluate(...).to_dataframe()``, at any ``ks`` that hold
    ``k``), when already at hand: its ``recall@k`` column is taken as it is, the same numbers (a score at k
    reads the first k ranks whatever the depth scored), without scoring every configuration again.

    Examples
    --------
    >>> from contextgrid.workspace.manifest import load_workspace
    >>> from contextgrid.workspace.sample import SAMPLE
    >>> workspace = load_workspace(SAMPLE)
    >>> names = ["bm25-recursive-200-0"]
    >>> frame = configuration_waste(workspace, 5, configs=names)
    >>> list(frame.columns[:2]), list(frame.index)
    (['recall@5', 'character_recall'], ['bm25-recursive-200-0'])
    >>> kept = workspace.evaluate().to_dataframe()
    >>> configuration_waste(workspace, 5, configs=names, scores=kept).equals(frame)
    True
    """
    import pandas as pd

    cutoff = check_k(k, function="configuration_waste")
    names = None if configs is None else _configs(workspace, configs, "configuration_waste")
    label = f"recall@{cutoff}"
    recall = None
    if scores is not None:  # taken before the waste is measured, for the configurations it will hold
        measured = names or (workspace.names if table is None else table.index.unique(level="config").tolist())
        recall = scores_at_hand(scores, measured, [label], function="configuration_waste")
    if table is None:
        table = workspace_waste(workspace, cutoff, configs=names)
    elif names is not None:
        table = table.loc[list(names)]
    if recall is None:
        recall = workspace.evaluate(ks=[cutoff], metrics=["recall"]).to_dataframe()[[label]]
    grouped = table.groupby(level="config", sort=False)
    means = grouped[
        [
            "character_recall",
            "character_precision",
            "character_f1",
            "retrieved_total",
            "retrieved_characters",
            "gold_characters",
            "gold_retrieved",
            "not_gold",
            "repeated",
        ]
    ].mean()
    sums = grouped[["gold_retrieved", "retrieved_total"]].sum()
    share = sums["gold_retrieved"] / sums["retrieved_total"].where(sums["retrieved_total"] > 0)
    frame = pd.concat([recall.reindex(means.index), means, share.rename("share_gold")], axis=1)
    frame.index.name = "config"
    return frame if names is None else frame.loc[list(names)]
