"""contextgrid's metrics agree with the independent reference in tests/reference.py."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
import reference
import strategies
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import contextgrid as cg
from contextgrid.engine.kernels import KERNELS

TOLERANCE = 1e-12

fast = settings(deadline=None, max_examples=150)


def assert_close(actual: dict[str, float], expected: dict[str, float]) -> None:
    assert actual.keys() == expected.keys()
    for key, value in expected.items():
        assert actual[key] == pytest.approx(value, abs=TOLERANCE, rel=0), key


@fast
@given(strategies.cases(), strategies.ks, strategies.metric_orders)
def test_evaluate_matches_the_reference(case: strategies.Case, ks: list[int], metrics: tuple[str, ...]) -> None:
    actual = cg.evaluate(case.qrels, case.run, ks=ks, metrics=metrics)
    expected = reference.evaluate(case.qrels, case.run, ks, metrics)
    assert_close(actual, expected)
    assert list(actual) == list(expected)


@fast
@given(strategies.scored_cases())
def test_evaluate_with_its_defaults_matches_the_reference(case: strategies.Case) -> None:
    expected = reference.evaluate(case.qrels, case.run, cg.DEFAULT_KS, strategies.BUILTIN)
    assert_close(cg.evaluate(case.qrels, case.run), expected)


@fast
@given(strategies.cases(), st.sampled_from(strategies.BUILTIN), strategies.k)
def test_per_query_matches_the_reference(case: strategies.Case, metric: str, k: int) -> None:
    assert_close(cg.per_query(case.qrels, case.run, metric, k), reference.per_query(case.qrels, case.run, metric, k))


@fast
@given(strategies.cases())
def test_mean_rank_of_first_relevant_matches_the_reference(case: strategies.Case) -> None:
    expected = reference.mean_rank_of_first_relevant(case.qrels, case.run)
    actual = cg.mean_rank_of_first_relevant(case.qrels, case.run)
    if expected is None:
        assert actual is None
    else:
        assert type(actual) is float
        assert actual == pytest.approx(expected, abs=TOLERANCE, rel=0)


@fast
@given(strategies.judgements, strategies.ranking_with_repeats, strategies.k, st.sampled_from(strategies.BUILTIN))
def test_a_metric_on_its_own_counts_a_repeated_id_once(
    judgements: dict[str, int], ranked: list[str], k: int, metric: str
) -> None:
    expected = reference.METRIC_FUNCTIONS[metric](judgements, ranked, k)
    assert cg.get_metric(metric).evaluate(judgements, ranked, k) == pytest.approx(expected, abs=TOLERANCE, rel=0)


def with_repeats_replaced(ranked: Sequence[str]) -> list[str]:
    """The page's reading of a repeat: a slot holding a chunk nobody judged."""
    seen: set[str] = set()
    replaced = []
    for position, chunk in enumerate(ranked):
        replaced.append(f"unjudged-{position}" if chunk in seen else chunk)
        seen.add(chunk)
    return replaced


@fast
@given(strategies.judgements, strategies.ranking_with_repeats, strategies.k, st.sampled_from(strategies.BUILTIN))
def test_a_repeat_scores_what_an_unjudged_chunk_in_its_slot_scores(
    judgements: dict[str, int], ranked: list[str], k: int, metric: str
) -> None:
    instance = cg.get_metric(metric)
    expected = instance.evaluate(judgements, with_repeats_replaced(ranked), k)
    assert instance.evaluate(judgements, ranked, k) == pytest.approx(expected, abs=TOLERANCE, rel=0)


@pytest.mark.parametrize("metric", strategies.BUILTIN)
def test_the_pages_repeat_example_c1_c1_x_scores_as_c1_y_x(metric: str) -> None:
    instance = cg.get_metric(metric)
    judgements = {"c1": 2, "x": 1, "z": 1}
    assert instance.evaluate(judgements, ["c1", "c1", "x"], 3) == instance.evaluate(judgements, ["c1", "y", "x"], 3)


@pytest.fixture
def protocol_twins() -> dict[str, str]:
    """Each built-in metric subclassed under a new name, so it has no engine kernel."""
    twins = {}
    for builtin in strategies.BUILTIN:
        parent = cg.METRICS.get(builtin)
        twin_name = f"{builtin}_per_question"
        twin = type(f"{parent.__name__}PerQuestion", (parent,), {"name": twin_name})
        assert twin not in KERNELS
        cg.METRICS.register(twin_name)(twin)
        twins[builtin] = twin_name
    return twins


# The twins are registered once per test, not per example: re-registering them would change nothing.
@settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=strategies.cases(), ks=strategies.ks)
def test_the_whole_run_engine_and_the_per_question_protocol_agree(
    protocol_twins: dict[str, str], case: strategies.Case, ks: list[int]
) -> None:
    engine = cg.evaluate(case.qrels, case.run, ks=ks, metrics=list(protocol_twins))
    protocol = cg.evaluate(case.qrels, case.run, ks=ks, metrics=list(protocol_twins.values()))
    renamed = {key.replace("_per_question@", "@"): value for key, value in protocol.items()}
    assert renamed == engine


@settings(deadline=None, max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=strategies.cases(), metric=st.sampled_from(strategies.BUILTIN), k=strategies.k)
def test_per_query_through_the_engine_and_through_the_protocol_agree(
    protocol_twins: dict[str, str], case: strategies.Case, metric: str, k: int
) -> None:
    engine = cg.per_query(case.qrels, case.run, metric, k)
    assert cg.per_query(case.qrels, case.run, protocol_twins[metric], k) == engine
