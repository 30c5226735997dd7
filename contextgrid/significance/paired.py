"""Paired tests of "do these two configurations score the same on average?": the
PAIRED_TESTS registry and its three built-ins.

Every test here is two-sided and works on a batch of pairs at once: ``scores``
is the ``(n_configs, n_questions)`` matrix and pair ``p`` compares row
``first[p]`` with row ``second[p]``, question by question.
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

    ``n_resamples`` and ``rng`` are for tests that resample; others ignore them.
    """

    name: ClassVar[str]
    version: ClassVar[str]

    def p_values(
        self,
        scores: FloatArray,
        first: IntArray,
        second: IntArray,
        *,
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
    version: ClassVar[str] = "1"

    def p_values(
        self,
        scores: FloatArray,
        first: IntArray,
        second: IntArray,
        *,
        n_resamples: int,
        rng: np.random.Generator,
    ) -> FloatArray:
        counts, resamples, exact = sign_flip_exceedances(scores, first, second, n_resamples=n_resamples, rng=rng)
        if exact:
            return counts.astype(np.float64) / resamples
        return (counts.astype(np.float64) + 1.0) / (resamples + 1.0)


@PAIRED_TESTS.register("ttest")
class PairedTTest:
    """Paired Student's t-test (``scipy.stats.ttest_rel``): assumes the differences are roughly normal.

    Fine for averages of many questions; on small sets of 0/1 scores
    (hit rate) prefer the permutation test.
    """

    name: ClassVar[str] = "ttest"
    version: ClassVar[str] = "1"

    def p_values(
        self,
        scores: FloatArray,
        first: IntArray,
        second: IntArray,
        *,
        n_resamples: int,
        rng: np.random.Generator,
    ) -> FloatArray:
        import warnings

        from scipy.stats import ttest_rel  # type: ignore[import-untyped]

        # Identical or constant differences make scipy warn; the caller gives those a documented p-value.
        with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            result = ttest_rel(scores[first], scores[second], axis=1)
        return np.asarray(result.pvalue, dtype=np.float64).reshape(len(first))


@PAIRED_TESTS.register("wilcoxon")
class WilcoxonTest:
    """Wilcoxon signed-rank test (``scipy.stats.wilcoxon`` with its defaults): ranks of the differences.

    Questions with a difference of exactly zero are dropped first (scipy's
    ``zero_method="wilcox"``). It tests whether the differences are
    symmetric about zero, which is about the median rather than the mean: a
    few large wins can be outvoted by many small losses.
    """

    name: ClassVar[str] = "wilcoxon"
    version: ClassVar[str] = "1"

    def p_values(
        self,
        scores: FloatArray,
        first: IntArray,
        second: IntArray,
        *,
        n_resamples: int,
        rng: np.random.Generator,
    ) -> FloatArray:
        import warnings

        from scipy.stats import wilcoxon

        differences = scores[first] - scores[second]
        p = np.ones(len(first), dtype=np.float64)
        # scipy cannot rank an all-zero row; no difference means p = 1 anyway.
        varied = np.count_nonzero(differences, axis=1) > 0
        if varied.any():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                p[varied] = np.asarray(wilcoxon(differences[varied], axis=1).pvalue, dtype=np.float64)
        return p
