"""A workspace's generated answers, scored per configuration against its resolved questions.

The scores of a configuration's answers are :func:`workspace_answers_frame`, on columns read as columns
(:meth:`Workspace.answer_columns <contextgrid.workspace.model.Workspace.answer_columns>`: no record per answer); a
record with its rebuilt context is made for the answers a caller shows (:func:`workspace_answer`), or for all of
them (:func:`workspace_answers`). Each chunking's words are found once per workspace, whichever of these asks first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from contextgrid.answering.batch import (
    ChunkWords,
    ScoredAnswer,
    chunk_words,
    score_answers,
    score_frame,
    summarize_answers,
)
from contextgrid.answering.context import DEFAULT_TOKENIZER
from contextgrid.chunking import Tokenizer
from contextgrid.core.errors import ContextGridError, MissingWorkspaceInputError, parameter_error
from contextgrid.data.records import EvalItem
from contextgrid.io.answers import AnswerColumns

if TYPE_CHECKING:
    import pandas as pd

    from contextgrid.workspace.configuration import Configuration
    from contextgrid.workspace.model import Workspace

__all__ = [
    "resolved_items",
    "workspace_answer",
    "workspace_answers",
    "workspace_answers_frame",
    "workspace_answers_frames",
    "workspace_summary",
]


def resolved_items(workspace: Workspace) -> tuple[EvalItem, ...]:
    """The workspace's questions with their gold evidence found in its documents."""
    return workspace.resolved[0]


def _inputs(workspace: Workspace, name: str) -> tuple[AnswerColumns, ChunkWords]:
    """The answers of configuration ``name``, as columns, and its chunking's words (found once per chunks file)."""
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
    found = workspace.shared(("answer chunk words", config.chunks), lambda: chunk_words(workspace.chunks(name)))
    return workspace.answer_columns(name), found


def workspace_answers_frame(workspace: Workspace, name: str) -> pd.DataFrame:
    """Every answer of configuration ``name`` scored, one row each: :func:`~contextgrid.answering.batch.score_frame`.

    Needs the workspace's questions and documents (to resolve the gold
    evidence), the configuration's chunks and its answers; the gold chunks
    come from the configuration's qrels.

    Examples
    --------
    >>> import contextgrid as cg
    >>> from contextgrid.answering.batch import answers_frame
    >>> from contextgrid.workspace.sample import SAMPLE
    >>> workspace = cg.load_workspace(SAMPLE)
    >>> frame = workspace_answers_frame(workspace, "bm25-recursive-200-0")
    >>> len(frame), frame.equals(answers_frame(workspace_answers(workspace, "bm25-recursive-200-0")))
    (274, True)
    """
    columns, found = _inputs(workspace, name)
    return score_frame(
        resolved_items(workspace), columns, found, workspace.qrels(name), source=workspace.config(name).answers
    )


def workspace_answers_frames(
    workspace: Workspace, *, names: Sequence[str] | None = None
) -> tuple[Mapping[str, pd.DataFrame], Mapping[str, ContextGridError]]:
    """:func:`workspace_answers_frame` of every configuration that has answers (or of ``names``), on the workspace's
    threads (:meth:`~contextgrid.workspace.model.Workspace.each_config`): the frames of those whose answers can be
    read and scored, and the error of each of the others, as reading it alone raises it.

    Examples
    --------
    >>> from contextgrid.workspace.manifest import load_workspace
    >>> from contextgrid.workspace.sample import SAMPLE
    >>> workspace = load_workspace(SAMPLE)
    >>> frames, failed = workspace_answers_frames(workspace)
    >>> list(frames), dict(failed)
    (['bm25-recursive-200-0', 'lsa-recursive-500-0', 'bm25-recursive-2000-0', 'bm25-fixed_chars-500-100'], {})
    >>> frames["lsa-recursive-500-0"].equals(workspace_answers_frame(workspace, "lsa-recursive-500-0"))
    True
    """
    chosen = [config.name for config in workspace.configs if config.answers is not None] if names is None else names

    def scored(config: Configuration) -> pd.DataFrame | ContextGridError:
        try:
            return workspace_answers_frame(workspace, config.name)
        except ContextGridError as error:  # one configuration's bad answers leave the others' to be shown
            return error

    # Reading and scoring are mostly pyarrow's and numpy's work, much of it outside the GIL.
    results = dict(zip(chosen, workspace.each_config(scored, names=chosen), strict=True))
    frames = {name: result for name, result in results.items() if not isinstance(result, ContextGridError)}
    failed = {name: result for name, result in results.items() if isinstance(result, ContextGridError)}
    return MappingProxyType(frames), MappingProxyType(failed)


def workspace_answers(
    workspace: Workspace, name: str, *, tokenizer: Tokenizer = DEFAULT_TOKENIZER
) -> tuple[ScoredAnswer, ...]:
    """Every answer of configuration ``name`` as a record, scored with :func:`score_answers`.

    Needs what :func:`workspace_answers_frame` needs; each record keeps its
    rebuilt context, so for the scores alone the frame is much lighter.
    """
    _, found = _inputs(workspace, name)
    return score_answers(
        resolved_items(workspace),
        workspace.answers(name),
        found,
        workspace.qrels(name),
        source=workspace.config(name).answers,
        tokenizer=tokenizer,
    )


def workspace_answer(
    workspace: Workspace, name: str, question_id: str, *, tokenizer: Tokenizer = DEFAULT_TOKENIZER
) -> ScoredAnswer:
    """The answer of configuration ``name`` to ``question_id`` (its first, if it answered twice), as a record.

    Scored as :func:`workspace_answers` scores it; only that answer's
    context is rebuilt.

    Raises
    ------
    InvalidParameterError
        The configuration did not answer ``question_id``.
    """
    columns, found = _inputs(workspace, name)
    rows = np.flatnonzero(columns.question_id == question_id)
    if not len(rows):
        raise parameter_error(
            "workspace_answer", "question_id", f"a question configuration {name!r} answered", question_id
        )
    (scored,) = score_answers(
        resolved_items(workspace),
        [columns.record(int(rows[0]))],
        found,
        workspace.qrels(name),
        source=workspace.config(name).answers,
        tokenizer=tokenizer,
    )
    return scored


def workspace_summary(workspace: Workspace) -> pd.DataFrame:
    """:func:`summarize_answers` over every configuration of ``workspace`` that has answers, in manifest order, read
    and scored at once (:func:`workspace_answers_frames`); the first that cannot be is refused, as alone."""
    names = [config.name for config in workspace.configs if config.answers is not None]
    if not names:
        raise MissingWorkspaceInputError(
            f'workspace {workspace.name!r} has no answers: add answers = "..." to a [[config]] of its manifest'
        )
    frames, failed = workspace_answers_frames(workspace, names=names)
    if failed:
        # The first in manifest order, as reading them one after another would refuse it.
        raise next(iter(failed.values()))
    return summarize_answers(frames)
