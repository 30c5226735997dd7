"""HybridIndex: reciprocal rank fusion, scores worked by hand."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import pytest

import contextgrid as cg
from contextgrid.index import BM25Index, DenseIndex, HybridIndex, Index, LSAIndex, TfidfSvdEmbedder
from contextgrid.index.base import Scored


class FixedIndex:
    """An index a user wrote: it ranks the same chunks for every query, down to ``k``."""

    name: ClassVar[str] = "fixed"
    version: ClassVar[str] = "1"

    def __init__(self, ranking: Sequence[str], chunk_ids: Sequence[str] | None = None) -> None:
        self.ranking = list(ranking)
        self._chunk_ids = tuple(chunk_ids if chunk_ids is not None else ranking)
        self.depths: list[int] = []

    @property
    def chunk_ids(self) -> tuple[str, ...]:
        return self._chunk_ids

    def search(self, query: str, k: int) -> list[Scored]:
        return self.search_many([query], k)[0]

    def search_many(self, queries: Sequence[str], k: int) -> list[list[Scored]]:
        self.depths.append(k)
        return [[Scored(chunk_id, 1.0) for chunk_id in self.ranking[:k]] for _ in queries]


def test_fused_scores_are_the_sum_of_reciprocal_ranks() -> None:
    first = FixedIndex(["c1", "c2", "c3"])
    second = FixedIndex(["c3", "c1"], chunk_ids=["c1", "c2", "c3"])
    hits = HybridIndex((first, second)).search("anything", 3)
    # c1: 1/(60+1) + 1/(60+2); c3: 1/(60+3) + 1/(60+1); c2: 1/(60+2) only.
    assert [hit.chunk_id for hit in hits] == ["c1", "c3", "c2"]
    assert [hit.score for hit in hits] == pytest.approx([1 / 61 + 1 / 62, 1 / 63 + 1 / 61, 1 / 62], rel=1e-15)


def test_rrf_k_is_the_constant_added_to_each_rank() -> None:
    hits = HybridIndex((FixedIndex(["a", "b"]), FixedIndex(["b", "a"])), rrf_k=0).search("q", 2)
    assert [(hit.chunk_id, hit.score) for hit in hits] == [("a", 1.5), ("b", 1.5)]


def test_equal_fused_scores_keep_the_first_components_chunk_order() -> None:
    first = FixedIndex(["x"], chunk_ids=["y", "x"])
    second = FixedIndex(["y", "z"], chunk_ids=["z", "y"])
    hybrid = HybridIndex((first, second))
    assert hybrid.chunk_ids == ("y", "x", "z")
    assert [hit.chunk_id for hit in hybrid.search("q", 3)] == ["y", "x", "z"]


def test_components_are_searched_to_depth_or_k_whichever_is_deeper() -> None:
    first, second = FixedIndex(["a", "b", "c"]), FixedIndex(["c", "b", "a"])
    HybridIndex((first, second), depth=2).search("q", 1)
    HybridIndex((first, second), depth=2).search("q", 3)
    assert first.depths == second.depths == [2, 3]
    # At depth 1 only each component's top chunk counts: b, second in both, is never seen.
    assert [hit.chunk_id for hit in HybridIndex((first, second), depth=1).search("q", 1)] == ["a"]


def chunks_of(texts: list[str]) -> list[cg.Chunk]:
    return [cg.Chunk(f"c{i}", cg.Span("doc", 10 * i, 10 * i + 10), text) for i, text in enumerate(texts)]


def test_bm25_and_lsa_fused_from_chunks() -> None:
    texts = ["refunds are paid within thirty days", "the cat sat on the mat", "refund policy for cats"]
    chunks = chunks_of(texts)
    hybrid = HybridIndex.from_chunks(chunks, component_options={"lsa": {"dim": 3, "seed": 2}})
    bm25 = BM25Index.from_chunks(chunks)
    dense = LSAIndex.from_chunks(chunks, dim=3, seed=2)
    for query in ["refunds paid", "cat", "nothing known"]:
        expected: dict[str, float] = {}
        for ranking in (bm25.search(query, 3), dense.search(query, 3)):
            for rank, hit in enumerate(ranking, start=1):
                expected[hit.chunk_id] = expected.get(hit.chunk_id, 0.0) + 1 / (60 + rank)
        assert {hit.chunk_id: hit.score for hit in hybrid.search(query, 3)} == pytest.approx(expected)
    assert hybrid.search("nothing known", 3) == []


def test_the_same_options_give_the_same_fusion_twice() -> None:
    chunks = chunks_of(["apple pear fig", "pear kiwi", "kiwi lime plum", "apple plum"])
    options = {"components": ("bm25", "lsa", "dense_int8"), "component_options": {"lsa": {"seed": 4}}}
    options["component_options"]["dense_int8"] = {"embedder": TfidfSvdEmbedder(dim=3)}  # type: ignore[index]
    first, second = HybridIndex.from_chunks(chunks, **options), HybridIndex.from_chunks(chunks, **options)  # type: ignore[arg-type]
    queries = ["apple", "kiwi pear", "plum lime apple"]
    assert first.search_many(queries, 4) == second.search_many(queries, 4)


def test_bad_components_are_refused_clearly() -> None:
    chunks = chunks_of(["apple pear", "fig"])
    with pytest.raises(
        cg.InvalidParameterError, match=r"'components' parameter of HybridIndex must be a sequence of two"
    ):
        HybridIndex((FixedIndex(["a"]),))
    with pytest.raises(cg.ContextGridError, match=r"components\[1\] is not an index .* got 'bm25'"):
        HybridIndex((FixedIndex(["a"]), "bm25"))  # type: ignore[arg-type]
    with pytest.raises(cg.InvalidParameterError, match=r"'rrf_k' parameter of HybridIndex .* Got -1"):
        HybridIndex((FixedIndex(["a"]), FixedIndex(["a"])), rrf_k=-1)
    with pytest.raises(cg.ContextGridError, match=r"cut-off k must be at least 1, got 0"):
        HybridIndex((FixedIndex(["a"]), FixedIndex(["a"])), depth=0)
    with pytest.raises(cg.UnknownPluginError, match=r"no retriever named 'bm52'. Available: bm25, dense, dense_int8"):
        HybridIndex.from_chunks(chunks, components=("bm52", "dense"))
    with pytest.raises(cg.ContextGridError, match=r"component_options names 'dense_int8', which is not one of"):
        HybridIndex.from_chunks(chunks, component_options={"dense_int8": {}})
    with pytest.raises(cg.InvalidParameterError, match=r"component_options\['lsa'\]\" parameter .* Got 4 instead"):
        HybridIndex.from_chunks(chunks, component_options={"lsa": 4})  # type: ignore[dict-item]
    assert isinstance(FixedIndex(["a"]), Index)


def test_the_default_components_are_bm25_with_lsa_or_with_dense_when_an_embedder_is_given() -> None:
    chunks = chunks_of(["apple pear", "fig kiwi", "kiwi lime"])
    assert [type(c) for c in HybridIndex.from_chunks(chunks).components] == [BM25Index, LSAIndex]
    embedded = HybridIndex.from_chunks(chunks, embedder=TfidfSvdEmbedder(dim=2))
    assert [type(c) for c in embedded.components] == [BM25Index, DenseIndex]


def test_a_component_that_breaks_the_index_contract_is_named() -> None:
    with pytest.raises(cg.ContextGridError, match=r"returned chunk 'zz', which is not in its chunk_ids"):
        HybridIndex((FixedIndex(["a"]), FixedIndex(["zz"], chunk_ids=["a"]))).search("q", 1)
    with pytest.raises(cg.ContextGridError, match=r"returned a repeated chunk: \['a', 'a'\]"):
        HybridIndex((FixedIndex(["a"]), FixedIndex(["a", "a"], chunk_ids=["a"]))).search("q", 2)
