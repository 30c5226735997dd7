"""One procedure per verdict: each test's interval is that test inverted, at the level the correction set, so it
leaves out 0 exactly when the verdict says significant. Checked against slow references that test every shift
by brute force (all sign vectors, scipy's own t-test and signed-rank test)."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from contextgrid.render.verdicts import verdict_table
from contextgrid.significance import compare_all_pairs, compare_configurations, compare_pair, correct_p_values
from contextgrid.significance.comparisons import PairedComparison
from contextgrid.significance.corrections import CORRECTIONS
from contextgrid.significance.gate import gate
from contextgrid.significance.inversion import SignFlipShifts
from contextgrid.significance.wording import describe, format_interval, limits, verdict_phrase

TESTS = ("permutation", "ttest", "wilcoxon")

# Heavy ties: scores on a coarse grid, so many questions tie and many differences repeat.
coarse = st.sampled_from([0.0, 0.0, 0.5, 1.0, 1.0, 0.25])


@st.composite
def families(draw: st.DrawFn) -> dict[str, dict[str, float]]:
    """Two to four configurations on 1 to 12 questions, on a coarse grid (heavy ties) or on any floats."""
    n = draw(st.integers(1, 12))
    values = coarse if draw(st.booleans()) else st.floats(0.0, 1.0, allow_nan=False)
    configs = draw(st.integers(2, 4))
    return {f"c{j}": {f"q{i}": draw(values) for i in range(n)} for j in range(configs)}


def shown_leaving_out_zero(low: str, high: str) -> bool:
    """Whether an interval's printed ends leave 0 out: an end open at 0, or both ends on one side of it."""
    if low in ("(0", "above 0") or high in ("0)", "below 0"):
        return True
    return float(low.lstrip("[")) > 0 or float(high.rstrip("]")) < 0


@settings(max_examples=80, deadline=None)
@given(
    family=families(),
    test=st.sampled_from(TESTS),
    correction=st.sampled_from(sorted(CORRECTIONS)),
    alpha=st.sampled_from([0.05, 0.2, 0.5]),
    resamples=st.sampled_from([64, 300, 2000]),
)
def test_the_interval_leaves_out_zero_exactly_when_the_verdict_is_significant(
    family: dict[str, dict[str, float]], test: str, correction: str, alpha: float, resamples: int
) -> None:
    table = compare_configurations(
        family, baseline="c0", test=test, correction=correction, alpha=alpha, n_resamples=resamples, seed=3
    )
    for c in table:
        assert c.excludes_zero == c.significant, (c.ci_low, c.ci_high, c.p_value, c.p_adjusted)
        # As printed too: an end beside 0 that leaves it out is never shown as 0.
        assert shown_leaving_out_zero(*format_interval(c.ci_low, c.ci_high).split(", ")) == c.significant
        said = re.search(r"interval (above 0|\S+) to (below 0|\S+?)(?: around |\))", verdict_phrase(c))
        assert said is not None, verdict_phrase(c)
        assert shown_leaving_out_zero(*said.groups()) == c.significant, verdict_phrase(c)
        if test != "wilcoxon":
            # The mean is never rejected; a signed-rank test can reject its own Hodges-Lehmann estimate when zeros
            # are dropped and ties are ranked, so its interval need not hold it.
            assert c.ci_low <= c.estimate <= c.ci_high
        if test == "permutation" and 2**c.n_questions <= resamples:
            # Enumerated exactly, no p-value goes below the floor its differing questions allow.
            assert c.p_value >= c.p_floor


def shifted_sign_flip_p(differences: np.ndarray, shift: float) -> float:
    """Every sign vector, counted by hand: the share as far from 0 as the observed sum of ``d - shift``."""
    moved = differences - shift
    observed = abs(moved.sum())
    flipped = [abs((np.array(signs) * moved).sum()) for signs in itertools.product((1, -1), repeat=len(moved))]
    return float(np.mean([value >= observed - 1e-9 for value in flipped]))


def wilcoxon_p(differences: np.ndarray) -> float:
    differing = differences[differences != 0.0]
    return float(scipy.stats.wilcoxon(differing).pvalue) if len(differing) else 1.0


REFERENCES = {
    "permutation": shifted_sign_flip_p,
    "ttest": lambda d, shift: (
        float(np.nan_to_num(scipy.stats.ttest_1samp(d - shift, 0.0).pvalue, nan=1.0)) if len(d) > 1 else 1.0
    ),
    "wilcoxon": lambda d, shift: wilcoxon_p(d - shift),
}


def level_by_definition(p: list[float], correction: str, alpha: float) -> list[float]:
    """Each comparison's level, from the corrections' textbook steps."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    levels = [alpha] * m
    if correction == "bonferroni":
        return [alpha / m] * m
    if correction == "holm":
        stop = next((r for r, i in enumerate(order) if p[i] * (m - r) > alpha), m)
        for r, i in enumerate(order):
            levels[i] = alpha / (m - min(r, stop))
    if correction == "bh":
        last = max((r for r, i in enumerate(order) if p[i] * (m / (r + 1)) <= alpha), default=-1)
        for r, i in enumerate(order):
            levels[i] = alpha * (max(r, last) + 1) / m
    return levels


@settings(max_examples=60, deadline=None)
@given(
    baseline=st.lists(st.integers(0, 10), min_size=2, max_size=9),
    others=st.lists(st.lists(st.integers(0, 10), min_size=9, max_size=9), min_size=1, max_size=3),
    test=st.sampled_from(TESTS),
    correction=st.sampled_from(sorted(CORRECTIONS)),
)
def test_each_interval_is_its_test_inverted_at_the_level_of_its_step(
    baseline: list[int], others: list[list[int]], test: str, correction: str
) -> None:
    """Just inside each bound the slow reference does not reject the shift; just outside it does."""
    n = len(baseline)
    # Whole-number scores: exact differences, so the reference sees the ties the library sees.
    family = {"base": {f"q{i}": float(v) for i, v in enumerate(baseline)}}
    for j, values in enumerate(others):
        family[f"c{j}"] = {f"q{i}": float(v) for i, v in enumerate(values[:n])}
    alpha = 0.2
    # 2 ** 9 sign vectors at most: every one enumerated, as the reference does.
    table = compare_configurations(family, baseline="base", test=test, correction=correction, alpha=alpha)
    comparisons = list(table)
    levels = level_by_definition([c.p_value for c in comparisons], correction, alpha)
    assert correct_p_values([c.p_value for c in comparisons], method=correction) == [c.p_adjusted for c in comparisons]
    reference = REFERENCES[test]
    for c, level in zip(comparisons, levels, strict=True):
        assert c.ci_level == pytest.approx(1 - level)
        differences = np.array([family[c.a][q] - family["base"][q] for q in family["base"]])
        differences[np.abs(differences) <= 1e-9] = 0.0
        assert reference(differences, 0.0) == pytest.approx(c.p_value, rel=1e-9, abs=1e-12)
        step = 1e-6
        for bound, outward in ((c.ci_low, -1.0), (c.ci_high, 1.0)):
            if test == "wilcoxon" and abs(bound) <= 5e-324:
                # Wilcoxon drops zero differences, so its p-value jumps at a shift of exactly 0: the shifts it does
                # not reject need not form an interval there. A bound at 0 is where the verdict at 0 decides.
                assert (reference(differences, 0.0) <= level) == c.significant
                continue
            if np.isinf(bound):
                # Unbounded: no shift that way is rejected, however far.
                assert reference(differences, outward * 1e6) > level
                continue
            assert reference(differences, bound - outward * step) > level or c.ci_low == c.ci_high
            assert reference(differences, bound + outward * step) <= level


def test_three_wins_among_forty_four_questions_read_not_significant_with_the_reason() -> None:
    """Issue #31's case: recall@5 of two chunk sizes, 3 questions won, 41 tied, none lost, one comparison."""
    longer = {f"q{i}": 1.0 if i < 3 else 0.5 for i in range(44)}
    shorter = {f"q{i}": 0.0 if i < 3 else 0.5 for i in range(44)}
    for correction in ("none", "holm"):
        table = compare_configurations(
            {"bm25-300": shorter, "bm25-800": longer}, baseline="bm25-300", metric="recall@5", correction=correction
        )
        (c,) = table
        assert (c.wins, c.ties, c.losses) == (3, 41, 0)
        assert c.verdict == "not significant"
        assert c.ci_low <= 0.0 <= c.ci_high
        # A sign-flip test on three differing questions: 2 of the 2 ** 3 sign patterns are as extreme.
        assert c.p_floor == 0.25
        assert "Only 3 of 44 questions differ: a sign-flip test cannot go below p = 0.25 with them." in limits(c)
        # One comparison: Holm changes nothing, so it is not named as the reason.
        assert not c.correction_decided
        assert "correction" not in " ".join(limits(c))
        assert "not significant" in describe(c)
        assert "bootstrap" not in str(table)
    # The bootstrap interval, which excludes 0 here, stays available under its own name.
    assert c.bootstrap_low is not None
    assert c.bootstrap_low > 0


@pytest.mark.parametrize(
    ("baseline", "other", "shown"),
    [
        ([1, 3, 6, 1, 4, 3, 6, 8], [7, 3, 6, 8, 8, 8, 5, 6], "above 0 to +4.5000"),
        ([6, 4, 6, 10, 8, 10, 0], [1, 3, 6, 7, 7, 9, 1], "-3.0000 to below 0"),
    ],
)
def test_a_signed_rank_interval_open_at_zero_is_said_so_and_why(
    baseline: list[int], other: list[int], shown: str
) -> None:
    """Wilcoxon rejects a shift of exactly 0 (its tied questions dropped) and not the shifts beside it: the interval
    ends on the float beside 0, which four decimals would print as 0 beside a significant verdict."""
    family = {"base": {f"q{i}": float(v) for i, v in enumerate(baseline)}}
    family["other"] = {f"q{i}": float(v) for i, v in enumerate(other)}
    table = compare_configurations(family, baseline="base", test="wilcoxon", correction="none", alpha=0.2)
    (c,) = table
    assert c.significant
    assert 0.0 < min(abs(c.ci_low), abs(c.ci_high)) < 1e-300
    text = describe(c)
    assert f"interval {shown} around" in text
    assert "0.0000 to" not in text
    assert "to 0.0000" not in text
    assert "The signed-rank test leaves out the questions that tie" in text
    drawn = verdict_table(table).to_string()
    assert drawn.count("(0, " if shown.startswith("above") else ", 0)") == 1


def test_holm_says_where_its_step_down_stopped() -> None:
    rng = np.random.default_rng(5)
    base = {f"q{i}": float(v) for i, v in enumerate(rng.random(60))}
    strong = {q: v + 0.3 for q, v in base.items()}
    faint = {q: v + (0.05 if i % 2 else -0.03) for i, (q, v) in enumerate(base.items())}
    also_faint = {q: v + (0.04 if i % 3 else -0.05) for i, (q, v) in enumerate(base.items())}
    table = compare_configurations(
        {"base": base, "strong": strong, "faint": faint, "also": also_faint}, baseline="base", correction="holm"
    )
    stopped = [c for c in table if not c.reached]
    reached = [c for c in table if c.reached]
    assert table.comparison("strong").significant
    assert table.comparison("strong").step == 1
    assert len(stopped) == 1
    (first_failing,) = [c for c in reached if not c.significant]
    assert stopped[0].ci_level == first_failing.ci_level
    assert any("stopped at step 2 before reaching this comparison" in s for s in limits(stopped[0]))


def normalised(rng: np.random.Generator, n: int, mean: float, sd: float) -> np.ndarray:
    draws = rng.normal(0.0, 1.0, n)
    return (draws - draws.mean()) / draws.std(ddof=1) * sd + mean


def test_the_correction_is_named_only_where_it_changed_the_verdict() -> None:
    rng = np.random.default_rng(11)
    n = 80
    base = {f"q{i}": 0.0 for i in range(n)}
    # t = 0.04 / (0.15 / sqrt(80)) = 2.39: p about 0.02 alone, about 0.1 as one of five under Bonferroni.
    family = {"base": base, "modest": dict(zip(base, normalised(rng, n, 0.04, 0.15).tolist(), strict=True))}
    family["strong"] = dict(zip(base, normalised(rng, n, 0.2, 0.15).tolist(), strict=True))
    for j in range(3):
        family[f"null{j}"] = dict(zip(base, normalised(rng, n, 0.0, 0.15).tolist(), strict=True))
    table = compare_configurations(family, baseline="base", correction="bonferroni")
    for c in table:
        named = any("correction" in s for s in limits(c))
        assert named == c.correction_decided == (c.p_value <= c.alpha < c.p_adjusted)
    assert table.comparison("modest").correction_decided
    assert not table.comparison("strong").correction_decided
    assert table.comparison("strong").significant
    # The interval is Bonferroni's, 1 - 0.05 / 5: it holds 0, as the verdict says.
    modest = table.comparison("modest")
    assert modest.ci_level == pytest.approx(0.99)
    assert modest.ci_low <= 0.0 <= modest.ci_high


def test_the_smallest_detectable_difference_has_about_eighty_percent_power_in_simulation() -> None:
    """Differences drawn with the spread the formula was given, shifted by the detectable difference: the paired
    t-test rejects in about 80% of 2,000 simulated experiments (the Monte Carlo error is about 0.009)."""
    rng = np.random.default_rng(2031)
    n, sd = 40, 0.3
    probe = rng.normal(0.0, sd, n)
    probe = (probe - probe.mean()) / probe.std(ddof=1) * sd
    (c,) = compare_configurations(
        {"b": {f"q{i}": 0.0 for i in range(n)}, "a": {f"q{i}": float(v) for i, v in enumerate(probe)}},
        baseline="b",
        test="ttest",
    )
    assert c.detectable is not None
    samples = rng.normal(c.detectable, sd, size=(2000, n))
    power = np.mean(scipy.stats.ttest_1samp(samples, 0.0, axis=1).pvalue <= 0.05)
    assert 0.75 <= power <= 0.85


def test_a_p_value_past_the_resolution_reads_as_a_bound() -> None:
    rng = np.random.default_rng(3)
    base = {f"q{i}": float(v) for i, v in enumerate(rng.random(200))}
    better = {q: v + 0.5 for q, v in base.items()}
    table = compare_configurations({"base": base, "better": better}, baseline="base", n_resamples=999)
    (c,) = table
    assert c.p_value == 1 / 1000
    assert "p < 0.001" in describe(c)
    assert "0.001 " not in str(table).splitlines()[2].replace("< 0.001", "")
    assert any("No sign flip of the 999 drawn was as extreme" in s for s in limits(c))


def test_one_question_cannot_be_rejected_at_any_shift() -> None:
    for test in TESTS:
        c = compare_pair({"q1": 1.0}, {"q1": 0.0}, test=test)
        assert isinstance(c, PairedComparison)
        assert (c.p_value, c.ci_low, c.ci_high) == (1.0, -np.inf, np.inf)
        assert c.bootstrap_low is None


@settings(max_examples=40, deadline=None)
@given(family=families(), test=st.sampled_from(TESTS), correction=st.sampled_from(sorted(CORRECTIONS)))
def test_the_law_holds_for_every_pair_either_way_round(
    family: dict[str, dict[str, float]], test: str, correction: str
) -> None:
    pairs = compare_all_pairs(family, test=test, correction=correction, n_resamples=300, alpha=0.2)
    for c in pairs:
        assert c.excludes_zero == c.significant
        back = pairs.get(c.b, c.a)
        assert back.excludes_zero == back.significant == c.significant
        assert (back.ci_low, back.ci_high) == (-c.ci_high, -c.ci_low)


@settings(max_examples=60, deadline=None)
@given(
    family=families(),
    test=st.sampled_from(TESTS),
    drop=st.sampled_from([0.0, 0.05, 0.25]),
    alpha=st.sampled_from([0.05, 0.2]),
    proof=st.booleans(),
)
def test_the_gate_fails_exactly_when_its_one_sided_p_value_says_so(
    family: dict[str, dict[str, float]], test: str, drop: float, alpha: float, proof: bool
) -> None:
    result = gate(
        family["c0"], family["c1"], test=test, max_drop=drop, alpha=alpha, require_proof=proof, n_resamples=300
    )
    shown = result.p_value <= result.alpha
    assert (result.proven if proof else result.regressed) == shown
    assert result.passed == (shown if proof else not shown)
    assert not (result.regressed and result.proven)
    assert result.low <= result.high


@settings(max_examples=40, deadline=None)
@given(family=families(), test=st.sampled_from(TESTS), correction=st.sampled_from(sorted(CORRECTIONS)))
def test_the_verdict_table_reads_as_words(family: dict[str, dict[str, float]], test: str, correction: str) -> None:
    frame = verdict_table(compare_configurations(family, baseline="c0", test=test, correction=correction))
    cells = [str(cell) for cell in frame.to_numpy().ravel()]
    assert not [cell for cell in cells if cell in ("None", "nan", "NaN", "<NA>")]
    assert frame["Verdict"].iloc[0] == "baseline"


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(st.integers(-4, 4), min_size=3, max_size=30),
    draws=st.integers(20, 400),
    seed=st.integers(0, 2**16),
    alpha=st.sampled_from([0.05, 0.2]),
)
def test_the_sign_flip_bounds_over_drawn_flips_match_counting_those_flips(
    values: list[int], draws: int, seed: int, alpha: float
) -> None:
    """Flips drawn, not enumerated: the p-value is (count + 1) / (draws + 1) over the very same sign vectors, by
    hand, just inside each bound above alpha and just outside at most alpha."""
    d = np.array(values, dtype=float)
    signs = np.random.default_rng(seed).choice([1.0, -1.0], size=(draws, len(d)))
    run = SignFlipShifts(
        (signs @ d)[:, None], signs.sum(axis=1), np.array([d.sum()]), len(d), np.array([1e-9]), exact=False
    )

    def counted(shift: float) -> float:
        moved = d - shift
        extreme = np.abs(signs @ moved) >= abs(moved.sum()) - 1e-9
        return (int(extreme.sum()) + 1) / (draws + 1)

    assert run.p_values[0] == counted(0.0)
    low, high = run.bounds(0, 1.0, alpha)
    for bound, outward in ((low, -1.0), (high, 1.0)):
        if np.isinf(bound):
            assert counted(outward * 1e6) > alpha
            continue
        # Just inside, unless the interval is the one point (every difference the same).
        assert counted(bound - outward * 1e-6) > alpha or low == high
        assert counted(bound + outward * 1e-6) <= alpha
