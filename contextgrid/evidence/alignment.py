"""Do a configuration's qrels and run belong to its chunks? Mismatched inputs caught before anything is scored.

Chunk ids such as ``doc#3`` repeat across chunkings, so qrels made on 800-character chunks read without error
against a run on 300-character chunks, and score with confidence. Two rules catch it where the gold is known:

- every chunk graded above 0 in the qrels for a question with resolved gold must be one of the chunks, and
  overlap one of that question's gold spans (graded above 0) there;
- every chunk id the run returns must be one of the chunks.

:func:`check_alignment` applies both on columns and raises on the first break, naming the question, the chunk and
what it overlaps. Without chunks or gold, :func:`disjoint_rankings` gives the one sign left: how many judged
questions' rankings hold none of their judged chunks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from contextgrid.core.errors import ContextGridError
from contextgrid.data.keys import find_sorted
from contextgrid.data.records import Chunk, EvalItem, Span
from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.evidence.run_waste import (
    ChunkingGold,
    GoldColumns,
    gold_columns,
    laid_out,
    run_chunk_positions,
    run_rows,
)

__all__ = ["MISMATCH", "check_alignment", "disjoint_rankings"]

MISMATCH = "the qrels and the chunks look like two different chunkings"
"""The end of every refusal of :func:`check_alignment`: what the break most likely means."""


def _where(span: Span) -> str:
    return f"{span.doc_id} [{span.start}, {span.end})"


def check_alignment(
    items: Iterable[EvalItem] | GoldColumns,
    chunks: Mapping[str, Chunk] | Iterable[Chunk] | ChunkingGold,
    run: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Mapping[str, int]],
    *,
    function: str = "check_alignment",
) -> None:
    """Raise a :class:`~contextgrid.core.errors.ContextGridError` when ``qrels`` or ``run`` do not belong to
    ``chunks`` (the rules of this module); return ``None`` when they do.

    ``items`` are the questions with their gold resolved; a question without gold (graded above 0) is not
    checked against the qrels, having nothing to overlap. Many configurations checked against the same questions
    pass :func:`~contextgrid.evidence.run_waste.gold_columns`' record and, for each chunking,
    :func:`~contextgrid.evidence.run_waste.chunking_gold`'s, so that each is laid out once.

    Examples
    --------
    >>> import contextgrid as cg
    >>> from contextgrid.evidence.alignment import check_alignment
    >>> item = cg.EvalItem("q1", "?", (cg.GoldSpan(cg.Span("d", 100, 200)),))
    >>> chunks = [cg.Chunk("d#0", cg.Span("d", 0, 150), "a"), cg.Chunk("d#1", cg.Span("d", 150, 300), "b")]
    >>> check_alignment([item], chunks, {"q1": ["d#1", "d#0"]}, {"q1": {"d#0": 1, "d#1": 1}})
    >>> item = cg.EvalItem("q1", "?", (cg.GoldSpan(cg.Span("d", 200, 260)),))
    >>> check_alignment([item], chunks, {"q1": ["d#1"]}, {"q1": {"d#0": 2}})
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.ContextGridError: check_alignment: the qrels grade chunk 'd#0' 2 for question 'q1', \
but in these chunks 'd#0' is d [0, 150), which overlaps none of the question's gold (d [200, 260)): the qrels and \
the chunks look like two different chunkings
    """
    gold = items if isinstance(items, GoldColumns) else gold_columns(items, function)
    chunking = laid_out(gold, chunks, function)
    values, chunk_ids = chunking.columns.chunks, chunking.columns.ids
    ranking, judged = RunTable.from_dict(run), QrelsTable.from_dict(qrels)
    # Every question of the run: each row's chunk found among the chunks (kept with the run, which every view
    # then aligns the same way), and, when one is not there, the shared alignment, which refuses it naming the
    # question and the rank.
    if (run_chunk_positions(ranking, chunk_ids) < 0).any():
        run_rows(ranking, pd.Index(ranking.question_ids, dtype=object), chunk_ids, None, function)

    starts = np.asarray(judged.starts, dtype=np.int64)
    item = np.repeat(gold.ids.get_indexer(pd.Index(judged.question_ids, dtype=object)), starts[1:] - starts[:-1])
    names = np.asarray(judged.table.column("chunk_id").to_numpy(zero_copy_only=False), dtype=object)
    grade = np.asarray(judged.table.column("grade").to_numpy(), dtype=np.int64)
    # Questions whose gold covers at least one character: an empty span is gold that was never found.
    resolved = np.append(gold.total > 0, False)[item]
    checked = np.flatnonzero(resolved & (grade > 0))
    chunk = chunk_ids.get_indexer(pd.Index(names[checked], dtype=object)).astype(np.int64)
    width = max(len(values), 1)
    keys = chunking.holding.keys
    wanted = item[checked] * width + chunk
    overlapping = find_sorted(keys, wanted)[1] & (chunk >= 0)
    if overlapping.all():
        return
    bad = int(np.flatnonzero(~overlapping)[0])
    row, position = checked[bad], int(chunk[bad])
    question = gold.items[item[row]]
    said = f"{function}: the qrels grade chunk {names[row]!r} {grade[row]} for question {question.id!r}, but"
    if position < 0:
        raise ContextGridError(f"{said} it is not among the {len(values)} chunks given: {MISMATCH}")
    spans = ", ".join(_where(span) for span, owner in zip(gold.spans, gold.item, strict=True) if owner == item[row])
    raise ContextGridError(
        f"{said} in these chunks {names[row]!r} is {_where(values[position].span)}, which overlaps none of the "
        f"question's gold ({spans}): {MISMATCH}"
    )


def disjoint_rankings(qrels: Mapping[str, Mapping[str, int]], run: Mapping[str, Sequence[str]]) -> tuple[int, int]:
    """Of the questions the qrels judge (any grade) that the run ranks, how many rankings hold none of their
    judged chunks, and how many there are: ``(disjoint, judged_and_ranked)``.

    When most rankings miss every judged chunk, the qrels and the run most likely come from different
    chunkings (their ids look alike but name other text), or different question ids.

    Examples
    --------
    >>> from contextgrid.evidence.alignment import disjoint_rankings
    >>> disjoint_rankings({"q1": {"a": 1}, "q2": {"b": 0}, "q3": {"c": 1}}, {"q1": ["x", "a"], "q2": ["x"]})
    (1, 2)
    """
    ranking, judged = RunTable.from_dict(run), QrelsTable.from_dict(qrels)
    questions = pd.Index(judged.question_ids, dtype=object)
    run_starts = np.asarray(ranking.starts, dtype=np.int64)
    judged_starts = np.asarray(judged.starts, dtype=np.int64)
    run_item = np.repeat(
        questions.get_indexer(pd.Index(ranking.question_ids, dtype=object)), run_starts[1:] - run_starts[:-1]
    )
    judged_item = np.repeat(np.arange(len(questions), dtype=np.int64), judged_starts[1:] - judged_starts[:-1])
    run_chunks = np.asarray(ranking.table.column("chunk_id").to_numpy(zero_copy_only=False), dtype=object)
    judged_chunks = np.asarray(judged.table.column("chunk_id").to_numpy(zero_copy_only=False), dtype=object)
    pairs = pd.Index(list(zip(judged_item.tolist(), judged_chunks.tolist(), strict=True)), dtype=object)
    mine = run_item >= 0
    found = pairs.get_indexer(pd.Index(list(zip(run_item[mine].tolist(), run_chunks[mine].tolist(), strict=True))))
    ranked = np.zeros(len(questions), dtype=bool)
    ranked[run_item[mine]] = True
    held = np.zeros(len(questions), dtype=bool)
    held[run_item[mine][found >= 0]] = True
    return int((ranked & ~held).sum()), int(ranked.sum())
