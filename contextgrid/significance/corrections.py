"""Corrections for many comparisons: the CORRECTIONS registry and its four built-ins.

Run twenty comparisons at ``alpha = 0.05`` on configurations that are all
equally good and one of them will look significant by luck. A correction
raises each p-value to account for the others tested alongside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from contextgrid.core.errors import parameter_error
from contextgrid.core.registry import Registry

__all__ = [
    "CORRECTIONS",
    "BenjaminiHochberg",
    "Bonferroni",
    "Correction",
    "Holm",
    "NoCorrection",
    "correct_p_values",
]

FloatArray = npt.NDArray[np.float64]


@runtime_checkable
class Correction(Protocol):
    """Turns a family of raw p-values into adjusted ones, in the same order.

    An adjusted p-value is compared with ``alpha`` directly: ``adjusted <= alpha``
    is a rejection under the correction's guarantee.
    """

    name: ClassVar[str]
    version: ClassVar[str]

    def adjust(self, p_values: FloatArray) -> FloatArray: ...


CORRECTIONS: Registry[type[Correction]] = Registry("correction")
"""Multiple-comparison corrections by name: ``"holm"``, ``"bh"``, ``"bonferroni"``, ``"none"``."""


@CORRECTIONS.register("none")
class NoCorrection:
    """Raw p-values: right for one planned comparison, optimistic for many."""

    name: ClassVar[str] = "none"
    version: ClassVar[str] = "1"

    def adjust(self, p_values: FloatArray) -> FloatArray:
        return p_values.copy()


@CORRECTIONS.register("bonferroni")
class Bonferroni:
    """``min(1, m * p)``: controls the chance of any false win (family-wise error); the most conservative."""

    name: ClassVar[str] = "bonferroni"
    version: ClassVar[str] = "1"

    def adjust(self, p_values: FloatArray) -> FloatArray:
        return np.minimum(1.0, p_values * len(p_values))


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
        scaled = p_values[order] * m / np.arange(1, m + 1)
        stepped = np.minimum.accumulate(scaled[::-1])[::-1]
        adjusted = np.empty_like(p_values)
        adjusted[order] = np.minimum(1.0, stepped)
        return adjusted


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
