"""Integer keys looked up among sorted integer keys: the one membership search of the columnar code; the
distinct keys, sorted; and stretches of positions expanded, the one way the columnar code turns (start, length)
rows into positions.

Pairs such as (question, chunk) or (chunk, word) are coded as one integer, ``row * width + column``; whether a
row's pair is among a set of pairs is then a binary search of its key among the set's sorted keys. Searched in
ascending order, consecutive searches land in the same stretch of the keys (the CPU's cache): several times
faster for millions of keys than in any order.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["distinct_pairs", "distinct_sorted", "expand_stretches", "find_sorted", "sorted_keys"]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


def _sorted_with_order(values: IntArray) -> tuple[IntArray, IntArray]:
    """``np.argsort(values)`` and the values in that order (the order among equal values aside).

    Where it fits 63 bits, each value is sorted with its position packed below it: one sort of integers, several
    times faster than an argsort.
    """
    count = len(values)
    if count:
        low = int(values.min())
        if (int(values.max()) - low + 1) * count < 2**63:
            packed = np.sort((values - low) * count + np.arange(count, dtype=np.int64))
            ordered = packed // count
            return packed - ordered * count, ordered + low
    order = np.argsort(values)
    return order, values[order]


def find_sorted(keys: IntArray, wanted: IntArray, *, ascending: bool = False) -> tuple[IntArray, BoolArray]:
    """Where each of ``wanted`` is among the sorted ``keys``, and whether it is there.

    The position is ``searchsorted``'s, clipped to the last key (so that it always indexes ``keys`` when there
    are any): it is where the key is when found. ``ascending=True`` searches ``wanted`` in ascending order
    (for many keys given in any order), with the same result.

    Examples
    --------
    >>> import numpy as np
    >>> position, found = find_sorted(np.array([2, 5, 9]), np.array([9, 3, 2, 12]))
    >>> position.tolist(), found.tolist()
    ([2, 1, 0, 2], [True, False, True, False])
    >>> find_sorted(np.array([], dtype=np.int64), np.array([1]))[1].tolist()
    [False]
    """
    if not len(keys):
        return np.zeros(len(wanted), dtype=np.int64), np.zeros(len(wanted), dtype=bool)
    last = len(keys) - 1
    if ascending:
        order, ordered = _sorted_with_order(np.asarray(wanted, dtype=np.int64))
        position = np.empty(len(wanted), dtype=np.int64)
        position[order] = np.minimum(np.searchsorted(keys, ordered), last)
    else:
        position = np.minimum(np.searchsorted(keys, wanted), last).astype(np.int64)
    found: BoolArray = keys[position] == wanted
    return position, found


def expand_stretches(starts: IntArray, lengths: IntArray) -> tuple[IntArray, IntArray]:
    """Every position of the stretches ``[starts[i], starts[i] + lengths[i])``, stretch after stretch, and the
    stretch (``i``) of each: the rows' stretches as columns, with no loop over the rows.

    ``lengths`` are counts (0 or more); a stretch of length 0 gives no position.

    Examples
    --------
    >>> import numpy as np
    >>> positions, owner = expand_stretches(np.array([5, 9, 2]), np.array([2, 0, 3]))
    >>> positions.tolist(), owner.tolist()
    ([5, 6, 2, 3, 4], [0, 0, 2, 2, 2])
    >>> [part.tolist() for part in expand_stretches(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))]
    [[], []]
    """
    owner = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    # Each stretch's first position, less the number of positions before it: adding 0, 1, 2, ... counts on.
    offsets = np.cumsum(lengths, dtype=np.int64) - lengths
    positions = np.repeat(starts - offsets, lengths) + np.arange(len(owner), dtype=np.int64)
    return positions, owner


_INT32 = np.iinfo(np.int32)


def _sorted_narrow(values: npt.NDArray[np.integer]) -> npt.NDArray[np.integer]:
    """``values`` sorted, as 32-bit integers when they all fit in 32 bits (as most keys of pairs do): a sort of half
    the bytes, about twice as fast."""
    if values.itemsize > 4 and len(values) and _INT32.min <= values.min() and values.max() <= _INT32.max:
        return np.sort(values.astype(np.int32))
    return np.sort(values)


def sorted_keys(values: IntArray) -> IntArray:
    """``np.sort(values)``, of the same type: sorted in 32 bits when they fit, about twice as fast.

    Examples
    --------
    >>> import numpy as np
    >>> sorted_keys(np.array([7, -2, 2**40, 0], dtype=np.int64)).tolist()
    [-2, 0, 7, 1099511627776]
    """
    return _sorted_narrow(values).astype(values.dtype, copy=False)


def distinct_sorted(values: IntArray) -> IntArray:
    """The distinct ``values``, ascending: ``np.unique``'s answer by one sort (in 32 bits when they fit), several
    times faster than its hashing for the integer keys of pairs.

    Examples
    --------
    >>> import numpy as np
    >>> distinct_sorted(np.array([7, 2, 7, 0, 2], dtype=np.int64)).tolist()
    [0, 2, 7]
    """
    ordered = _sorted_narrow(values)
    distinct = ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))] if len(ordered) else ordered
    return distinct.astype(values.dtype, copy=False)


def distinct_pairs(row: IntArray, column: IntArray, width: int) -> tuple[IntArray, IntArray]:
    """The distinct (``row``, ``column``) pairs, sorted by row, then column; ``column`` below ``width``.

    Examples
    --------
    >>> import numpy as np
    >>> rows, columns = distinct_pairs(np.array([1, 0, 1, 1]), np.array([2, 5, 0, 2]), 6)
    >>> rows.tolist(), columns.tolist()
    ([0, 1, 1], [5, 0, 2])
    """
    size = max(width, 1)
    keys = distinct_sorted(row * size + column)
    return keys // size, keys % size
