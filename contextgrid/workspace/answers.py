"""A workspace's generated answers, scored per configuration against its resolved questions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from contextgrid.answering.batch import (
    ScoredAnswer,
    answers_frame,
    score_answers,
    summarize_answers,
)
from contextgrid.answering.context import DEFAULT_TOKENIZER
from contextgrid.chunking import Tokenizer
from contextgrid.core.errors import MissingWorkspaceInputError
from contextgrid.data.records import EvalItem

if TYPE_CHECKING:
    import pandas as pd

    from contextgrid.workspace.model import Workspace

__all__ = ["resolved_items", "workspace_answers", "workspace_summary"]


def resolved_items(workspace: Workspace) -> tuple[EvalItem, ...]:
    """The workspace's questions with their gold evidence found in its documents."""
    return workspace.resolved[0]


def workspace_answers(
    workspace: Workspace, name: str, *, tokenizer: Tokenizer = DEFAULT_TOKENIZER
) -> tuple[ScoredAnswer, ...]:
    """Every answer of configuration ``name``, scored with :func:`score_answers`.

    Needs the workspace's questions and documents (to resolve the gold
    evidence), the configuration's chunks and its answers; the gold chunks
    come from the configuration's qrels.
    """
    config = workspace.config(name)
    if config.answers is None:
        raise MissingWorkspaceInputError(
            f"configuration {name!r} of workspace {workspace.name!r} names no answers file"
        )
    if config.chunks is None:
        raise MissingWorkspaceInputError(
            f"configuration {name!r} of workspace {workspace.name!r} has answers but names no chunks file; its "
            "answers' contexts are rebuilt from its chunks"
        )
    items = resolved_items(workspace)
    return score_answers(
        items,
        workspace.answers(name),
        workspace.chunks(name),
        workspace.qrels(name),
        source=config.answers,
        tokenizer=tokenizer,
    )


def workspace_summary(workspace: Workspace) -> pd.DataFrame:
    """:func:`summarize_answers` over every configuration of ``workspace`` that has answers, in manifest order."""
    names = [config.name for config in workspace.configs if config.answers is not None]
    if not names:
        raise MissingWorkspaceInputError(
            f'workspace {workspace.name!r} has no answers: add answers = "..." to a [[config]] of its manifest'
        )
    return summarize_answers({name: answers_frame(workspace_answers(workspace, name)) for name in names})
