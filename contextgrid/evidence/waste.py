"""Context waste: of what came back, how much was the evidence, how much was other text,
and how much was the same text twice.

Built on the span algebra of :mod:`contextgrid.data.spans`, so it agrees with
:func:`contextgrid.character_recall` and :func:`contextgrid.character_precision`.
:func:`measure_waste` scores one question; the table builders score every
question of a run at once, as columns (the chunks that hold gold come from
:func:`contextgrid.data.spans.overlap_pairs`, overlaps are merged with a running
maximum), and agree with :func:`measure_waste` question by question.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from contextgrid.core.errors import ContextGridError
from contextgrid.data.records import Chunk, EvalItem, Span
from contextgrid.data.spans import covered_length, overlap_length
from contextgrid.evidence.character import gold_spans

if TYPE_CHECKING:
    import pandas as pd


__all__ = [
    "COMPARED_COLUMNS",
    "WASTE_COLUMNS",
    "Waste",
    "measure_waste",
    "waste_frame",
]


WASTE_COLUMNS = (
    "gold_characters",
    "retrieved_characters",
    "retrieved_total",
    "gold_retrieved",
    "not_gold",
    "repeated",
    "missed",
    "character_recall",
    "character_precision",
    "character_f1",
    "best_chunk_coverage",
    "chunks_retrieved",
)
"""The columns of :func:`question_waste`, in order."""


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
    >>> from contextgrid.evidence.waste import measure_waste
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


COMPARED_COLUMNS = (
    "character_recall",
    "character_precision",
    "character_f1",
    "retrieved_characters",
    "gold_characters",
    "not_gold",
    "repeated",
    "missed",
)
"""The columns of :func:`waste_frame`, in order."""


def waste_frame(wastes: Mapping[str, Waste]) -> pd.DataFrame:
    """The :class:`Waste` of one question under each configuration, side by side: one row per configuration
    (index ``config``, in ``wastes`` order), columns :data:`COMPARED_COLUMNS`.

    Examples
    --------
    >>> import contextgrid as cg
    >>> from contextgrid.evidence.waste import measure_waste, waste_frame
    >>> item = cg.EvalItem(id="q1", question="?", gold=(cg.GoldSpan(cg.Span("d", 100, 200)),))
    >>> wide = [cg.Chunk("c1", cg.Span("d", 0, 150), ""), cg.Chunk("c2", cg.Span("d", 120, 300), "")]
    >>> narrow = [cg.Chunk("n1", cg.Span("d", 90, 160), "")]
    >>> frame = waste_frame({"wide": measure_waste(item, wide), "narrow": measure_waste(item, narrow)})
    >>> frame[["character_recall", "not_gold", "repeated", "missed"]]
            character_recall  not_gold  repeated  missed
    config
    wide                 1.0       200        30       0
    narrow               0.6        10         0      40
    """
    import pandas as pd

    for config, waste in wastes.items():
        if not isinstance(waste, Waste):
            raise ContextGridError(f"waste_frame: expected a Waste for configuration {config!r}, got {waste!r}")
    return pd.DataFrame(
        [[getattr(waste, column) for column in COMPARED_COLUMNS] for waste in wastes.values()],
        index=pd.Index(list(wastes), name="config", dtype=object),
        columns=list(COMPARED_COLUMNS),
    )
