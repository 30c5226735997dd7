"""contextgrid.index.base: Scored, and recall_against_exact."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import contextgrid as cg
from contextgrid.core.errors import ContextGridError, InvalidParameterError
from contextgrid.index.base import Scored

EXACT = [Scored("c1", 0.9), Scored("c2", 0.8), Scored("c3", 0.7)]
APPROX = [Scored("c1", 0.9), Scored("c9", 0.75), Scored("c3", 0.7)]


def test_values_from_the_spec() -> None:
    assert cg.recall_against_exact(APPROX, EXACT, k=3) == 0.6666666666666666
    assert cg.recall_against_exact(APPROX, EXACT, k=1) == 1.0
    assert cg.recall_against_exact(APPROX, [], k=3) == 1.0


def test_only_the_approximate_top_k_counts() -> None:
    late = [Scored("c1", 0.9), Scored("c8", 0.8), Scored("c9", 0.7), Scored("c2", 0.6), Scored("c3", 0.5)]
    assert cg.recall_against_exact(late, EXACT, k=3) == 1 / 3
    assert cg.recall_against_exact(late, EXACT, k=5) == 1.0


def test_k_beyond_the_lists_uses_everything() -> None:
    assert cg.recall_against_exact(APPROX, EXACT, k=100) == 2 / 3


def test_an_empty_approximate_run_finds_nothing() -> None:
    assert cg.recall_against_exact([], EXACT, k=2) == 0.0


@pytest.mark.parametrize("k", [0, -1])
def test_k_below_one_is_refused(k: int) -> None:
    with pytest.raises(ContextGridError) as caught:
        cg.recall_against_exact(APPROX, EXACT, k=k)
    assert str(caught.value) == (
        f"cut-off k must be at least 1, got {k}. A k of 0 or below is not a smaller top-k, "
        "it is a slice that means something else."
    )


@pytest.mark.parametrize("k", ["3", 2.0, True, None])
def test_k_that_is_not_an_int_is_refused_in_sklearn_wording(k: Any) -> None:
    with pytest.raises(InvalidParameterError) as caught:
        cg.recall_against_exact(APPROX, EXACT, k=k)
    assert str(caught.value) == (f"The 'k' parameter of recall_against_exact must be an int >= 1. Got {k!r} instead.")


def test_scored_holds_an_id_and_a_number() -> None:
    assert Scored("c1", 0.5) == Scored(chunk_id="c1", score=0.5)
    assert Scored("c1", 3).score == 3
    assert Scored("c1", np.float32(0.25)).score == 0.25  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Scored("c1", 0.5).score = 1.0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("", 0.5), "Scored: chunk_id must be a non-empty str, got ''"),
        ((7, 0.5), "Scored: chunk_id must be a non-empty str, got 7"),
        (("c1", "0.5"), "Scored('c1'): score must be a number, got '0.5'"),
        (("c1", True), "Scored('c1'): score must be a number, got True"),
        (("c1", None), "Scored('c1'): score must be a number, got None"),
    ],
)
def test_scored_refuses_bad_fields(args: tuple[Any, Any], message: str) -> None:
    with pytest.raises(ContextGridError) as caught:
        Scored(*args)
    assert str(caught.value) == message


def test_scored_is_not_a_top_level_name() -> None:
    assert not hasattr(cg, "Scored")
    assert "Scored" not in cg.__all__


ids = st.lists(st.sampled_from([f"c{n}" for n in range(8)]), unique=True, max_size=8)


@given(ids, ids, st.integers(1, 10))
def test_recall_against_exact_is_the_share_of_exacts_top_k_found(
    approximate: list[str], exact: list[str], k: int
) -> None:
    value = cg.recall_against_exact([Scored(c, 0.0) for c in approximate], [Scored(c, 0.0) for c in exact], k=k)
    wanted = exact[:k]
    found = [chunk_id for chunk_id in wanted if chunk_id in approximate[:k]]
    assert value == (len(found) / len(wanted) if wanted else 1.0)
    assert type(value) is float
    assert 0.0 <= value <= 1.0
    assert cg.recall_against_exact([Scored(c, 0.0) for c in exact], [Scored(c, 0.0) for c in exact], k=k) == 1.0
