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

__all__ = ["GAP_FONT", "NARROWEST", "ROW_FONT", "TICK_FONT", "Labels", "SpanBars", "label_width", "span_bars"]

NARROWEST = 600
"""The narrowest a span map is drawn, in pixels (the dashboard's drawing column): its offsets and gap labels
are thinned so that none overlap at this width, and so at any wider one."""

TICK_FONT = 10
"""Pixels of the offsets' font under the axis."""

GAP_FONT = 9
"""Pixels of the hidden stretches' labels, above the plot."""

ROW_FONT = 13
"""Pixels of the row labels' font (the template's)."""

# Space kept between two labels side by side, in pixels.
_PAD = 8
# Pixels left and right of the plot besides the row labels: the figure's margins (40 on the right), the ticks.
_CHROME = 70


def label_width(text: str, font: int) -> float:
    """A generous width of ``text`` in pixels at ``font`` pixels (Arial's widest digits and letters are about
    0.6 of the font size): wide enough that labels thinned by it never touch."""
    return 0.6 * font * len(text)


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


def _axis(
    length: int, spans: Sequence[Span], margin: int, expanded: bool
) -> tuple[_Axis, list[tuple[float, float, int]]]:
    """The x mapping, and (first x, last x, characters) for each hidden gap, to shade and label."""
    layout = regions(length, spans, margin=margin) if not expanded else ()
    if not layout or all(region.shown for region in layout):
        return _Axis(np.array([0.0, max(length, 1)]), np.array([0.0, max(length, 1)])), []
    gap = max(1.0, 0.03 * sum(region.end - region.start for region in layout if region.shown))
    real, shown, gaps = [0.0], [0.0], []
    for region in layout:
        # A hidden stretch shrinks to ``gap``, never grows to it.
        width = float(region.end - region.start) if region.shown else min(gap, float(region.end - region.start))
        if not region.shown:
            gaps.append((shown[-1], shown[-1] + width, region.end - region.start))
        real.append(float(region.end))
        shown.append(shown[-1] + width)
    return _Axis(np.array(real), np.array(shown)), gaps


def _spaced(places: Sequence[float], widths: Sequence[float], scale: float, first: Sequence[int] = ()) -> list[int]:
    """The indices of labels centred at ``places`` (axis units; ``scale`` pixels per unit), ``widths`` pixels
    wide, to draw so that no two come within :data:`_PAD` pixels: ``first`` taken first, then the others
    left to right, each only where it has room."""
    kept: list[int] = []
    for index in [*first, *(index for index in range(len(places)) if index not in first)]:
        if all(
            abs(places[index] - places[other]) * scale >= (widths[index] + widths[other]) / 2 + _PAD for other in kept
        ):
            kept.append(index)
    return sorted(kept)


@dataclass(frozen=True, slots=True)
class Labels:
    """What a span map labels at a given width: the document offsets under the axis, and per hidden gap
    (in :attr:`SpanBars.gaps`' order) its label above the plot, the characters it hides where there is room,
    else "⋯", else nothing."""

    ticks: list[int]
    gaps: list[str]


@dataclass(frozen=True, slots=True)
class SpanBars:
    """What :func:`span_map` draws, apart from how: the bars (class, row, span, hover text) in drawing order,
    the rows top to bottom, the x mapping and the hidden gaps (first x, last x, characters)."""

    bars: list[tuple[str, str, Span, str]]
    rows: list[str]
    axis: _Axis
    gaps: list[tuple[float, float, int]]

    @property
    def ticks(self) -> list[int]:
        """The document offsets that may be labelled on the x axis: the ends of every region."""
        return sorted({int(value) for value in self.axis.real})

    def plot_width(self, width: int) -> float:
        """A lower bound of the plot's width in pixels in a figure ``width`` pixels wide: what the row labels
        (at :data:`ROW_FONT`) and the margins leave."""
        labels = max((label_width(row, ROW_FONT) for row in self.rows), default=0.0)
        return max(width - labels - _CHROME, 100.0)

    def labels(self, width: int = NARROWEST) -> Labels:
        """The offsets and gap labels to draw in a figure ``width`` pixels wide, none overlapping another: where
        the shown regions start and end first (left to right, each where it has room), then the document's
        start and end. An axis that folds nothing gets no offsets here: plotly's own ticks space themselves."""
        if not self.gaps:
            return Labels([], [])
        span = float(self.axis.shown[-1]) or 1.0
        scale = self.plot_width(width) / span
        ticks = self.ticks
        places = [self.axis(tick) for tick in ticks]
        widths = [label_width(f"{tick:,}", TICK_FONT) for tick in ticks]
        inner = [index for index in range(len(ticks)) if 0 < ticks[index] < ticks[-1]]
        kept = [ticks[index] for index in _spaced(places, widths, scale, first=inner)]
        # The unit said: a bare count over the axis reads as one more offset.
        full = [f"⋯ {hidden:,} characters ⋯" for _, _, hidden in self.gaps]
        centres = [(start + end) / 2 for start, end, _ in self.gaps]
        roomy = set(_spaced(centres, [label_width(text, GAP_FONT) for text in full], scale))
        texts = [full[index] if index in roomy else "⋯" for index in range(len(full))]
        shown = set(_spaced(centres, [label_width(text, GAP_FONT) for text in texts], scale, first=sorted(roomy)))
        return Labels(kept, [texts[index] if index in shown else "" for index in range(len(texts))])


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
