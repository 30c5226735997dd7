"""The words of a verdict: one wording of a :class:`PairedComparison`, used by the command line, the dashboard
and the report alike.

Every p-value goes through :func:`format_p` (a p-value a resampling cannot resolve reads "< 0.001", not a
number), every interval through :func:`format_interval` (:func:`interval_words` in a sentence: an end that leaves
0 out is never shown as 0), and a verdict reads the same everywhere (:func:`verdict_phrase`), with what limits it
(:func:`limits`): how many questions differ, the smallest p-value the test can reach with them, the smallest
difference they would detect with 80% power, and the correction, named only where it changed the verdict.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from contextgrid.significance.paired_comparison import PairedComparison

__all__ = [
    "PRINTED_FLOOR",
    "TEST_PHRASES",
    "describe",
    "format_interval",
    "format_level",
    "format_p",
    "format_signed",
    "interval_phrase",
    "interval_words",
    "limits",
    "verdict_phrase",
]

PRINTED_FLOOR = 0.001
"""A p-value below this reads "< 0.001": more digits claim a precision no test here has."""

TEST_PHRASES = {"permutation": "a sign-flip test", "ttest": "a t-test", "wilcoxon": "a signed-rank test"}
"""How each built-in test is named in a sentence; another test reads "the NAME test"."""


_BESIDE_ZERO = math.nextafter(0.0, math.inf)
"""The end :func:`~contextgrid.significance.inversion.agreeing_bounds` gives an interval when the test rejects 0 and
not the shifts just beside it."""


def _test_phrase(test: str) -> str:
    return TEST_PHRASES.get(test, f"the {test} test")


def _round_up(value: float) -> float:
    """``value`` rounded up to one significant digit: a bound that stays a bound when printed short."""
    scale = 10.0 ** math.floor(math.log10(value))
    return math.ceil(value / scale - 1e-9) * scale


def format_p(p: float, *, resolution: float = 0.0, factor: float = 1.0) -> str:
    """A p-value as people should read it: two significant digits, never a precision it does not have.

    ``resolution`` is the smallest raw p-value the test's resampling resolves (``1 / (n_resamples + 1)``), and
    ``factor`` what a correction multiplied it by: a p-value at that floor means no resample was as extreme,
    so it reads as a bound. Below :data:`PRINTED_FLOOR` any p-value reads "< 0.001".

    Examples
    --------
    >>> format_p(0.2485), format_p(0.04689), format_p(1.0)
    ('0.25', '0.047', '1')
    >>> format_p(0.00002), format_p(9 / 10001, resolution=1 / 10001, factor=9)
    ('< 0.001', '< 0.001')
    >>> format_p(19 / 10001, resolution=1 / 10001, factor=19)
    '< 0.002'
    """
    floor = resolution * factor
    if resolution > 0.0 and p <= floor * (1.0 + 1e-9):
        return f"< {max(_round_up(floor), PRINTED_FLOOR):g}"
    if p < PRINTED_FLOOR:
        return f"< {PRINTED_FLOOR:g}"
    return f"{p:.2g}"


def format_signed(value: float, *, digits: int = 4) -> str:
    """A difference with its sign; an unbounded end reads "-inf"/"+inf", and one that rounds to zero "0".

    Examples
    --------
    >>> format_signed(0.06818), format_signed(-1e-12), format_signed(float("inf"), digits=3)
    ('+0.0682', '0.0000', '+inf')
    """
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    text = f"{value:+.{digits}f}"
    return text[1:] if float(text) == 0.0 else text


def _beside_zero(value: float, digits: int) -> bool:
    """Whether ``value`` is not 0 but shows as 0 at ``digits`` decimals."""
    return value != 0.0 and math.isfinite(value) and float(f"{value:.{digits}f}") == 0.0


def _ends(low: float, high: float, digits: int) -> tuple[str | None, str | None]:
    """Each end as :func:`format_signed` writes it, or ``None`` for an end that leaves 0 out (``low > 0``,
    ``high < 0``) yet shows as 0: written so, the interval would seem to hold the 0 its verdict rejects."""
    left = None if low > 0.0 and _beside_zero(low, digits) else format_signed(low, digits=digits)
    right = None if high < 0.0 and _beside_zero(high, digits) else format_signed(high, digits=digits)
    return left, right


def format_interval(low: float, high: float, *, digits: int = 4) -> str:
    """``[low, high]``, each end signed; an end beside 0 that leaves it out is written open at 0.

    Examples
    --------
    >>> format_interval(0.0, 0.14286)
    '[0.0000, +0.1429]'
    >>> format_interval(5e-324, 4.5), format_interval(-3.0, -0.00002)
    ('(0, +4.5000]', '[-3.0000, 0)')
    """
    left, right = _ends(low, high, digits)
    return f"{'(0' if left is None else '[' + left}, {'0)' if right is None else right + ']'}"


def interval_words(low: float, high: float, *, digits: int = 4) -> str:
    """``low to high``, each end signed, as a sentence says it; an end beside 0 that leaves it out reads "above 0"
    or "below 0" (:func:`format_interval`).

    Examples
    --------
    >>> interval_words(0.0, 0.14286), interval_words(5e-324, 4.5)
    ('0.0000 to +0.1429', 'above 0 to +4.5000')
    """
    left, right = _ends(low, high, digits)
    return f"{'above 0' if left is None else left} to {'below 0' if right is None else right}"


def format_level(level: float) -> str:
    """A confidence level as a percentage, with a decimal only where it has one (95%, 98.3%).

    Examples
    --------
    >>> format_level(0.95), format_level(1 - 0.05 / 3)
    ('95%', '98.3%')
    """
    text = f"{level * 100:.1f}"
    return f"{text.removesuffix('.0')}%"


def interval_phrase(comparison: PairedComparison) -> str:
    """What the test's interval is, e.g. "95% sign-flip interval"."""
    return f"{format_level(comparison.ci_level)} {comparison.interval_name} interval"


def _p_text(comparison: PairedComparison, *, adjusted: bool) -> str:
    factor = comparison.p_adjusted / comparison.p_value if adjusted and comparison.p_value > 0 else 1.0
    value = comparison.p_adjusted if adjusted else comparison.p_value
    text = format_p(value, resolution=comparison.p_resolution, factor=factor)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def verdict_phrase(comparison: PairedComparison, *, digits: int = 4) -> str:
    """The difference, the test's own interval and the verdict, in one phrase.

    Examples
    --------
    >>> from contextgrid.significance import compare_pair
    >>> won = {f"q{i}": 1.0 if i < 3 else 0.0 for i in range(44)}
    >>> lost = {f"q{i}": 0.0 for i in range(44)}
    >>> verdict_phrase(compare_pair(won, lost), digits=3)
    'a difference of +0.068 (95% sign-flip interval 0.000 to +0.143), not significant (p = 0.25)'
    """
    interval = interval_words(comparison.ci_low, comparison.ci_high, digits=digits)
    if comparison.estimate != comparison.difference:
        interval += f" around {format_signed(comparison.estimate, digits=digits)}"
    corrected = comparison.correction != "none"
    p = _p_text(comparison, adjusted=corrected)
    if corrected:
        p = f"{comparison.correction}-corrected {p}"
    return (
        f"a difference of {format_signed(comparison.difference, digits=digits)} ({interval_phrase(comparison)} "
        f"{interval}), {comparison.verdict} ({p})"
    )


def limits(
    comparison: PairedComparison, *, digits: int = 3, resolution: bool = True, one_sided: bool = False
) -> list[str]:
    """What limits the verdict, one sentence each: the questions that differ and the smallest p-value they allow,
    a p-value past the resampling's resolution (unless ``resolution`` is False, for a caller that reports
    another p-value), the power, and the correction where it decided. ``one_sided`` states the power's level as
    the one-sided test's that the two-sided one at twice the level reads on one side (the gate's).

    Examples
    --------
    >>> from contextgrid.significance import compare_pair
    >>> won = {f"q{i}": 1.0 if i < 3 else 0.0 for i in range(44)}
    >>> lost = {f"q{i}": 0.0 for i in range(44)}
    >>> for sentence in limits(compare_pair(won, lost)):
    ...     print(sentence)  # doctest: +ELLIPSIS
    Only 3 of 44 questions differ: a sign-flip test cannot go below p = 0.25 with them.
    With 44 questions and this spread of differences, ... with 80% power at level 0.05 is about 0.110 (...).
    """
    c = comparison
    sentences = []
    level = 1.0 - c.ci_level
    if c.differing == 0:
        sentences.append(f"All {c.n_questions:,} questions tie: there is no difference to test.")
    elif c.p_floor > level:
        sentences.append(
            f"Only {c.differing:,} of {c.n_questions:,} questions differ: {_test_phrase(c.test)} cannot go below "
            f"p = {format_p(c.p_floor)} with them."
        )
    else:
        sentences.append(f"{c.differing:,} of {c.n_questions:,} questions differ.")
    if resolution and c.p_resolution > 0.0 and c.p_value <= c.p_resolution * (1.0 + 1e-9):
        sentences.append(
            f"No sign flip of the {c.n_resamples:,} drawn was as extreme: p is below what they resolve "
            f"({format_p(c.p_value, resolution=c.p_resolution)})."
        )
    if c.detectable is not None:
        sentences.append(
            f"With {c.n_questions:,} questions and this spread of differences, the smallest difference found with "
            f"80% power at {'one-sided level ' if one_sided else 'level '}{level / 2 if one_sided else level:.3g} is "
            f"about {c.detectable:.{digits}f} (normal-theory t approximation)."
        )
    elif c.differing:
        sentences.append("Every question differs by the same amount: there is no spread to judge power by.")
    if c.test == "wilcoxon" and _open_at_zero(c):
        sentences.append(
            "The signed-rank test leaves out the questions that tie: at a shift of exactly 0 it judges only the "
            "questions that differ, and rejects that shift, while it keeps the shifts just beside 0: the interval is "
            "open at 0."
        )
    if c.correction_decided:
        sentences.append(
            f"Alone it would be significant (p = {format_p(c.p_value, resolution=c.p_resolution)}); the "
            f"{c.correction} correction for the comparisons made with it is what makes it not significant."
        )
    if not c.reached:
        sentences.append(
            f"Holm's step-down stopped at step {c.step} before reaching this comparison, so its interval has that "
            f"step's level, {format_level(c.ci_level)}."
        )
    return sentences


def _open_at_zero(comparison: PairedComparison) -> bool:
    """Whether an end of the interval is the float beside 0: the verdict at 0 set it
    (:func:`~contextgrid.significance.inversion.agreeing_bounds`)."""
    return comparison.ci_low == _BESIDE_ZERO or comparison.ci_high == -_BESIDE_ZERO


def describe(comparison: PairedComparison, *, digits: int = 4) -> str:
    """``a`` against ``b``: the verdict phrase and what limits it, as one paragraph of plain text.

    Examples
    --------
    >>> from contextgrid.significance import compare_pair
    >>> tied = {f"q{i}": 0.5 for i in range(5)}
    >>> print(describe(compare_pair(tied, tied, names=("dense", "bm25"))))  # doctest: +ELLIPSIS
    dense against bm25: a difference of 0.0000 (95% sign-flip interval -inf to +inf), not significant (p = 1). All 5...
    """
    sentences = " ".join(limits(comparison))
    return f"{comparison.a} against {comparison.b}: {verdict_phrase(comparison, digits=digits)}. {sentences}"
