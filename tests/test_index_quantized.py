"""QuantizedIndex: the int8 rule, its error bound, exact integer sums, and what it loses against DenseIndex."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import contextgrid as cg
from contextgrid.index import DenseIndex, QuantizedIndex, TfidfSvdEmbedder
from contextgrid.index.quantized import EXACT_FLOAT32_DIM, quantize


class TableEmbedder:
    """Text "v7" is row 7 of the table."""

    def __init__(self, table: np.ndarray) -> None:
        self.table = table

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        return self.table[[int(text[1:]) for text in texts]]


def random_pair(n: int, dim: int, n_queries: int, seed: int) -> tuple[DenseIndex, QuantizedIndex, list[str]]:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    exact = DenseIndex(tuple(f"c{i}" for i in range(n)), vectors, TableEmbedder(rng.standard_normal((n_queries, dim))))
    return exact, QuantizedIndex.from_dense(exact), [f"v{i}" for i in range(n_queries)]


@settings(max_examples=100, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 5)), elements=st.floats(-1, 1, width=32)))
def test_every_value_moves_by_at_most_half_a_step(values: np.ndarray) -> None:
    codes, scales = quantize(values)
    assert codes.dtype == np.int8
    assert np.abs(codes.astype(int)).max() <= 127
    error = np.abs(values - codes.astype(np.float64) * scales.astype(np.float64))
    assert (error <= scales.astype(np.float64) / 2 * (1 + 1e-6) + 1e-12).all()
    # The largest magnitude of each dimension is stored as +-127, using the whole range.
    in_range = np.abs(values).max(axis=0) / 127 >= np.finfo(np.float32).tiny
    assert (np.abs(codes.astype(int)).max(axis=0)[in_range] == 127).all()


def test_quantize_worked_by_hand() -> None:
    codes, scales = quantize(np.array([[0.5, -1.0, 0.0], [0.25, 0.5, 0.0]]))
    assert codes.tolist() == [[127, -127, 0], [64, 64, 0]]  # 0.25 / (0.5 / 127) = 63.5, rounded to even
    assert scales.tolist() == pytest.approx([0.5 / 127, 1.0 / 127, np.finfo(np.float32).tiny])


def test_a_dimension_zero_in_every_chunk_does_not_cost_the_others_precision() -> None:
    # The query leans hard on dimension 2, which no chunk uses; the other two must still rank right.
    vectors = np.array([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 1.0, 0.0]], dtype=np.float32)
    exact = DenseIndex(("a", "b", "c"), vectors, TableEmbedder(np.array([[0.02, 0.05, 1.0]])))
    approximate = QuantizedIndex.from_dense(exact)
    assert [hit.chunk_id for hit in approximate.search("v0", 3)] == ["b", "c", "a"]
    for found, wanted in zip(approximate.search("v0", 3), exact.search("v0", 3), strict=True):
        assert found.score == pytest.approx(wanted.score, abs=1e-3)


@pytest.mark.parametrize("dim", [24, EXACT_FLOAT32_DIM + 60])
def test_scores_are_exact_int8_products_scaled_back(dim: int) -> None:
    _, approximate, queries = random_pair(40, dim, 6, seed=dim)
    query_codes, steps = approximate.quantize_queries(queries)
    integer = np.matmul(query_codes, approximate.codes.T, dtype=np.int32)  # int32 accumulation, the reference
    assert np.array_equal(approximate.code_dot_products(query_codes), integer)
    for row, hits in enumerate(approximate.search_many(queries, 40)):
        expected = {f"c{i}": float(steps[row]) * int(integer[row, i]) for i in range(40)}
        assert {hit.chunk_id: hit.score for hit in hits} == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_the_score_error_stays_within_the_documented_bound() -> None:
    exact, approximate, queries = random_pair(200, 32, 20, seed=5)
    unit_queries = exact.embed_queries(queries).astype(np.float64)
    cosines = unit_queries @ exact.vectors.astype(np.float64).T
    query_codes, steps = approximate.quantize_queries(queries)
    approximated = steps[:, None] * approximate.code_dot_products(query_codes).astype(np.float64)
    scales = approximate.scales.astype(np.float64)
    bound = (np.abs(unit_queries) @ scales / 2)[:, None] + steps[:, None] / 2 * np.abs(
        approximate.codes.astype(np.float64)
    ).sum(axis=1)
    assert (np.abs(approximated - cosines) <= bound + 1e-9).all()
    assert np.abs(approximated - cosines).max() < 0.01


def test_recall_against_exact_is_close_to_one_on_a_random_corpus() -> None:
    exact, approximate, queries = random_pair(300, 32, 50, seed=7)
    recalls = [
        cg.recall_against_exact(found, wanted, k=10)
        for found, wanted in zip(approximate.search_many(queries, 10), exact.search_many(queries, 10), strict=True)
    ]
    assert np.mean(recalls) >= 0.95
    assert min(recalls) >= 0.8


def test_a_quarter_of_the_memory() -> None:
    exact, approximate, _ = random_pair(300, 32, 1, seed=1)
    assert exact.nbytes == 300 * 32 * 4
    assert approximate.nbytes == 300 * 32 + 32 * 4


def test_from_chunks_is_from_dense_of_the_same_exact_index() -> None:
    chunks = [cg.Chunk(f"c{i}", cg.Span("d", i, i + 1), text) for i, text in enumerate(["apple pear", "fig", "pear"])]
    built = QuantizedIndex.from_chunks(chunks, embedder=TfidfSvdEmbedder(dim=2, seed=1))
    via_dense = QuantizedIndex.from_dense(DenseIndex.from_chunks(chunks, embedder=TfidfSvdEmbedder(dim=2, seed=1)))
    assert np.array_equal(built.codes, via_dense.codes)
    assert built.search_many(["pear", "apple", ""], 3) == via_dense.search_many(["pear", "apple", ""], 3)
    assert built.search("", 3) == []
    assert [hit.chunk_id for hit in built.search("pear", 1)] == ["c0"]


def test_bad_input_is_refused_clearly() -> None:
    with pytest.raises(cg.InvalidParameterError, match=r"'exact' parameter of QuantizedIndex.from_dense"):
        QuantizedIndex.from_dense("not an index")  # type: ignore[arg-type]
    with pytest.raises(cg.ContextGridError, match=r"codes must be an int8 matrix .* got float64 of shape \(1, 2\)"):
        QuantizedIndex(("a",), np.ones((1, 2)), np.ones(2, dtype=np.float32), TableEmbedder(np.ones((1, 2))))  # type: ignore[arg-type]
