"""Character-level scores: how much of the gold evidence came back, and how much
of what came back was waste."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from contextgrid.core.errors import ContextGridError
from contextgrid.data.chunk_checks import checked_chunks
from contextgrid.data.records import Chunk, EvalItem, Span
from contextgrid.data.spans import covered_length, overlap_length

__all__ = [
    "character_f1",
    "character_precision",
    "character_recall",
    "coverage_fraction",
    "gold_coverage_by_chunk",
    "gold_spans",
    "retrieved_character_count",
]


def gold_spans(item: EvalItem) -> list[Span]:
    """The item's gold evidence spans of grade above 0."""
    if not isinstance(item, EvalItem):
        raise ContextGridError(f"expected an EvalItem, got {item!r}")
    # A grade-0 span is judged irrelevant: as in the qrels, it is no evidence at all.
    return [gold.span for gold in item.gold if gold.grade > 0]


def _spans_of(chunks: Iterable[Chunk]) -> list[Span]:
    spans = []
    for chunk in chunks:
        if not isinstance(chunk, Chunk):
            raise ContextGridError(f"expected a Chunk, got {chunk!r}")
        spans.append(chunk.span)
    return spans


def character_recall(item: EvalItem, retrieved: Iterable[Chunk]) -> float:
    """Fraction of the gold evidence's characters found somewhere in ``retrieved``.

    0.0 if the item has no gold characters. Gold spans of grade 0 are not evidence.
    """
    gold = gold_spans(item)
    total = covered_length(gold)
    return overlap_length(gold, _spans_of(retrieved)) / total if total else 0.0


def character_precision(item: EvalItem, retrieved: Iterable[Chunk]) -> float:
    """Fraction of the retrieved characters (overlaps once) that are gold.

    0.0 if nothing was retrieved.
    """
    spans = _spans_of(retrieved)
    total = covered_length(spans)
    return overlap_length(gold_spans(item), spans) / total if total else 0.0


def character_f1(item: EvalItem, retrieved: Iterable[Chunk]) -> float:
    """Harmonic mean of :func:`character_recall` and :func:`character_precision`.

    Examples
    --------
    >>> import contextgrid as cg
    >>> item = cg.EvalItem(id="q1", question="?", gold=(cg.GoldSpan(cg.Span("d", 0, 100)),))
    >>> cg.character_f1(item, [cg.Chunk(id="c1", span=cg.Span("d", 50, 250), text="")])
    0.3333333333333333
    """
    chunks = list(retrieved)
    recall = character_recall(item, chunks)
    precision = character_precision(item, chunks)
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def retrieved_character_count(retrieved: Iterable[Chunk]) -> int:
    """Characters retrieved, overlapping spans merged and counted once."""
    return covered_length(_spans_of(retrieved))


def gold_coverage_by_chunk(item: EvalItem, chunks: Sequence[Chunk]) -> dict[str, float]:
    """For each chunk on its own, the fraction of the item's gold characters it holds."""
    gold = gold_spans(item)
    total = covered_length(gold)
    given = checked_chunks(chunks, function="gold_coverage_by_chunk")
    return {chunk.id: overlap_length(gold, [chunk.span]) / total if total else 0.0 for chunk in given}


def coverage_fraction(target: Span, others: Iterable[Span]) -> float:
    """Fraction of ``target``'s characters covered by ``others`` (overlaps once).

    0.0 when ``target`` is empty; spans of other documents contribute nothing.
    """
    if not isinstance(target, Span):
        raise ContextGridError(f"coverage_fraction: target must be a Span, got {target!r}")
    return overlap_length([target], others) / len(target) if len(target) else 0.0
