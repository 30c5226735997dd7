"""What the significance functions return: frozen records of plain Python values (one comparison's record is
:mod:`contextgrid.significance.paired_comparison`'s, re-exported here)."""

from __future__ import annotations

import dataclasses
import textwrap
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from contextgrid.core.checks import require
from contextgrid.core.errors import ContextGridError, UnknownConfigurationError
from contextgrid.significance.paired_comparison import BETTER, WORSE, PairedComparison, is_finite_number
from contextgrid.significance.wording import format_interval, format_level, format_p, limits

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["COMPARISON_COLUMNS", "TEXT_COLUMNS", "ComparisonTable", "PairedComparison", "PairwiseComparisons"]


TEXT_COLUMNS = ("config", "mean", "difference", "interval", "p", "d", "W/T/L", "verdict")
"""The columns of :meth:`ComparisonTable.text`, in the order it prints them."""


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
        require(is_finite_number(value), label, f"the mean of {name!r} must be a finite number, got {value!r}")
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
            is_finite_number(self.tie_tolerance) and self.tie_tolerance >= 0,
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
        note under it says what limits each verdict (:meth:`text` with every column)."""
        return self.text()

    def text(
        self, *, columns: Sequence[str] = TEXT_COLUMNS, short_verdicts: bool = False, width: int | None = None
    ) -> str:
        """The plain-text table with only ``columns`` (of :data:`TEXT_COLUMNS`, printed in that order).

        ``short_verdicts`` writes a verdict as its marker and a word (``▲ better``), with a line under the table
        saying what the markers mean; ``width`` wraps the title and the notes under the table to that many
        characters (the table's own lines are as wide as their cells).

        Examples
        --------
        >>> from contextgrid.significance import compare_configurations
        >>> scores = {"a": dict.fromkeys("uvwxyz", 0.0), "b": dict.fromkeys("uvwxyz", 1.0)}
        >>> table = compare_configurations(scores, baseline="a", metric="recall@5")
        >>> print(table.text(columns=("config", "mean", "difference", "verdict"), short_verdicts=True, width=60))
        recall@5 against 'a', 6 questions: permutation test with its
          own sign-flip interval, holm correction, alpha 0.05
        config  mean    difference  verdict
        a       0.0000              baseline
        b       1.0000  +1.0000     ▲ better
        ▲ better, ▼ worse: significantly so at alpha 0.05, after the
          holm correction
        <BLANKLINE>
        b: 6 of 6 questions differ. Every question differs by the
          same amount: there is no spread to judge power by.
        """
        unknown = [column for column in columns if column not in TEXT_COLUMNS]
        require(not unknown, "ComparisonTable.text", f"columns must be among {TEXT_COLUMNS}, got {unknown}")
        first = self.comparisons[0]
        metric = self.metric or "score"
        p_label = "p" if first.correction == "none" else f"p ({first.correction})"
        header = (
            f"{metric} against {self.baseline!r}, {first.n_questions} questions: {first.test} test with its own "
            f"{first.interval_name} interval, {first.correction} correction, alpha {first.alpha:g}"
        )
        rows = [("config", "mean", "difference", "interval (level)", p_label, "d", "W/T/L", "")]
        by_config = {c.a: c for c in self.comparisons}
        for config, mean in self.means.items():
            comparison = by_config.get(config)
            if comparison is None:
                rows.append((config, f"{mean:.4f}", "", "", "", "", "", "baseline"))
                continue
            interval = f"{format_interval(comparison.ci_low, comparison.ci_high)} ({format_level(comparison.ci_level)})"
            effect = "n/a" if comparison.effect_size is None else f"{comparison.effect_size:+.2f}"
            factor = comparison.p_adjusted / comparison.p_value if comparison.p_value > 0 else 1.0
            verdict = comparison.verdict
            if short_verdicts and comparison.marker:
                verdict = "better" if comparison.marker == BETTER else "worse"
            rows.append(
                (
                    config,
                    f"{mean:.4f}",
                    f"{comparison.difference:+.4f}",
                    interval,
                    format_p(comparison.p_adjusted, resolution=comparison.p_resolution, factor=factor),
                    effect,
                    f"{comparison.wins}/{comparison.ties}/{comparison.losses}",
                    f"{comparison.marker} {verdict}" if comparison.marker else verdict,
                )
            )
        if short_verdicts:
            rows[0] = (*rows[0][:-1], "verdict")
        kept = [TEXT_COLUMNS.index(column) for column in TEXT_COLUMNS if column in columns]
        widths = {i: max(len(row[i]) for row in rows) for i in kept}
        lines = _wrapped(header, width)
        lines.extend("  ".join(row[i].ljust(widths[i]) for i in kept).rstrip() for row in rows)
        if short_verdicts:
            corrected = "" if first.correction == "none" else f", after the {first.correction} correction"
            lines.extend(
                _wrapped(f"{BETTER} better, {WORSE} worse: significantly so at alpha {first.alpha:g}{corrected}", width)
            )
        lines.append("")
        for c in self.comparisons:
            lines.extend(_wrapped(f"{c.a}: {' '.join(limits(c))}", width))
        return "\n".join(lines)


def _wrapped(text: str, width: int | None) -> list[str]:
    """``text`` as one line, or wrapped at ``width`` with the lines after the first indented."""
    if width is None:
        return [text]
    return textwrap.wrap(text, width=width, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False)


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
