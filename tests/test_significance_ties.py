"""One tie rule for every test and count: a per-question difference within the tie tolerance is exactly 0."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from contextgrid.core.checks import TIE_TOLERANCE
from contextgrid.significance import (
    PAIRED_TESTS,
    PairedComparison,
    compare_all_pairs,
    compare_configurations,
    compare_pair,
)
from contextgrid.significance.paired import OnePairTest
from contextgrid.significance.resampling import GATHERED_PAIRS

TESTS = ("permutation", "ttest", "wilcoxon")
NOISE = 0.3 - (0.1 + 0.2)  # -5.6e-17: the same score, computed two ways


def ids(n: int) -> list[str]:
    return [f"q{i}" for i in range(n)]


def as_dict(values: list[float]) -> dict[str, float]:
    return dict(zip(ids(len(values)), values, strict=True))


def counts(result: PairedComparison) -> tuple[int, int, int]:
    return result.wins, result.ties, result.losses


# Five questions tied up to float noise, three won.
NOISY_A = as_dict([0.3] * 5 + [1.0, 1.0, 1.0])
NOISY_B = as_dict([0.1 + 0.2] * 5 + [0.5, 0.5, 0.0])
CLEAN_DIFFERENCES = np.array([0.0] * 5 + [0.5, 0.5, 1.0])


def test_the_reproduced_case_ranks_no_float_noise() -> None:
    assert NOISE != 0.0
    assert abs(NOISE) <= TIE_TOLERANCE
    # Ranking the noise as five small losses is what made the p-value 0.648.
    assert scipy.stats.wilcoxon(np.array([NOISE] * 5 + [0.5, 0.5, 1.0])).pvalue == pytest.approx(0.6484375)
    result = compare_pair(NOISY_A, NOISY_B, test="wilcoxon")
    assert counts(result) == (3, 5, 0)
    assert result.p_value == scipy.stats.wilcoxon(CLEAN_DIFFERENCES).pvalue == 0.25
    assert result.p_value == scipy.stats.wilcoxon(CLEAN_DIFFERENCES[CLEAN_DIFFERENCES != 0]).pvalue


def test_every_test_sees_the_exact_zeros_the_counts_call_ties() -> None:
    clean_a = as_dict([0.3] * 5 + [1.0, 1.0, 1.0])
    clean_b = as_dict([0.3] * 5 + [0.5, 0.5, 0.0])
    for test in TESTS:
        noisy, clean = compare_pair(NOISY_A, NOISY_B, test=test), compare_pair(clean_a, clean_b, test=test)
        assert counts(noisy) == counts(clean) == (3, 5, 0)
        assert noisy.p_value == clean.p_value, test
        assert (noisy.difference, noisy.ci_low, noisy.ci_high, noisy.effect_size) == (
            clean.difference,
            clean.ci_low,
            clean.ci_high,
            clean.effect_size,
        )
    # 2 of the 2 ** 3 sign patterns of the three wins reach their sum; the t-test on the zeroed differences.
    assert compare_pair(NOISY_A, NOISY_B).p_value == 0.25
    ttest = scipy.stats.ttest_1samp(CLEAN_DIFFERENCES, 0.0).pvalue
    assert compare_pair(NOISY_A, NOISY_B, test="ttest").p_value == pytest.approx(ttest, rel=1e-12)
    assert compare_pair(NOISY_A, NOISY_B).difference == CLEAN_DIFFERENCES.mean() == 0.25


@pytest.mark.parametrize("test", TESTS)
def test_noise_on_every_question_is_no_evidence_at_all(test: str) -> None:
    result = compare_pair(as_dict([0.3] * 6), as_dict([0.1 + 0.2] * 6), test=test)
    assert counts(result) == (0, 6, 0)
    assert (result.p_value, result.difference, result.effect_size, result.ci_low, result.ci_high) == (
        1.0,
        0.0,
        0.0,
        0.0,
        0.0,
    )


def test_the_tolerance_itself_is_a_tie_and_just_beyond_it_is_not() -> None:
    a, b = as_dict([0.5, 1.0, 1.0]), as_dict([0.5 - 2**-10, 0.0, 0.0])
    at = compare_pair(a, b, test="wilcoxon", tie_tolerance=2**-10)
    below = compare_pair(a, b, test="wilcoxon", tie_tolerance=2**-11)
    assert counts(at) == (2, 1, 0)
    assert at.p_value == scipy.stats.wilcoxon([1.0, 1.0]).pvalue == 0.5
    assert counts(below) == (3, 0, 0)
    assert below.p_value == scipy.stats.wilcoxon([2**-10, 1.0, 1.0]).pvalue == 0.25


class SignTest(OnePairTest):
    """The sign test as a plugin would write it: wins against losses among the questions that are not ties."""

    name: ClassVar[str] = "sign"
    version: ClassVar[str] = "1"

    def p_value(self, differences: np.ndarray) -> float:
        wins, losses = int((differences > 0).sum()), int((differences < 0).sum())
        return float(scipy.stats.binomtest(wins, wins + losses).pvalue) if wins + losses else 1.0


def test_a_registered_test_gets_the_ties_the_counts_call_ties() -> None:
    PAIRED_TESTS.register("sign")(SignTest)
    try:
        result = compare_pair(NOISY_A, NOISY_B, test="sign")
    finally:
        PAIRED_TESTS.unregister("sign")
    # Three wins and no loss among three questions that differ; the five noisy ties are not signs.
    assert counts(result) == (3, 5, 0)
    assert result.p_value == scipy.stats.binomtest(3, 3).pvalue == 0.25
    # Its interval is its own p-value inverted: it holds 0, as the verdict says.
    assert result.ci_low <= 0.0 <= result.ci_high
    assert result.interval_name == "inverted-test"


def test_batched_pairs_treat_ties_as_the_single_pair_does() -> None:
    # Beyond GATHERED_PAIRS pairs the resampling goes through the score matrix, except for a pair with a zeroed
    # tie, which is resampled from its own differences: either way the pair matches compare_pair's numbers.
    rng = np.random.default_rng(5)
    base = (rng.integers(0, 5, size=12) / 4).tolist()
    configs = {
        "base": as_dict(base),
        "noisy": as_dict([v + NOISE if i % 3 else v for i, v in enumerate(base)]),
        **{f"c{j}": as_dict((rng.integers(0, 5, size=12) / 4).tolist()) for j in range(3)},
    }
    table = compare_configurations(configs, baseline="base", correction="none", n_resamples=999, interval="percentile")
    assert len(table.comparisons) > GATHERED_PAIRS
    noisy = table.comparison("noisy")
    assert counts(noisy) == (0, 12, 0)
    assert (noisy.p_value, noisy.ci_low, noisy.ci_high) == (1.0, 0.0, 0.0)
    for test in TESTS:
        pairs = compare_all_pairs(configs, test=test, correction="none", n_resamples=999)
        alone = compare_pair(configs["noisy"], configs["c0"], test=test, n_resamples=999)
        together = pairs.get("noisy", "c0")
        assert counts(together) == counts(alone)
        assert together.p_value == pytest.approx(alone.p_value, rel=1e-12)
        assert together.ci_low == pytest.approx(alone.ci_low, abs=1e-12)
        assert together.ci_high == pytest.approx(alone.ci_high, abs=1e-12)


# Scores on a grid of quarters: a difference that is not a tie is 0.25 or more, far beyond the tolerance.
quarter = st.integers(0, 4).map(lambda v: v / 4)
# Half the tolerance: v + e - v rounds, and noise of exactly the tolerance can come back a hair beyond it.
noise = st.floats(-TIE_TOLERANCE / 2, TIE_TOLERANCE / 2, allow_nan=False)


@st.composite
def tied_configurations(draw: st.DrawFn) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    """A baseline and up to five others that often tie with it; the same with noise added to the others' ties."""
    baseline = draw(st.lists(quarter, min_size=2, max_size=14))
    n = len(baseline)
    clean, noisy = {"base": as_dict(baseline)}, {"base": as_dict(baseline)}
    for j in range(draw(st.integers(1, 5))):
        changed = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        values = [draw(quarter) if c else v for c, v in zip(changed, baseline, strict=True)]
        jitter = draw(st.lists(noise, min_size=n, max_size=n))
        clean[f"c{j}"] = as_dict(values)
        noisy[f"c{j}"] = as_dict([v + e if v == w else v for v, w, e in zip(values, baseline, jitter, strict=True)])
    return clean, noisy


@settings(max_examples=60, deadline=None)
@given(configurations=tied_configurations())
def test_noise_below_the_tolerance_never_changes_a_p_value_or_a_count(
    configurations: tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]],
) -> None:
    clean, noisy = configurations
    options = {"n_resamples": 199, "seed": 1}
    for test in TESTS:
        pairs = [
            (
                compare_pair(clean["c0"], clean["base"], test=test, **options),
                compare_pair(noisy["c0"], noisy["base"], test=test, **options),
            ),
            *zip(
                compare_configurations(clean, baseline="base", test=test, **options),
                compare_configurations(noisy, baseline="base", test=test, **options),
                strict=True,
            ),
        ]
        for before, after in pairs:
            assert counts(after) == counts(before), test
            assert (after.p_value, after.p_adjusted) == (before.p_value, before.p_adjusted), test
