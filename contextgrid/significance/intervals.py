"""Bootstrap confidence intervals of the mean difference: the INTERVALS registry.

``"bca"`` (bias-corrected and accelerated, the default) and ``"percentile"``
follow ``scipy.stats.bootstrap``'s methods of the same names, so an interval
here matches scipy's on the same data within Monte Carlo error.
"""

from __future__ import annotations

from typing import ClassVar, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from contextgrid.core.registry import Registry
from contextgrid.significance.resampling import TIE_RTOL

__all__ = ["INTERVALS", "BCaInterval", "IntervalMethod", "PercentileInterval", "column_quantiles"]

FloatArray = npt.NDArray[np.float64]


def column_quantiles(ordered: FloatArray, levels: FloatArray) -> FloatArray:
    """Quantile ``levels[p]`` of column ``p`` of a column-sorted matrix.

    Linear interpolation between order statistics, numpy's default method,
    which ``scipy.stats.bootstrap`` also uses; unlike ``np.quantile`` each
    column gets its own level.

    Examples
    --------
    >>> import numpy as np
    >>> column_quantiles(np.array([[0.0, 10.0], [1.0, 20.0], [2.0, 30.0]]), np.array([0.25, 1.0])).tolist()
    [0.5, 30.0]
    """
    position = levels * (ordered.shape[0] - 1)
    low = np.floor(position).astype(np.intp)
    high = np.minimum(low + 1, ordered.shape[0] - 1)
    columns = np.arange(ordered.shape[1])
    below, above = ordered[low, columns], ordered[high, columns]
    interpolated: FloatArray = below + (above - below) * (position - low)
    return interpolated


@runtime_checkable
class IntervalMethod(Protocol):
    """Turns bootstrap mean differences into interval bounds, one per pair.

    ``differences`` is ``(n_questions, n_pairs)``, the per-question differences;
    ``observed`` their means; ``boot`` is ``(n_resamples, n_pairs)``, sorted
    down each column; ``scale`` the mean magnitude of the scores behind each
    pair (for telling rounding from a real difference).
    """

    name: ClassVar[str]
    version: ClassVar[str]

    def bounds(
        self, differences: FloatArray, observed: FloatArray, boot: FloatArray, scale: FloatArray, confidence: float
    ) -> tuple[FloatArray, FloatArray]: ...


INTERVALS: Registry[type[IntervalMethod]] = Registry("bootstrap interval")
"""Bootstrap interval methods by name: ``"bca"`` and ``"percentile"``."""


@INTERVALS.register("percentile")
class PercentileInterval:
    """The ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles of the bootstrap means."""

    name: ClassVar[str] = "percentile"
    version: ClassVar[str] = "1"

    def bounds(
        self, differences: FloatArray, observed: FloatArray, boot: FloatArray, scale: FloatArray, confidence: float
    ) -> tuple[FloatArray, FloatArray]:
        tail = (1.0 - confidence) / 2.0
        pairs = boot.shape[1]
        return (
            column_quantiles(boot, np.full(pairs, tail)),
            column_quantiles(boot, np.full(pairs, 1.0 - tail)),
        )


@INTERVALS.register("bca")
class BCaInterval:
    """Bias-corrected and accelerated (Efron and Tibshirani 1993, 14.3): percentile levels shifted
    for the bootstrap distribution's bias and skew.

    For the mean, the jackknife acceleration has a closed form: with
    ``c = d - mean(d)``, ``a = sum(c**3) / (6 * sum(c**2) ** 1.5)``. When every
    difference is the same there is no spread to correct for and the interval
    is the single point; when the bootstrap means all fall on one side of the
    observed mean, the bias correction is infinite and the percentile levels
    are used instead (scipy returns NaN there).
    """

    name: ClassVar[str] = "bca"
    version: ClassVar[str] = "1"

    def bounds(
        self, differences: FloatArray, observed: FloatArray, boot: FloatArray, scale: FloatArray, confidence: float
    ) -> tuple[FloatArray, FloatArray]:
        from scipy.special import ndtr, ndtri  # type: ignore[import-untyped]

        resamples = boot.shape[0]
        slack = TIE_RTOL * scale
        below = np.count_nonzero(boot < observed - slack, axis=0)
        at_or_below = np.count_nonzero(boot <= observed + slack, axis=0)
        z0 = ndtri((below + at_or_below) / (2.0 * resamples))
        centred = differences - observed
        spread = np.sum(centred**2, axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            accel = np.sum(centred**3, axis=0) / (6.0 * spread**1.5)
            tail = (1.0 - confidence) / 2.0
            z_low, z_high = z0 + ndtri(tail), z0 - ndtri(tail)
            level_low = ndtr(z0 + z_low / (1.0 - accel * z_low))
            level_high = ndtr(z0 + z_high / (1.0 - accel * z_high))
        usable = np.isfinite(z0) & np.isfinite(level_low) & np.isfinite(level_high)
        level_low = np.where(usable, level_low, tail)
        level_high = np.where(usable, level_high, 1.0 - tail)
        low = column_quantiles(boot, level_low)
        high = column_quantiles(boot, level_high)
        flat = spread <= (TIE_RTOL * scale) ** 2 * len(differences)
        return np.where(flat, observed, low), np.where(flat, observed, high)
