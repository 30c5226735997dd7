"""Finding a (question, chunk) pair given twice in millions of rows.

64-bit fingerprints of the chunk ids are grouped by question (or bucketed when the rows are not grouped); only
the few rows whose fingerprints collide are compared as strings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["fingerprints", "first_repeated_pair"]

IntArray = npt.NDArray[np.int64]


# Odd 64-bit constants, murmur3's finaliser, and the masks keeping the first 0..8 bytes of a little-endian word.
_MIX_QUESTION = np.uint64(0x9E3779B97F4A7C15)
_MIX_LENGTH = np.uint64(0xD6E8FEB86659FD93)
_FINAL = (np.uint64(0xFF51AFD7ED558CCD), np.uint64(0xC4CEB9FE1A85EC53))
_WORD_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_BUCKETS = 1 << 24
_BUCKET_SHIFTS = (np.uint64(0), np.uint64(24), np.uint64(40))
_PADDING_ALLOWANCE = 1 << 21


def _mix(values: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """murmur3's 64-bit finaliser, in place (large temporaries cost more than the arithmetic)."""
    shifted = np.empty_like(values)
    shift = np.uint64(33)
    with np.errstate(over="ignore"):
        for multiplier in _FINAL:
            np.bitwise_xor(values, np.right_shift(values, shift, out=shifted), out=values)
            np.multiply(values, multiplier, out=values)
        np.bitwise_xor(values, np.right_shift(values, shift, out=shifted), out=values)
    return values


def fingerprints(strings: pa.Array) -> npt.NDArray[np.uint64]:
    """A 64-bit fingerprint of every string, read from the raw UTF-8 buffers eight bytes at a time.

    Each round gathers every string's next eight bytes in one go, from a view
    that reads a little-endian word at every byte offset, so the cost grows
    with the longest id in words, not with the total number of bytes. Ids all
    of one length (zero-padded numbers, hashes, UUIDs) need no gather at all.
    Equal strings get equal fingerprints; unequal ones rarely do, and callers
    compare the strings themselves before concluding anything.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(strings)
    buffers = strings.buffers()
    wide = pa.types.is_large_string(strings.type)
    raw = np.frombuffer(buffers[1], dtype=np.int64 if wide else np.int32)[strings.offset : strings.offset + n + 1]
    if n and not strings.null_count:
        lengths_range = pc.min_max(pc.binary_length(strings)).as_py()
        if lengths_range["min"] == lengths_range["max"] > 0:
            data = np.frombuffer(buffers[2], dtype=np.uint8)
            return _fixed_width_fingerprints(data, int(raw[0]), n, lengths_range["max"])
    offsets = raw.astype(np.int64)
    starts = offsets[:-1]
    lengths = np.diff(offsets)
    end = int(offsets[-1]) if n else 0
    # A copy with eight spare bytes, so that a word read at the last string's start stays inside it.
    padded = np.zeros(end + 8, dtype=np.uint8)
    if end:
        padded[:end] = np.frombuffer(buffers[2], dtype=np.uint8)[:end]
    words = np.ndarray((end + 1,), dtype="<u8", buffer=padded, strides=(1,))
    # The length goes in the top byte, which the first word of a string shorter than 8 bytes leaves empty.
    fingerprints = lengths.astype(np.uint64) << np.uint64(56)
    for word in range((int(lengths.max(initial=0)) + 7) // 8):
        if word:
            _mix(fingerprints)
        left = np.maximum(lengths - 8 * word, 0) if word else lengths
        # Indexing, not np.take: take is several times slower on a view of unaligned words.
        chunk = words[np.minimum(starts + 8 * word, end) if word else starts]
        chunk &= _WORD_MASKS[np.minimum(left, 8)]
        fingerprints ^= chunk
    return fingerprints


def _fixed_width_fingerprints(data: npt.NDArray[np.uint8], first: int, n: int, width: int) -> npt.NDArray[np.uint64]:
    """:func:`fingerprints` of ``n`` strings all ``width`` bytes long, laid end to end from byte ``first`` of
    ``data``.

    Their bytes are a matrix of ``width`` columns: the words are its columns, read in place (or from one copy
    padded with zeros to whole words), where strings of mixed lengths need a gather per word. The same
    fingerprints, as a string's padding is the zeros its last word's mask leaves.
    """
    matrix = data[first : first + n * width].reshape(n, width)
    if width % 8:
        padded = np.zeros((n, (width + 7) // 8 * 8), dtype=np.uint8)
        padded[:, :width] = matrix
        matrix = padded
    words = matrix.view("<u8")
    # The length's low byte in the top byte, as the general path's uint64 shift keeps it.
    fingerprints = words[:, 0] ^ np.uint64((width << 56) & _WORD_MASKS[8].item())
    for word in range(1, words.shape[1]):
        _mix(fingerprints)
        fingerprints ^= words[:, word]
    return fingerprints


def _repeat_candidates_grouped(starts: IntArray, hashes: npt.NDArray[np.uint64]) -> IntArray | None:
    """Rows whose hash repeats within their question, for rows grouped by question (question j's
    rows start at ``starts[j]``); ``None`` if a matrix of them would be too sparse.

    Each question's hashes become one row of a matrix, sorted row by row: many
    small in-cache sorts instead of one sort of everything. Padding is the
    largest hash value, so it sorts last and only the first ``size`` entries
    of a row (exactly its own hashes, as values) are compared.
    """
    sizes = np.diff(starts)
    if len(hashes) == 0:
        return np.zeros(0, dtype=np.int64)
    width = int(sizes.max())
    if len(sizes) * width > 2 * len(hashes) + _PADDING_ALLOWANCE:
        return None
    if bool(np.all(sizes == width)):
        grid = np.sort(hashes.reshape(len(sizes), width), axis=1)
        repeats = grid[:, 1:] == grid[:, :-1]
    else:
        # Row j's first sizes[j] cells, in row-major order, are the rows' hashes in order: a boolean mask lays
        # them out in one sequential write, where a scatter to computed cells costs twice as much.
        filled = np.arange(width) < sizes[:, None]
        grid = np.full((len(sizes), width), np.iinfo(np.uint64).max, dtype=np.uint64)
        grid[filled] = hashes
        grid.sort(axis=1)
        repeats = (grid[:, 1:] == grid[:, :-1]) & filled[:, 1:]
    rows: list[IntArray] = []
    for question in np.flatnonzero(repeats.any(axis=1)).tolist():
        start, stop = int(starts[question]), int(starts[question + 1])
        values = grid[question, : stop - start]
        repeated = values[1:][values[1:] == values[:-1]]
        rows.append(start + np.flatnonzero(np.isin(hashes[start:stop], repeated)))
    return np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)


def _repeat_candidates_bucketed(codes: npt.NDArray[np.int32], hashes: npt.NDArray[np.uint64]) -> IntArray:
    """Rows whose (question, hash) key is shared with another row, for rows in any order."""
    with np.errstate(over="ignore"):
        keys = _mix(hashes + codes.astype(np.uint64) * _MIX_QUESTION)
    # Only keys that share a bucket can be equal. Bucketing by three slices of the (well mixed) bits in
    # turn leaves little more than the true repeats.
    rows = np.arange(len(keys))
    for shift in _BUCKET_SHIFTS:
        bucket = ((keys >> shift) & np.uint64(_BUCKETS - 1)).view(np.int64)
        crowded = np.bincount(bucket, minlength=_BUCKETS)[bucket] > 1
        rows, keys = rows[crowded], keys[crowded]
    return rows


def first_repeated_pair(codes: npt.NDArray[np.int32], starts: IntArray | None, chunk_id: pa.Array) -> int | None:
    """The first row that gives a (question, chunk) pair again, or ``None`` when every pair is distinct.

    ``codes`` are the rows' question codes; ``starts`` are where each question's rows start when they are
    grouped by question, else ``None``.
    """
    hashes = fingerprints(chunk_id)
    candidates = None if starts is None else _repeat_candidates_grouped(starts, hashes)
    if candidates is None:
        candidates = _repeat_candidates_bucketed(codes, hashes)
    if len(candidates) == 0:
        return None
    # Equal hashes are only candidates: compare the actual ids before refusing anything.
    seen: dict[tuple[int, str], int] = {}
    repeats: list[int] = []
    ids = chunk_id.take(candidates).to_pylist()
    for row, chunk in sorted(zip(candidates.tolist(), ids, strict=True)):
        key = (int(codes[row]), chunk)
        if key in seen:
            repeats.append(row)
        seen.setdefault(key, row)
    return min(repeats) if repeats else None
