"""Top-k selection over a matrix of scores, with ties broken the same way every time.

Every index ends in the same step: one row of scores per query, one column
per chunk, and the best ``k`` columns of each row wanted in order. Ties are
broken by column (chunk) order, so two runs over the same input agree
exactly, whatever order a partial sort happens to leave equal scores in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from contextgrid.core.errors import parameter_error
from contextgrid.index.base import Ranked, Scored

__all__ = ["BLOCK_CELLS", "RankedSearch", "query_blocks", "rank_blocks", "to_scored", "top_k"]

BLOCK_CELLS = 1 << 22
"""How many query-by-chunk scores are held at once (16 MiB of float32); queries are scored in blocks this size."""


def query_blocks(n_queries: int, n_chunks: int) -> Iterator[slice]:
    """Slices of the queries, each small enough that its score matrix fits in :data:`BLOCK_CELLS`."""
    rows = max(1, BLOCK_CELLS // max(1, n_chunks))
    for start in range(0, n_queries, rows):
        yield slice(start, min(start + rows, n_queries))


def top_k(scores: NDArray[np.floating], k: int, eligible: NDArray[np.bool_] | None = None) -> list[Ranked]:
    """For each row, the columns of its ``k`` highest scores and those scores, best first.

    Equal scores keep column order. Only ``eligible`` cells (all, when it is
    ``None``) can be chosen, so a row may return fewer than ``k``.

    Examples
    --------
    >>> import numpy as np
    >>> [(columns.tolist(), values.tolist()) for columns, values in top_k(np.array([[0.5, 0.9, 0.5, 0.1]]), 3)]
    [([1, 0, 2], [0.9, 0.5, 0.5])]
    """
    n_rows, n_columns = scores.shape
    if n_rows == 0:
        return []
    allowed = np.ones(scores.shape, dtype=bool) if eligible is None else eligible
    if k < n_columns:
        # The k-th best allowed score of each row; everything at or above it is a candidate,
        # which keeps every tie at the boundary so that column order can decide among them.
        # Selecting the k-th smallest of the negated scores, rather than the k-th largest, stays
        # fast when most of a row is one masked-out value (numpy's partition slows badly there).
        negated = np.where(allowed, -scores, np.inf)
        threshold = np.partition(negated, k - 1, axis=1)[:, k - 1]
        allowed = allowed & (negated <= threshold[:, None])
    rows, columns = np.nonzero(allowed)
    values = scores[rows, columns]
    order = np.lexsort((columns, -values, rows))
    rows, columns, values = rows[order], columns[order], values[order]
    counts = np.bincount(rows, minlength=n_rows)
    starts = np.cumsum(counts) - counts
    keep = np.arange(rows.size) - starts[rows] < k
    rows, columns, values = rows[keep], columns[keep], values[keep]
    bounds = np.cumsum(np.bincount(rows, minlength=n_rows))[:-1]
    return list(zip(np.split(columns, bounds), np.split(values, bounds), strict=True))


def rank_blocks(
    n_queries: int,
    n_chunks: int,
    k: int,
    score_block: Callable[[slice], tuple[NDArray[np.floating], NDArray[np.bool_] | None]],
) -> list[Ranked]:
    """Score the queries block by block with ``score_block`` and keep each one's top ``k``.

    ``score_block(rows)`` returns the score matrix of those queries and which
    of its cells may be returned (``None`` for all).
    """
    ranked: list[Ranked] = []
    for rows in query_blocks(n_queries, n_chunks):
        scores, eligible = score_block(rows)
        ranked.extend(top_k(scores, k, eligible))
    return ranked


def to_scored(chunk_ids: Sequence[str], ranked: Sequence[Ranked]) -> list[list[Scored]]:
    """Rankings of chunk positions as lists of :class:`Scored`."""
    return [
        [
            Scored(chunk_ids[position], score)
            for position, score in zip(positions.tolist(), scores.tolist(), strict=True)
        ]
        for positions, scores in ranked
    ]


class _Ranks(Protocol):
    @property
    def chunk_ids(self) -> tuple[str, ...]: ...

    def _rank(self, queries: Sequence[str], k: int, *, function: str) -> list[Ranked]: ...

    def search_many(self, queries: Sequence[str], k: int) -> list[list[Scored]]: ...


class RankedSearch:
    """``search``, ``search_many`` and ``rank_many`` for an index that ranks chunk positions in ``_rank``.

    Every index here scores all its queries at once and ranks positions; only
    how it scores differs, so the three entry points are written once.
    """

    __slots__ = ()

    def search(self: _Ranks, query: str, k: int) -> list[Scored]:
        """The ``k`` best chunks for ``query``, best first."""
        if not isinstance(query, str):
            raise parameter_error(f"{type(self).__name__}.search", "query", "a str", query)
        return self.search_many([query], k)[0]

    def search_many(self: _Ranks, queries: Sequence[str], k: int) -> list[list[Scored]]:
        """:meth:`search` for every query, scored together."""
        return to_scored(self.chunk_ids, self._rank(queries, k, function=f"{type(self).__name__}.search_many"))

    def rank_many(self: _Ranks, queries: Sequence[str], k: int) -> list[Ranked]:
        """:meth:`search_many` as columns: each query's chunk positions and scores, best first."""
        return self._rank(queries, k, function=f"{type(self).__name__}.rank_many")
