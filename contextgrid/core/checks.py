"""Checks of the parameters the public functions take, with one wording for all."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from numbers import Integral

from contextgrid.core.errors import ContextGridError, parameter_error

__all__ = ["check_k", "check_ks"]


def check_k(k: object, *, function: str, parameter: str = "k") -> int:
    """Return ``k`` as an int, or raise if it is not a cut-off of 1 or more."""
    if not isinstance(k, Integral) or isinstance(k, bool):
        raise parameter_error(function, parameter, "an int of at least 1", k)
    if k < 1:
        raise ContextGridError(
            f"cut-off k must be at least 1, got {int(k)}. A k of 0 or below is not a smaller top-k, "
            "it is a slice that means something else."
        )
    return int(k)


def check_ks(ks: object, *, function: str) -> tuple[int, ...]:
    """Return the cut-offs in the order given, each once."""
    if isinstance(ks, (str, bytes, Mapping)) or not isinstance(ks, Iterable):
        raise parameter_error(function, "ks", "a non-empty sequence of int", ks)
    checked = [check_k(k, function=function, parameter="ks") for k in ks]
    if not checked:
        raise parameter_error(function, "ks", "a non-empty sequence of int", ks)
    return tuple(dict.fromkeys(checked))
