"""ComparisonOptions: the options every comparison takes (test, correction, level, resamples, interval, seed and
tie tolerance), checked once."""

from __future__ import annotations

import math
from dataclasses import InitVar, dataclass
from numbers import Real

import numpy as np

from contextgrid.core.checks import TIE_TOLERANCE, check_fraction, check_int, is_whole
from contextgrid.core.errors import parameter_error
from contextgrid.significance.corrections import CORRECTIONS
from contextgrid.significance.intervals import INTERVALS
from contextgrid.significance.paired import PAIRED_TESTS

__all__ = ["ComparisonOptions"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ComparisonOptions:
    """How pairs of configurations are compared: the options :func:`~contextgrid.significance.compare_pair`,
    :func:`~contextgrid.significance.compare_pairs`, :func:`~contextgrid.significance.compare_all_pairs` and
    :func:`~contextgrid.significance.compare_configurations` take, as one record.

    Parameters
    ----------
    test : str, default "permutation"
        A name in ``PAIRED_TESTS``.
    correction : str, default "holm"
        A name in ``CORRECTIONS``.
    alpha : float, default 0.05
        Significance level, in (0, 1).
    n_resamples : int, default 10_000
        Sign flips for the permutation test, and bootstrap resamples for the intervals; at least 1.
    confidence : float, default 0.95
        Coverage of the bootstrap intervals, in (0, 1).
    interval : str or None, default "bca"
        A name in ``INTERVALS``, or ``None`` for no bootstrap.
    seed : int or numpy.random.Generator, default 0
        An int of 0 or more, or a generator.
    tie_tolerance : float, default 1e-9
        Scores at most this far apart are a tie; finite, 0 or more.
    function : str, default "ComparisonOptions"
        Not stored: the public function the options were given to, which a refusal names, so that its message
        is that function's own.

    Raises
    ------
    UnknownPluginError
        For a test, correction or interval not registered.
    InvalidParameterError
        For any other bad value.

    Examples
    --------
    >>> from contextgrid.significance.options import ComparisonOptions
    >>> ComparisonOptions(alpha=0.01, interval=None)  # doctest: +NORMALIZE_WHITESPACE
    ComparisonOptions(test='permutation', correction='holm', alpha=0.01, n_resamples=10000, confidence=0.95,
                      interval=None, seed=0, tie_tolerance=1e-09)
    >>> ComparisonOptions(n_resamples=0, function="compare_pair")
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.InvalidParameterError: The 'n_resamples' parameter of compare_pair must be an int >= 1.
    Got 0 instead.
    """

    test: str = "permutation"
    correction: str = "holm"
    alpha: float = 0.05
    n_resamples: int = 10_000
    confidence: float = 0.95
    interval: str | None = "bca"
    seed: int | np.random.Generator = 0
    tie_tolerance: float = TIE_TOLERANCE
    function: InitVar[str] = "ComparisonOptions"

    def __post_init__(self, function: str) -> None:
        # The order the functions have always checked in: of two bad values, the same one is refused.
        PAIRED_TESTS.get(self.test)
        CORRECTIONS.get(self.correction)
        if self.interval is not None:
            INTERVALS.get(self.interval)
        alpha = check_fraction(self.alpha, function=function, parameter="alpha", low_open=True, high_open=True)
        confidence = check_fraction(
            self.confidence, function=function, parameter="confidence", low_open=True, high_open=True
        )
        n_resamples = check_int(self.n_resamples, function=function, parameter="n_resamples", minimum=1)
        tolerance = self.tie_tolerance
        if not isinstance(tolerance, Real) or isinstance(tolerance, bool) or not 0.0 <= float(tolerance) < math.inf:
            raise parameter_error(function, "tie_tolerance", "a finite float of 0 or more", tolerance)
        seed = self.seed
        if not isinstance(seed, np.random.Generator):
            if not is_whole(seed, minimum=0):
                raise parameter_error(function, "seed", "an int >= 0 or a numpy.random.Generator", seed)
            object.__setattr__(self, "seed", int(seed))
        object.__setattr__(self, "alpha", alpha)
        object.__setattr__(self, "confidence", confidence)
        object.__setattr__(self, "n_resamples", n_resamples)
        object.__setattr__(self, "tie_tolerance", float(tolerance))

    def generator(self) -> np.random.Generator:
        """The generator ``seed`` is, or a new one seeded by it: the same int gives the same draws.

        Examples
        --------
        >>> from contextgrid.significance.options import ComparisonOptions
        >>> options = ComparisonOptions(seed=7)
        >>> int(options.generator().integers(100)) == int(options.generator().integers(100))
        True
        """
        if isinstance(self.seed, np.random.Generator):
            return self.seed
        return np.random.default_rng(self.seed)
