"""Paired tests of "do these two configurations score the same on average?": the
PAIRED_TESTS registry and its three built-ins.

Every test here is two-sided and works on a batch of pairs at once: ``scores``
is the ``(n_configs, n_questions)`` matrix and pair ``p`` compares row
``first[p]`` with row ``second[p]``, question by question. ``differences[p]``
is that pair's per-question differences with every tie (a difference within
the comparison's ``tie_tolerance``) exactly 0; a test works on those, so it
agrees with the win/tie/loss counts on what a tie is.
"""

from __future__ import annotations

from typing import ClassVar, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from contextgrid.core.registry import Registry
from contextgrid.significance.resampling import sign_flip_exceedances

__all__ = ["PAIRED_TESTS", "PairedTTest", "PairedTest", "PermutationTest", "WilcoxonTest"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]


@runtime_checkable
class PairedTest(Protocol):
    """A two-sided paired test: one p-value per pair of rows of ``scores``.

    ``differences`` is ``(n_pairs, n_questions)``, row ``first[p]`` minus row ``second[p]`` with the ties
    exactly 0. ``n_resamples`` and ``rng`` are for tests that resample; others ignore them.
    """

    name: ClassVar[str]
    version: ClassVar[str]

    def p_values(
        self,
        scores: FloatArray,
        first: IntArray,
        second: IntArray,
        *,
        differences: FloatArray,
        n_resamples: int,
        rng: np.random.Generator,
    ) -> FloatArray: ...


PAIRED_TESTS: Registry[type[PairedTest]] = Registry("paired test")
"""Paired tests by name: ``"permutation"``, ``"ttest"`` and ``"wilcoxon"``."""


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
    Assumes nothing about the scores' distribution.
    """

    name: ClassVar[str] = "permutation"
    version: ClassVar[str] = "2"

    def p_values(
        self,
        scores: FloatArray,
        first: IntArray,
        second: IntArray,
        *,
        differences: FloatArray,
        n_resamples: int,
        rng: np.random.Generator,
    ) -> FloatArray:
        counts, resamples, exact = sign_flip_exceedances(
            scores, first, second, differences, n_resamples=n_resamples, rng=rng
        )
        if exact:
            return counts.astype(np.float64) / resamples
        return (counts.astype(np.float64) + 1.0) / (resamples + 1.0)


@PAIRED_TESTS.register("ttest")
class PairedTTest:
    """Paired Student's t-test (``scipy.stats.ttest_rel``, as a one-sample test of the differences with their
    ties exactly 0): assumes the differences are roughly normal.

    Fine for averages of many questions; on small sets of 0/1 scores
    (hit rate) prefer the permutation test.
    """

    name: ClassVar[str] = "ttest"
    version: ClassVar[str] = "2"

    def p_values(
        self,
        scores: FloatArray,
        first: IntArray,
        second: IntArray,
        *,
        differences: FloatArray,
        n_resamples: int,
        rng: np.random.Generator,
    ) -> FloatArray:
        import warnings

        from scipy.stats import ttest_1samp  # type: ignore[import-untyped]

        # Identical or constant differences make scipy warn; the caller gives those a documented p-value.
        with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            result = ttest_1samp(differences, 0.0, axis=1)
        return np.asarray(result.pvalue, dtype=np.float64).reshape(len(first))


@PAIRED_TESTS.register("wilcoxon")
class WilcoxonTest:
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
    """

    name: ClassVar[str] = "wilcoxon"
    version: ClassVar[str] = "2"

    def p_values(
        self,
        scores: FloatArray,
        first: IntArray,
        second: IntArray,
        *,
        differences: FloatArray,
        n_resamples: int,
        rng: np.random.Generator,
    ) -> FloatArray:
        import warnings

        from scipy.stats import wilcoxon

        # No difference at all means p = 1 (scipy cannot rank an empty sample).
        p = np.ones(len(first), dtype=np.float64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            for pair, row in enumerate(differences):
                differing = row[row != 0.0]
                if len(differing):
                    p[pair] = float(wilcoxon(differing).pvalue)
        return p
