"""Context waste: of what came back, how much was the evidence, how much was other text,
and how much was the same text twice.

Built on the span algebra of :mod:`contextgrid.spans`, so it agrees with
:func:`contextgrid.character_recall` and :func:`contextgrid.character_precision`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .character import gold_spans
from .errors import ContextGridError
from .records import Chunk, EvalItem, Span
from .spans import covered_length, overlap_length

__all__ = ["Waste", "measure_waste"]


@dataclass(frozen=True, slots=True)
class Waste:
    """Character counts of one question's retrieved context against its gold evidence.

    ``retrieved_total`` counts every chunk's span in full, so text two
    overlapping chunks share counts twice; ``retrieved_characters`` counts it
    once. The three properties split the total: ``gold_retrieved +
    not_gold + repeated == retrieved_total``.

    Examples
    --------
    >>> import contextgrid as cg
    >>> from contextgrid.waste import measure_waste
    >>> item = cg.EvalItem(id="q1", question="?", gold=(cg.GoldSpan(cg.Span("d", 100, 200)),))
    >>> chunks = [cg.Chunk("c1", cg.Span("d", 0, 150), ""), cg.Chunk("c2", cg.Span("d", 120, 300), "")]
    >>> waste = measure_waste(item, chunks)
    >>> waste.gold_retrieved, waste.not_gold, waste.repeated, waste.missed
    (100, 200, 30, 0)
    >>> waste.character_precision
    0.3333333333333333
    """

    gold_characters: int
    retrieved_characters: int
    retrieved_total: int
    gold_retrieved: int

    def __post_init__(self) -> None:
        counts = (self.gold_characters, self.retrieved_characters, self.retrieved_total, self.gold_retrieved)
        if any(not isinstance(count, int) or count < 0 for count in counts):
            raise ContextGridError(f"Waste: character counts must be whole numbers, 0 or more, got {counts}")
        if self.gold_retrieved > min(self.gold_characters, self.retrieved_characters):
            raise ContextGridError(
                f"Waste: gold_retrieved ({self.gold_retrieved}) cannot exceed the gold ({self.gold_characters}) "
                f"or the retrieved characters ({self.retrieved_characters})"
            )
        if self.retrieved_total < self.retrieved_characters:
            raise ContextGridError(
                f"Waste: retrieved_total ({self.retrieved_total}) cannot be below the distinct retrieved "
                f"characters ({self.retrieved_characters})"
            )

    @property
    def not_gold(self) -> int:
        """Distinct retrieved characters that are not gold evidence."""
        return self.retrieved_characters - self.gold_retrieved

    @property
    def repeated(self) -> int:
        """Characters retrieved more than once, counted once per extra copy."""
        return self.retrieved_total - self.retrieved_characters

    @property
    def missed(self) -> int:
        """Gold characters that never came back."""
        return self.gold_characters - self.gold_retrieved

    @property
    def character_recall(self) -> float:
        return self.gold_retrieved / self.gold_characters if self.gold_characters else 0.0

    @property
    def character_precision(self) -> float:
        return self.gold_retrieved / self.retrieved_characters if self.retrieved_characters else 0.0

    @property
    def character_f1(self) -> float:
        recall, precision = self.character_recall, self.character_precision
        return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def measure_waste(item: EvalItem, retrieved: Iterable[Chunk]) -> Waste:
    """The :class:`Waste` of ``retrieved`` against ``item``'s gold evidence (grade above 0)."""
    gold = gold_spans(item)
    spans: list[Span] = []
    for chunk in retrieved:
        if not isinstance(chunk, Chunk):
            raise ContextGridError(f"measure_waste: expected Chunk records, got {chunk!r}")
        spans.append(chunk.span)
    return Waste(
        gold_characters=covered_length(gold),
        retrieved_characters=covered_length(spans),
        retrieved_total=sum(len(span) for span in spans),
        gold_retrieved=overlap_length(gold, spans),
    )
