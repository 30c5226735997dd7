"""A test's own confidence interval: the shifts of every difference that the test does not reject.

A paired test asks "could the differences be centred on 0?". Asked of the differences minus a shift ``delta``
instead, it asks "could they be centred on ``delta``?", and the shifts it does not reject at a level form its
confidence interval (inverting the test). Read beside the same test's p-value at the same level, it cannot
contradict it: the interval leaves out 0 exactly when the test rejects at 0.

Each test's run (:class:`ShiftTest`) gives its p-value at any shift and its interval for a rule "reject when
``p * factor <= alpha``", the rule a correction for many comparisons sets for one comparison
(:meth:`contextgrid.significance.corrections.Correction.factors`). Three inversions live here: the sign-flip
test's, exact and in closed form over the very relabellings its p-value counted (:class:`SignFlipShifts`);
the t-test's, its t interval (:class:`TShifts`); and, for any test of one pair's differences such as
Wilcoxon's, bisection over the shift with the test's own p-value function (:class:`BisectedShifts`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from contextgrid.significance.resampling import TIE_RTOL

__all__ = ["BisectedShifts", "ShiftTest", "SignFlipShifts", "TShifts", "agreeing_bounds"]

FloatArray = npt.NDArray[np.float64]

BISECTION_RTOL = 1e-12
"""Bisection stops when the bound is known to this fraction of the differences' spread."""

MAX_DOUBLINGS = 64
"""Steps outward, each twice the last, before a bound is taken as unbounded: 2**64 spreads away."""


@runtime_checkable
class ShiftTest(Protocol):
    """One run of a paired test over a batch of pairs, able to test each pair's differences shifted by any amount.

    ``p_values[p]`` is pair ``p``'s p-value at shift 0 (the test of "no difference"); ``resolution`` the
    smallest p-value it can tell apart from a smaller one (``1 / (n_resamples + 1)`` for a resampling test that
    drew its relabellings, 0 for an exact or analytic one).
    """

    p_values: FloatArray
    resolution: float

    def p_at(self, pair: int, shift: float) -> float:
        """Pair ``pair``'s p-value for "the differences are centred on ``shift``"."""
        ...

    def estimate(self, pair: int) -> float:
        """The shift the test finds most plausible (its point estimate)."""
        ...

    def bounds(self, pair: int, factor: float, alpha: float) -> tuple[float, float]:
        """The shifts around the estimate not rejected under "reject when ``p * factor <= alpha``"."""
        ...


def agreeing_bounds(low: float, high: float, *, anchor: float, rejected: bool, estimate: float) -> tuple[float, float]:
    """``(low, high)`` made to leave out ``anchor`` exactly when the test rejects there.

    The inversions here agree with their p-values up to rounding; at a bound computed to the last bit, the
    p-value at the anchor itself decides, as it decides the verdict. A rejected anchor inside the interval moves
    the bound on its side to the next float beyond it (toward the estimate); an anchor not rejected outside the
    interval widens it to hold the anchor.

    Examples
    --------
    >>> agreeing_bounds(0.0, 0.4, anchor=0.0, rejected=True, estimate=0.2)
    (5e-324, 0.4)
    >>> agreeing_bounds(0.1, 0.4, anchor=0.0, rejected=False, estimate=0.2)
    (0.0, 0.4)
    """
    inside = low <= anchor <= high
    if rejected and inside:
        if estimate >= anchor:
            low = float(np.nextafter(anchor, np.inf))
            high = max(high, low)
        else:
            high = float(np.nextafter(anchor, -np.inf))
            low = min(low, high)
    elif not rejected and not inside:
        low, high = min(low, anchor), max(high, anchor)
    return float(low), float(high)


class SignFlipShifts:
    """The sign-flip test and its exact inversion over the same relabellings.

    For a relabelling with signs ``s`` (``a = sum(s * d)``, ``b = sum(s)``) and ``n`` questions, the test on
    ``d - delta`` counts it when ``|a - b * delta| >= |c - n * delta|``, ``c = sum(d)``. The difference of the
    two squares factors as ``((a - c) + (n - b) * delta) * ((a + c) - (n + b) * delta)``, so the relabelling
    counts on the closed interval between ``(c - a) / (n - b)`` and ``(a + c) / (n + b)`` (everywhere when
    ``|b| = n``), an interval holding the mean difference ``c / n``. A shift below the mean is then counted by
    every relabelling whose interval starts at or below it, a shift above by every one whose interval ends at
    or above it, and the bounds of the confidence interval are order statistics of those ends. Each end is
    widened by :data:`~contextgrid.significance.resampling.TIE_RTOL` of the scores' mean magnitude, so that a
    relabelling that ties the observed sum up to rounding counts; the bounds are reported without that allowance.
    """

    def __init__(
        self, null: FloatArray, signs: FloatArray, sums: FloatArray, n_questions: int, slack: FloatArray, exact: bool
    ) -> None:
        self.resamples = len(signs)
        self.exact = exact
        self.slack = slack
        self.means = sums / n_questions
        # In place where it can be: for many pairs these are the largest arrays of a comparison.
        with np.errstate(divide="ignore", invalid="ignore"):
            low = sums - null
            low /= (n_questions - signs)[:, None]
            high = null + sums
            high /= (n_questions + signs)[:, None]
        swapped = low > high
        low[swapped], high[swapped] = high[swapped], low[swapped]
        del swapped
        low -= slack
        np.minimum(low, self.means, out=low)
        high += slack
        np.maximum(high, self.means, out=high)
        everywhere = np.abs(signs) == n_questions
        low[everywhere], high[everywhere] = -np.inf, np.inf
        low.sort(axis=0)
        high.sort(axis=0)
        self.starts, self.ends = low, high
        self.resolution = 0.0 if exact else 1.0 / (self.resamples + 1.0)
        self.p_values = np.array([self.p_at(pair, 0.0) for pair in range(len(sums))], dtype=np.float64)

    def _p_of(self, counts: npt.NDArray[np.int64] | int) -> FloatArray:
        counted = np.asarray(counts, dtype=np.float64)
        if self.exact:
            return np.asarray(counted / self.resamples)
        return np.asarray((counted + 1.0) / (self.resamples + 1.0))

    def _count(self, pair: int, shift: float) -> int:
        if shift <= self.means[pair]:
            return int(np.searchsorted(self.starts[:, pair], shift, side="right"))
        return self.resamples - int(np.searchsorted(self.ends[:, pair], shift, side="left"))

    def p_at(self, pair: int, shift: float) -> float:
        return float(self._p_of(self._count(pair, shift)))

    def estimate(self, pair: int) -> float:
        return float(self.means[pair])

    def bounds(self, pair: int, factor: float, alpha: float) -> tuple[float, float]:
        # The most relabellings a shift can count and still be rejected; p grows with the count.
        rejecting = np.flatnonzero(self._p_of(np.arange(self.resamples + 1)) * factor <= alpha)
        most = int(rejecting[-1]) if len(rejecting) else -1
        if most < 0:
            return -np.inf, np.inf
        # Reported without the rounding allowance (an edge at 0 reads 0, not -1e-9); the p-value at 0 decides.
        mean, slack = float(self.means[pair]), float(self.slack[pair])
        return (
            min(float(self.starts[most, pair]) + slack, mean),
            max(float(self.ends[self.resamples - 1 - most, pair]) - slack, mean),
        )


def sign_flip_slack(scores: FloatArray, first: npt.NDArray[np.intp], second: npt.NDArray[np.intp]) -> FloatArray:
    """Each pair's rounding allowance in a shift: TIE_RTOL of the two configurations' mean magnitudes."""
    magnitude = np.abs(scores).mean(axis=1)
    return np.asarray(TIE_RTOL * (magnitude[first] + magnitude[second]), dtype=np.float64)


class TShifts:
    """The one-sample t-test of the differences and its t interval, ``mean -/+ t * sd / sqrt(n)``.

    The p-value is ``2 * t.sf(|mean - delta| / se, n - 1)``, the formula ``scipy.stats.ttest_1samp`` uses. With
    no spread (every difference the same) a shift to the mean is not rejected and any other is; with one question
    nothing is rejected.
    """

    def __init__(self, differences: FloatArray) -> None:
        n = differences.shape[1]
        self.n = n
        self.means = differences.mean(axis=1)
        spread = differences.std(axis=1, ddof=1) if n > 1 else np.zeros(len(differences))
        # Spread below rounding of the mean is no spread: the same difference on every question.
        flat = spread <= 1e-12 * np.abs(differences).max(axis=1, initial=0.0)
        self.errors = np.where(flat, 0.0, spread / np.sqrt(n))
        self.resolution = 0.0
        self.p_values = np.array([self.p_at(pair, 0.0) for pair in range(len(differences))], dtype=np.float64)

    def p_at(self, pair: int, shift: float) -> float:
        from scipy.special import stdtr  # type: ignore[import-untyped]

        if self.n < 2:
            return 1.0
        gap = abs(float(self.means[pair]) - shift)
        error = float(self.errors[pair])
        if error == 0.0:
            return 1.0 if gap == 0.0 else 0.0
        return float(min(1.0, 2.0 * stdtr(self.n - 1, -gap / error)))

    def estimate(self, pair: int) -> float:
        return float(self.means[pair])

    def bounds(self, pair: int, factor: float, alpha: float) -> tuple[float, float]:
        from scipy.special import stdtrit

        if self.n < 2 or alpha / factor >= 1.0:
            return -np.inf, np.inf
        half = float(stdtrit(self.n - 1, 1.0 - alpha / factor / 2.0)) * float(self.errors[pair])
        mean = float(self.means[pair])
        return mean - half, mean + half


class BisectedShifts:
    """Any test of one pair's differences, inverted by bisection over the shift with its own p-value function.

    ``p_value(row)`` tests one pair's (shifted) differences; ``estimate(row)`` is the test's point estimate,
    where the search starts (or, if the test rejects it, the nearest shift it does not reject). When
    ``breakpoints(row)`` gives the sorted shifts at which the p-value can change (for a rank test, the pairwise
    means of the differences), the p-value is constant between two of them, and the bisection runs over those
    points and the gaps between them, so that each bound is one of them exactly. Otherwise each side steps out
    in doublings of the differences' spread until a shift is rejected, then bisects to :data:`BISECTION_RTOL`
    of the spread. A test whose p-value falls and rises again on one side is cut at its first rejection there.
    """

    def __init__(
        self,
        differences: FloatArray,
        p_value: Callable[[FloatArray], float],
        estimate: Callable[[FloatArray], float],
        breakpoints: Callable[[FloatArray], FloatArray | None] | None = None,
    ) -> None:
        self.differences = differences
        self._p_value = p_value
        self._breakpoints = breakpoints
        self.estimates = np.array([estimate(row) for row in differences], dtype=np.float64)
        self.resolution = 0.0
        self.p_values = np.array([p_value(row) for row in differences], dtype=np.float64)

    def p_at(self, pair: int, shift: float) -> float:
        if shift == 0.0:
            return float(self.p_values[pair])
        return float(self._p_value(self.differences[pair] - shift))

    def estimate(self, pair: int) -> float:
        return float(self.estimates[pair])

    def bounds(self, pair: int, factor: float, alpha: float) -> tuple[float, float]:
        row = self.differences[pair]
        spread = max(float(np.ptp(row)), float(np.abs(row).max(initial=0.0)), 1e-9)

        def kept(shift: float) -> bool:
            return self.p_at(pair, shift) * factor > alpha

        points = None if self._breakpoints is None else self._breakpoints(row)
        if points is not None and len(points):
            return _bisect_points(kept, points, self.estimate(pair), spread)
        start = self.estimate(pair)
        if not kept(start):
            return start, start
        return (
            self._edge(kept, start, -spread, spread),
            self._edge(kept, start, spread, spread),
        )

    @staticmethod
    def _edge(kept: Callable[[float], bool], start: float, step: float, spread: float) -> float:
        inner, outer = start, start + step
        for _ in range(MAX_DOUBLINGS):
            if not kept(outer):
                break
            inner, step = outer, step * 2.0
            outer = start + step
        else:
            return -np.inf if step < 0 else np.inf
        while abs(outer - inner) > BISECTION_RTOL * spread:
            middle = (inner + outer) / 2.0
            if middle in (inner, outer):
                break
            if kept(middle):
                inner = middle
            else:
                outer = middle
        return inner


NEAR_STARTS = 8
"""Gaps on each side of the estimate tried as a start when the test rejects the one holding the estimate."""

ALL_GAPS = 256
"""Up to this many gaps between breakpoints, every gap is tested rather than bisected: a rank test's exact
distribution with tied ranks moves with the order of the ranks, so its p-value need not fall steadily from the
estimate outward, and the component holding the estimate is then found exactly."""


def _bisect_points(
    kept: Callable[[float], bool], points: FloatArray, estimate: float, spread: float
) -> tuple[float, float]:
    """The bounds over sorted breakpoints: the p-value is constant on each open gap between two of them (gap
    ``g`` lies between ``points[g - 1]`` and ``points[g]``; gaps 0 and ``m`` beyond the ends, tested a spread
    out), and the interval is the closure of the run of kept gaps holding the estimate. A breakpoint itself
    (where a rank test drops a zero) is not a gap: what it gives at the anchor is the verdict's, and
    :func:`agreeing_bounds` reconciles the two there."""
    m = len(points)

    def shift(gap: int) -> float:
        if gap == 0:
            return float(points[0]) - spread
        if gap == m:
            return float(points[-1]) + spread
        return (float(points[gap - 1]) + float(points[gap])) / 2.0

    at = int(np.searchsorted(points, estimate, side="left"))
    nearest = [at + 1, at] if at < m and points[at] == estimate else [at]
    order = [*nearest, *(nearest[0] + side * step for step in range(1, NEAR_STARTS + 1) for side in (-1, 1))]
    start = next((g for g in order if 0 <= g <= m and kept(shift(g))), -1)
    if start < 0:
        return estimate, estimate
    if m + 1 <= ALL_GAPS:
        status = [kept(shift(gap)) for gap in range(m + 1)]
        low = start
        while low > 0 and status[low - 1]:
            low -= 1
        high = start
        while high < m and status[high + 1]:
            high += 1
    else:
        low, high = _last_kept(kept, shift, start, 0), _last_kept(kept, shift, start, m)
    return (-np.inf if low == 0 else float(points[low - 1])), (np.inf if high == m else float(points[high]))


def _last_kept(kept: Callable[[float], bool], shift: Callable[[int], float], start: int, limit: int) -> int:
    """The farthest gap from ``start`` toward ``limit`` before the first rejected one, by bisection."""
    if kept(shift(limit)):
        return limit
    inside, outside = start, limit
    while abs(outside - inside) > 1:
        middle = (inside + outside) // 2
        if kept(shift(middle)):
            inside = middle
        else:
            outside = middle
    return inside
