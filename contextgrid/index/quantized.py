"""Approximate dense search on int8 codes: a quarter of the memory of the exact index.

Quantization is symmetric and per dimension. Over the unit chunk vectors
``x``, dimension ``j`` gets the scale ``s[j] = max |x[:, j]| / 127`` and every
value is stored as the int8 code ``round(x[i, j] / s[j])``, so no value moves
by more than ``s[j] / 2``. A query ``q`` (a unit vector) is folded into the
same scales, ``q'[j] = q[j] * s[j]``, and quantized symmetrically as a whole
vector, ``c = round(q' / t)`` with ``t = max |q'| / 127``. The score is then
``t * sum_j c[j] * code[i, j]``: int8 times int8, summed exactly (what an
int32 accumulator gives), which approximates the cosine ``q . x[i]`` with
an error of at most ``sum_j |q[j]| * s[j] / 2 + t / 2 * sum_j |code[i, j]|``.

What quantization lost is measured, not assumed: compare a query's
:meth:`QuantizedIndex.search` with the exact :class:`DenseIndex`'s using
:func:`contextgrid.recall_against_exact`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from contextgrid.core.checks import check_k
from contextgrid.core.errors import ContextGridError, InvalidParameterError, parameter_error
from contextgrid.data.records import Chunk
from contextgrid.index.base import RETRIEVERS, Ranked, check_queries
from contextgrid.index.dense import NEEDS_EMBEDDER, DenseIndex, unit_rows
from contextgrid.index.embeddings import Embedder, FitsOnCorpus, embed
from contextgrid.index.ranking import RankedSearch, rank_blocks

__all__ = ["QuantizedIndex", "quantize"]

LEVELS = 127
"""The largest code magnitude: int8 symmetric quantization leaves -128 unused so that 0 sits in the middle."""

EXACT_FLOAT32_DIM = (1 << 24) // (LEVELS * LEVELS)
"""Up to this many dimensions every partial sum of int8 products is an integer below 2**24, exact in float32."""

_DOC_BLOCK = 1 << 16


def quantize(vectors: NDArray[np.floating]) -> tuple[NDArray[np.int8], NDArray[np.float32]]:
    """Per-dimension symmetric int8 codes of ``vectors`` and the scale of each dimension.

    Examples
    --------
    >>> import numpy as np
    >>> codes, scales = quantize(np.array([[0.5, -1.0], [0.25, 0.5]]))
    >>> codes.tolist(), scales.tolist()
    ([[127, -127], [64, 64]], [0.003937007859349251, 0.007874015718698502])
    """
    values = np.asarray(vectors, dtype=np.float64)
    peaks = np.abs(values).max(axis=0) if values.shape[0] else np.zeros(values.shape[1])
    # A dimension that is zero (or below float32's range) everywhere gets the smallest scale: its codes
    # are 0, and folded into a query it adds nothing, rather than crowding out the other dimensions.
    scales = np.maximum(peaks / LEVELS, np.finfo(np.float32).tiny).astype(np.float32)
    codes = np.clip(np.rint(values / scales.astype(np.float64)), -LEVELS, LEVELS).astype(np.int8)
    return codes, scales


@RETRIEVERS.register("dense_int8")
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class QuantizedIndex(RankedSearch):
    """Dense search on int8-quantized chunk vectors (see the module notes for the exact rule).

    Build it from an exact index with :meth:`from_dense` (same embedder, same
    vectors, so any difference is the quantization's) or straight from chunks
    with :meth:`from_chunks` and an embedder (as ``dense``, it is refused
    without one). Ties are broken by chunk order.

    Examples
    --------
    >>> import contextgrid as cg
    >>> from contextgrid.index import LSAIndex, QuantizedIndex
    >>> chunks = [
    ...     cg.Chunk("c1", cg.Span("a.md", 0, 30), "Refunds take thirty days."),
    ...     cg.Chunk("c2", cg.Span("a.md", 30, 60), "Shipping is free over fifty dollars."),
    ... ]
    >>> exact = LSAIndex.from_chunks(chunks, dim=2, seed=0)
    >>> approximate = QuantizedIndex.from_dense(exact)
    >>> cg.recall_against_exact(approximate.search("refunds", 1), exact.search("refunds", 1), k=1)
    1.0
    >>> exact.nbytes, approximate.nbytes
    (16, 12)
    """

    name: ClassVar[str] = "dense_int8"
    version: ClassVar[str] = "1"
    needs_embedder: ClassVar[bool] = True

    chunk_ids: tuple[str, ...]
    codes: NDArray[np.int8] = field(repr=False)
    scales: NDArray[np.float32] = field(repr=False)
    embedder: Embedder = field(repr=False)

    def __post_init__(self) -> None:
        codes = np.asarray(self.codes)
        scales = np.asarray(self.scales)
        if codes.dtype != np.int8 or codes.ndim != 2 or codes.shape[0] != len(self.chunk_ids):
            raise ContextGridError(
                f"QuantizedIndex: codes must be an int8 matrix with one row for each of {len(self.chunk_ids)} "
                f"chunks, got {codes.dtype} of shape {codes.shape}"
            )
        if scales.shape != (codes.shape[1],) or not (np.isfinite(scales) & (scales > 0)).all():
            raise ContextGridError(
                f"QuantizedIndex: scales must hold one positive finite number per dimension ({codes.shape[1]}), "
                f"got shape {scales.shape}"
            )
        for name, value in (("codes", codes.copy()), ("scales", scales.astype(np.float32))):
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    @classmethod
    def from_dense(cls, exact: DenseIndex) -> QuantizedIndex:
        """Quantize an exact index's vectors, keeping its chunks and its embedder."""
        if not isinstance(exact, DenseIndex):
            raise parameter_error("QuantizedIndex.from_dense", "exact", "a DenseIndex", exact)
        codes, scales = quantize(exact.vectors)
        return cls(exact.chunk_ids, codes, scales, exact.embedder)

    @classmethod
    def from_chunks(
        cls,
        chunks: Sequence[Chunk],
        *,
        embedder: Embedder | FitsOnCorpus | None = None,
    ) -> QuantizedIndex:
        """Embed ``chunks`` as :meth:`DenseIndex.from_chunks` does, then quantize; ``embedder`` is required."""
        if embedder is None:
            raise InvalidParameterError(f"QuantizedIndex.from_chunks {NEEDS_EMBEDDER}")
        return cls.from_dense(DenseIndex.from_chunks(chunks, embedder=embedder))

    @property
    def dim(self) -> int:
        """How many dimensions each vector has."""
        return int(self.codes.shape[1])

    @property
    def nbytes(self) -> int:
        """Bytes held by the codes and the scales."""
        return int(self.codes.nbytes + self.scales.nbytes)

    def quantize_queries(self, queries: Sequence[str]) -> tuple[NDArray[np.int8], NDArray[np.float64]]:
        """Each query's int8 code vector (folded into the dimension scales) and the scale ``t`` of its codes.

        A query with no direction gets all-zero codes and scale 0.
        """
        folded = unit_rows(embed(self.embedder, queries, dim=self.dim)).astype(np.float64) * self.scales
        peaks = np.abs(folded).max(axis=1) if self.dim else np.zeros(len(queries))
        steps = peaks / LEVELS
        codes = np.rint(folded / np.where(steps > 0, steps, 1.0)[:, None])
        return np.clip(codes, -LEVELS, LEVELS).astype(np.int8), steps

    def code_dot_products(self, query_codes: NDArray[np.int8]) -> NDArray[np.floating]:
        """``query_codes @ codes.T`` summed exactly, one row per query."""
        # BLAS on floats holding small integers is exact while no sum can pass the float's integer
        # range, and far faster than numpy's integer matmul; float64 covers any realistic dim.
        exact_type: type[np.floating[Any]] = np.float32 if self.dim <= EXACT_FLOAT32_DIM else np.float64
        queries: NDArray[np.floating[Any]] = query_codes.astype(exact_type)
        products = np.empty((queries.shape[0], self.codes.shape[0]), dtype=exact_type)
        for start in range(0, self.codes.shape[0], _DOC_BLOCK):
            block: NDArray[np.floating[Any]] = self.codes[start : start + _DOC_BLOCK].astype(exact_type)
            products[:, start : start + block.shape[0]] = queries @ block.T
        return products

    def _rank(self, queries: Sequence[str], k: int, *, function: str) -> list[Ranked]:
        checked = check_queries(queries, function=function)
        cutoff = check_k(k, function=function)
        if not checked:
            return []
        query_codes, steps = self.quantize_queries(checked)

        def score_block(block: slice) -> tuple[NDArray[np.floating], NDArray[np.bool_]]:
            scores = self.code_dot_products(query_codes[block]).astype(np.float64) * steps[block, None]
            return scores, np.broadcast_to(steps[block, None] > 0, scores.shape)

        return rank_blocks(len(checked), len(self.chunk_ids), cutoff, score_block)

    def __repr__(self) -> str:
        return f"QuantizedIndex(chunks={len(self.chunk_ids)}, dim={self.dim})"
