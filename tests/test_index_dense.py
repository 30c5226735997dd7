"""DenseIndex against brute-force cosine, and LSA (TF-IDF + SVD) against TF-IDF by hand."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pytest

import contextgrid as cg
from contextgrid.index import DenseIndex, LSAIndex, TfidfSvdEmbedder, build_index


def chunks_of(texts: list[str]) -> list[cg.Chunk]:
    return [cg.Chunk(f"c{i}", cg.Span("doc", 10 * i, 10 * i + 10), text) for i, text in enumerate(texts)]


class TableEmbedder:
    """A pre-computed embedding: text "v7" is row 7 of the table (a stand-in for a pre-trained model)."""

    def __init__(self, table: np.ndarray) -> None:
        self.table = table

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        return self.table[[int(text[1:]) for text in texts]]


LETTERS = TfidfSvdEmbedder(dim=2)


def brute_force(vectors: np.ndarray, queries: np.ndarray, k: int) -> list[list[tuple[int, float]]]:
    """Cosine of every pair in float64, sorted best first with ties in chunk order."""
    unit_vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    unit_queries = queries / np.linalg.norm(queries, axis=1, keepdims=True)
    results = []
    for query in unit_queries:
        cosines = [float(np.dot(query, vector)) for vector in unit_vectors]
        order = sorted(range(len(cosines)), key=lambda position: (-cosines[position], position))[:k]
        results.append([(position, cosines[position]) for position in order])
    return results


def test_dense_search_matches_brute_force_cosine() -> None:
    rng = np.random.default_rng(11)
    vectors = rng.standard_normal((120, 16)).astype(np.float32)
    queries = rng.standard_normal((25, 16)).astype(np.float32)
    index = DenseIndex(tuple(f"c{i}" for i in range(120)), vectors, TableEmbedder(queries))
    got = index.search_many([f"v{i}" for i in range(25)], 7)
    expected = brute_force(vectors.astype(np.float64), queries.astype(np.float64), 7)
    for hits, wanted in zip(got, expected, strict=True):
        assert [hit.chunk_id for hit in hits] == [f"c{position}" for position, _ in wanted]
        assert [hit.score for hit in hits] == pytest.approx([cosine for _, cosine in wanted], abs=1e-6)


def test_equal_cosines_keep_chunk_order() -> None:
    vectors = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 0.0], [1.0, 0.0]], dtype=np.float32)
    index = DenseIndex(("a", "b", "c", "d"), vectors, TableEmbedder(np.array([[3.0, 0.0]])))
    assert [hit.chunk_id for hit in index.search("v0", 4)] == ["a", "c", "d", "b"]
    assert [hit.score for hit in index.search("v0", 4)] == [1.0, 1.0, 1.0, 0.0]


def test_the_vectors_given_are_copied_not_changed() -> None:
    vectors = np.array([[3.0, 4.0], [0.0, 2.0]], dtype=np.float32)
    index = DenseIndex(("a", "b"), vectors, TableEmbedder(vectors))
    assert vectors.tolist() == [[3.0, 4.0], [0.0, 2.0]]
    np.testing.assert_allclose(index.vectors, [[0.6, 0.8], [0.0, 1.0]], rtol=1e-6)
    with pytest.raises(ValueError, match="read-only"):
        index.vectors[0, 0] = 1.0


def tfidf_by_hand(texts: list[str], text: str) -> dict[str, float]:
    """scikit-learn's default TF-IDF, from its documented formula: raw counts times
    ln((1 + n) / (1 + df)) + 1, then scaled to unit length."""
    documents = [document.split() for document in texts]
    n = len(documents)
    weights = {
        word: count * (math.log((1 + n) / (1 + sum(word in document for document in documents))) + 1)
        for word, count in Counter(text.split()).items()
        if any(word in document for document in documents)
    }
    norm = math.sqrt(sum(weight * weight for weight in weights.values()))
    return {word: weight / norm for word, weight in weights.items()}


def test_full_rank_lsa_ranks_exactly_as_tfidf_cosine() -> None:
    # With as many dimensions as chunks, the SVD keeps every chunk's TF-IDF vector whole, so a
    # query's cosines are its TF-IDF dot products divided by one per-query constant.
    texts = ["apple pear fig", "pear kiwi", "kiwi kiwi lime plum", "apple plum", "fig lime lime"]
    index = LSAIndex.from_chunks(chunks_of(texts), dim=len(texts), seed=3)
    for query in ["apple", "kiwi lime", "pear fig fig", "plum apple kiwi"]:
        wanted = tfidf_by_hand(texts, query)
        dots = [
            sum(wanted.get(word, 0.0) * weight for word, weight in tfidf_by_hand(texts, text).items()) for text in texts
        ]
        hits = index.search(query, len(texts))
        ratios = [hit.score / dots[int(hit.chunk_id[1:])] for hit in hits if dots[int(hit.chunk_id[1:])] > 1e-9]
        assert ratios == pytest.approx([ratios[0]] * len(ratios), rel=1e-4)
        assert [dots[int(hit.chunk_id[1:])] for hit in hits] == sorted(dots, reverse=True)


def test_the_chunk_with_the_querys_words_ranks_first() -> None:
    texts = ["refunds are paid within thirty days", "the cat sat on the mat", "the dog barked at the cat"]
    index = LSAIndex.from_chunks(chunks_of(texts), dim=8, seed=0)
    assert index.search("when are refunds paid", 1)[0].chunk_id == "c0"
    assert index.search("the dog barked", 1)[0].chunk_id == "c2"


def test_the_same_seed_gives_the_same_vectors_and_results() -> None:
    texts = [
        f"{a} {b} {c}" for a in ("red", "blue", "green") for b in ("apple", "pear") for c in ("tart", "pie", "jam")
    ]
    first = LSAIndex.from_chunks(chunks_of(texts), dim=5, seed=42)
    second = LSAIndex.from_chunks(chunks_of(texts), dim=5, seed=42)
    assert np.array_equal(first.vectors, second.vectors)
    queries = ["red pie", "green apple jam", "blue"]
    assert first.search_many(queries, 6) == second.search_many(queries, 6)


def test_an_empty_or_unknown_query_has_no_direction_and_matches_nothing() -> None:
    index = LSAIndex.from_chunks(chunks_of(["apple pear", "fig kiwi"]))
    assert index.search("", 3) == []
    assert index.search("banana", 3) == []
    assert index.search_many(["", "apple"], 1)[0] == []


def test_k_larger_than_the_corpus_returns_every_chunk_once() -> None:
    index = LSAIndex.from_chunks(chunks_of(["apple pear", "fig kiwi", "apple"]))
    assert sorted(hit.chunk_id for hit in index.search("apple", 100)) == ["c0", "c1", "c2"]


def test_the_embedding_is_as_wide_as_the_corpus_allows() -> None:
    assert LSAIndex.from_chunks(chunks_of(["apple pear", "fig kiwi", "lime"])).dim == 3
    assert LSAIndex.from_chunks(chunks_of(["apple pear fig kiwi lime plum"] * 2), dim=4).dim == 2
    embedding = TfidfSvdEmbedder(dim=2, seed=0).fit(["red apple", "green apple", "green pear"])
    assert embedding.dim == 2


def test_bad_embedders_and_options_are_refused_clearly() -> None:
    chunks = chunks_of(["apple pear", "fig kiwi"])
    with pytest.raises(cg.ContextGridError, match=r"returned an array of shape \(3, 2\) for 2 texts"):
        DenseIndex.from_chunks(chunks, embedder=lambda texts: np.ones((3, 2)))
    with pytest.raises(cg.ContextGridError, match=r"non-finite value .* for text 1: 'fig kiwi'"):
        DenseIndex.from_chunks(chunks, embedder=lambda texts: np.array([[1.0, 0.0], [np.nan, 1.0]]))
    with pytest.raises(cg.InvalidParameterError, match=r"'dim' parameter of TfidfSvdEmbedder .* Got 0"):
        LSAIndex.from_chunks(chunks, dim=0)
    with pytest.raises(cg.ContextGridError, match=r"at least two distinct words .* \['apple'\]"):
        LSAIndex.from_chunks(chunks_of(["apple", "Apple apple"]))
    index = DenseIndex(("a",), np.ones((1, 2)), lambda texts: np.ones((len(texts), 3)))
    with pytest.raises(cg.ContextGridError, match=r"returned 3 columns where the index holds 2-dimensional"):
        index.search("x", 1)


def test_chunks_are_checked_before_anything_is_built() -> None:
    with pytest.raises(
        cg.ContextGridError, match=r"chunk ids must be distinct, repeated: 'c0' \(chunks\[0\] and chunks\[2\]\)"
    ):
        DenseIndex.from_chunks([*chunks_of(["apple", "pear"]), chunks_of(["fig"])[0]], embedder=LETTERS)
    with pytest.raises(
        cg.ContextGridError, match=r"'chunks' parameter of DenseIndex.from_chunks must be a non-empty sequence of Chunk"
    ):
        DenseIndex.from_chunks([], embedder=LETTERS)
    with pytest.raises(
        cg.ContextGridError, match=r"'chunks\[1\]' parameter of DenseIndex.from_chunks must be a Chunk. Got 'pear'"
    ):
        DenseIndex.from_chunks([chunks_of(["apple"])[0], "pear"], embedder=LETTERS)  # type: ignore[list-item]


def test_dense_without_an_embedder_is_refused_with_what_to_pass() -> None:
    chunks = chunks_of(["apple pear", "fig kiwi"])
    for build in (lambda: DenseIndex.from_chunks(chunks), lambda: build_index("dense", chunks)):
        with pytest.raises(cg.InvalidParameterError, match=r"needs an embedder: pass embedder=.*--embedder .*'lsa'"):
            build()
    with pytest.raises(cg.InvalidParameterError, match=r"QuantizedIndex.from_chunks needs an embedder"):
        build_index("dense_int8", chunks)


def test_lsa_is_dense_search_over_tfidf_svd_vectors() -> None:
    texts = ["apple pear fig", "pear kiwi", "kiwi kiwi lime plum", "apple plum"]
    lsa = build_index("lsa", chunks_of(texts), dim=3, seed=1)
    dense = DenseIndex.from_chunks(chunks_of(texts), embedder=TfidfSvdEmbedder(dim=3, seed=1))
    assert isinstance(lsa, LSAIndex)
    assert lsa.name == "lsa"
    assert repr(lsa) == "LSAIndex(chunks=4, dim=3)"
    assert np.array_equal(lsa.vectors, dense.vectors)
    assert lsa.search_many(["apple", "kiwi lime"], 4) == dense.search_many(["apple", "kiwi lime"], 4)
