"""Every check of a value the library is given, written once, in one wording.

Parameters of public functions are refused with :func:`~contextgrid.core.errors.parameter_error` (sklearn's
wording: "The 'k' parameter of evaluate must be an int >= 1. Got 0.5 instead."); records refuse their fields
with :func:`require`, which names the record. ``bool`` is an ``int`` subclass, but ``True`` as a count, a
grade or an offset is always a mistake, so :func:`is_whole` refuses it everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from numbers import Integral, Real
from typing import TypeGuard, TypeVar

from contextgrid.core.errors import InvalidParameterError, parameter_error

__all__ = [
    "TIE_TOLERANCE",
    "check_distinct",
    "check_fraction",
    "check_int",
    "check_k",
    "check_ks",
    "check_sequence",
    "is_fraction",
    "is_whole",
    "require",
]

_T = TypeVar("_T")

TIE_TOLERANCE = 1e-9
"""Two scores at most this far apart are tied: float noise (say 0.1 + 0.2 against 0.3) is not a win or a loss."""


def is_whole(value: object, *, minimum: int | None = None) -> TypeGuard[int]:
    """Whether ``value`` is an int (not a bool), at least ``minimum`` when given.

    Examples
    --------
    >>> is_whole(3), is_whole(True), is_whole(3.0), is_whole(-1, minimum=0)
    (True, False, False, False)
    """
    if type(value) is int:  # the common case, without the Integral ABC's slower check
        return minimum is None or value >= minimum
    return isinstance(value, Integral) and not isinstance(value, bool) and (minimum is None or int(value) >= minimum)


def is_fraction(value: object, *, low_open: bool = False, high_open: bool = False) -> TypeGuard[Real]:
    """Whether ``value`` is a finite real number (not a bool) in [0, 1], either end open when asked.

    Examples
    --------
    >>> is_fraction(0.5), is_fraction(0, low_open=True), is_fraction(1), is_fraction(float("nan"))
    (True, False, True, False)
    """
    if not isinstance(value, Real) or isinstance(value, bool) or not math.isfinite(float(value)):
        return False
    number = float(value)
    return (number > 0.0 if low_open else number >= 0.0) and (number < 1.0 if high_open else number <= 1.0)


def require(condition: bool, record: str | Callable[[], str], message: str) -> None:
    """Refuse a record's field: ``record`` names the record (with its id), or is called to name it when the field
    is refused; ``message`` names the field and the value.

    A bad field is a bad argument of the record's constructor, so the error is an :class:`InvalidParameterError`,
    as for a function's parameter; only the wording differs (attrs', naming the record, not sklearn's).

    Examples
    --------
    >>> require(False, "Span('a.md')", "start must be 0 or more, got -1")
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.InvalidParameterError: Span('a.md'): start must be 0 or more, got -1
    """
    if not condition:
        raise InvalidParameterError(f"{record if isinstance(record, str) else record()}: {message}")


def check_int(value: object, *, function: str, parameter: str, minimum: int | None = None) -> int:
    """``value`` as an int, or an :class:`InvalidParameterError` naming ``parameter`` of ``function``.

    Examples
    --------
    >>> check_int(3, function="f", parameter="n", minimum=1)
    3
    >>> check_int(True, function="f", parameter="n", minimum=1)
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.InvalidParameterError: The 'n' parameter of f must be an int >= 1. Got True instead.
    """
    if not is_whole(value, minimum=minimum):
        raise parameter_error(function, parameter, "an int" if minimum is None else f"an int >= {minimum}", value)
    return int(value)


def check_fraction(
    value: object, *, function: str, parameter: str, low_open: bool = False, high_open: bool = False
) -> float:
    """``value`` as a float in [0, 1] (either end open when asked), or an :class:`InvalidParameterError`.

    Examples
    --------
    >>> check_fraction(0.05, function="compare_pair", parameter="alpha", low_open=True, high_open=True)
    0.05
    >>> check_fraction(1, function="compare_pair", parameter="alpha", low_open=True, high_open=True)
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.InvalidParameterError: The 'alpha' parameter of compare_pair must be a number in (0, 1).
    Got 1 instead.
    """
    if not is_fraction(value, low_open=low_open, high_open=high_open):
        interval = f"{'(' if low_open else '['}0, 1{')' if high_open else ']'}"
        raise parameter_error(function, parameter, f"a number in {interval}", value)
    return float(value)


def check_k(k: object, *, function: str, parameter: str = "k") -> int:
    """``k`` as an int cut-off of 1 or more.

    Both refusals are :class:`InvalidParameterError`. Below 1 the message is the Metrics page's own, which
    says why a slice is not a cut-off.

    Examples
    --------
    >>> check_k(-1, function="evaluate")
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.InvalidParameterError: cut-off k must be at least 1, got -1. A k of 0 or below is not a
    smaller top-k, it is a slice that means something else.
    """
    if not is_whole(k):
        raise parameter_error(function, parameter, "an int >= 1", k)
    if k < 1:
        raise InvalidParameterError(
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


def check_sequence(
    values: object, kind: type[_T], *, function: str, parameter: str, nonempty: bool = False
) -> tuple[_T, ...]:
    """``values`` (any iterable but a str, bytes, mapping or a lone ``kind``) as a tuple, each one a ``kind``.

    ``nonempty`` refuses an empty one; a wrong element is named by its position, as ``parameter[i]``.

    Examples
    --------
    >>> check_sequence(["refunds?", "fees?"], str, function="search_many", parameter="queries")
    ('refunds?', 'fees?')
    >>> check_sequence(["refunds?", 3], str, function="search_many", parameter="queries")
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.InvalidParameterError: The 'queries[1]' parameter of search_many must be a str. Got 3
    instead.
    """
    name = kind.__name__
    if isinstance(values, (str, bytes, Mapping, kind)) or not isinstance(values, Iterable):
        raise parameter_error(function, parameter, f"an iterable of {name}", values)
    given = tuple(values)
    if nonempty and not given:
        raise parameter_error(function, parameter, f"a non-empty sequence of {name}", values)
    article = "an" if name[0].lower() in "aeiou" else "a"
    for position, value in enumerate(given):
        if not isinstance(value, kind):
            raise parameter_error(function, f"{parameter}[{position}]", f"{article} {name}", value)
    return given


def check_distinct(ids: Iterable[str], *, function: str, what: str, given: str = "ids") -> None:
    """Refuse ids given more than once, naming them (sorted) and where each first repeats in ``given``.

    ``what`` says what the ids are (``"chunk ids"``, ``"configuration names"``). A repeat is a bad argument, so
    the error is an :class:`InvalidParameterError`; callers that own a leaf error for it re-raise that.

    Examples
    --------
    >>> check_distinct(["c1", "c2", "c1"], function="SpanResolver.qrels", what="chunk ids", given="chunks")
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.InvalidParameterError: SpanResolver.qrels: chunk ids must be distinct, repeated: 'c1'
    (chunks[0] and chunks[2])
    """
    first: dict[str, int] = {}
    repeats: dict[str, tuple[int, int]] = {}
    for position, value in enumerate(ids):
        earlier = first.setdefault(value, position)
        if earlier != position:
            repeats.setdefault(value, (earlier, position))
    if repeats:
        shown = ", ".join(f"{value!r} ({given}[{a}] and {given}[{b}])" for value, (a, b) in sorted(repeats.items()))
        raise InvalidParameterError(f"{function}: {what} must be distinct, repeated: {shown}")
