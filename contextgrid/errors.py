"""Every error contextgrid raises on purpose.

All of them subclass :class:`ValueError`, so ``except ValueError`` catches any
bad input, whichever part of the library refused it.
"""

from __future__ import annotations

__all__ = [
    "ContextGridError",
    "DuplicateChunkError",
    "InvalidParameterError",
    "UnknownPluginError",
]


class ContextGridError(ValueError):
    """Base class of every error contextgrid raises about its input."""


class InvalidParameterError(ContextGridError, TypeError):
    """A parameter has the wrong type or value.

    Also a :class:`TypeError`, because a wrong type is the usual cause.
    """


class UnknownPluginError(ContextGridError):
    """A registry was asked for a name nobody registered."""


class DuplicateChunkError(ContextGridError):
    """A ranking that is about to be scored repeats a chunk id."""


def parameter_error(function: str, parameter: str, expected: str, got: object) -> InvalidParameterError:
    """Build the one wording every parameter check uses (sklearn's)."""
    return InvalidParameterError(f"The {parameter!r} parameter of {function} must be {expected}. Got {got!r} instead.")
