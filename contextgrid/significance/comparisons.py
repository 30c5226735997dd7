"""What the significance functions return: frozen records of plain Python values."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from numbers import Real
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from contextgrid.core.checks import is_whole, require
from contextgrid.core.errors import ContextGridError, UnknownConfigurationError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["COMPARISON_COLUMNS", "ComparisonTable", "PairedComparison", "PairwiseComparisons"]

BETTER, WORSE = "▲", "▼"


def _is_number(value: object) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(float(value))


def _is_probability(value: object) -> bool:
    return _is_number(value) and 0.0 <= float(value) <= 1.0  # type: ignore[arg-type]


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
    corrected), a different procedure that can disagree with the test; ``None`` for one question.
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
    interval: str
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
        for name in ("a", "b", "test", "interval", "correction", "interval_name"):
            value = getattr(self, name)
            require(isinstance(value, str) and value != "", label, f"{name} must be a non-empty str, got {value!r}")
        for name in ("mean_a", "mean_b", "difference", "estimate"):
            value = getattr(self, name)
            require(_is_number(value), label, f"{name} must be a finite number, got {value!r}")
            object.__setattr__(self, name, float(value))
        for name in ("p_value", "p_adjusted", "p_floor", "p_resolution"):
            value = getattr(self, name)
            require(_is_probability(value), label, f"{name} must be a number in [0, 1], got {value!r}")
            object.__setattr__(self, name, float(value))
        for name in ("confidence", "alpha", "ci_level"):
            value = getattr(self, name)
            require(
                _is_number(value) and 0.0 < float(value) < 1.0,
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
            require(value is None or _is_number(value), label, f"{name} must be a finite number or None, got {value!r}")
            object.__setattr__(self, name, None if value is None else float(value))
        require(
            (self.bootstrap_low is None) == (self.bootstrap_high is None),
            label,
            "bootstrap_low and bootstrap_high must both be set or both None",
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


def _check_family(label: str, comparisons: tuple[PairedComparison, ...], means: Mapping[str, float]) -> None:
    require(len(comparisons) > 0, label, "needs at least one comparison")
    for comparison in comparisons:
        require(
            isinstance(comparison, PairedComparison),
            label,
            f"comparisons must hold PairedComparison, got {comparison!r}",
        )
        for side in (comparison.a, comparison.b):
            require(side in means, label, f"comparison of {comparison.a!r} and {comparison.b!r}: no mean for {side!r}")
    first = comparisons[0]
    for comparison in comparisons:
        same = (comparison.test, comparison.correction, comparison.alpha, comparison.n_questions) == (
            first.test,
            first.correction,
            first.alpha,
            first.n_questions,
        )
        require(same, label, "every comparison must share one test, correction, alpha and question count")


def _frozen_means(label: str, means: Mapping[str, float]) -> Mapping[str, float]:
    require(isinstance(means, Mapping), label, f"means must be a mapping, got {means!r}")
    for name, value in means.items():
        require(_is_number(value), label, f"the mean of {name!r} must be a finite number, got {value!r}")
    return MappingProxyType({str(name): float(value) for name, value in means.items()})


@dataclass(frozen=True, slots=True)
class ComparisonTable:
    """Every configuration against one baseline, on one metric.

    ``means`` holds each configuration's mean score, in the order given;
    ``comparisons`` one :class:`PairedComparison` per other configuration,
    with ``a`` the configuration and ``b`` the baseline, p-values corrected
    together as one family.

    Examples
    --------
    >>> from contextgrid.significance import compare_configurations
    >>> table = compare_configurations(
    ...     {"bm25": {"q1": 0.0, "q2": 1.0}, "dense": {"q1": 1.0, "q2": 1.0}}, baseline="bm25", metric="hit_rate@5"
    ... )
    >>> table.comparison("dense").difference, table.significantly_better
    (0.5, ())
    """

    metric: str | None
    baseline: str
    means: Mapping[str, float]
    comparisons: tuple[PairedComparison, ...]
    tie_tolerance: float = field(default=1e-9)

    def __post_init__(self) -> None:
        label = f"ComparisonTable(baseline={self.baseline!r})"
        require(
            self.metric is None or (isinstance(self.metric, str) and self.metric != ""),
            label,
            f"metric must be a non-empty str or None, got {self.metric!r}",
        )
        object.__setattr__(self, "means", _frozen_means(label, self.means))
        object.__setattr__(self, "comparisons", tuple(self.comparisons))
        require(self.baseline in self.means, label, f"the baseline has no mean; configurations: {list(self.means)}")
        _check_family(label, self.comparisons, self.means)
        for comparison in self.comparisons:
            require(
                comparison.b == self.baseline,
                label,
                f"comparison of {comparison.a!r} is against {comparison.b!r}, not the baseline",
            )
        require(
            _is_number(self.tie_tolerance) and self.tie_tolerance >= 0,
            label,
            f"tie_tolerance must be a number of 0 or more, got {self.tie_tolerance!r}",
        )

    @property
    def test(self) -> str:
        """The paired test every comparison used."""
        return self.comparisons[0].test

    @property
    def correction(self) -> str:
        """The correction applied across the comparisons."""
        return self.comparisons[0].correction

    @property
    def alpha(self) -> float:
        """The significance level."""
        return self.comparisons[0].alpha

    @property
    def n_questions(self) -> int:
        """The number of questions every configuration was scored on."""
        return self.comparisons[0].n_questions

    def comparison(self, config: str) -> PairedComparison:
        """The comparison of ``config`` with the baseline."""
        for comparison in self.comparisons:
            if comparison.a == config:
                return comparison
        raise UnknownConfigurationError(
            f"no comparison for {config!r}; compared with {self.baseline!r}: {', '.join(c.a for c in self.comparisons)}"
        )

    @property
    def significantly_better(self) -> tuple[str, ...]:
        """Configurations significantly better than the baseline, after correction."""
        return tuple(c.a for c in self.comparisons if c.marker == BETTER)

    @property
    def significantly_worse(self) -> tuple[str, ...]:
        """Configurations significantly worse than the baseline, after correction."""
        return tuple(c.a for c in self.comparisons if c.marker == WORSE)

    def __iter__(self) -> Iterator[PairedComparison]:
        return iter(self.comparisons)

    def to_dataframe(self) -> pd.DataFrame:
        """One row per configuration, baseline included, in the order given; the baseline's
        comparison columns are missing values and its verdict is ``"baseline"``. ``ci_low``/``ci_high`` are
        the test's own interval at ``ci_level``; ``bootstrap_low``/``bootstrap_high`` the bootstrap's."""
        import pandas as pd

        by_config = {c.a: c for c in self.comparisons}
        rows = []
        for config, mean in self.means.items():
            comparison = by_config.get(config)
            row: dict[str, Any] = {"config": config, "baseline": self.baseline, "mean": mean}
            if comparison is None:
                row["verdict"] = "baseline"
            else:
                row.update({name: getattr(comparison, name) for name in COMPARISON_COLUMNS[3:-2]})
                row.update(marker=comparison.marker, verdict=comparison.verdict)
            rows.append(row)
        frame = pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))
        for name in _FLOAT_COLUMNS:
            frame[name] = frame[name].astype("float64")
        for name in ("wins", "ties", "losses"):
            frame[name] = frame[name].astype("Int64")
        frame["marker"] = frame["marker"].fillna("")
        return frame.set_index("config")

    def __str__(self) -> str:
        """A plain-text table: the header names the test, its interval and the correction behind every row, and a
        note under it says what limits each verdict."""
        from contextgrid.significance.wording import format_interval, format_level, format_p, limits

        first = self.comparisons[0]
        metric = self.metric or "score"
        p_label = "p" if first.correction == "none" else f"p ({first.correction})"
        header = (
            f"{metric} against {self.baseline!r}, {first.n_questions} questions: {first.test} test with its own "
            f"{first.interval_name} interval, {first.correction} correction, alpha {first.alpha:g}"
        )
        columns = ("config", "mean", "difference", "interval (level)", p_label, "d", "W/T/L", "")
        rows = [columns]
        by_config = {c.a: c for c in self.comparisons}
        for config, mean in self.means.items():
            comparison = by_config.get(config)
            if comparison is None:
                rows.append((config, f"{mean:.4f}", "", "", "", "", "", "baseline"))
                continue
            interval = f"{format_interval(comparison.ci_low, comparison.ci_high)} ({format_level(comparison.ci_level)})"
            effect = "n/a" if comparison.effect_size is None else f"{comparison.effect_size:+.2f}"
            factor = comparison.p_adjusted / comparison.p_value if comparison.p_value > 0 else 1.0
            rows.append(
                (
                    config,
                    f"{mean:.4f}",
                    f"{comparison.difference:+.4f}",
                    interval,
                    format_p(comparison.p_adjusted, resolution=comparison.p_resolution, factor=factor),
                    effect,
                    f"{comparison.wins}/{comparison.ties}/{comparison.losses}",
                    f"{comparison.marker} {comparison.verdict}" if comparison.marker else comparison.verdict,
                )
            )
        widths = [max(len(row[i]) for row in rows) for i in range(len(columns))]
        lines = [header]
        lines.extend(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows
        )
        lines.append("")
        lines.extend(f"{c.a}: {' '.join(limits(c))}" for c in self.comparisons)
        return "\n".join(lines)


COMPARISON_COLUMNS = (
    "config",
    "baseline",
    "mean",
    "difference",
    "estimate",
    "ci_low",
    "ci_high",
    "ci_level",
    "p_value",
    "p_adjusted",
    "effect_size",
    "wins",
    "ties",
    "losses",
    "p_floor",
    "detectable",
    "bootstrap_low",
    "bootstrap_high",
    "marker",
    "verdict",
)
"""The columns of :meth:`ComparisonTable.to_dataframe`, ``config`` becoming its index."""

_FLOAT_COLUMNS = (
    "difference",
    "estimate",
    "ci_low",
    "ci_high",
    "ci_level",
    "p_value",
    "p_adjusted",
    "effect_size",
    "p_floor",
    "detectable",
    "bootstrap_low",
    "bootstrap_high",
)


@dataclass(frozen=True, slots=True)
class PairwiseComparisons:
    """Every pair of configurations, p-values corrected together as one family.

    ``comparisons`` are in the order of ``itertools.combinations`` over the
    configurations as given, ``a`` before ``b``.
    """

    means: Mapping[str, float]
    comparisons: tuple[PairedComparison, ...]

    def __post_init__(self) -> None:
        label = "PairwiseComparisons"
        object.__setattr__(self, "means", _frozen_means(label, self.means))
        object.__setattr__(self, "comparisons", tuple(self.comparisons))
        _check_family(label, self.comparisons, self.means)

    def __iter__(self) -> Iterator[PairedComparison]:
        return iter(self.comparisons)

    def __len__(self) -> int:
        return len(self.comparisons)

    def get(self, a: str, b: str) -> PairedComparison:
        """The comparison of ``a`` with ``b``, stored either way round (then flipped to read as ``a`` minus ``b``)."""
        for comparison in self.comparisons:
            if (comparison.a, comparison.b) == (a, b):
                return comparison
            if (comparison.a, comparison.b) == (b, a):
                return _flipped(comparison)
        raise ContextGridError(f"no comparison of {a!r} with {b!r}; configurations: {', '.join(self.means)}")

    def to_dataframe(self) -> pd.DataFrame:
        """One row per pair, with every field and ``significant``, ``marker`` and ``verdict``."""
        import pandas as pd

        return pd.DataFrame([c.to_dict() for c in self.comparisons])


def _flipped(comparison: PairedComparison) -> PairedComparison:
    return dataclasses.replace(
        comparison,
        a=comparison.b,
        b=comparison.a,
        mean_a=comparison.mean_b,
        mean_b=comparison.mean_a,
        difference=-comparison.difference,
        estimate=-comparison.estimate,
        ci_low=-comparison.ci_high,
        ci_high=-comparison.ci_low,
        bootstrap_low=None if comparison.bootstrap_high is None else -comparison.bootstrap_high,
        bootstrap_high=None if comparison.bootstrap_low is None else -comparison.bootstrap_low,
        effect_size=None if comparison.effect_size is None else -comparison.effect_size,
        wins=comparison.losses,
        losses=comparison.wins,
    )
