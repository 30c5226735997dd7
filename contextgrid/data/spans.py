"""Span algebra: union, intersection and length of half-open character ranges,
document by document.

Every character-level score is built from these few functions, so overlaps
are merged the same way everywhere: a character covered twice counts once.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from contextgrid.core.errors import ContextGridError
from contextgrid.data.keys import expand_stretches
from contextgrid.data.records import Span

__all__ = ["OverlapPairs", "covered_length", "intersection", "overlap_length", "overlap_pairs", "union"]

IntArray = npt.NDArray[np.int64]

Intervals = dict[str, list[tuple[int, int]]]


def _merged(spans: Iterable[Span]) -> Intervals:
    """Per document, the sorted, disjoint, non-touching intervals covering ``spans``.

    Empty spans cover nothing and are dropped.
    """
    by_doc: defaultdict[str, list[tuple[int, int]]] = defaultdict(list)
    for span in spans:
        if not isinstance(span, Span):
            raise ContextGridError(f"expected a Span, got {span!r}")
        if span.end > span.start:
            by_doc[span.doc_id].append((span.start, span.end))
    merged: Intervals = {}
    for doc_id, intervals in by_doc.items():
        intervals.sort()
        out = [intervals[0]]
        for start, end in intervals[1:]:
            last_start, last_end = out[-1]
            if start <= last_end:
                out[-1] = (last_start, max(last_end, end))
            else:
                out.append((start, end))
        merged[doc_id] = out
    return merged


def _intersect(a: Intervals, b: Intervals) -> Intervals:
    result: Intervals = {}
    for doc_id in a.keys() & b.keys():
        left, right = a[doc_id], b[doc_id]
        i = j = 0
        out = []
        while i < len(left) and j < len(right):
            start = max(left[i][0], right[j][0])
            end = min(left[i][1], right[j][1])
            if start < end:
                out.append((start, end))
            if left[i][1] < right[j][1]:
                i += 1
            else:
                j += 1
        if out:
            result[doc_id] = out
    return result


def _length(intervals: Intervals) -> int:
    return sum(end - start for spans in intervals.values() for start, end in spans)


def _spans(intervals: Intervals) -> tuple[Span, ...]:
    return tuple(Span(doc_id, start, end) for doc_id in sorted(intervals) for start, end in intervals[doc_id])


def union(spans: Iterable[Span]) -> tuple[Span, ...]:
    """The fewest disjoint spans covering the same characters, sorted by document then start.

    Examples
    --------
    >>> from contextgrid import Span
    >>> from contextgrid.data.spans import union
    >>> union([Span("a", 5, 9), Span("a", 0, 5), Span("b", 1, 2), Span("a", 20, 20)])
    (Span(doc_id='a', start=0, end=9), Span(doc_id='b', start=1, end=2))
    """
    return _spans(_merged(spans))


def intersection(first: Iterable[Span], second: Iterable[Span]) -> tuple[Span, ...]:
    """The characters covered by both sets of spans, as disjoint spans."""
    return _spans(_intersect(_merged(first), _merged(second)))


def covered_length(spans: Iterable[Span]) -> int:
    """Characters covered by ``spans``, overlaps counted once."""
    return _length(_merged(spans))


def overlap_length(first: Iterable[Span], second: Iterable[Span]) -> int:
    """Characters covered by both sets of spans, each character counted once."""
    return _length(_intersect(_merged(first), _merged(second)))


class OverlapPairs(NamedTuple):
    """Pairs of spans that share characters, as three aligned columns."""

    target: IntArray
    """Position of the pair's span in ``targets``."""
    span: IntArray
    """Position of the pair's span in ``spans``."""
    length: IntArray
    """Characters the two share (always 1 or more)."""


def _columns(spans: Sequence[Span], codes: dict[str, int], name: str) -> tuple[IntArray, IntArray, IntArray]:
    for position, span in enumerate(spans):
        if not isinstance(span, Span):
            raise ContextGridError(f"overlap_pairs: {name}[{position}] must be a Span, got {span!r}")
    doc = np.array([codes.setdefault(span.doc_id, len(codes)) for span in spans], dtype=np.int64)
    start = np.array([span.start for span in spans], dtype=np.int64)
    end = np.array([span.end for span in spans], dtype=np.int64)
    return doc, start, end


def overlap_pairs(targets: Sequence[Span], spans: Sequence[Span]) -> OverlapPairs:
    """Every pair of a target and a span of the same document that share at least one character.

    An interval search, not a comparison of every pair: ``spans`` are sorted
    once by document and start, and each target's candidates are the run of
    spans that start before it ends and come after the last span that ends
    before it starts (found with :func:`numpy.searchsorted` on the running
    maximum of the ends). For spans that do not nest, such as any chunking's,
    every candidate overlaps; nested spans only add candidates that are then
    filtered out.

    Pairs come sorted by target, then by position in ``spans``.

    Examples
    --------
    >>> from contextgrid import Span
    >>> from contextgrid.data.spans import overlap_pairs
    >>> chunks = [Span("a", 0, 10), Span("a", 10, 20), Span("b", 0, 20)]
    >>> pairs = overlap_pairs([Span("a", 5, 15), Span("a", 20, 25)], chunks)
    >>> pairs.target.tolist(), pairs.span.tolist(), pairs.length.tolist()
    ([0, 0], [0, 1], [5, 5])
    """
    codes: dict[str, int] = {}
    t_doc, t_start, t_end = _columns(targets, codes, "targets")
    s_doc, s_start, s_end = _columns(spans, codes, "spans")
    empty = np.zeros(0, dtype=np.int64)
    if len(t_doc) == 0 or len(s_doc) == 0:
        return OverlapPairs(empty, empty, empty.copy())
    # One sort key for every document: doc * width + offset keeps documents apart.
    width = int(max(t_end.max(), s_end.max())) + 1
    order = np.lexsort((s_end, s_start, s_doc))
    starts = s_doc[order] * width + s_start[order]
    reach = np.maximum.accumulate(s_doc[order] * width + s_end[order])
    low = np.searchsorted(reach, t_doc * width + t_start, side="right")
    high = np.searchsorted(starts, t_doc * width + t_end, side="left")
    counts = np.maximum(high - low, 0)
    at, target = expand_stretches(low, counts)
    span = order[at]
    length = np.minimum(t_end[target], s_end[span]) - np.maximum(t_start[target], s_start[span])
    keep = length > 0
    target, span, length = target[keep], span[keep], length[keep]
    by_position = np.lexsort((span, target))
    return OverlapPairs(target[by_position], span[by_position].astype(np.int64), length[by_position])
