"""top_k: the best k columns of each row, ties in column order, only eligible cells."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from contextgrid.index.ranking import query_blocks, top_k


def reference(scores: np.ndarray, k: int, eligible: np.ndarray) -> list[list[tuple[int, float]]]:
    """Sort each row's eligible cells by (-score, column) and keep k: obviously right, slow."""
    return [
        sorted(
            ((column, float(scores[row, column])) for column in range(scores.shape[1]) if eligible[row, column]),
            key=lambda pair: (-pair[1], pair[0]),
        )[:k]
        for row in range(scores.shape[0])
    ]


@settings(max_examples=200, deadline=None)
@given(
    scores=arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 9)), elements=st.integers(-3, 3)),
    k=st.integers(1, 12),
    data=st.data(),
)
def test_top_k_matches_a_full_sort_with_ties_in_column_order(scores: np.ndarray, k: int, data: st.DataObject) -> None:
    # Small integer scores make ties the common case, which is where a partial sort goes wrong.
    eligible = data.draw(arrays(np.bool_, scores.shape))
    got = [list(zip(columns.tolist(), values.tolist(), strict=True)) for columns, values in top_k(scores, k, eligible)]
    assert got == reference(scores, k, eligible)


def test_top_k_without_eligibility_keeps_every_cell_and_breaks_ties_by_column() -> None:
    scores = np.array([[0.5, 0.9, 0.5, 0.1], [1.0, 1.0, 1.0, 1.0]])
    got = [(columns.tolist(), values.tolist()) for columns, values in top_k(scores, 3)]
    assert got == [([1, 0, 2], [0.9, 0.5, 0.5]), ([0, 1, 2], [1.0, 1.0, 1.0])]


def test_top_k_of_no_rows_is_empty() -> None:
    assert top_k(np.zeros((0, 4)), 3) == []


def test_query_blocks_cover_every_query_once() -> None:
    blocks = list(query_blocks(10, 1 << 21))
    assert [(block.start, block.stop) for block in blocks] == [(0, 2), (2, 4), (4, 6), (6, 8), (8, 10)]
    assert [(block.start, block.stop) for block in query_blocks(3, 5)] == [(0, 3)]
