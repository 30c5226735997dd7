"""A regression gate: is a candidate worse than its baseline by more than an allowed drop?

:func:`gate` runs a one-sided paired test at level ``alpha`` of "the candidate is worse than the baseline by
more than ``max_drop``" on per-question scores. By default it fails only when the data show such a drop (a
regression is proven); with ``require_proof`` it passes only when the data show there is none (non-inferiority).
The test is the same as :func:`~contextgrid.significance.compare.compare_pair`'s, run on the candidate's scores
plus ``max_drop``: a one-sided test at ``alpha`` is its two-sided test at ``2 * alpha`` read on one side, and its
interval (the test's own, at ``1 - 2 * alpha``) holds ``-max_drop`` exactly when that test does not reject.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from contextgrid.core.checks import TIE_TOLERANCE, require
from contextgrid.core.errors import parameter_error
from contextgrid.significance.compare import compare_pair
from contextgrid.significance.comparisons import PairedComparison
from contextgrid.significance.wording import (
    format_level,
    format_p,
    format_signed,
    interval_phrase,
    interval_words,
    limits,
)

__all__ = ["GateResult", "gate"]


@dataclass(frozen=True, slots=True)
class GateResult:
    """One metric gated: ``candidate`` against ``baseline``.

    ``comparison`` is the two-sided paired test of the candidate against the baseline at level ``2 * alpha``
    (``a`` the candidate): its ``difference`` (candidate minus baseline), its counts and what limits it.
    ``shifted`` is the same test of the candidate's scores plus ``max_drop``. ``low``/``high`` is the interval of
    the difference, the test's own at ``1 - 2 * alpha``; each end is a one-sided bound at ``1 - alpha``.
    ``p_value`` is the one-sided p-value of the hypothesis the gate tests: "worse by more than ``max_drop``" is
    refuted (``require_proof`` False) or "no more than ``max_drop`` worse" is shown (True). ``regressed`` says the
    data show the candidate worse by more than ``max_drop`` (``high < -max_drop``, decided on ``shifted``'s interval
    so that rounding cannot part it from the test); ``proven`` says they show it no more than ``max_drop`` worse
    (``low > -max_drop``). ``passed`` is ``not regressed`` by default and
    ``proven`` with ``require_proof``.
    """

    metric: str
    baseline: str
    candidate: str
    max_drop: float
    alpha: float
    require_proof: bool
    comparison: PairedComparison
    shifted: PairedComparison
    low: float
    high: float
    p_value: float

    def __post_init__(self) -> None:
        label = f"GateResult({self.metric!r})"
        require(self.low <= self.high, label, f"low {self.low!r} must not exceed high {self.high!r}")
        require(0.0 <= self.p_value <= 1.0, label, f"p_value must be in [0, 1], got {self.p_value!r}")
        require(
            self.comparison.a == self.candidate and self.comparison.b == self.baseline,
            label,
            "the comparison must be of the candidate (a) against the baseline (b)",
        )

    @property
    def regressed(self) -> bool:
        """Whether the data show the candidate worse than the baseline by more than ``max_drop``: the shifted
        test's interval lies below 0, which it does exactly when that test rejects on that side."""
        return self.shifted.ci_high < 0.0

    @property
    def proven(self) -> bool:
        """Whether the data show the candidate no more than ``max_drop`` worse than the baseline."""
        return self.shifted.ci_low > 0.0

    @property
    def passed(self) -> bool:
        """The gate's answer: not regressed, or, with ``require_proof``, proven."""
        return self.proven if self.require_proof else not self.regressed

    @property
    def level(self) -> float:
        """The confidence of each one-sided bound, ``1 - alpha``."""
        return 1.0 - self.alpha

    def verdict(self, *, name: Callable[[str], str] = str) -> str:
        """The gate's answer in words; ``name`` writes each configuration's name (a markup's escape, say)."""
        candidate, baseline = name(self.candidate), name(self.baseline)
        drop = f" by more than {self.max_drop:g}" if self.max_drop else ""
        if self.require_proof:
            if self.proven:
                return f"passed: the data show {candidate} is not worse than {baseline}{drop}"
            return f"failed: the data do not show that {candidate} is not worse than {baseline}{drop}"
        if self.regressed:
            return f"failed: the data show {candidate} is worse than {baseline}{drop}"
        return f"passed: the data do not show {candidate} is worse than {baseline}{drop}"

    def p_text(self) -> str:
        """The one-sided p-value as printed (:func:`~contextgrid.significance.wording.format_p`)."""
        return format_p(self.p_value, resolution=self.shifted.p_resolution / 2.0)

    def sentences(self, *, name: Callable[[str], str] = str) -> list[str]:
        """The evidence, one sentence each: the difference and its interval, the one-sided p-value, what limits
        it (:func:`~contextgrid.significance.wording.limits`). ``name`` writes the metric's and the
        configurations' names; the rest is the library's own words and numbers."""
        c = self.comparison
        interval = interval_words(self.low, self.high)
        hypothesis = (
            f"no more than {self.max_drop:g} worse" if self.require_proof else f"worse by more than {self.max_drop:g}"
        )
        p = self.p_text()
        p_text = f"p {p}" if p.startswith("<") else f"p = {p}"
        return [
            f"{name(self.metric)}: {name(self.candidate)} {c.mean_a:.4f} against {name(self.baseline)} "
            f"{c.mean_b:.4f}, a difference "
            f"of {format_signed(c.difference)} ({interval_phrase(self.shifted)} {interval}, each end a "
            f"{format_level(self.level)} one-sided bound).",
            f"One-sided {c.test} test of '{hypothesis}' at level {self.alpha:g}: {p_text}"
            + (" (no drawn sign flip was as extreme)." if self._at_resolution() else "."),
            *limits(c, resolution=False, one_sided=True),
        ]

    def _at_resolution(self) -> bool:
        """Whether the shifted test's p-value is the least its drawn sign flips can give."""
        shifted = self.shifted
        return shifted.p_resolution > 0.0 and shifted.p_value <= shifted.p_resolution * (1.0 + 1e-9)

    def to_dict(self) -> dict[str, Any]:
        """The numbers and the answer as plain values (infinite bounds as ``None``)."""
        return {
            "metric": self.metric,
            "baseline": self.baseline,
            "candidate": self.candidate,
            "difference": self.comparison.difference,
            "low": self.low if math.isfinite(self.low) else None,
            "high": self.high if math.isfinite(self.high) else None,
            "p_value": self.p_value,
            "max_drop": self.max_drop,
            "alpha": self.alpha,
            "require_proof": self.require_proof,
            "passed": self.passed,
            "verdict": self.verdict(),
        }


def gate(
    baseline: Mapping[str, float],
    candidate: Mapping[str, float],
    *,
    metric: str = "score",
    names: tuple[str, str] = ("baseline", "candidate"),
    max_drop: float = 0.0,
    alpha: float = 0.05,
    test: str = "permutation",
    require_proof: bool = False,
    n_resamples: int = 10_000,
    seed: int | np.random.Generator = 0,
    tie_tolerance: float = TIE_TOLERANCE,
) -> GateResult:
    """Gate ``candidate`` against ``baseline`` on per-question scores: did it get worse?

    Parameters
    ----------
    baseline, candidate : mapping
        ``{question_id: score}`` on the same questions, as :func:`contextgrid.per_query` returns.
    metric : str, default "score"
        What the scores are, a label.
    names : (str, str), default ("baseline", "candidate")
        What to call the baseline and the candidate.
    max_drop : float, default 0.0
        The drop allowed: the candidate fails only when the data show it worse by more than this. At least 0.
    alpha : float, default 0.05
        The one-sided test's level, in (0, 0.5).
    test : str, default "permutation"
        A name in ``PAIRED_TESTS``.
    require_proof : bool, default False
        Pass only when the data show the candidate no more than ``max_drop`` worse (non-inferiority), rather than
        fail only when they show it worse.
    n_resamples, seed, tie_tolerance
        As for :func:`~contextgrid.significance.compare.compare_pair`.

    Returns
    -------
    GateResult

    Examples
    --------
    >>> from contextgrid.significance.gate import gate
    >>> before = {f"q{i}": 1.0 for i in range(30)}
    >>> after = {f"q{i}": 0.0 if i < 12 else 1.0 for i in range(30)}
    >>> result = gate(before, after, metric="recall@5")
    >>> result.passed, result.regressed, round(result.comparison.difference, 2)
    (False, True, -0.4)
    >>> gate(before, before, metric="recall@5").passed
    True
    >>> gate(before, before, metric="recall@5", require_proof=True).passed
    False
    """
    function = "gate"
    if not isinstance(require_proof, bool):
        raise parameter_error(function, "require_proof", "a bool", require_proof)
    if isinstance(max_drop, bool) or not isinstance(max_drop, (int, float)) or not 0.0 <= max_drop < math.inf:
        raise parameter_error(function, "max_drop", "a finite number of 0 or more", max_drop)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0.0 < alpha < 0.5:
        raise parameter_error(function, "alpha", "a number strictly between 0 and 0.5", alpha)
    if not isinstance(metric, str) or not metric:
        raise parameter_error(function, "metric", "a non-empty str", metric)
    base_name, candidate_name = names if isinstance(names, tuple) and len(names) == 2 else (None, None)
    if not isinstance(base_name, str) or not isinstance(candidate_name, str):
        raise parameter_error(function, "names", "a tuple of two different non-empty str", names)
    options: dict[str, Any] = {
        "test": test,
        "alpha": 2.0 * alpha,
        "n_resamples": n_resamples,
        "seed": seed,
        "tie_tolerance": tie_tolerance,
    }
    comparison = compare_pair(candidate, baseline, names=(candidate_name, base_name), **options)
    # The test of "the difference is -max_drop": the same test on the candidate's scores raised by max_drop.
    raised = {question: float(score) + float(max_drop) for question, score in candidate.items()}
    shifted = compare_pair(raised, baseline, names=(candidate_name, base_name), **options)
    low, high = shifted.ci_low - max_drop, shifted.ci_high - max_drop
    # One side of the two-sided test: half its p-value on the side the interval lies, the rest on the other.
    worse_side = shifted.ci_high < 0.0 or (shifted.ci_low <= 0.0 and shifted.estimate < 0.0)
    wanted_side = not worse_side if require_proof else worse_side
    half = shifted.p_value / 2.0
    return GateResult(
        metric=metric,
        baseline=base_name,
        candidate=candidate_name,
        max_drop=float(max_drop),
        alpha=float(alpha),
        require_proof=require_proof,
        comparison=comparison,
        shifted=shifted,
        low=low,
        high=high,
        p_value=half if wanted_side else 1.0 - half,
    )
