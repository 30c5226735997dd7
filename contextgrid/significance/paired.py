"""Paired tests of "do these two configurations score the same on average?": the
PAIRED_TESTS registry and its three built-ins, each with its own confidence interval (its inversion).

Every test here is two-sided and works on a batch of pairs at once: ``scores``
is the ``(n_configs, n_questions)`` matrix and pair ``p`` compares row
``first[p]`` with row ``second[p]``, question by question. ``differences[p]``
is that pair's per-question differences with every tie (a difference within
the comparison's ``tie_tolerance``) exactly 0; a test works on those, so it
agrees with the win/tie/loss counts on what a tie is.
"""

from __future__ import annotations

import math
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from contextgrid.core.registry import Registry
from contextgrid.significance.inversion import BisectedShifts, ShiftTest, SignFlipShifts, TShifts, sign_flip_slack
from contextgrid.significance.resampling import sign_flip_sums

__all__ = ["PAIRED_TESTS", "OnePairTest", "PairedTTest", "PairedTest", "PermutationTest", "WilcoxonTest"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]


@runtime_checkable
class PairedTest(Protocol):
    """A two-sided paired test and its inversion, run on a batch of pairs of rows of ``scores``.

    ``differences`` is ``(n_pairs, n_questions)``, row ``first[p]`` minus row ``second[p]`` with the ties
    exactly 0. ``n_resamples`` and ``rng`` are for tests that resample; others ignore them. ``run`` returns a
    :class:`~contextgrid.significance.inversion.ShiftTest`: each pair's p-value, and the test of every shift of
    its differences, from which its own confidence interval comes. ``floor`` is the smallest p-value the test
    can reach when ``differing`` of ``n_questions`` questions differ. A test of one pair's differences needs
    only subclass :class:`OnePairTest`.
    """

    name: ClassVar[str]
    version: ClassVar[str]
    interval_name: ClassVar[str]

    def run(
        self,
        scores: FloatArray,
        first: IntArray,
        second: IntArray,
        *,
        differences: FloatArray,
        n_resamples: int,
        rng: np.random.Generator,
    ) -> ShiftTest: ...

    def floor(self, differing: int, n_questions: int, *, n_resamples: int) -> float: ...


PAIRED_TESTS: Registry[type[PairedTest]] = Registry("paired test")
"""Paired tests by name: ``"permutation"``, ``"ttest"`` and ``"wilcoxon"``."""


class OnePairTest:
    """A test defined by one pair's p-value, ``p_value(differences)``: subclass it and the rest follows.

    ``run`` tests each pair's row of differences, and its interval is the inversion of that same function by
    bisection over the shift (:class:`~contextgrid.significance.inversion.BisectedShifts`), starting from
    ``estimate`` (by default the mean). ``floor`` is the p-value of ``differing`` equal wins among ties.
    """

    name: ClassVar[str]
    version: ClassVar[str]
    interval_name: ClassVar[str] = "inverted-test"

    def p_value(self, differences: FloatArray) -> float:
        """The two-sided p-value of "these differences are centred on 0"."""
        raise NotImplementedError

    def estimate(self, differences: FloatArray) -> float:
        """The shift the test finds most plausible, where the bisection starts."""
        return float(differences.mean())

    def run(
        self,
        scores: FloatArray,
        first: IntArray,
        second: IntArray,
        *,
        differences: FloatArray,
        n_resamples: int,
        rng: np.random.Generator,
    ) -> ShiftTest:
        return BisectedShifts(differences, self.p_value, self.estimate)

    def floor(self, differing: int, n_questions: int, *, n_resamples: int) -> float:
        row = np.zeros(n_questions)
        row[:differing] = 1.0
        return self.p_value(row)


@PAIRED_TESTS.register("permutation")
class PermutationTest:
    """Paired randomization test of the mean difference, by random sign flips.

    Under "no difference" each question's two scores could have come from
    either configuration, so flipping the sign of its difference is as likely
    as not. The p-value is the share of flipped mean differences at least as
    far from zero as the observed one: ``(b + 1) / (m + 1)`` for ``b`` of
    ``m`` random flips, the +1 counting the observed labelling itself so a
    p-value is never 0. With ``2 ** n <= n_resamples`` all sign vectors are
    enumerated and the p-value is exact, ``b / 2 ** n``. This is
    ``scipy.stats.permutation_test`` with ``permutation_type="samples"``; scipy
    doubles the smaller one-sided p-value where this counts ``|T| >= |t|``, the
    same thing in expectation for a null that is symmetric about 0.
    Assumes nothing about the scores' distribution. Its interval is the set of
    shifts the same flips do not reject (:class:`~contextgrid.significance.inversion.SignFlipShifts`).
    """

    name: ClassVar[str] = "permutation"
    version: ClassVar[str] = "3"
    interval_name: ClassVar[str] = "sign-flip"

    def run(
        self,
        scores: FloatArray,
        first: IntArray,
        second: IntArray,
        *,
        differences: FloatArray,
        n_resamples: int,
        rng: np.random.Generator,
    ) -> ShiftTest:
        null, signs, exact = sign_flip_sums(scores, first, second, differences, n_resamples=n_resamples, rng=rng)
        return SignFlipShifts(
            null, signs, differences.sum(axis=1), scores.shape[1], sign_flip_slack(scores, first, second), exact
        )

    def floor(self, differing: int, n_questions: int, *, n_resamples: int) -> float:
        """Flipping every differing question, or none, is as extreme as the data: ``2 / 2 ** differing``."""
        exact = n_questions < 62 and (1 << n_questions) <= n_resamples
        reachable = min(1.0, 2.0 ** (1 - differing))
        return reachable if exact else max(reachable, 1.0 / (n_resamples + 1.0))


@PAIRED_TESTS.register("ttest")
class PairedTTest:
    """Paired Student's t-test (``scipy.stats.ttest_rel``, as a one-sample test of the differences with their
    ties exactly 0): assumes the differences are roughly normal. Its interval is the t interval.

    Fine for averages of many questions; on small sets of 0/1 scores
    (hit rate) prefer the permutation test.
    """

    name: ClassVar[str] = "ttest"
    version: ClassVar[str] = "3"
    interval_name: ClassVar[str] = "t"

    def run(
        self,
        scores: FloatArray,
        first: IntArray,
        second: IntArray,
        *,
        differences: FloatArray,
        n_resamples: int,
        rng: np.random.Generator,
    ) -> ShiftTest:
        return TShifts(differences)

    def floor(self, differing: int, n_questions: int, *, n_resamples: int) -> float:
        """The largest ``|t|`` with ``k`` of ``n`` differing is that of ``k`` equal differences,
        ``sqrt(k (n - 1) / (n - k))`` (Cauchy-Schwarz); every question differing equally reaches 0."""
        from scipy.special import stdtr  # type: ignore[import-untyped]

        if differing == 0 or n_questions < 2:
            return 1.0
        if differing == n_questions:
            return 0.0
        t = math.sqrt(differing * (n_questions - 1) / (n_questions - differing))
        return float(2.0 * stdtr(n_questions - 1, -t))


@PAIRED_TESTS.register("wilcoxon")
class WilcoxonTest(OnePairTest):
    """Wilcoxon signed-rank test (``scipy.stats.wilcoxon``): ranks of the differences.

    Ties (differences within the tie tolerance, already exactly 0) are
    dropped before ranking, Wilcoxon's own way and scipy's default
    ``zero_method="wilcox"``: a tie says nothing about which side is better.
    scipy then runs on the remaining differences with its default
    ``method="auto"``: the exact distribution for up to 50 of them without
    tied ranks, an exact permutation distribution for up to 13 with tied
    ranks, the normal approximation otherwise. Dropping ties first (rather
    than passing zeros to scipy) lets that choice depend on the questions
    that differ only, and each pair is tested alone, so a pair's p-value does
    not depend on the other pairs compared alongside it. It tests whether the
    differences are symmetric about zero, which is about the median rather
    than the mean: a few large wins can be outvoted by many small losses.
    Its interval is the Hodges-Lehmann interval of that centre, found by
    inverting this very p-value over the shift; its estimate is the
    Hodges-Lehmann estimate, the median of the pairwise means of the differences.
    """

    name: ClassVar[str] = "wilcoxon"
    version: ClassVar[str] = "3"
    interval_name: ClassVar[str] = "Hodges-Lehmann"

    def p_value(self, differences: FloatArray) -> float:
        """scipy's p-value; for tied ranks among at most :data:`TIED_EXACT` differences, scipy's exact permutation
        distribution counted here by dynamic programming instead of by enumerating every sign vector."""
        import warnings

        from scipy.stats import rankdata, wilcoxon  # type: ignore[import-untyped]

        differing = differences[differences != 0.0]
        # No difference at all means p = 1 (scipy cannot rank an empty sample).
        if not len(differing):
            return 1.0
        # Sizes equal up to rounding are one size, so float noise neither breaks a tie of ranks nor makes one
        # (0.1 - 0.3 and 0.4 - 0.6 are one loss of 0.2), here and at every shift of the inversion.
        magnitude = np.abs(differing)
        snapped = np.sign(differing) * np.round(magnitude / magnitude.max() / RANK_RTOL)
        ranks = rankdata(np.abs(snapped))
        if len(snapped) <= TIED_EXACT and len(np.unique(ranks)) < len(ranks):
            return _tied_signed_rank_p(ranks, snapped > 0.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return float(wilcoxon(snapped).pvalue)

    def estimate(self, differences: FloatArray) -> float:
        """The Hodges-Lehmann estimate: the median of the Walsh averages ``(d_i + d_j) / 2``, ``i <= j``.

        Beyond :data:`WALSH_LIMIT` questions, the median of the differences (a start, not the estimate).
        """
        if len(differences) > WALSH_LIMIT:
            return float(np.median(differences))
        upper = np.triu_indices(len(differences))
        return float(np.median((differences[upper[0]] + differences[upper[1]]) / 2.0))

    def run(
        self,
        scores: FloatArray,
        first: IntArray,
        second: IntArray,
        *,
        differences: FloatArray,
        n_resamples: int,
        rng: np.random.Generator,
    ) -> ShiftTest:
        return BisectedShifts(differences, self.p_value, self.estimate, self.walsh_averages)

    @staticmethod
    def walsh_averages(differences: FloatArray) -> FloatArray | None:
        """The distinct pairwise means ``(d_i + d_j) / 2``, ``i <= j``, sorted: the only shifts at which the
        signed ranks change. ``None`` beyond :data:`WALSH_LIMIT` questions (too many to hold)."""
        if len(differences) > WALSH_LIMIT:
            return None
        upper = np.triu_indices(len(differences))
        averages = np.unique((differences[upper[0]] + differences[upper[1]]) / 2.0)
        # Averages equal up to rounding are one breakpoint: a gap between them would be float noise.
        spread = max(float(np.abs(differences).max(initial=0.0)), 1e-300)
        apart = np.diff(averages, prepend=-np.inf) > RANK_RTOL * spread
        return averages[apart]

    def floor(self, differing: int, n_questions: int, *, n_resamples: int) -> float:
        """The p-value of ``differing`` wins of distinct sizes: every rank on one side."""
        return self.p_value(np.arange(1.0, differing + 1.0))


RANK_RTOL = 1e-9
"""Sizes of differences within this fraction of the largest are ranked as equal."""

TIED_EXACT = 13
"""Up to this many differing questions with tied ranks, scipy's ``method="auto"`` counts every sign vector."""


def _tied_signed_rank_p(ranks: FloatArray, positive: npt.NDArray[np.bool_]) -> float:
    """The two-sided p-value of the sum of positive (mid)ranks over all ``2 ** n`` sign vectors, as
    ``scipy.stats.permutation_test`` gives it: ``min(1, 2 * min(P(T <= t), P(T >= t)))``.

    Midranks are multiples of 1/2, so doubled they are integers and the null distribution is counted exactly.

    Examples
    --------
    >>> _tied_signed_rank_p(np.array([1.5, 1.5, 3.0]), np.array([True, True, True]))
    0.25
    """
    doubled = np.rint(2.0 * ranks).astype(np.int64)
    counts = np.zeros(int(doubled.sum()) + 1, dtype=np.int64)
    counts[0] = 1
    for rank in doubled.tolist():
        shifted = np.zeros_like(counts)
        shifted[rank:] = counts[: len(counts) - rank]
        counts += shifted
    observed = int(doubled[positive].sum())
    total = float(counts.sum())
    below, above = counts[: observed + 1].sum() / total, counts[observed:].sum() / total
    return float(min(1.0, 2.0 * min(below, above)))


WALSH_LIMIT = 3000
"""Questions up to which the Hodges-Lehmann estimate is computed from every pair of differences."""
