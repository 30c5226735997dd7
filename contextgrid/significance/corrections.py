"""Corrections for many comparisons: the CORRECTIONS registry and its four built-ins.

Run twenty comparisons at ``alpha = 0.05`` on configurations that are all
equally good and one of them will look significant by luck. A correction
raises each p-value to account for the others tested alongside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from contextgrid.core.errors import ContextGridError, parameter_error
from contextgrid.core.registry import Registry

__all__ = [
    "CORRECTIONS",
    "BenjaminiHochberg",
    "Bonferroni",
    "Correction",
    "Holm",
    "NoCorrection",
    "Steps",
    "correct_p_values",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]
BoolArray = npt.NDArray[np.bool_]


@runtime_checkable
class Correction(Protocol):
    """Turns a family of raw p-values into adjusted ones, in the same order.

    An adjusted p-value is compared with ``alpha`` directly: ``adjusted <= alpha``
    is a rejection under the correction's guarantee.
    """

    name: ClassVar[str]
    version: ClassVar[str]

    def adjust(self, p_values: FloatArray) -> FloatArray: ...

    def factors(self, p_values: FloatArray, alpha: float) -> Steps:
        """Each comparison's rule "reject when ``p * factor <= alpha``", in the input's order.

        The rule decides exactly as ``adjust(p_values) <= alpha`` does, and ``alpha / factor`` is the level
        the comparison was decided at: the level of its test's own interval.
        """
        ...


@dataclass(frozen=True, slots=True)
class Steps:
    """Per comparison: ``factor`` of its rule "reject when ``p * factor <= alpha``"; ``step``, the step of a
    step-wise correction whose level that is (from 1; 0 for a correction without steps); ``reached``, False where
    a step-down procedure stopped before this comparison, which then takes the level of the step it stopped at."""

    factor: FloatArray
    step: IntArray
    reached: BoolArray

    def __post_init__(self) -> None:
        if not len(self.factor) == len(self.step) == len(self.reached):
            raise ContextGridError("Steps: factor, step and reached must have one value per comparison")


def _unstepped(p_values: FloatArray, factor: float) -> Steps:
    m = len(p_values)
    return Steps(np.full(m, factor, dtype=np.float64), np.zeros(m, dtype=np.intp), np.ones(m, dtype=bool))


def _in_input_order(order: IntArray, factor: FloatArray, step: IntArray, reached: BoolArray) -> Steps:
    out = Steps(np.empty_like(factor), np.empty_like(step), np.empty_like(reached))
    out.factor[order], out.step[order], out.reached[order] = factor, step, reached
    return out


CORRECTIONS: Registry[type[Correction]] = Registry("correction")
"""Multiple-comparison corrections by name: ``"holm"``, ``"bh"``, ``"bonferroni"``, ``"none"``."""


@CORRECTIONS.register("none")
class NoCorrection:
    """Raw p-values: right for one planned comparison, optimistic for many."""

    name: ClassVar[str] = "none"
    version: ClassVar[str] = "1"

    def adjust(self, p_values: FloatArray) -> FloatArray:
        return p_values.copy()

    def factors(self, p_values: FloatArray, alpha: float) -> Steps:
        return _unstepped(p_values, 1.0)


@CORRECTIONS.register("bonferroni")
class Bonferroni:
    """``min(1, m * p)``: controls the chance of any false win (family-wise error); the most conservative."""

    name: ClassVar[str] = "bonferroni"
    version: ClassVar[str] = "1"

    def adjust(self, p_values: FloatArray) -> FloatArray:
        return np.minimum(1.0, p_values * len(p_values))

    def factors(self, p_values: FloatArray, alpha: float) -> Steps:
        return _unstepped(p_values, float(len(p_values)))


@CORRECTIONS.register("holm")
class Holm:
    """Holm–Bonferroni step-down: the same family-wise guarantee as Bonferroni, never less powerful.

    The i-th smallest p-value (from 1) is multiplied by ``m - i + 1``; the
    running maximum keeps the adjusted values in the raw values' order.
    """

    name: ClassVar[str] = "holm"
    version: ClassVar[str] = "1"

    def adjust(self, p_values: FloatArray) -> FloatArray:
        m = len(p_values)
        order = np.argsort(p_values, kind="stable")
        stepped = np.maximum.accumulate(p_values[order] * (m - np.arange(m)))
        adjusted = np.empty_like(p_values)
        adjusted[order] = np.minimum(1.0, stepped)
        return adjusted

    def factors(self, p_values: FloatArray, alpha: float) -> Steps:
        """Step ``i`` (from 1) rejects when ``p * (m - i + 1) <= alpha``; the first step that does not reject
        stops the procedure, and every later comparison is judged at that step's level."""
        m = len(p_values)
        order = np.argsort(p_values, kind="stable")
        multiplier = (m - np.arange(m)).astype(np.float64)
        failing = np.flatnonzero(~(p_values[order] * multiplier <= alpha))
        stop = int(failing[0]) if len(failing) else m
        rank = np.arange(m)
        reached = rank <= stop
        step = np.where(reached, rank, stop)
        return _in_input_order(order, multiplier[np.minimum(step, m - 1)], step + 1, reached)


@CORRECTIONS.register("bh")
class BenjaminiHochberg:
    """Benjamini–Hochberg step-up: controls the expected share of false wins among the wins (false
    discovery rate); more powerful than Holm when many differences are real.

    The i-th smallest p-value (from 1) is multiplied by ``m / i``; the running
    minimum from the largest down keeps the adjusted values in order.
    """

    name: ClassVar[str] = "bh"
    version: ClassVar[str] = "1"

    def adjust(self, p_values: FloatArray) -> FloatArray:
        m = len(p_values)
        order = np.argsort(p_values, kind="stable")
        scaled = p_values[order] * (m / np.arange(1, m + 1))
        stepped = np.minimum.accumulate(scaled[::-1])[::-1]
        adjusted = np.empty_like(p_values)
        adjusted[order] = np.minimum(1.0, stepped)
        return adjusted

    def factors(self, p_values: FloatArray, alpha: float) -> Steps:
        """The largest step ``j`` with ``p * (m / j) <= alpha`` rejects itself and every smaller p-value, at its
        level ``alpha * j / m``; each larger p-value is judged at its own step's level."""
        m = len(p_values)
        order = np.argsort(p_values, kind="stable")
        multiplier = m / np.arange(1, m + 1)
        passing = np.flatnonzero(p_values[order] * multiplier <= alpha)
        last = int(passing[-1]) if len(passing) else -1
        rank = np.arange(m)
        step = np.where(rank <= last, last, rank)
        return _in_input_order(order, multiplier[step], step + 1, np.ones(m, dtype=bool))


def correct_p_values(p_values: Sequence[float], *, method: str = "holm") -> list[float]:
    """Adjust a family of p-values for being tested together.

    Parameters
    ----------
    p_values : sequence of float
        Raw p-values, each in [0, 1].
    method : str, default "holm"
        A name registered in ``CORRECTIONS``.

    Returns
    -------
    list of float
        Adjusted p-values in the input's order, plain floats.

    Examples
    --------
    >>> from contextgrid.significance import correct_p_values
    >>> correct_p_values([0.01, 0.04, 0.03], method="holm")
    [0.03, 0.06, 0.06]
    >>> correct_p_values([0.01, 0.04, 0.03], method="bh")
    [0.03, 0.04, 0.04]
    """
    correction = CORRECTIONS.get(method)
    try:
        values = np.asarray(p_values, dtype=np.float64)
    except (TypeError, ValueError):
        values = None
    if values is None or values.ndim != 1 or not bool(((values >= 0.0) & (values <= 1.0)).all()):
        raise parameter_error("correct_p_values", "p_values", "a sequence of numbers in [0, 1]", p_values)
    if len(values) == 0:
        return []
    return [float(v) for v in correction().adjust(values)]
