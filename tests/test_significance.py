"""compare_pair / compare_all_pairs / compare_configurations: hand-checked numbers,
degenerate cases, errors, seeds, corrections and the table and plot built on them."""

from __future__ import annotations

import copy
import dataclasses
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

import contextgrid as cg
from contextgrid.core.errors import (
    ContextGridError,
    InvalidParameterError,
    QuestionMismatchError,
    UnknownPluginError,
)
from contextgrid.render import interval_plot
from contextgrid.significance import (
    CORRECTIONS,
    PAIRED_TESTS,
    ComparisonTable,
    PairedComparison,
    compare_all_pairs,
    compare_configurations,
    compare_pair,
    compare_pairs,
    correct_p_values,
)
from contextgrid.significance.comparisons import COMPARISON_COLUMNS
from contextgrid.significance.options import ComparisonOptions
from contextgrid.significance.resampling import GATHERED_PAIRS, bootstrap_mean_differences

HANDMADE_WORKSPACE = Path(__file__).resolve().parent.parent / "sample_data" / "handmade"
TESTS = ("permutation", "ttest", "wilcoxon")


def scores(*values: float, prefix: str = "q") -> dict[str, float]:
    return {f"{prefix}{i}": float(v) for i, v in enumerate(values)}


# --- hand-checked numbers -------------------------------------------------------------------------------------------


def test_difference_effect_size_and_wins_ties_losses_by_hand() -> None:
    # differences a - b: 1, 0, 1, 0 -> mean 0.5, sd (ddof 1) sqrt(1/3), d = 0.5 / sqrt(1/3)
    result = compare_pair(scores(1, 0.5, 1, 0), scores(0, 0.5, 0, 0), names=("dense", "bm25"))
    assert (result.a, result.b) == ("dense", "bm25")
    assert (result.mean_a, result.mean_b, result.difference) == (0.625, 0.125, 0.5)
    assert result.effect_size == pytest.approx(0.5 / math.sqrt(1 / 3))
    assert (result.wins, result.ties, result.losses) == (2, 2, 0)
    # 2 of the 4 sign patterns of the two non-zero differences reach |sum| = 2
    assert result.p_value == 0.5
    assert result.p_adjusted == result.p_value
    assert result.correction == "none"


def test_tie_tolerance_decides_what_counts_as_a_tie() -> None:
    a, b = scores(0.5, 0.5004, 0.49, 0.6), scores(0.5, 0.5, 0.5, 0.5)
    assert (compare_pair(a, b).wins, compare_pair(a, b).ties, compare_pair(a, b).losses) == (2, 1, 1)
    loose = compare_pair(a, b, tie_tolerance=0.001)
    assert (loose.wins, loose.ties, loose.losses) == (1, 2, 1)
    # rounding noise well under the default tolerance is a tie, not a win
    noisy = compare_pair(scores(0.1 + 0.2), scores(0.3))
    assert (noisy.wins, noisy.ties, noisy.losses) == (0, 1, 0)


def test_results_are_plain_python_values() -> None:
    result = compare_pair(scores(1, 0.2, 0.7, 0.1), scores(0.4, 0.3, 0.2, 0.0))
    for name, value in result.to_dict().items():
        assert type(value) in (str, int, float, bool), (name, type(value))
    assert "np." not in repr(result)


def test_question_order_does_not_matter() -> None:
    a = scores(1, 0.2, 0.7, 0.1, 0.9)
    b = scores(0.4, 0.3, 0.2, 0.0, 0.5)
    reordered = dict(reversed(list(b.items())))
    for test in TESTS:
        assert compare_pair(a, b, test=test) == compare_pair(a, reordered, test=test)


def test_swapping_sides_flips_the_signs_and_keeps_the_p_value() -> None:
    rng = np.random.default_rng(0)
    a, b = scores(*rng.random(30)), scores(*rng.random(30))
    forward, backward = compare_pair(a, b, interval="percentile"), compare_pair(b, a, interval="percentile")
    assert backward.difference == pytest.approx(-forward.difference)
    assert backward.p_value == pytest.approx(forward.p_value)
    assert (backward.wins, backward.losses) == (forward.losses, forward.wins)
    assert backward.ci_low == pytest.approx(-forward.ci_high)
    assert backward.bootstrap_low == pytest.approx(-forward.bootstrap_high)  # type: ignore[operator]
    assert backward.effect_size == pytest.approx(-forward.effect_size)  # type: ignore[operator]


# --- degenerate cases -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("test", TESTS)
def test_identical_scores_are_no_evidence_of_a_difference(test: str) -> None:
    same = scores(0.1, 0.5, 0.9, 0.3)
    result = compare_pair(same, dict(same), test=test)
    assert result.p_value == 1.0
    assert result.effect_size == 0.0
    assert (result.bootstrap_low, result.bootstrap_high) == (0.0, 0.0)
    # The t interval has no spread; four sign flips or ranks cannot reject any shift (the least p is 2 / 16).
    expected = (0.0, 0.0) if test == "ttest" else (-math.inf, math.inf)
    assert (result.ci_low, result.ci_high) == expected
    assert (result.wins, result.ties, result.losses) == (0, 4, 0)
    assert result.verdict == "not significant"


@pytest.mark.parametrize("test", TESTS)
def test_one_question_gives_p_one_and_no_interval_or_effect_size(test: str) -> None:
    result = compare_pair({"q1": 1.0}, {"q1": 0.0}, test=test)
    assert result.p_value == 1.0
    assert (result.bootstrap_low, result.bootstrap_high, result.effect_size) == (None, None, None)
    # One question: no test rejects any shift, so its interval is every shift.
    assert (result.ci_low, result.ci_high) == (-math.inf, math.inf)
    assert result.difference == 1.0


def test_the_same_shift_on_every_question_has_no_effect_size_and_a_point_interval() -> None:
    result = compare_pair(scores(0.5, 0.75, 1.0), scores(0.25, 0.5, 0.75), test="ttest")
    assert result.effect_size is None
    assert (result.ci_low, result.ci_high) == (0.25, 0.25)
    assert (result.bootstrap_low, result.bootstrap_high) == (0.25, 0.25)
    assert result.p_value == 0.0  # scipy: t is infinite when every difference is the same non-zero amount


# --- errors ---------------------------------------------------------------------------------------------------------


def test_mismatched_questions_list_the_ids_on_each_side() -> None:
    with pytest.raises(QuestionMismatchError) as raised:
        compare_pair({"q1": 1.0, "q2": 0.0, "q3": 1.0}, {"q1": 1.0, "q4": 0.0, "q3": 1.0}, names=("dense", "bm25"))
    message = str(raised.value)
    assert "Only in 'dense': 1 ('q2')" in message
    assert "Only in 'bm25': 1 ('q4')" in message
    assert isinstance(raised.value, ContextGridError)


def test_a_long_list_of_missing_ids_is_shortened_with_a_count() -> None:
    many = {f"q{i:03d}": 0.5 for i in range(200)}
    fewer = {f"q{i:03d}": 0.5 for i in range(150)}
    with pytest.raises(QuestionMismatchError) as raised:
        compare_configurations({"base": many, "new": fewer}, baseline="base")
    message = str(raised.value)
    assert "Only in 'base': 50 ('q150', 'q151', 'q152', 'q153', 'q154' and 45 more)" in message
    assert "Only in 'new': 0 (none)" in message


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "0.5", None, True])
def test_a_score_that_is_not_a_finite_number_is_named(bad: object) -> None:
    with pytest.raises(ContextGridError, match=r"configuration 'b' for question 'q1' must be a finite number"):
        compare_pair({"q0": 0.1, "q1": 0.2}, {"q0": 0.1, "q1": bad})  # type: ignore[dict-item]


def test_empty_scores_are_refused() -> None:
    with pytest.raises(ContextGridError, match="scored no questions"):
        compare_pair({}, {})


@pytest.mark.parametrize(
    ("options", "error", "pattern"),
    [
        ({"test": "sign"}, UnknownPluginError, "no paired test named 'sign'. Available: permutation, ttest, wilcoxon"),
        ({"correction": "fdr"}, UnknownPluginError, "no correction named 'fdr'. Available: bh, bonferroni, holm, none"),
        ({"interval": "basic"}, UnknownPluginError, "no bootstrap interval named 'basic'"),
        (
            {"alpha": 0},
            InvalidParameterError,
            "The 'alpha' parameter of compare_configurations must be a number in \\(0, 1\\)",
        ),
        ({"confidence": 95}, InvalidParameterError, "'confidence' parameter of compare_configurations"),
        ({"n_resamples": 0}, InvalidParameterError, "'n_resamples' parameter of compare_configurations"),
        ({"seed": -1}, InvalidParameterError, "'seed' parameter of compare_configurations"),
        ({"seed": 1.5}, InvalidParameterError, "'seed' parameter of compare_configurations"),
        ({"tie_tolerance": -1e-3}, InvalidParameterError, "'tie_tolerance' parameter"),
        ({"baseline": "bm"}, InvalidParameterError, r"one of the configurations \['bm25', 'dense'\]"),
        ({"metric": ""}, InvalidParameterError, "'metric' parameter"),
    ],
)
def test_bad_options_get_a_clear_error(options: dict[str, object], error: type[Exception], pattern: str) -> None:
    kwargs: dict[str, object] = {"baseline": "bm25", **options}
    with pytest.raises(error, match=pattern):
        compare_configurations({"bm25": scores(0, 1), "dense": scores(1, 1)}, **kwargs)  # type: ignore[arg-type]


BAD_OPTIONS = [
    {"test": "sign"},
    {"test": ["permutation"]},
    {"correction": "fdr"},
    {"interval": "basic"},
    {"alpha": 0},
    {"alpha": True},
    {"confidence": 95},
    {"confidence": math.nan},
    {"n_resamples": 0},
    {"n_resamples": 2.0},
    {"seed": -1},
    {"seed": 1.5},
    {"tie_tolerance": -1e-3},
    {"tie_tolerance": math.inf},
    {"tie_tolerance": "0"},
    # Two bad values: the record refuses the one the function refuses.
    {"alpha": 2, "seed": -1},
    {"interval": "basic", "n_resamples": 0},
]


def refusal(function: str, options: dict[str, Any], *, record: bool = False) -> tuple[type[Exception], str]:
    """What ``function`` raises given ``options``, or with ``record``, what the options record built for it does."""
    per_question = {"bm25": scores(0, 1), "dense": scores(1, 1)}
    try:
        if record:
            ComparisonOptions(**options, function=function)
        elif function == "compare_pair":
            compare_pair(per_question["bm25"], per_question["dense"], **options)
        elif function == "compare_pairs":
            compare_pairs(per_question, [("dense", "bm25")], **options)
        elif function == "compare_all_pairs":
            compare_all_pairs(per_question, **options)
        else:
            compare_configurations(per_question, baseline="bm25", **options)
    except ContextGridError as error:
        return type(error), str(error)
    raise AssertionError(f"{function} accepted {options}")


# compare_pair makes one comparison, so it takes no correction: those options are given to the other three only.
REFUSALS = [
    (function, options)
    for function in ("compare_pair", "compare_pairs", "compare_all_pairs", "compare_configurations")
    for options in BAD_OPTIONS
    if not (function == "compare_pair" and "correction" in options)
]


@pytest.mark.parametrize(("function", "options"), REFUSALS, ids=[f"{f}-{o!r}" for f, o in REFUSALS])
def test_the_options_record_refuses_what_the_functions_refuse_in_their_words(
    function: str, options: dict[str, Any]
) -> None:
    refused = refusal(function, options)
    assert refusal(function, options, record=True) == refused
    assert refused[0] is UnknownPluginError or f" parameter of {function} must be " in refused[1]


def test_the_options_record_names_itself_and_keeps_plain_values() -> None:
    with pytest.raises(InvalidParameterError, match=r"^The 'alpha' parameter of ComparisonOptions must be a number in"):
        ComparisonOptions(alpha=1.0)
    numpy_values: dict[str, Any] = {"alpha": np.float64(0.01), "n_resamples": np.int64(99), "seed": np.int64(4)}
    options = ComparisonOptions(**numpy_values, tie_tolerance=0)
    plain = (options.alpha, options.n_resamples, options.seed, options.tie_tolerance)
    assert plain == (0.01, 99, 4, 0.0)
    assert [type(value) for value in plain] == [float, int, int, float]
    assert ComparisonOptions() == dataclasses.replace(
        options, alpha=0.05, n_resamples=10_000, seed=0, tie_tolerance=1e-9
    )
    generator = np.random.default_rng(1)
    assert ComparisonOptions(seed=generator).generator() is generator
    assert ComparisonOptions(seed=4).generator().random() == np.random.default_rng(4).random()


def test_fewer_than_two_configurations_are_refused() -> None:
    with pytest.raises(InvalidParameterError, match="at least two configurations"):
        compare_all_pairs({"only": scores(1, 0)})


def test_nothing_the_user_gave_is_modified() -> None:
    given_scores = {"bm25": scores(0, 0.5, 1), "dense": scores(1, 0.5, 1)}
    before = copy.deepcopy(given_scores)
    compare_configurations(given_scores, baseline="bm25")
    compare_all_pairs(given_scores)
    assert given_scores == before


# --- seeds ----------------------------------------------------------------------------------------------------------


def test_the_same_seed_gives_the_same_result_and_global_state_is_untouched() -> None:
    rng = np.random.default_rng(1)
    a, b = scores(*rng.random(40)), scores(*rng.random(40))
    np.random.seed(123)
    expected_next = np.random.random()
    np.random.seed(123)
    first = compare_pair(a, b, n_resamples=500, seed=42)
    assert np.random.random() == expected_next
    assert compare_pair(a, b, n_resamples=500, seed=42) == first
    assert compare_pair(a, b, n_resamples=500, seed=np.random.default_rng(42)) == first
    assert compare_pair(a, b, n_resamples=500, seed=43) != first


def test_the_bootstrap_interval_does_not_depend_on_the_test_chosen() -> None:
    rng = np.random.default_rng(2)
    a, b = scores(*rng.random(40)), scores(*rng.random(40))
    runs = [compare_pair(a, b, test=t, n_resamples=500) for t in TESTS]
    assert len({(r.bootstrap_low, r.bootstrap_high) for r in runs}) == 1
    # Each test's own interval is its own.
    assert len({(r.ci_low, r.ci_high, r.interval_name) for r in runs}) == 3


# --- corrections ----------------------------------------------------------------------------------------------------


def test_corrections_by_hand() -> None:
    p = [0.01, 0.04, 0.03, 0.5]
    assert correct_p_values(p, method="none") == p
    assert correct_p_values(p, method="bonferroni") == pytest.approx([0.04, 0.16, 0.12, 1.0])
    # holm: sorted 0.01*4, 0.03*3, 0.04*2, 0.5*1 -> 0.04, 0.09, 0.09 (running max), 0.5
    assert correct_p_values(p, method="holm") == pytest.approx([0.04, 0.09, 0.09, 0.5])
    # bh: sorted 0.01*4/1, 0.03*4/2, 0.04*4/3, 0.5*4/4 -> running min from the top: 0.04, 0.0533.., 0.0533.., 0.5
    assert correct_p_values(p, method="bh") == pytest.approx([0.04, 0.16 / 3, 0.16 / 3, 0.5])


def holm_by_definition(p: list[float]) -> list[float]:
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return adjusted


p_families = st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=30)


@settings(max_examples=200, deadline=None)
@given(p_families)
def test_correction_laws(p: list[float]) -> None:
    holm = correct_p_values(p, method="holm")
    bh = correct_p_values(p, method="bh")
    bonferroni = correct_p_values(p, method="bonferroni")
    assert holm == pytest.approx(holm_by_definition(p))
    assert bh == pytest.approx(scipy.stats.false_discovery_control(p, method="bh").tolist())
    for raw, h, b, bf in zip(p, holm, bh, bonferroni, strict=True):
        assert raw <= b + 1e-12
        assert b <= h + 1e-12
        assert h <= bf + 1e-12
        assert bf <= 1.0
    for i in range(len(p)):
        for j in range(len(p)):
            if p[i] <= p[j]:
                assert holm[i] <= holm[j]
                assert bh[i] <= bh[j]


def test_correct_p_values_refuses_values_outside_zero_to_one() -> None:
    with pytest.raises(InvalidParameterError, match="'p_values' parameter of correct_p_values"):
        correct_p_values([0.2, 1.5])
    assert correct_p_values([], method="bh") == []


def test_registries_hold_the_builtins() -> None:
    assert PAIRED_TESTS.names() == ("permutation", "ttest", "wilcoxon")
    assert CORRECTIONS.names() == ("bh", "bonferroni", "holm", "none")


# --- all pairs and the table ----------------------------------------------------------------------------------------


def three_configs() -> dict[str, dict[str, float]]:
    rng = np.random.default_rng(11)
    base = rng.random(120)
    return {
        "bm25": scores(*base),
        "dense": scores(*np.clip(base + 0.25 + rng.normal(0, 0.1, 120), 0, 1)),
        "tiny": scores(*np.clip(base - 0.3 + rng.normal(0, 0.1, 120), 0, 1)),
        "same": scores(*np.clip(base + rng.normal(0, 0.1, 120), 0, 1)),
    }


def test_all_pairs_correct_the_whole_family_together() -> None:
    family = compare_all_pairs(three_configs(), correction="holm", n_resamples=999)
    assert [(c.a, c.b) for c in family] == [
        ("bm25", "dense"),
        ("bm25", "tiny"),
        ("bm25", "same"),
        ("dense", "tiny"),
        ("dense", "same"),
        ("tiny", "same"),
    ]
    assert [c.p_adjusted for c in family] == pytest.approx(correct_p_values([c.p_value for c in family]))
    flipped = family.get("dense", "bm25")
    assert flipped.difference == pytest.approx(-family.get("bm25", "dense").difference)
    assert flipped.verdict == "significantly better"
    frame = family.to_dataframe()
    assert len(frame) == 6
    assert {"a", "b", "p_adjusted", "verdict"} <= set(frame.columns)


def test_the_table_marks_significant_wins_and_losses() -> None:
    configs = three_configs()
    table = compare_configurations(configs, baseline="bm25", metric="ndcg@10", n_resamples=999)
    assert table.significantly_better == ("dense",)
    assert table.significantly_worse == ("tiny",)
    assert table.comparison("same").verdict == "not significant"
    assert [c.a for c in table] == ["dense", "tiny", "same"]
    assert table.means["dense"] == pytest.approx(float(np.mean(list(configs["dense"].values()))))
    assert table.test == "permutation"
    assert table.correction == "holm"
    assert table.alpha == 0.05
    assert table.n_questions == 120

    frame = table.to_dataframe()
    assert list(frame.index) == ["bm25", "dense", "tiny", "same"]
    assert frame.index.name == COMPARISON_COLUMNS[0]
    assert list(frame.columns) == list(COMPARISON_COLUMNS[1:])
    assert frame.loc["bm25", "verdict"] == "baseline"
    assert pd.isna(frame.loc["bm25", "p_value"])
    assert list(frame["marker"]) == ["", "▲", "▼", ""]
    dense = table.comparison("dense")
    assert frame.loc["dense", "wins"] == dense.wins
    assert frame.loc["dense", "ci_low"] == dense.ci_low

    assert frame.loc["dense", "baseline"] == "bm25"

    text = str(table)
    assert text.splitlines()[0].startswith(
        "ndcg@10 against 'bm25', 120 questions: permutation test with its own sign-flip interval, holm correction"
    )
    assert "▲ significantly better" in text
    assert "▼ significantly worse" in text
    assert "not significant" in text


def test_without_correction_more_is_significant_than_with_it() -> None:
    rng = np.random.default_rng(4)
    base = rng.random(80)
    configs = {"base": scores(*base)}
    configs.update({f"c{i}": scores(*np.clip(base + rng.normal(0.04, 0.2, 80), 0, 1)) for i in range(8)})
    raw = compare_configurations(configs, baseline="base", correction="none", n_resamples=999)
    holm = compare_configurations(configs, baseline="base", correction="holm", n_resamples=999)
    assert [c.p_value for c in raw] == [c.p_value for c in holm]
    assert all(h.p_adjusted >= r.p_adjusted for h, r in zip(holm, raw, strict=True))
    assert set(holm.significantly_better) <= set(raw.significantly_better)


def test_per_query_output_plugs_straight_in() -> None:
    qrels = {"q1": {"c1": 2}, "q2": {"c2": 1}, "q3": {"c3": 2}, "q4": {"c4": 2}}
    runs = {
        "bm25": {"q1": ["c9", "c1"], "q2": ["c2"], "q3": ["c8"], "q4": ["c7", "c6", "c4"]},
        "dense": {"q1": ["c1"], "q2": ["c2"], "q3": ["c3"], "q4": ["c4"]},
    }
    per_config = {name: cg.per_query(qrels, run, "mrr", 3) for name, run in runs.items()}
    table = compare_configurations(per_config, baseline="bm25", metric="mrr@3")
    dense = table.comparison("dense")
    # bm25 mrr: 1/2, 1, 0, 1/3; dense: 1, 1, 1, 1 -> differences 1/2, 0, 1, 2/3
    assert dense.difference == pytest.approx((0.5 + 1 + 2 / 3) / 4)
    assert (dense.wins, dense.ties, dense.losses) == (3, 1, 0)
    assert dense.p_value == 0.25  # exact: 2 of the 8 sign patterns of three non-zero differences


def test_records_refuse_inconsistent_values() -> None:
    result = compare_pair(scores(1, 0.5, 0), scores(0, 0.5, 0))
    with pytest.raises(ContextGridError, match="wins \\+ ties \\+ losses"):
        dataclasses.replace(result, wins=5)
    with pytest.raises(ContextGridError, match="p_value must be a number in \\[0, 1\\]"):
        dataclasses.replace(result, p_value=1.5)
    with pytest.raises(ContextGridError, match="bootstrap_low and bootstrap_high must both be set"):
        dataclasses.replace(result, bootstrap_low=None)
    with pytest.raises(ContextGridError, match=r"ci_low 1\.0 must not exceed ci_high"):
        dataclasses.replace(result, ci_low=1.0, ci_high=0.0)
    with pytest.raises(ContextGridError, match="ci_low must be a number"):
        dataclasses.replace(result, ci_low=math.nan)
    with pytest.raises(ContextGridError, match="not the baseline"):
        ComparisonTable(metric=None, baseline="a", means={"a": 0.5, "b": 0.4}, comparisons=(result,))
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.p_value = 0.0  # type: ignore[misc]
    assert isinstance(result, PairedComparison)


# --- the interval plot ----------------------------------------------------------------------------------------------


def test_interval_plot_draws_each_difference_with_its_interval() -> None:
    table = compare_configurations(three_configs(), baseline="bm25", metric="ndcg@10", n_resamples=999)
    figure = interval_plot(table)
    traces = {trace.name: trace for trace in figure.data}
    assert {"significantly better", "significantly worse", "not significant"} <= set(traces)
    dense = table.comparison("dense")
    better = traces["significantly better"]
    assert list(better.y) == ["▲ dense"]
    assert list(better.x) == [dense.estimate] == [dense.difference]
    # Each interval is a segment from its low to its high end, on its configuration's row.
    segments = [
        (trace.y[i], trace.x[i], trace.x[i + 1])
        for trace in figure.data
        if trace.mode == "lines"
        for i in range(0, len(trace.x), 3)
    ]
    assert ("▲ dense", dense.ci_low, dense.ci_high) in segments
    assert len(segments) == len(table.comparisons)
    assert list(figure.layout.yaxis.categoryarray) == ["▲ dense", "▼ tiny", "same"]
    assert "ndcg@10" in figure.layout.title.text
    assert interval_plot(table, title="mine").layout.title.text.startswith("mine<br>")
    with pytest.raises(InvalidParameterError, match="'table' parameter of interval_plot"):
        interval_plot({"not": "a table"})  # type: ignore[arg-type]


def test_the_interval_plot_names_the_correction_and_draws_each_interval_at_its_corrected_level() -> None:
    table = compare_configurations(
        three_configs(), baseline="bm25", metric="ndcg@10", n_resamples=999, correction="bonferroni"
    )
    subtitle = interval_plot(table).layout.title.text
    assert "permutation test with its sign-flip intervals" in subtitle
    assert "p-values and interval levels bonferroni-corrected for 3 comparisons" in subtitle
    plain = compare_configurations(
        three_configs(), baseline="bm25", metric="ndcg@10", n_resamples=999, correction="none"
    )
    assert "95% intervals, p-values not corrected" in interval_plot(plain).layout.title.text
    # Every drawn segment crosses 0 exactly when its point is grey.
    [lines] = [t for t in interval_plot(table).data if t.mode == "lines"]
    for i, comparison in zip(range(0, len(lines.x), 3), table.comparisons, strict=True):
        assert (lines.x[i] > 0 or lines.x[i + 1] < 0) == comparison.significant


def test_an_unbounded_interval_runs_nearly_to_the_plots_edge_and_ends_in_an_arrow() -> None:
    table = compare_configurations({"b": scores(0, 0, 1), "a": scores(1, 0, 1)}, baseline="b")
    (c,) = table
    assert (c.ci_low, c.ci_high) == (-math.inf, math.inf)
    figure = interval_plot(table)
    [lines] = [t for t in figure.data if t.mode == "lines"]
    [arrows] = [t for t in figure.data if t.mode == "text"]
    low, high = figure.layout.xaxis.range
    room = 0.05 * (high - low)
    assert (lines.x[0], lines.x[1]) == pytest.approx((low + room, high - room))
    assert list(arrows.text) == ["◀", "▶"]
    assert list(arrows.x) == [lines.x[0], lines.x[1]]


def test_the_bootstrap_gives_the_same_means_whichever_way_it_sums() -> None:
    # Up to GATHERED_PAIRS pairs the resampled differences are summed directly; more pairs go through
    # counted draws and a matrix product. Same draws, so the same means up to rounding.
    scores = np.random.default_rng(3).random((5, 2_000))
    few = (np.array([1, 2]), np.array([0, 0]))
    many = (np.array([1, 2, 3, 4]), np.array([0, 0, 0, 0]))
    assert len(few[0]) <= GATHERED_PAIRS < len(many[0])

    def resampled(first: np.ndarray, second: np.ndarray) -> np.ndarray:
        differences = scores[first] - scores[second]
        return bootstrap_mean_differences(
            scores, first, second, differences, n_resamples=3_000, rng=np.random.default_rng(9)
        )

    summed, counted = resampled(*few), resampled(*many)
    np.testing.assert_allclose(summed, counted[:, :2], rtol=0, atol=1e-12)
    assert not np.array_equal(summed[:, 0], summed[:, 1])


def test_a_per_question_frame_is_taken_as_it_is() -> None:
    workspace = cg.load_workspace(HANDMADE_WORKSPACE)
    frame = workspace.per_query("ndcg", 5)
    as_dicts = {name: {str(q): float(v) for q, v in frame[name].items()} for name in frame.columns}
    options = {"baseline": workspace.names[0], "metric": "ndcg@5", "n_resamples": 500, "seed": 3}
    assert compare_configurations(frame, **options) == compare_configurations(as_dicts, **options)
    gap = frame.copy()
    gap.iloc[1, 2] = np.nan
    with pytest.raises(QuestionMismatchError, match=f"configuration '{frame.columns[2]}' scores no value for 1"):
        compare_configurations(gap, **options)
    with pytest.raises(InvalidParameterError, match="a frame with at least two configurations"):
        compare_configurations(frame.iloc[:, :1], **options)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=12, max_size=12), min_size=3, max_size=6),
    st.sampled_from(TESTS),
    st.sampled_from(sorted(CORRECTIONS)),
)
def test_listed_pairs_get_compare_pairs_p_values_corrected_over_the_list(
    rows: list[list[float]], test: str, correction: str
) -> None:
    scores = {f"c{i}": {f"q{j}": value for j, value in enumerate(row)} for i, row in enumerate(rows)}
    names = list(scores)
    pairs = [(names[i], names[j]) for i in range(len(names)) for j in range(len(names)) if i < j][:5]
    found = cg.compare_pairs(scores, pairs, test=test, correction=correction, n_resamples=500, interval=None)
    alone = [compare_pair(scores[a], scores[b], names=(a, b), test=test, n_resamples=500) for a, b in pairs]
    assert [(c.a, c.b) for c in found] == pairs
    assert [c.p_value for c in found] == pytest.approx([c.p_value for c in alone], abs=1e-12)
    expected = correct_p_values([c.p_value for c in alone], method=correction)
    assert [c.p_adjusted for c in found] == pytest.approx(expected, abs=1e-12)
    assert all(c.bootstrap_low is None and c.bootstrap_high is None and c.interval is None for c in found)
    assert [c.difference for c in found] == pytest.approx([c.difference for c in alone], abs=1e-12)


def test_listed_pairs_must_be_two_different_known_configurations() -> None:
    scores = {"a": {"q1": 1.0, "q2": 0.0}, "b": {"q1": 0.0, "q2": 0.0}}
    for pairs in ([], [("a", "a")], [("a", "z")], [["a", "b"]], "ab"):
        with pytest.raises(InvalidParameterError, match="'pairs' parameter of compare_pairs"):
            cg.compare_pairs(scores, pairs)  # type: ignore[arg-type]
    with_interval = cg.compare_pairs(scores, [("a", "b")], n_resamples=200)[0]
    alone = compare_pair(scores["a"], scores["b"], names=("a", "b"), n_resamples=200)
    assert (with_interval.bootstrap_low, with_interval.bootstrap_high) == (alone.bootstrap_low, alone.bootstrap_high)
