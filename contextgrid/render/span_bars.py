"""The bars a span map draws: gold, retrieved and repeated characters, one document per row, on an axis
that folds long stretches with nothing on them."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from contextgrid.core.errors import ContextGridError
from contextgrid.data.records import Span
from contextgrid.data.spans import intersection, union
from contextgrid.render.document import SPAN_CLASSES, regions

__all__ = ["SpanBars", "span_bars"]


def _minus(span: Span, others: Sequence[Span]) -> list[Span]:
    """The parts of ``span`` no span of ``others`` covers."""
    parts, cursor = [], span.start
    for other in intersection([span], others):
        if other.start > cursor:
            parts.append(Span(span.doc_id, cursor, other.start))
        cursor = other.end
    if cursor < span.end:
        parts.append(Span(span.doc_id, cursor, span.end))
    return parts


@dataclass(frozen=True, slots=True)
class _Axis:
    """Document offsets to x positions: shown regions keep their length, hidden gaps shrink to ``gap``."""

    real: np.ndarray[Any, np.dtype[np.float64]]
    shown: np.ndarray[Any, np.dtype[np.float64]]

    def __call__(self, offset: int) -> float:
        return float(np.interp(offset, self.real, self.shown))


def _axis(length: int, spans: Sequence[Span], margin: int, expanded: bool) -> tuple[_Axis, list[tuple[float, int]]]:
    """The x mapping, and (x, characters) for each hidden gap, to label."""
    layout = regions(length, spans, margin=margin) if not expanded else ()
    if not layout or all(region.shown for region in layout):
        return _Axis(np.array([0.0, max(length, 1)]), np.array([0.0, max(length, 1)])), []
    gap = max(1.0, 0.03 * sum(region.end - region.start for region in layout if region.shown))
    real, shown, gaps = [0.0], [0.0], []
    for region in layout:
        width = float(region.end - region.start) if region.shown else gap
        if not region.shown:
            gaps.append((shown[-1] + width / 2, region.end - region.start))
        real.append(float(region.end))
        shown.append(shown[-1] + width)
    return _Axis(np.array(real), np.array(shown)), gaps


@dataclass(frozen=True, slots=True)
class SpanBars:
    """What :func:`span_map` draws, apart from how: the bars (class, row, span, hover text) in drawing order,
    the rows top to bottom, the x mapping and the hidden gaps (x, characters)."""

    bars: list[tuple[str, str, Span, str]]
    rows: list[str]
    axis: _Axis
    gaps: list[tuple[float, int]]

    @property
    def axis_title(self) -> str:
        return "character offset" + (" (stretches far from any span shrunk)" if self.gaps else "")

    @property
    def ticks(self) -> list[int]:
        """The document offsets labelled on the x axis: the ends of every region."""
        return sorted({int(value) for value in self.axis.real})


def span_bars(
    doc_id: str,
    length: int,
    gold: Sequence[Span],
    bands: Mapping[str, Sequence[tuple[int, Span]]],
    margin: int,
    expanded: bool,
    label: Callable[[str], str],
) -> SpanBars:
    """The bars of :func:`span_map`; ``label`` turns a configuration name into its row label."""
    if not isinstance(length, int) or length < 0:
        raise ContextGridError(f"span_map: length must be a whole number, 0 or more, got {length!r}")
    gold = union(span for span in gold if span.doc_id == doc_id)
    chosen = {name: sorted((r, s) for r, s in chunks if s.doc_id == doc_id) for name, chunks in bands.items()}
    everything = [*gold, *(span for chunks in chosen.values() for _, span in chunks)]
    axis, gaps = _axis(length, everything, margin, expanded)
    bars: dict[str, list[tuple[str, str, Span, str]]] = {name: [] for name in SPAN_CLASSES}
    rows: list[str] = []
    for name, chunks in chosen.items():
        shown = label(name)
        gold_row = f"{shown} · gold" if len(chosen) > 1 else "gold"
        rows.append(gold_row)
        retrieved = [span for _, span in chunks]
        for span in intersection(gold, retrieved):
            bars["found"].append(("found", gold_row, span, "gold evidence, retrieved"))
        for span in gold:
            for part in _minus(span, retrieved):
                bars["missed"].append(("missed", gold_row, part, "gold evidence, never retrieved"))
        earlier: list[Span] = []
        for rank, span in chunks:
            row = f"{shown} · #{rank}" if len(chosen) > 1 else f"#{rank}"
            rows.append(row)
            for part in intersection([span], earlier):
                bars["repeat"].append(("repeat", row, part, f"rank {rank}: already retrieved at a better rank"))
            for part in _minus(span, earlier):
                for piece in intersection([part], gold):
                    bars["found"].append(("found", row, piece, f"rank {rank}: gold evidence"))
                for piece in _minus(part, gold):
                    bars["waste"].append(("waste", row, piece, f"rank {rank}: not gold"))
            earlier.append(span)
    return SpanBars([bar for kind in SPAN_CLASSES for bar in bars[kind]], rows, axis, gaps)
