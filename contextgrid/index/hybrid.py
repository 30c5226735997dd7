"""Hybrid search: reciprocal rank fusion (RRF) of two or more indexes.

Each component index ranks the query's chunks; a chunk's fused score is
``sum over components of 1 / (rrf_k + rank)``, where ``rank`` is its 1-based
position in that component's ranking and a component that did not return it
adds nothing (Cormack, Clarke and Büttcher, SIGIR 2009, with their constant
``rrf_k = 60``). Only ranks count, never the components' own scores, so BM25
scores and cosines need no common scale.

Each component is searched to ``depth`` (at least ``k``) before fusing;
the default 1000 is the depth of the TREC runs RRF was introduced on.
Equal fused scores are ordered by :attr:`HybridIndex.chunk_ids`: the first
component's chunks in its order, then any chunk only a later one holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from contextgrid.core.checks import check_k
from contextgrid.core.errors import ContextGridError, parameter_error
from contextgrid.data.records import Chunk
from contextgrid.index.base import (
    RETRIEVERS,
    Index,
    Ranked,
    RanksPositions,
    build_index,
    check_chunks,
    check_non_negative,
    check_queries,
    retriever_options,
)
from contextgrid.index.embeddings import Embedder, FitsOnCorpus
from contextgrid.index.ranking import RankedSearch, rank_blocks

__all__ = ["DEFAULT_DEPTH", "DEFAULT_RRF_K", "HybridIndex"]

DEFAULT_RRF_K = 60
"""The RRF constant of Cormack et al.: it damps the weight of the very top ranks."""

DEFAULT_DEPTH = 1000
"""How deep each component is searched before fusing, unless ``k`` is deeper."""


@RETRIEVERS.register("hybrid")
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class HybridIndex(RankedSearch):
    """Reciprocal rank fusion of ``components`` (two or more indexes).

    Examples
    --------
    >>> import contextgrid as cg
    >>> from contextgrid.index import HybridIndex
    >>> chunks = [
    ...     cg.Chunk("c1", cg.Span("a.md", 0, 30), "Refunds take thirty days."),
    ...     cg.Chunk("c2", cg.Span("a.md", 30, 60), "Shipping is free over fifty dollars."),
    ... ]
    >>> hybrid = HybridIndex.from_chunks(chunks, component_options={"lsa": {"dim": 2}})
    >>> hybrid  # doctest: +NORMALIZE_WHITESPACE
    HybridIndex(BM25Index(chunks=2, vocabulary=9, k1=1.5, b=0.75, stemmer='english', stopwords='en'),
                LSAIndex(chunks=2, dim=2), rrf_k=60, depth=1000)
    >>> [(hit.chunk_id, round(hit.score, 6)) for hit in hybrid.search("refunds", 2)]
    [('c1', 0.032787), ('c2', 0.016129)]
    """

    name: ClassVar[str] = "hybrid"
    version: ClassVar[str] = "1"

    components: tuple[Index, ...]
    rrf_k: float = DEFAULT_RRF_K
    depth: int = DEFAULT_DEPTH

    def __post_init__(self) -> None:
        function = "HybridIndex"
        components = self.components
        if isinstance(components, (str, bytes, Mapping)) or not isinstance(components, Sequence):
            raise parameter_error(function, "components", "a sequence of two or more indexes", components)
        if len(components) < 2:
            raise parameter_error(function, "components", "a sequence of two or more indexes", components)
        for position, component in enumerate(components):
            if not isinstance(component, Index):
                raise ContextGridError(
                    f"{function}: components[{position}] is not an index (it needs chunk_ids, search and "
                    f"search_many), got {component!r}"
                )
        check_non_negative(self.rrf_k, function=function, parameter="rrf_k")
        object.__setattr__(self, "components", tuple(components))
        object.__setattr__(self, "depth", check_k(self.depth, function=function, parameter="depth"))

    @classmethod
    def from_chunks(
        cls,
        chunks: Sequence[Chunk],
        *,
        components: Sequence[str] | None = None,
        component_options: Mapping[str, Mapping[str, Any]] | None = None,
        rrf_k: float = DEFAULT_RRF_K,
        depth: int = DEFAULT_DEPTH,
        embedder: Embedder | FitsOnCorpus | None = None,
    ) -> HybridIndex:
        """Build each named retriever over ``chunks`` and fuse them.

        ``components`` defaults to ``("bm25", "dense")`` when an ``embedder`` is
        given, else ``("bm25", "lsa")``. ``component_options`` maps a
        component's name to the options its own ``from_chunks`` takes, e.g.
        ``{"lsa": {"dim": 64, "seed": 1}}``. ``embedder`` goes to every
        component that embeds (one with an ``embedder`` option) and is not
        given one in ``component_options``.
        """
        function = "HybridIndex.from_chunks"
        checked = check_chunks(chunks, function=function)
        if components is None:
            components = ("bm25", "lsa" if embedder is None else "dense")
        if isinstance(components, (str, bytes)) or not isinstance(components, Sequence):
            raise parameter_error(function, "components", "a sequence of two or more retriever names", components)
        options = dict(component_options or {})
        unused = [name for name in options if name not in components]
        if unused:
            raise ContextGridError(
                f"{function}: component_options names {unused[0]!r}, which is not one of the components "
                f"{list(components)}"
            )
        for name, given in options.items():
            if not isinstance(given, Mapping):
                raise parameter_error(function, f"component_options[{name!r}]", "a mapping of option to value", given)
        if embedder is not None:
            for name in components:
                if "embedder" in retriever_options(name):
                    options[name] = {"embedder": embedder, **options.get(name, {})}
        built = tuple(build_index(name, checked, **options.get(name, {})) for name in components)
        return cls(built, rrf_k=rrf_k, depth=depth)

    @property
    def chunk_ids(self) -> tuple[str, ...]:
        """Every chunk any component holds: the first component's in order, then the others' new ones."""
        return tuple(dict.fromkeys(chunk_id for component in self.components for chunk_id in component.chunk_ids))

    def _rank(self, queries: Sequence[str], k: int, *, function: str) -> list[Ranked]:
        checked = check_queries(queries, function=function)
        cutoff = check_k(k, function=function)
        if not checked:
            return []
        chunk_ids = self.chunk_ids
        column = {chunk_id: position for position, chunk_id in enumerate(chunk_ids)}
        depth = max(cutoff, self.depth)
        rows: list[NDArray[np.intp]] = []
        columns: list[NDArray[np.intp]] = []
        ranks: list[NDArray[np.intp]] = []
        for component in self.components:
            for row, found in enumerate(_ranked_columns(component, checked, depth, column)):
                rows.append(np.full(found.size, row, dtype=np.intp))
                columns.append(found)
                ranks.append(np.arange(1, found.size + 1, dtype=np.intp))
        row_of = np.concatenate(rows)
        column_of = np.concatenate(columns)
        share = 1.0 / (float(self.rrf_k) + np.concatenate(ranks))

        def score_block(block: slice) -> tuple[NDArray[np.floating], NDArray[np.bool_]]:
            inside = (row_of >= block.start) & (row_of < block.stop)
            fused = np.zeros((block.stop - block.start, len(chunk_ids)))
            np.add.at(fused, (row_of[inside] - block.start, column_of[inside]), share[inside])
            return fused, fused > 0

        return rank_blocks(len(checked), len(chunk_ids), cutoff, score_block)

    def __repr__(self) -> str:
        parts = ", ".join(repr(component) for component in self.components)
        return f"HybridIndex({parts}, rrf_k={self.rrf_k}, depth={self.depth})"


def _ranked_columns(component: Index, queries: list[str], depth: int, column: dict[str, int]) -> list[NDArray[np.intp]]:
    """Each query's ranking by ``component``, as columns of the fused matrix, best first."""
    if isinstance(component, RanksPositions):
        # Positions map to fused columns through one array: no Scored object per hit.
        to_column = np.fromiter((column[chunk_id] for chunk_id in component.chunk_ids), dtype=np.intp)
        return [to_column[positions] for positions, _ in component.rank_many(queries, depth)]
    rankings = component.search_many(queries, depth)
    for ranking in rankings:
        ids = [hit.chunk_id for hit in ranking]
        unknown = [chunk_id for chunk_id in ids if chunk_id not in column]
        if unknown or len(set(ids)) != len(ids):
            problem = f"chunk {unknown[0]!r}, which is not in its chunk_ids" if unknown else f"a repeated chunk: {ids}"
            raise ContextGridError(f"HybridIndex: the component {component!r} returned {problem}")
    return [
        np.fromiter((column[hit.chunk_id] for hit in ranking), dtype=np.intp, count=len(ranking))
        for ranking in rankings
    ]
