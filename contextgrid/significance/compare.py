"""compare_pair(), compare_pairs(), compare_all_pairs() and compare_configurations(): per_query()
dicts in, frozen records out."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from contextgrid.core.checks import TIE_TOLERANCE
from contextgrid.core.errors import parameter_error
from contextgrid.significance.alignment import AlignedScores, PerQuestion, align_scores
from contextgrid.significance.comparisons import (
    ComparisonTable,
    PairedComparison,
    PairwiseComparisons,
)
from contextgrid.significance.corrections import CORRECTIONS
from contextgrid.significance.intervals import INTERVALS
from contextgrid.significance.inversion import agreeing_bounds
from contextgrid.significance.options import ComparisonOptions
from contextgrid.significance.paired import PAIRED_TESTS
from contextgrid.significance.resampling import bootstrap_mean_differences

__all__ = [
    "POWER",
    "compare_all_pairs",
    "compare_configurations",
    "compare_pair",
    "compare_pairs",
    "detectable_differences",
]

IntArray = npt.NDArray[np.intp]
FloatArray = npt.NDArray[np.float64]

FLAT_RTOL = 1e-12
"""Differences whose spread is below this fraction of their size are treated as all equal."""


def _compare(
    aligned: AlignedScores,
    first: IntArray,
    second: IntArray,
    options: ComparisonOptions,
) -> list[PairedComparison]:
    tester = PAIRED_TESTS.get(options.test)()
    corrector = CORRECTIONS.get(options.correction)()
    # No bootstrap at all without an interval: at 10,000 questions it costs more than the test itself.
    bounds = None if options.interval is None else INTERVALS.get(options.interval)()
    level, coverage, resamples = options.alpha, options.confidence, options.n_resamples
    # Separate streams: the interval does not change with the test chosen, nor the test with the interval.
    test_rng, bootstrap_rng = options.generator().spawn(2)

    scores = aligned.scores
    n_questions = scores.shape[1]
    # One rule for the counts, the test, the interval and the effect size: a tie is a difference of exactly 0.
    differences = aligned.differences(first, second, options.tie_tolerance)
    mean_difference = differences.mean(axis=1)
    wins = np.count_nonzero(differences > 0.0, axis=1)
    losses = np.count_nonzero(differences < 0.0, axis=1)
    ties = n_questions - wins - losses
    all_tied = ties == n_questions

    run = tester.run(scores, first, second, differences=differences, n_resamples=resamples, rng=test_rng)
    raw = np.where(np.isnan(run.p_values), 1.0, np.clip(run.p_values, 0.0, 1.0))
    adjusted = corrector.adjust(raw)
    steps = corrector.factors(raw, level)
    # The test's own interval at the level the correction set for each comparison; at its very edge, the verdict
    # decides whether it holds 0, so the two never disagree.
    inverted = [
        agreeing_bounds(
            *run.bounds(p, float(steps.factor[p]), level),
            anchor=0.0,
            rejected=bool(adjusted[p] <= level),
            estimate=run.estimate(p),
        )
        for p in range(len(first))
    ]

    pairs = len(first)
    low: list[float | None] = [None] * pairs
    high: list[float | None] = [None] * pairs
    effect: list[float | None] = [None] * pairs
    detectable: list[float | None] = [None] * pairs
    if n_questions >= 2:
        if bounds is not None:
            boot = bootstrap_mean_differences(
                scores, first, second, differences, n_resamples=resamples, rng=bootstrap_rng
            )
            boot.sort(axis=0)
            scale = np.abs(scores).mean(axis=1)
            low_values, high_values = bounds.bounds(
                differences.T, mean_difference, boot, scale[first] + scale[second], coverage
            )
            low, high = list(low_values.tolist()), list(high_values.tolist())
        spread = differences.std(axis=1, ddof=1)
        flat = spread <= FLAT_RTOL * np.abs(differences).max(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            cohen = mean_difference / spread
        effect = [None if is_flat else value for is_flat, value in zip(flat.tolist(), cohen.tolist(), strict=True)]
        powered = detectable_differences(spread, n_questions, level / steps.factor)
        detectable = [None if no else value for no, value in zip(flat.tolist(), powered.tolist(), strict=True)]
    effect = [0.0 if tied else value for tied, value in zip(all_tied.tolist(), effect, strict=True)]

    means = scores.mean(axis=1)
    names = aligned.names
    return [
        PairedComparison(
            a=names[i],
            b=names[j],
            test=options.test,
            n_questions=n_questions,
            mean_a=float(means[i]),
            mean_b=float(means[j]),
            difference=float(mean_difference[p]),
            estimate=run.estimate(p),
            ci_low=inverted[p][0],
            ci_high=inverted[p][1],
            ci_level=1.0 - level / float(steps.factor[p]),
            interval_name=tester.interval_name,
            step=int(steps.step[p]),
            reached=bool(steps.reached[p]),
            bootstrap_low=low[p],
            bootstrap_high=high[p],
            confidence=coverage,
            interval=options.interval,
            p_value=float(raw[p]),
            p_adjusted=float(adjusted[p]),
            correction=options.correction,
            alpha=level,
            effect_size=effect[p],
            wins=int(wins[p]),
            ties=int(ties[p]),
            losses=int(losses[p]),
            n_resamples=resamples,
            p_floor=tester.floor(int(wins[p] + losses[p]), n_questions, n_resamples=resamples),
            p_resolution=run.resolution,
            detectable=detectable[p],
        )
        for p, (i, j) in enumerate(zip(first.tolist(), second.tolist(), strict=True))
    ]


POWER = 0.8
"""The power of :func:`detectable_differences`: the chance a real difference of that size is found."""


def detectable_differences(spread: FloatArray, n_questions: int, levels: FloatArray) -> FloatArray:
    """The smallest mean difference ``n_questions`` paired questions detect with 80% power, per comparison.

    The normal-theory formula with t quantiles, ``(t(1 - level / 2) + t(0.8)) * sd / sqrt(n)`` on ``n - 1``
    degrees of freedom, taking the observed spread ``sd`` of the differences as the truth: a two-sided test at
    ``level`` finds a true difference of this size in about 80% of such samples.

    Examples
    --------
    With t(0.975) = 1.9842 and t(0.8) = 0.8453 on 99 degrees of freedom, ``2.8295 * 0.3 / 10``:

    >>> round(float(detectable_differences(np.array([0.3]), 100, np.array([0.05]))[0]), 4)
    0.0849
    """
    from scipy.special import stdtrit  # type: ignore[import-untyped]

    freedom = max(n_questions - 1, 1)
    quantiles = stdtrit(freedom, 1.0 - levels / 2.0) + stdtrit(freedom, POWER)
    return np.asarray(quantiles * spread / np.sqrt(n_questions), dtype=np.float64)


def compare_pair(
    a: Mapping[str, float],
    b: Mapping[str, float],
    *,
    names: tuple[str, str] = ("a", "b"),
    test: str = "permutation",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    interval: str | None = "bca",
    seed: int | np.random.Generator = 0,
    tie_tolerance: float = TIE_TOLERANCE,
) -> PairedComparison:
    """Is ``a`` really better or worse than ``b``? One paired test, one interval.

    Parameters
    ----------
    a, b : mapping
        ``{question_id: score}``, as :func:`contextgrid.per_query` returns, on
        the same question ids (else :class:`~contextgrid.core.errors.QuestionMismatchError`
        listing the ids each side lacks).
    names : (str, str), default ("a", "b")
        What to call the two sides in the result.
    test : str, default "permutation"
        A name in ``PAIRED_TESTS``: ``"permutation"``, ``"ttest"`` or ``"wilcoxon"``.
    alpha : float, default 0.05
        Significance level. No correction: this is one comparison.
    n_resamples : int, default 10_000
        Sign flips for the permutation test, and bootstrap resamples for the interval.
    confidence : float, default 0.95
        Coverage of the bootstrap interval of the mean difference.
    interval : str or None, default "bca"
        A name in ``INTERVALS``: ``"bca"`` or ``"percentile"``; ``None`` draws no bootstrap
        (``bootstrap_low``/``bootstrap_high`` are ``None``), which nothing beside a verdict needs.
    seed : int or numpy.random.Generator, default 0
        The same int gives the same result; global random state is never used.
    tie_tolerance : float, default 1e-9
        A question whose scores differ by at most this much is a tie: its difference counts as exactly 0 in
        the test, the interval, ``difference``, the effect size and the win/tie/loss counts alike.

    Returns
    -------
    PairedComparison
        ``difference`` is ``mean(a) - mean(b)``, ties counted as exactly 0.

    Examples
    --------
    >>> from contextgrid.significance import compare_pair
    >>> a = {"q1": 1.0, "q2": 1.0, "q3": 0.5, "q4": 1.0}
    >>> b = {"q1": 0.0, "q2": 0.5, "q3": 0.5, "q4": 0.0}
    >>> result = compare_pair(a, b, names=("dense", "bm25"))
    >>> result.difference, result.p_value, result.verdict
    (0.625, 0.25, 'not significant')
    """
    if (
        not isinstance(names, tuple)
        or len(names) != 2
        or not all(isinstance(name, str) and name for name in names)
        or names[0] == names[1]
    ):
        raise parameter_error("compare_pair", "names", "a tuple of two different non-empty str", names)
    aligned = align_scores({names[0]: a, names[1]: b}, function="compare_pair")
    (result,) = _compare(
        aligned,
        np.array([0], dtype=np.intp),
        np.array([1], dtype=np.intp),
        ComparisonOptions(
            test=test,
            correction="none",
            alpha=alpha,
            n_resamples=n_resamples,
            confidence=confidence,
            interval=interval,
            seed=seed,
            tie_tolerance=tie_tolerance,
            function="compare_pair",
        ),
    )
    return result


def compare_all_pairs(
    per_query_by_config: PerQuestion,
    *,
    test: str = "permutation",
    correction: str = "holm",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    interval: str | None = "bca",
    seed: int | np.random.Generator = 0,
    tie_tolerance: float = TIE_TOLERANCE,
) -> PairwiseComparisons:
    """Every configuration against every other, corrected for making all those comparisons.

    Takes the same options as :func:`compare_configurations`; the family the
    correction covers is all ``n * (n - 1) / 2`` pairs. Pair ``(a, b)`` gets
    the same raw p-value and bootstrap interval as ``compare_pair(a, b)`` with the
    same seed, up to rounding: every pair sees the same sign flips and resamples.
    Its test's own interval is at the level the correction sets for it, so it is
    ``compare_pair``'s only under ``correction="none"``.

    Examples
    --------
    >>> from contextgrid.significance import compare_all_pairs
    >>> scores = {
    ...     "bm25": {"q1": 0.0, "q2": 0.5, "q3": 0.0},
    ...     "dense": {"q1": 1.0, "q2": 0.5, "q3": 1.0},
    ...     "hybrid": {"q1": 1.0, "q2": 1.0, "q3": 1.0},
    ... }
    >>> pairs = compare_all_pairs(scores, correction="bonferroni")
    >>> [(c.a, c.b, c.p_value, c.p_adjusted) for c in pairs]
    [('bm25', 'dense', 0.5, 1.0), ('bm25', 'hybrid', 0.25, 0.75), ('dense', 'hybrid', 1.0, 1.0)]
    """
    aligned = align_scores(per_query_by_config, function="compare_all_pairs")
    pairs = np.array(list(itertools.combinations(range(len(aligned.names)), 2)), dtype=np.intp)
    comparisons = _compare(
        aligned,
        pairs[:, 0],
        pairs[:, 1],
        ComparisonOptions(
            test=test,
            correction=correction,
            alpha=alpha,
            n_resamples=n_resamples,
            confidence=confidence,
            interval=interval,
            seed=seed,
            tie_tolerance=tie_tolerance,
            function="compare_all_pairs",
        ),
    )
    means = dict(zip(aligned.names, aligned.scores.mean(axis=1).tolist(), strict=True))
    return PairwiseComparisons(means, tuple(comparisons))


def compare_pairs(
    per_query_by_config: PerQuestion,
    pairs: Sequence[tuple[str, str]],
    *,
    test: str = "permutation",
    correction: str = "holm",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    interval: str | None = "bca",
    seed: int | np.random.Generator = 0,
    tie_tolerance: float = TIE_TOLERANCE,
) -> tuple[PairedComparison, ...]:
    """The listed pairs of configurations, corrected for making those comparisons, in the order given.

    Takes the same options as :func:`compare_configurations`. Pair ``(a, b)`` gets the same raw p-value as
    ``compare_pair(a, b)`` with the same seed, up to rounding: every pair sees the same sign flips, whichever
    other pairs are listed. One call serves many pairs for the price of one set of resamples.

    Examples
    --------
    >>> from contextgrid.significance import compare_pairs
    >>> scores = {
    ...     "bm25": {"q1": 0.0, "q2": 0.5, "q3": 0.0},
    ...     "dense": {"q1": 1.0, "q2": 0.5, "q3": 1.0},
    ...     "hybrid": {"q1": 1.0, "q2": 1.0, "q3": 1.0},
    ... }
    >>> found = compare_pairs(scores, [("hybrid", "bm25"), ("dense", "bm25")], correction="bonferroni")
    >>> [(c.a, c.b, c.p_value, c.p_adjusted) for c in found]
    [('hybrid', 'bm25', 0.25, 0.5), ('dense', 'bm25', 0.5, 1.0)]
    """
    function = "compare_pairs"
    aligned = align_scores(per_query_by_config, function=function)
    listed = list(pairs) if isinstance(pairs, Sequence) and not isinstance(pairs, str) else None
    if not listed or not all(
        isinstance(pair, tuple)
        and len(pair) == 2
        and all(name in aligned.names for name in pair)
        and pair[0] != pair[1]
        for pair in listed
    ):
        raise parameter_error(
            function, "pairs", f"a non-empty sequence of (a, b) tuples of two of {list(aligned.names)}", pairs
        )
    rows = np.array([[aligned.row(a), aligned.row(b)] for a, b in listed], dtype=np.intp)
    options = ComparisonOptions(
        test=test,
        correction=correction,
        alpha=alpha,
        n_resamples=n_resamples,
        confidence=confidence,
        interval=interval,
        seed=seed,
        tie_tolerance=tie_tolerance,
        function=function,
    )
    return tuple(_compare(aligned, rows[:, 0], rows[:, 1], options))


def compare_configurations(
    per_query_by_config: PerQuestion,
    *,
    baseline: str,
    metric: str | None = None,
    test: str = "permutation",
    correction: str = "holm",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    interval: str | None = "bca",
    seed: int | np.random.Generator = 0,
    tie_tolerance: float = TIE_TOLERANCE,
) -> ComparisonTable:
    """Every configuration against a baseline on one metric: which differences are real?

    Parameters
    ----------
    per_query_by_config : mapping or DataFrame
        ``{config_name: {question_id: score}}``: one :func:`contextgrid.per_query`
        result per configuration, all on the same question ids; or a frame of
        questions by configurations (``Workspace.per_query``), taken as it is.
    baseline : str
        The configuration everything else is compared with.
    metric : str, optional
        The ``metric@k`` the scores are, used as a label only.
    test : str, default "permutation"
        A name in ``PAIRED_TESTS``: ``"permutation"``, ``"ttest"`` or ``"wilcoxon"``.
    correction : str, default "holm"
        A name in ``CORRECTIONS``: ``"holm"``, ``"bh"``, ``"bonferroni"`` or
        ``"none"``, applied across the comparisons with the baseline.
    alpha : float, default 0.05
        Significance level the corrected p-values are compared with.
    n_resamples : int, default 10_000
        Sign flips for the permutation test, and bootstrap resamples for the intervals.
    confidence : float, default 0.95
        Coverage of each bootstrap interval of the difference (not corrected).
    interval : str or None, default "bca"
        A name in ``INTERVALS``: ``"bca"`` or ``"percentile"``; ``None`` draws no bootstrap
        (``bootstrap_low``/``bootstrap_high`` are ``None``), which nothing beside a verdict needs.
    seed : int or numpy.random.Generator, default 0
        The same int gives the same table; global random state is never used.
    tie_tolerance : float, default 1e-9
        A question whose scores differ by at most this much is a tie: its difference counts as exactly 0 in
        the test, the interval, ``difference``, the effect size and the win/tie/loss counts alike.

    Returns
    -------
    ComparisonTable
        ``.to_dataframe()`` for a table, ``str()`` for text, and
        :func:`contextgrid.render.interval_plot` for a figure.

    Examples
    --------
    >>> from contextgrid.significance import compare_configurations
    >>> scores = {
    ...     "bm25": {"q1": 0.0, "q2": 0.5, "q3": 0.0, "q4": 1.0},
    ...     "dense": {"q1": 1.0, "q2": 0.5, "q3": 1.0, "q4": 1.0},
    ... }
    >>> table = compare_configurations(scores, baseline="bm25", metric="recall@5")
    >>> row = table.comparison("dense")
    >>> row.difference, row.p_value, row.verdict
    (0.5, 0.5, 'not significant')
    """
    function = "compare_configurations"
    aligned = align_scores(per_query_by_config, function=function)
    if not isinstance(baseline, str) or baseline not in aligned.names:
        raise parameter_error(function, "baseline", f"one of the configurations {list(aligned.names)}", baseline)
    if metric is not None and (not isinstance(metric, str) or not metric):
        raise parameter_error(function, "metric", "a non-empty str or None", metric)
    base = aligned.row(baseline)
    others = np.array([i for i in range(len(aligned.names)) if i != base], dtype=np.intp)
    options = ComparisonOptions(
        test=test,
        correction=correction,
        alpha=alpha,
        n_resamples=n_resamples,
        confidence=confidence,
        interval=interval,
        seed=seed,
        tie_tolerance=tie_tolerance,
        function=function,
    )
    comparisons = _compare(aligned, others, np.full(len(others), base, dtype=np.intp), options)
    means = dict(zip(aligned.names, aligned.scores.mean(axis=1).tolist(), strict=True))
    return ComparisonTable(
        metric=metric,
        baseline=baseline,
        means=means,
        comparisons=tuple(comparisons),
        tie_tolerance=options.tie_tolerance,
    )
