"""A/A checks: when both sides come from the same process, a test at alpha = 0.05
rejects about 5% of the time, and a correction keeps the chance of any false
win across many comparisons near 5%. Sizes are modest to keep the suite fast;
bench/bench_compare.py runs the same check at full size."""

from __future__ import annotations

import math

import numpy as np
import pytest

from contextgrid.significance import compare_configurations, compare_pair

REPEATS = 300
QUESTIONS = 60
ALPHA = 0.05
# 3.5 binomial standard errors of a rate of 0.05 over REPEATS trials
SLACK = 3.5 * math.sqrt(ALPHA * (1 - ALPHA) / REPEATS)


def draw(rng: np.random.Generator, kind: str, shift: float = 0.0) -> tuple[dict[str, float], dict[str, float]]:
    """Two configurations on the same questions: a shared difficulty per question plus each side's own noise."""
    ids = [f"q{i}" for i in range(QUESTIONS)]
    difficulty = rng.random(QUESTIONS)
    if kind == "binary":  # hit_rate-like 0/1 scores, many ties
        a = (rng.random(QUESTIONS) < difficulty).astype(float)
        b = (rng.random(QUESTIONS) < np.clip(difficulty + shift, 0, 1)).astype(float)
    else:  # ndcg-like scores in [0, 1]
        a = np.clip(difficulty + rng.normal(0, 0.15, QUESTIONS), 0, 1)
        b = np.clip(difficulty + shift + rng.normal(0, 0.15, QUESTIONS), 0, 1)
    return dict(zip(ids, a.tolist(), strict=True)), dict(zip(ids, b.tolist(), strict=True))


def rejection_rate(test: str, kind: str, shift: float, seed: int) -> float:
    rng = np.random.default_rng(seed)
    rejected = 0
    for repeat in range(REPEATS):
        a, b = draw(rng, kind, shift)
        rejected += compare_pair(a, b, test=test, alpha=ALPHA, n_resamples=499, seed=repeat).significant
    return rejected / REPEATS


@pytest.mark.parametrize("kind", ["continuous", "binary"])
@pytest.mark.parametrize("test", ["permutation", "ttest", "wilcoxon"])
def test_a_a_comparisons_reject_about_five_percent_of_the_time(test: str, kind: str) -> None:
    rate = rejection_rate(test, kind, 0.0, seed=2024)
    assert 0.01 <= rate <= ALPHA + SLACK


@pytest.mark.parametrize("test", ["permutation", "ttest", "wilcoxon"])
def test_a_real_difference_is_found_most_of_the_time(test: str) -> None:
    assert rejection_rate(test, "continuous", 0.1, seed=7) > 0.9


def test_holm_keeps_the_chance_of_any_false_win_near_alpha_and_no_correction_does_not() -> None:
    rng = np.random.default_rng(99)
    ids = [f"q{i}" for i in range(QUESTIONS)]
    any_holm = any_none = 0
    repeats = 150
    for repeat in range(repeats):
        difficulty = rng.random(QUESTIONS)
        configs = {
            f"c{c}": dict(zip(ids, np.clip(difficulty + rng.normal(0, 0.15, QUESTIONS), 0, 1).tolist(), strict=True))
            for c in range(9)
        }
        tables = {
            correction: compare_configurations(
                configs, baseline="c0", test="ttest", correction=correction, n_resamples=200, seed=repeat
            )
            for correction in ("holm", "none")
        }
        any_holm += bool(tables["holm"].significantly_better or tables["holm"].significantly_worse)
        any_none += bool(tables["none"].significantly_better or tables["none"].significantly_worse)
    assert any_holm / repeats <= ALPHA + 3.5 * math.sqrt(ALPHA * (1 - ALPHA) / repeats)
    assert any_none / repeats > 0.15
