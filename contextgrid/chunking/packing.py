"""Grouping consecutive units (characters, tokens, sentences, pieces) into chunks.

Both functions return ``(first, stop)`` unit ranges, half-open like spans, in
order; consecutive ranges always move forward, and together they hold every unit.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["pack", "windows"]


def windows(count: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """Ranges of ``size`` units that start every ``size - overlap`` units until one reaches the end.

    Consecutive ranges share exactly ``overlap`` units; only the last may be
    shorter than ``size``.

    Examples
    --------
    >>> from contextgrid.chunking.packing import windows
    >>> windows(10, 4, 1)
    [(0, 4), (3, 7), (6, 10)]
    >>> windows(11, 4, 1)
    [(0, 4), (3, 7), (6, 10), (9, 11)]
    """
    step = size - overlap
    out = []
    first = 0
    while first < count:
        stop = min(first + size, count)
        out.append((first, stop))
        if stop == count:
            break
        first += step
    return out


def pack(lengths: Sequence[int], size: int, overlap: int) -> list[tuple[int, int]]:
    """Greedy packing of units of the given lengths into ranges of at most ``size`` in total.

    A unit longer than ``size`` is a range on its own. Each range after the
    first starts with the longest run of the previous range's last units that
    is at most ``overlap`` long, is not the whole previous range, and leaves
    room for the next new unit.

    Examples
    --------
    >>> from contextgrid.chunking.packing import pack
    >>> pack([4, 4, 4, 4], 8, 0)
    [(0, 2), (2, 4)]
    >>> pack([4, 4, 4, 4], 8, 4)
    [(0, 2), (1, 3), (2, 4)]
    >>> pack([3, 12, 3], 8, 0)
    [(0, 1), (1, 2), (2, 3)]
    """
    out = []
    count = len(lengths)
    first = 0
    while first < count:
        stop = first + 1
        total = lengths[first]
        while stop < count and total + lengths[stop] <= size:
            total += lengths[stop]
            stop += 1
        out.append((first, stop))
        if stop == count:
            break
        carried = 0
        start = stop
        while (
            start - 1 > first
            and carried + lengths[start - 1] <= overlap
            and carried + lengths[start - 1] + lengths[stop] <= size
        ):
            start -= 1
            carried += lengths[start]
        first = start
    return out
