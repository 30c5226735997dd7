"""The record of one paired comparison: :class:`PairedComparison`, with the checks of its numbers."""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real
from typing import Any

from contextgrid.core.checks import is_whole, require

__all__ = ["BETTER", "WORSE", "PairedComparison", "is_finite_number", "is_probability"]

BETTER, WORSE = "▲", "▼"
"""The markers of a significant win and a significant loss."""


def is_finite_number(value: object) -> bool:
    """A real number, not a bool, finite."""
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(float(value))


def is_probability(value: object) -> bool:
    """A finite number in [0, 1]."""
    return is_finite_number(value) and 0.0 <= float(value) <= 1.0  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class PairedComparison:
    """Configuration ``a`` against configuration ``b`` on the same questions.

    ``difference`` is ``mean_a - mean_b``, the mean of the per-question differences with every tie exactly 0
    (so it can be off ``mean_a - mean_b`` by at most the tie tolerance): positive means ``a`` scored higher.
    ``p_value`` is the test's two-sided p-value; ``p_adjusted`` is it after
    the ``correction`` for the other comparisons made alongside it, and
    ``significant`` compares that with ``alpha``.

    ``ci_low``/``ci_high`` is the test's own interval (``interval_name``: the sign-flip test's inversion, the
    t interval, or the Hodges-Lehmann interval of Wilcoxon's test), the shifts of the differences that the test
    does not reject at the level the correction set for this comparison, ``1 - ci_level``: it leaves out 0
    exactly when the comparison is significant. It can be unbounded (``inf``) when the test cannot reject any
    shift. ``estimate`` is the test's own point estimate (the mean difference, or the Hodges-Lehmann estimate).
    ``step`` is the step of a step-wise correction (Holm, BH) whose level that is, 0 for none; ``reached`` is
    False where Holm's step-down stopped before this comparison, which then carries the level of the step it
    stopped at.

    ``bootstrap_low``/``bootstrap_high`` is a separate bootstrap interval (``interval``, at ``confidence``, not
    corrected), a different procedure that can disagree with the test; ``None`` for one question, and when
    ``interval`` is ``None`` (none was drawn).
    ``effect_size`` is the paired Cohen's d, ``difference / sd(differences)``, ``None`` when every difference
    is the same non-zero amount. ``wins``/``ties``/``losses`` count the questions where ``a`` scored
    higher/within the tie tolerance/lower. What limits the verdict: ``p_floor``, the smallest p-value the test
    can reach with ``wins + losses`` differing questions; ``p_resolution``, the smallest p-value the resampling
    can resolve (0 when exact or analytic); ``detectable``, the smallest difference these questions would detect
    with 80% power at the comparison's level (``None`` without spread), by the normal-theory formula
    ``(t(1 - level / 2) + t(0.8)) * sd / sqrt(n)`` with ``n - 1`` degrees of freedom and the observed ``sd``
    of the differences.

    Examples
    --------
    >>> from contextgrid.significance import compare_pair
    >>> result = compare_pair({"q1": 1.0, "q2": 0.5, "q3": 0.0}, {"q1": 0.0, "q2": 0.5, "q3": 0.0})
    >>> result.difference, result.p_value, (result.wins, result.ties, result.losses)
    (0.3333333333333333, 1.0, (1, 2, 0))
    """

    a: str
    b: str
    test: str
    n_questions: int
    mean_a: float
    mean_b: float
    difference: float
    estimate: float
    ci_low: float
    ci_high: float
    ci_level: float
    interval_name: str
    step: int
    reached: bool
    bootstrap_low: float | None
    bootstrap_high: float | None
    confidence: float
    interval: str | None
    p_value: float
    p_adjusted: float
    correction: str
    alpha: float
    effect_size: float | None
    wins: int
    ties: int
    losses: int
    n_resamples: int
    p_floor: float
    p_resolution: float
    detectable: float | None

    def __post_init__(self) -> None:
        label = f"PairedComparison({self.a!r}, {self.b!r})"
        for name in ("a", "b", "test", "correction", "interval_name"):
            value = getattr(self, name)
            require(isinstance(value, str) and value != "", label, f"{name} must be a non-empty str, got {value!r}")
        require(
            self.interval is None or (isinstance(self.interval, str) and self.interval != ""),
            label,
            f"interval must be a non-empty str or None, got {self.interval!r}",
        )
        for name in ("mean_a", "mean_b", "difference", "estimate"):
            value = getattr(self, name)
            require(is_finite_number(value), label, f"{name} must be a finite number, got {value!r}")
            object.__setattr__(self, name, float(value))
        for name in ("p_value", "p_adjusted", "p_floor", "p_resolution"):
            value = getattr(self, name)
            require(is_probability(value), label, f"{name} must be a number in [0, 1], got {value!r}")
            object.__setattr__(self, name, float(value))
        for name in ("confidence", "alpha", "ci_level"):
            value = getattr(self, name)
            require(
                is_finite_number(value) and 0.0 < float(value) < 1.0,
                label,
                f"{name} must be a number strictly between 0 and 1, got {value!r}",
            )
            object.__setattr__(self, name, float(value))
        for name in ("ci_low", "ci_high"):
            value = getattr(self, name)
            require(
                isinstance(value, Real) and not isinstance(value, bool) and not math.isnan(float(value)),
                label,
                f"{name} must be a number (infinite when unbounded), got {value!r}",
            )
            object.__setattr__(self, name, float(value))
        require(self.ci_low <= self.ci_high, label, f"ci_low {self.ci_low!r} must not exceed ci_high {self.ci_high!r}")
        for name in ("bootstrap_low", "bootstrap_high", "effect_size", "detectable"):
            value = getattr(self, name)
            require(
                value is None or is_finite_number(value),
                label,
                f"{name} must be a finite number or None, got {value!r}",
            )
            object.__setattr__(self, name, None if value is None else float(value))
        require(
            (self.bootstrap_low is None) == (self.bootstrap_high is None),
            label,
            "bootstrap_low and bootstrap_high must both be set or both None",
        )
        require(
            self.interval is not None or self.bootstrap_low is None,
            label,
            "bootstrap_low and bootstrap_high must be None when no interval was drawn (interval None)",
        )
        require(
            self.bootstrap_low is None or self.bootstrap_high is None or self.bootstrap_low <= self.bootstrap_high,
            label,
            f"bootstrap_low {self.bootstrap_low!r} must not exceed bootstrap_high {self.bootstrap_high!r}",
        )
        require(isinstance(self.reached, bool), label, f"reached must be a bool, got {self.reached!r}")
        for name in ("n_questions", "wins", "ties", "losses", "n_resamples", "step"):
            value = getattr(self, name)
            require(is_whole(value, minimum=0), label, f"{name} must be an int >= 0, got {value!r}")
            object.__setattr__(self, name, int(value))
        require(
            self.wins + self.ties + self.losses == self.n_questions,
            label,
            f"wins + ties + losses ({self.wins} + {self.ties} + {self.losses}) must equal n_questions "
            f"({self.n_questions})",
        )

    @property
    def significant(self) -> bool:
        """Whether the corrected p-value is at most ``alpha``."""
        return self.p_adjusted <= self.alpha

    @property
    def excludes_zero(self) -> bool:
        """Whether the test's interval leaves out 0; the same as :attr:`significant`, by construction."""
        return self.ci_low > 0.0 or self.ci_high < 0.0

    @property
    def differing(self) -> int:
        """Questions on which the two configurations are not tied."""
        return self.wins + self.losses

    @property
    def correction_decided(self) -> bool:
        """Whether the correction changed the verdict: significant alone, not among the others."""
        return self.p_value <= self.alpha < self.p_adjusted

    @property
    def marker(self) -> str:
        """``"▲"`` for a significant win of ``a``, ``"▼"`` for a significant loss, ``""`` otherwise."""
        if not self.significant or self.difference == 0.0:
            return ""
        return BETTER if self.difference > 0 else WORSE

    @property
    def verdict(self) -> str:
        """The comparison in words, from ``a``'s side."""
        if not self.significant or self.difference == 0.0:
            return "not significant"
        return "significantly better" if self.difference > 0 else "significantly worse"

    def to_dict(self) -> dict[str, Any]:
        """Every field and the derived ``significant``, ``marker`` and ``verdict``, as plain values."""
        fields = {name: getattr(self, name) for name in self.__dataclass_fields__}
        return {**fields, "significant": self.significant, "marker": self.marker, "verdict": self.verdict}
