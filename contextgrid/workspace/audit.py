"""Audit a workspace's gold: every rule of :mod:`contextgrid.analysis.audit` over its questions, documents and
each configuration's chunks, run and qrels, as one table of findings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from contextgrid.analysis.audit import (
    FINDING_COLUMNS,
    NEAR_DUPLICATE,
    REPEATS_GOLD,
    ChunkingRepeats,
    JudgedGrades,
    chunking_repeats,
    document_words,
    gold_by_document,
    gold_passages,
    judged_grades,
    repeated_questions,
    run_labels,
)
from contextgrid.analysis.word_sets import Vocabulary
from contextgrid.core.checks import check_fraction
from contextgrid.core.errors import ContextGridError, MissingWorkspaceInputError

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pandas as pd

    from contextgrid.core.log import LogEntry
    from contextgrid.data.records import EvalItem
    from contextgrid.workspace.configuration import Configuration
    from contextgrid.workspace.model import Workspace

__all__ = ["FINDING_KINDS", "audit_workspace"]

FINDING_KINDS = (
    "duplicate_question",
    "near_duplicate_question",
    "unresolved_gold",
    "gold_share",
    "possible_missing_label",
    "unreadable_configuration",
)
"""The kinds of finding, in the order :func:`audit_workspace` lists them."""


def audit_workspace(
    workspace: Workspace, *, near_duplicate: float = NEAR_DUPLICATE, repeats_gold: float = REPEATS_GOLD
) -> pd.DataFrame:
    """Every finding of the gold audit of ``workspace``, one row each, columns
    :data:`~contextgrid.analysis.audit.FINDING_COLUMNS` (``kind`` of :data:`FINDING_KINDS`, ``question``
    missing for a finding about a document or a configuration, ``detail`` in words).

    - ``duplicate_question`` and ``near_duplicate_question``: :func:`~contextgrid.analysis.audit.repeated_questions`
      at ``near_duplicate``;
    - ``unresolved_gold``: a question with gold evidence (graded above 0) of which no character was found in the
      documents, with the resolver's reason;
    - ``gold_share``: each document's share of the gold (:func:`~contextgrid.analysis.audit.gold_by_document`),
      largest first;
    - ``possible_missing_label``: :func:`~contextgrid.analysis.audit.missing_labels` at ``repeats_gold`` for
      every configuration with chunks, each (question, chunk, passage) once with the configurations that
      retrieved it;
    - ``unreadable_configuration``: a configuration whose files could not be checked, with the error.

    Examples
    --------
    >>> from contextgrid.workspace.audit import audit_workspace
    >>> from contextgrid.workspace.manifest import load_workspace
    >>> from contextgrid.workspace.sample import SAMPLE
    >>> findings = audit_workspace(load_workspace(SAMPLE))
    >>> list(findings.columns), set(findings["kind"]) <= set(FINDING_KINDS)
    (['kind', 'question', 'detail'], True)
    >>> audit_workspace(load_workspace(HANDMADE))
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.MissingWorkspaceInputError: audit_workspace: workspace 'sample' has no questions and no \
documents; the audit reads the questions' gold in the documents
    """
    import pandas as pd

    function = "audit_workspace"
    near = check_fraction(near_duplicate, function=function, parameter="near_duplicate", low_open=True)
    repeats_at = check_fraction(repeats_gold, function=function, parameter="repeats_gold", low_open=True)
    missing = [name for name in ("questions", "documents") if name in workspace.missing_evidence(())]
    if missing:
        raise MissingWorkspaceInputError(
            f"{function}: workspace {workspace.name!r} has no {' and no '.join(missing)}; the audit reads the "
            "questions' gold in the documents"
        )
    items, log = workspace.resolved
    # The repeated questions on a thread of their own, beside the rest, which does not need them (their sorts and
    # searches are numpy's, outside the GIL).
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(1, thread_name_prefix="contextgrid-audit")
    try:
        repeating = pool.submit(repeated_questions, workspace.questions, threshold=near)
    finally:
        pool.shutdown(wait=False)
    try:
        others = _gold_findings(workspace, items, log, repeats_at, function)
    except Exception:
        repeating.result()  # its error, raised first when the repeats were found first, is raised first still
        raise
    table = pd.concat([repeating.result()[list(FINDING_COLUMNS)], *others], ignore_index=True)
    return table.astype({"kind": object, "question": object, "detail": object})


def _gold_findings(
    workspace: Workspace, items: Sequence[EvalItem], log: Sequence[LogEntry], repeats_at: float, function: str
) -> list[pd.DataFrame]:
    """The findings of :func:`audit_workspace` after the repeated questions, each kind a frame, in order."""
    import pandas as pd

    frames = []
    reasons: dict[str, list[str]] = {}
    for entry in log:
        reasons.setdefault(entry.subject, []).append(entry.message)
    lost = [
        item.id
        for item in items
        if not any(len(g.span) for g in item.gold if g.grade > 0)
        and (any(g.grade > 0 for g in (*item.gold, *item.unplaced)) or any(a.grade > 0 for a in item.anchors))
    ]
    frames.append(
        pd.DataFrame(
            {
                "kind": ["unresolved_gold"] * len(lost),
                "question": lost,
                "detail": ["; ".join(reasons.get(q, ["its gold covers no character of the documents"])) for q in lost],
            }
        )
    )

    shares = gold_by_document(workspace.gold)
    frames.append(
        pd.DataFrame(
            {
                "kind": ["gold_share"] * len(shares),
                "question": [None] * len(shares),
                "detail": [
                    f"{doc} holds {row.share:.1%} of the gold characters ({row.gold_characters:,}), for "
                    f"{row.questions:,} question{'s' if row.questions != 1 else ''}"
                    for doc, row in zip(shares.index, shares.itertuples(index=False), strict=True)
                ],
            }
        )
    )

    # The documents' words found once (the gold's passages' and each chunking's words are read from them, not
    # found again in their texts), each chunking once (configurations share chunks files; laid out against the gold
    # as the workspace keeps it), then each run looked up in its chunking's repeats of the gold; the chunkings, each
    # with its runs, on one thread per CPU (mostly Arrow's and numpy's work, outside the GIL).
    vocabulary = Vocabulary()
    words = document_words(workspace.documents, vocabulary)
    passages = gold_passages(workspace.gold, workspace.documents, vocabulary, function=function, words=words)
    sharing: dict[str, list[Configuration]] = {}
    for config in workspace.configs:
        if config.chunks is not None:
            sharing.setdefault(str(config.chunks), []).append(config)

    def label(first: Configuration) -> dict[str, pd.DataFrame | str]:
        """The labels of each configuration retrieving from ``first``'s chunking (:func:`run_labels`, its repeats
        found once, each qrels file against it once, for every run judged by it there), or the error."""
        path = str(first.chunks)
        # A copy of the vocabulary for each chunking, read beside the others: the only words it learns are in no
        # passage (the passages are coded), so they make no pair a passage has, whatever their codes.
        own = vocabulary.copy()
        repeats: ChunkingRepeats | None = None
        grades: dict[object, JudgedGrades] = {}
        done: dict[str, pd.DataFrame | str] = {}
        for config in sharing[path]:
            try:
                if repeats is None:
                    repeats = chunking_repeats(
                        passages,
                        workspace.chunking_gold(config.name),
                        own,
                        threshold=repeats_at,
                        function=function,
                        words=words,
                        elsewhere=True,
                    )
                run, judged_by = workspace.run(config.name), config.qrels or ("gold", path)
                if judged_by not in grades:
                    grades[judged_by] = judged_grades(repeats, workspace.qrels(config.name))
                # A run that passed the workspace's alignment check is not tested row by row again.
                aligned = workspace.aligned(config.name)
                done[config.name] = run_labels(repeats, run, grades[judged_by], function=function, aligned=aligned)
            except ContextGridError as error:
                done[config.name] = str(error)
        return done

    # Each chunking's runs labelled on the thread that found its repeats, as soon as it has.
    labelled: dict[str, pd.DataFrame | str] = {}
    for done in workspace.each_config(label, names=[configs[0].name for configs in sharing.values()]):
        labelled.update(done)
    found, unreadable = [], []
    for config in workspace.configs:
        result = labelled.get(config.name)
        if isinstance(result, str):
            unreadable.append((config.name, result))
        elif result is not None and len(result):  # no frame of pandas' to make for a run with no label
            found.append(result.assign(config=config.name, chunks=str(config.chunks)))
    if found:
        labels = pd.concat(found, ignore_index=True)
        grouped = labels.groupby(["question", "chunks", "chunk_id", "passage"], sort=False)
        first = grouped.first().reset_index()
        configs = grouped["config"].agg(lambda names: ", ".join(dict.fromkeys(names))).to_numpy()
        judged = ["not judged" if missing else f"graded {grade}" for grade, missing in
                  zip(first["grade"].fillna(0).astype(int), first["grade"].isna(), strict=True)]  # fmt: skip
        frames.append(
            pd.DataFrame(
                {
                    "kind": ["possible_missing_label"] * len(first),
                    "question": first["question"].to_numpy(),
                    "detail": [
                        f"chunk {row.chunk_id!r} (retrieved by {names}, rank {row.rank} in {row.config}) is "
                        f"{grade} and overlaps none of the gold, yet holds {row.held:.0%} of the word pairs of the "
                        f"gold passage {row.passage}"
                        for row, names, grade in zip(first.itertuples(index=False), configs, judged, strict=True)
                    ],
                }
            )
        )
    frames.append(
        pd.DataFrame(
            {
                "kind": ["unreadable_configuration"] * len(unreadable),
                "question": [None] * len(unreadable),
                "detail": [f"{name}: {error}" for name, error in unreadable],
            }
        )
    )
    return frames
