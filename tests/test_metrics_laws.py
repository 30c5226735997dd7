"""Laws every metric obeys, whatever the qrels and run."""

from __future__ import annotations

import itertools
import random

import pytest
import strategies
from hypothesis import given, settings
from hypothesis import strategies as st

import contextgrid as cg

fast = settings(deadline=None, max_examples=150)


def grid(case: strategies.Case, ks: list[int]) -> dict[str, float]:
    return cg.evaluate(case.qrels, case.run, ks=ks, metrics=strategies.BUILTIN)


@fast
@given(strategies.cases(), strategies.ks)
def test_every_score_is_between_0_and_1(case: strategies.Case, ks: list[int]) -> None:
    assert all(0.0 <= value <= 1.0 for value in grid(case, ks).values())


@fast
@given(strategies.cases(), st.sampled_from(strategies.BUILTIN), strategies.k)
def test_every_per_query_score_is_between_0_and_1(case: strategies.Case, metric: str, k: int) -> None:
    assert all(0.0 <= value <= 1.0 for value in cg.per_query(case.qrels, case.run, metric, k).values())


@fast
@given(strategies.scored_cases(), st.sampled_from(["recall", "hit_rate"]), strategies.k)
def test_recall_and_hit_rate_never_drop_as_k_grows(case: strategies.Case, metric: str, k: int) -> None:
    shallow = cg.per_query(case.qrels, case.run, metric, k)
    deeper = cg.per_query(case.qrels, case.run, metric, k + 1)
    assert all(deeper[question] >= score for question, score in shallow.items())


@fast
@given(strategies.scored_cases(), strategies.k)
def test_precision_times_k_counts_the_distinct_relevant_chunks_in_the_top_k(case: strategies.Case, k: int) -> None:
    for question, score in cg.per_query(case.qrels, case.run, "precision", k).items():
        top = set(case.run.get(question, [])[:k])
        found = sum(1 for chunk in top if case.qrels[question].get(chunk, 0) > 0)
        assert score * k == pytest.approx(found, abs=1e-9)


@fast
@given(strategies.scored_cases(), strategies.ks)
def test_map_never_exceeds_recall_and_mrr_never_exceeds_hit_rate(case: strategies.Case, ks: list[int]) -> None:
    for k in ks:
        recall = cg.per_query(case.qrels, case.run, "recall", k)
        average_precision = cg.per_query(case.qrels, case.run, "map", k)
        hit_rate = cg.per_query(case.qrels, case.run, "hit_rate", k)
        mrr = cg.per_query(case.qrels, case.run, "mrr", k)
        for question in recall:
            assert average_precision[question] <= recall[question]
            assert mrr[question] <= hit_rate[question]


@fast
@given(strategies.scored_cases(), strategies.k, st.randoms(use_true_random=False))
def test_the_ideal_ranking_scores_ndcg_1(case: strategies.Case, k: int, shuffler: random.Random) -> None:
    ideal = {}
    for question, judgements in case.qrels.items():
        chunks = [chunk for chunk, grade in judgements.items() if grade > 0]
        shuffler.shuffle(chunks)  # ties may come in any order
        # Unjudged filler after the relevant chunks changes nothing.
        ideal[question] = [*sorted(chunks, key=lambda chunk: -judgements[chunk]), "filler-1", "filler-2"]
    assert set(cg.per_query(case.qrels, ideal, "ndcg", k).values()) == {1.0}
    assert cg.evaluate(case.qrels, ideal, ks=[k], metrics=["ndcg"]) == {f"ndcg@{k}": 1.0}


@fast
@given(strategies.cases(), strategies.ks, st.sampled_from(strategies.BUILTIN))
def test_results_are_plain_floats(case: strategies.Case, ks: list[int], metric: str) -> None:
    assert all(type(value) is float for value in grid(case, ks).values())
    assert all(type(value) is float for value in cg.per_query(case.qrels, case.run, metric, ks[0]).values())


@fast
@given(strategies.scored_cases(), strategies.ks, strategies.metric_orders)
def test_evaluate_keys_are_metric_major_in_the_order_given(
    case: strategies.Case, ks: list[int], metrics: tuple[str, ...]
) -> None:
    result = cg.evaluate(case.qrels, case.run, ks=ks, metrics=metrics)
    assert list(result) == [f"{metric}@{k}" for metric, k in itertools.product(metrics, ks)]


@fast
@given(strategies.judgements, strategies.ranking_with_repeats, strategies.k, st.sampled_from(strategies.BUILTIN))
def test_a_ranking_with_repeats_stays_on_the_0_to_1_scale(
    judgements: dict[str, int], ranked: list[str], k: int, metric: str
) -> None:
    score = cg.get_metric(metric).evaluate(judgements, ranked, k)
    assert type(score) is float
    assert 0.0 <= score <= 1.0


@fast
@given(strategies.judgements, strategies.ranking_with_repeats, strategies.k)
def test_precision_times_k_counts_a_repeated_relevant_chunk_once(
    judgements: dict[str, int], ranked: list[str], k: int
) -> None:
    found = sum(1 for chunk in set(ranked[:k]) if judgements.get(chunk, 0) > 0)
    assert cg.get_metric("precision").evaluate(judgements, ranked, k) * k == pytest.approx(found, abs=1e-9)
