"""Paired tests and intervals agree with independent references: brute-force
enumeration in exact arithmetic, and scipy.stats on the same data."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from contextgrid.significance import compare_all_pairs, compare_pair


def as_dicts(a: list[float], b: list[float]) -> tuple[dict[str, float], dict[str, float]]:
    """Two per_query()-shaped dicts; ``b`` in reverse key order so alignment by id is exercised."""
    ids = [f"q{i}" for i in range(len(a))]
    return dict(zip(ids, a, strict=True)), dict(reversed(list(zip(ids, b, strict=True))))


def brute_force_p(differences: list[int]) -> float:
    """Share of all 2**n sign vectors whose |sum| reaches the observed |sum|, in exact integers
    (the differences in thousandths)."""
    observed = abs(sum(differences))
    signs = itertools.product((1, -1), repeat=len(differences))
    hits = sum(abs(sum(s * d for s, d in zip(flip, differences, strict=True))) >= observed for flip in signs)
    return hits / 2 ** len(differences)


thousandths = st.integers(min_value=0, max_value=1000)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(thousandths, thousandths), min_size=1, max_size=9))
def test_small_samples_get_the_exact_permutation_p_value(pairs: list[tuple[int, int]]) -> None:
    a = [x / 1000 for x, _ in pairs]
    b = [y / 1000 for _, y in pairs]
    expected = brute_force_p([x - y for x, y in pairs])
    assert compare_pair(*as_dicts(a, b), n_resamples=10_000).p_value == expected


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 64), st.integers(0, 64)), min_size=2, max_size=12))
def test_exact_permutation_p_value_equals_scipy_permutation_test(pairs: list[tuple[int, int]]) -> None:
    # Multiples of 1/64 sum exactly in binary floating point, so scipy's own sums cannot tip a tie.
    a = np.array([x / 64 for x, _ in pairs])
    b = np.array([y / 64 for _, y in pairs])
    ours = compare_pair(*as_dicts(a.tolist(), b.tolist()), n_resamples=5_000).p_value
    theirs = scipy.stats.permutation_test(
        (a, b),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=5_000,
    ).pvalue
    assert ours == pytest.approx(float(theirs), abs=1e-12)


def monte_carlo_bound(p: float, resamples: int) -> float:
    """Five standard errors of the difference of two independent estimates, plus the +1 terms."""
    spread = math.sqrt(2 * max(p * (1 - p), 1 / resamples) / resamples)
    return 5 * spread + 3 / (resamples + 1)


@pytest.mark.parametrize("shift", [0.0, 0.03, 0.08, 0.2])
def test_random_sign_flips_match_scipy_permutation_test_within_monte_carlo_error(shift: float) -> None:
    rng = np.random.default_rng(7)
    a = rng.random(80)
    b = np.clip(a + rng.normal(shift, 0.3, size=80), 0, 1)
    resamples = 20_000
    ours = compare_pair(*as_dicts(a.tolist(), b.tolist()), n_resamples=resamples, seed=3).p_value
    theirs = float(
        scipy.stats.permutation_test(
            (a, b),
            lambda x, y, axis: np.mean(x - y, axis=axis),
            permutation_type="samples",
            vectorized=True,
            n_resamples=resamples,
            rng=11,
        ).pvalue
    )
    assert abs(ours - theirs) <= monte_carlo_bound(theirs, resamples)


def test_random_sign_flips_agree_with_full_enumeration_on_sixteen_questions() -> None:
    rng = np.random.default_rng(5)
    a_int = rng.integers(0, 1000, size=16)
    b_int = np.clip(a_int + rng.integers(-150, 400, size=16), 0, 1000)
    exact = brute_force_p([int(x - y) for x, y in zip(a_int, b_int, strict=True)])
    resamples = 4_000  # below 2**16, so the sign flips are drawn at random
    ours = compare_pair(*as_dicts((a_int / 1000).tolist(), (b_int / 1000).tolist()), n_resamples=resamples).p_value
    assert abs(ours - exact) <= monte_carlo_bound(exact, resamples)


def test_p_value_counts_the_observed_labelling_so_it_is_never_zero() -> None:
    a = [1.0] * 40
    b = [0.0] * 40
    result = compare_pair(*as_dicts(a, b), n_resamples=999)
    assert result.p_value == 1 / 1000


@pytest.mark.parametrize("n", [3, 15, 200])
@pytest.mark.parametrize("discrete", [True, False])
def test_ttest_and_wilcoxon_equal_scipy(n: int, discrete: bool) -> None:
    rng = np.random.default_rng(n)
    if discrete:
        a, b = rng.integers(0, 3, size=n) / 2, rng.integers(0, 3, size=n) / 2
        if np.all(a == b):
            b[0] = 1.0 - a[0]
    else:
        a, b = rng.random(n), rng.random(n)
    dicts = as_dicts(a.tolist(), b.tolist())
    assert compare_pair(*dicts, test="ttest").p_value == pytest.approx(scipy.stats.ttest_rel(a, b).pvalue, rel=1e-12)
    # Ties are dropped before scipy sees them, so its choice of exact or normal distribution rests on the
    # questions that differ: the same p-value as scipy's on all the questions whenever none is a tie.
    differences = a - b
    expected = scipy.stats.wilcoxon(differences[differences != 0]).pvalue
    assert compare_pair(*dicts, test="wilcoxon").p_value == pytest.approx(expected, rel=1e-12)
    if np.all(differences != 0):
        assert expected == scipy.stats.wilcoxon(a, b).pvalue


def test_ttest_p_value_from_the_formula_by_hand() -> None:
    # differences 0.1, 0.2, 0.3, 0.6: mean 0.3, sd sqrt(0.14 / 3), t = 0.3 / (sd / 2) = 2.7774602993176543
    a = [0.5, 0.6, 0.7, 1.0]
    b = [0.4, 0.4, 0.4, 0.4]
    t = 0.3 / (math.sqrt(0.14 / 3) / 2)
    expected = 2 * scipy.stats.t.sf(t, df=3)
    assert compare_pair(*as_dicts(a, b), test="ttest").p_value == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("method", ["bca", "percentile"])
@pytest.mark.parametrize(("n", "shift"), [(30, 0.05), (150, 0.02), (400, -0.1)])
def test_bootstrap_interval_matches_scipy_bootstrap_within_monte_carlo_error(method: str, n: int, shift: float) -> None:
    rng = np.random.default_rng(n)
    a = rng.random(n)
    b = np.clip(a - rng.normal(shift, 0.25, size=n), 0, 1)
    resamples = 9_999
    ours = compare_pair(*as_dicts(a.tolist(), b.tolist()), interval=method, n_resamples=resamples, seed=1)
    theirs = scipy.stats.bootstrap(
        (a - b,), np.mean, n_resamples=resamples, method=method, confidence_level=0.95, rng=2
    ).confidence_interval
    standard_error = float(np.std(a - b, ddof=1) / math.sqrt(n))
    # Each endpoint is a 2.5% quantile of 9,999 draws: its Monte Carlo error is about 0.03 standard errors.
    assert ours.bootstrap_low == pytest.approx(theirs.low, abs=0.2 * standard_error)
    assert ours.bootstrap_high == pytest.approx(theirs.high, abs=0.2 * standard_error)
    assert ours.bootstrap_low < ours.difference < ours.bootstrap_high


def test_ninety_percent_interval_matches_scipy_too() -> None:
    rng = np.random.default_rng(3)
    a, b = rng.random(60), rng.random(60)
    ours = compare_pair(*as_dicts(a.tolist(), b.tolist()), confidence=0.9, n_resamples=9_999)
    theirs = scipy.stats.bootstrap((a - b,), np.mean, n_resamples=9_999, confidence_level=0.9, rng=4)
    standard_error = float(np.std(a - b, ddof=1) / math.sqrt(60))
    assert ours.bootstrap_low == pytest.approx(theirs.confidence_interval.low, abs=0.2 * standard_error)
    assert ours.bootstrap_high == pytest.approx(theirs.confidence_interval.high, abs=0.2 * standard_error)


def test_every_pair_of_many_matches_its_own_single_comparison() -> None:
    rng = np.random.default_rng(9)
    ids = [f"q{i}" for i in range(50)]
    configs = {name: dict(zip(ids, rng.random(50).tolist(), strict=True)) for name in ("x", "y", "z", "w")}
    family = compare_all_pairs(configs, n_resamples=2_000, seed=4, correction="none")
    for comparison in family:
        single = compare_pair(
            configs[comparison.a], configs[comparison.b], names=(comparison.a, comparison.b), n_resamples=2_000, seed=4
        )
        assert comparison.p_value == pytest.approx(single.p_value, abs=1e-12)
        assert comparison.ci_low == pytest.approx(single.ci_low, abs=1e-12)
        assert comparison.ci_high == pytest.approx(single.ci_high, abs=1e-12)
        assert comparison.bootstrap_low == pytest.approx(single.bootstrap_low, abs=1e-12)
        assert comparison.bootstrap_high == pytest.approx(single.bootstrap_high, abs=1e-12)
