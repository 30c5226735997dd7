"""Context waste over a whole workspace: every configuration's retrieved characters against the resolved gold."""

from __future__ import annotations

from typing import TYPE_CHECKING

from contextgrid.core.checks import check_k
from contextgrid.core.errors import MissingWorkspaceInputError
from contextgrid.evidence.run_waste import question_waste

if TYPE_CHECKING:
    import pandas as pd

    from contextgrid.workspace.model import Workspace

__all__ = ["configuration_waste", "workspace_waste"]


def _require_waste_inputs(workspace: Workspace, function: str) -> None:
    missing = workspace.missing_evidence()
    if missing:
        raise MissingWorkspaceInputError(
            f"{function}: workspace {workspace.name!r} has no {', no '.join(missing)}; measuring context waste "
            "needs documents, questions and chunks in the workspace (a sweep writes all three)"
        )


def workspace_waste(workspace: Workspace, k: int) -> pd.DataFrame:
    """:func:`question_waste` of every configuration of ``workspace``, index ``(config, question)``.

    The questions are the workspace's, resolved against its documents; each
    configuration's run is measured against its own chunks.
    """
    import pandas as pd

    _require_waste_inputs(workspace, "workspace_waste")
    for name in workspace.names:
        workspace.check_alignment(name)  # a run or qrels of another chunking are refused, not measured
    # The gold merged once and each chunking laid out against it once, for every configuration.
    frames = {
        name: question_waste(workspace.gold, workspace.run(name), workspace.chunking_gold(name), k)
        for name in workspace.names
    }
    return pd.concat(frames, names=["config", "question"])


def configuration_waste(workspace: Workspace, k: int, *, table: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per configuration: chunk-level ``recall@k`` beside the character-level picture at ``k``.

    Columns: ``recall@k`` (:func:`contextgrid.evaluate` over the qrels), the
    means over resolved questions of ``character_recall``,
    ``character_precision`` and ``character_f1``, the mean characters per
    question (``retrieved_total``, ``retrieved_characters``,
    ``gold_characters``, ``gold_retrieved``, ``not_gold``, ``repeated``), and
    ``share_gold``: of every character retrieved for every question (repeats
    included), the fraction that was gold the first time it came back.
    ``table`` is :func:`workspace_waste`'s result, when already at hand.
    """
    import pandas as pd

    cutoff = check_k(k, function="configuration_waste")
    if table is None:
        table = workspace_waste(workspace, cutoff)
    label = f"recall@{cutoff}"
    scores = workspace.evaluate(ks=[cutoff], metrics=["recall"]).to_dataframe()
    means = table.groupby(level="config", sort=False)[
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
    sums = table.groupby(level="config", sort=False)[["gold_retrieved", "retrieved_total"]].sum()
    share = sums["gold_retrieved"] / sums["retrieved_total"].where(sums["retrieved_total"] > 0)
    frame = pd.concat([scores[[label]].reindex(means.index), means, share.rename("share_gold")], axis=1)
    frame.index.name = "config"
    return frame
