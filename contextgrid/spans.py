"""Span algebra: union, intersection and length of half-open character ranges,
document by document.

Every character-level score is built from these few functions, so overlaps
are merged the same way everywhere: a character covered twice counts once.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from .errors import ContextGridError
from .records import Span

__all__ = ["covered_length", "intersection", "overlap_length", "union"]

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
    >>> from contextgrid.spans import union
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
