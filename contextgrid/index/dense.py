"""Exact dense search: cosine similarity against every chunk's embedding.

``dense`` searches with the embedder it is given (a model of yours: contextgrid
downloads none) and refuses to be built without one; ``lsa`` is the same
search over TF-IDF + SVD vectors fitted on the chunks (latent semantic
analysis), which needs no model and is lexical, not neural.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

import numpy as np
from numpy.typing import NDArray

from contextgrid.core.checks import check_k
from contextgrid.core.errors import ContextGridError, InvalidParameterError
from contextgrid.data.records import Chunk
from contextgrid.index.base import RETRIEVERS, Ranked, check_chunks, check_queries
from contextgrid.index.embeddings import Embedder, FitsOnCorpus, TfidfSvdEmbedder, embed, fitted
from contextgrid.index.ranking import RankedSearch, rank_blocks

__all__ = ["NEEDS_EMBEDDER", "DenseIndex", "LSAIndex", "unit_rows"]

NEEDS_EMBEDDER = (
    "needs an embedder: pass embedder= (a function from a list of texts to a 2-D array with one row per text, "
    "such as a sentence-transformers model's encode, or an object with fit()); on the command line, "
    "--embedder MODULE:CALLABLE. contextgrid downloads no model. For TF-IDF + SVD vectors, which need none, "
    "use the 'lsa' retriever"
)
"""Why ``dense`` without an embedder is refused, and what to pass instead."""


def unit_rows(matrix: NDArray[np.floating[Any]]) -> NDArray[np.float32]:
    """``matrix`` with every row scaled to length 1; zero rows stay zero (they match nothing)."""
    norms = np.linalg.norm(matrix.astype(np.float64), axis=1, keepdims=True)
    return (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float32)


@RETRIEVERS.register("dense")
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class DenseIndex(RankedSearch):
    """Exact cosine search over chunk embeddings held as a float32 matrix of unit rows.

    Searching many queries is one matrix product per block of queries. A
    query whose embedding is the zero vector (no word the corpus knows, under
    the default embedder) has no direction, matches nothing and returns no
    chunks. Ties are broken by chunk order.

    Examples
    --------
    >>> import contextgrid as cg
    >>> from contextgrid.index import DenseIndex
    >>> chunks = [
    ...     cg.Chunk("c1", cg.Span("a.md", 0, 30), "Refunds take thirty days."),
    ...     cg.Chunk("c2", cg.Span("a.md", 30, 60), "Shipping is free over fifty dollars."),
    ... ]
    >>> def letters(texts):  # a toy embedder: how often each of the letters a to z occurs
    ...     return [[text.lower().count(chr(97 + i)) for i in range(26)] for text in texts]
    >>> index = DenseIndex.from_chunks(chunks, embedder=letters)
    >>> [hit.chunk_id for hit in index.search("refunds", 2)]
    ['c1', 'c2']
    >>> index.search("?", 2)  # no letter: the zero vector has no direction
    []
    >>> DenseIndex.from_chunks(chunks)
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.InvalidParameterError: DenseIndex.from_chunks needs an embedder: pass embedder= ...
    """

    name: ClassVar[str] = "dense"
    version: ClassVar[str] = "1"
    needs_embedder: ClassVar[bool] = True

    chunk_ids: tuple[str, ...]
    vectors: NDArray[np.floating[Any]] = field(repr=False)  # held as a read-only float32 copy of unit rows
    embedder: Embedder = field(repr=False)

    def __post_init__(self) -> None:
        vectors = np.asarray(self.vectors)
        if vectors.ndim != 2 or vectors.shape[0] != len(self.chunk_ids):
            raise ContextGridError(
                f"DenseIndex: vectors of shape {vectors.shape} do not give one row to each of "
                f"{len(self.chunk_ids)} chunks"
            )
        if not np.isfinite(vectors).all():
            raise ContextGridError("DenseIndex: vectors hold a non-finite value (nan or inf)")
        # A private read-only copy: the caller's array is neither changed nor able to change the index.
        held = unit_rows(vectors.astype(np.float32))
        held.setflags(write=False)
        object.__setattr__(self, "vectors", held)

    @classmethod
    def from_chunks(cls, chunks: Sequence[Chunk], *, embedder: Embedder | FitsOnCorpus | None = None) -> DenseIndex:
        """Embed ``chunks`` with ``embedder`` (fitted on their text first if it has ``fit``) and index them.

        ``embedder`` is required; its default ``None`` is there only to be refused with what to pass.
        """
        function = "DenseIndex.from_chunks"
        if embedder is None:
            raise InvalidParameterError(f"{function} {NEEDS_EMBEDDER}")
        return cls._embedded(chunks, embedder, function=function)

    @classmethod
    def _embedded(cls, chunks: Sequence[Chunk], embedder: Embedder | FitsOnCorpus, *, function: str) -> Self:
        checked = check_chunks(chunks, function=function)
        texts = [chunk.text for chunk in checked]
        ready = fitted(embedder, texts, function=function)
        return cls(tuple(chunk.id for chunk in checked), embed(ready, texts), ready)

    @property
    def dim(self) -> int:
        """How many dimensions each vector has."""
        return int(self.vectors.shape[1])

    @property
    def nbytes(self) -> int:
        """Bytes held by the chunk vectors."""
        return int(self.vectors.nbytes)

    def embed_queries(self, queries: Sequence[str]) -> NDArray[np.float32]:
        """The queries' embeddings as unit rows (zero rows for queries with no direction)."""
        return unit_rows(embed(self.embedder, queries, dim=self.dim))

    def _rank(self, queries: Sequence[str], k: int, *, function: str) -> list[Ranked]:
        checked = check_queries(queries, function=function)
        cutoff = check_k(k, function=function)
        if not checked:
            return []
        unit = self.embed_queries(checked)
        has_direction = np.linalg.norm(unit, axis=1) > 0

        def score_block(block: slice) -> tuple[NDArray[np.floating], NDArray[np.bool_]]:
            scores = unit[block] @ self.vectors.T
            return scores, np.broadcast_to(has_direction[block, None], scores.shape)

        return rank_blocks(len(checked), len(self.chunk_ids), cutoff, score_block)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(chunks={len(self.chunk_ids)}, dim={self.dim})"


@RETRIEVERS.register("lsa")
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class LSAIndex(DenseIndex):
    """Latent semantic analysis: exact cosine search over :class:`TfidfSvdEmbedder` vectors fitted on the chunks.

    A lexical baseline that needs no model: TF-IDF over contextgrid's words,
    reduced to ``dim`` dimensions by truncated SVD with ``random_state=seed``.

    Examples
    --------
    >>> import contextgrid as cg
    >>> from contextgrid.index import LSAIndex
    >>> chunks = [
    ...     cg.Chunk("c1", cg.Span("a.md", 0, 30), "Refunds take thirty days."),
    ...     cg.Chunk("c2", cg.Span("a.md", 30, 60), "Shipping is free over fifty dollars."),
    ... ]
    >>> index = LSAIndex.from_chunks(chunks, dim=2, seed=0)
    >>> [hit.chunk_id for hit in index.search("refunds", 2)]
    ['c1', 'c2']
    >>> index.search("unknown words", 2)  # no word the chunks have: the zero vector
    []
    >>> index
    LSAIndex(chunks=2, dim=2)
    """

    name: ClassVar[str] = "lsa"
    version: ClassVar[str] = "1"
    needs_embedder: ClassVar[bool] = False

    @classmethod
    def from_chunks(  # type: ignore[override]  # LSA is configured by dim and seed, not by an embedder
        cls, chunks: Sequence[Chunk], *, dim: int = 128, seed: int = 0
    ) -> LSAIndex:
        """Fit TF-IDF + SVD with ``dim`` dimensions (at most) and ``seed`` on ``chunks`` and index them."""
        return cls._embedded(chunks, TfidfSvdEmbedder(dim=dim, seed=seed), function="LSAIndex.from_chunks")
