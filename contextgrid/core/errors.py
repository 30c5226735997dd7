"""Every error contextgrid raises on purpose.

All of them subclass :class:`ValueError`, so ``except ValueError`` catches any
bad input, whichever part of the library refused it.
"""

from __future__ import annotations

__all__ = [
    "AccessDeniedError",
    "ContextGridError",
    "DuplicateChunkError",
    "InputFileError",
    "InvalidParameterError",
    "MissingWorkspaceInputError",
    "NameTakenError",
    "OutputExistsError",
    "OutputFileError",
    "QuestionMismatchError",
    "RowError",
    "UnknownConfigurationError",
    "UnknownPluginError",
    "UnknownScoreError",
]


class ContextGridError(ValueError):
    """Base class of every error contextgrid raises about its input."""


class InvalidParameterError(ContextGridError, TypeError):
    """A parameter has the wrong type or value.

    Also a :class:`TypeError`, because a wrong type is the usual cause.
    """


class UnknownPluginError(ContextGridError):
    """A registry was asked for a name nobody registered."""


class NameTakenError(ContextGridError):
    """A plugin, an output format or a subcommand is being registered under a name another one already holds.

    A plugin module imported twice (a notebook re-running its cell) can catch it, or pass ``replace=True``
    where the registry takes it.
    """


class DuplicateChunkError(ContextGridError):
    """Chunk ids that must be distinct repeat: in a ranking about to be scored, or in a set of chunks."""


class UnknownConfigurationError(ContextGridError):
    """A workspace, or its results, was asked for a configuration it does not have; the message lists those it has."""


class UnknownScoreError(ContextGridError):
    """A ``metric@k`` score was asked for that was not computed: not asked for, or its metric raised.

    A table or a page shows it as a gap; any other error is a real failure.
    """


class MissingWorkspaceInputError(ContextGridError):
    """A workspace lacks a file a call needs (documents, questions, a configuration's chunks or answers)."""


class AccessDeniedError(ContextGridError, PermissionError):
    """A path lies outside the folders a caller may read (a shared dashboard's allowed folders, say).

    Also a :class:`PermissionError`: the file may exist, but this caller is not to read it.
    """


class QuestionMismatchError(ContextGridError):
    """Per-question scores to be paired do not cover the same question ids."""


def parameter_error(function: str, parameter: str, expected: str, got: object) -> InvalidParameterError:
    """Build the one wording every parameter check uses (sklearn's)."""
    return InvalidParameterError(f"The {parameter!r} parameter of {function} must be {expected}. Got {got!r} instead.")


def _shorten(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class InputFileError(ContextGridError):
    """A file being read is malformed; names the file, the line or row, the offending text and what was expected.

    ``line`` is 1-based as an editor shows it (``unit`` says whether it counts
    lines or table rows) and is ``None`` when the problem has no single place,
    such as an empty file or a missing column.

    Examples
    --------
    >>> print(InputFileError("runs/bm25.trec", 17, "q1 Q0 c3 1 0.8", "expected 6 columns, got 5"))
    runs/bm25.trec, line 17: expected 6 columns, got 5: 'q1 Q0 c3 1 0.8'
    """

    def __init__(self, path: object, line: int | None, text: str | None, expected: str, *, unit: str = "line") -> None:
        self.path = str(path)
        self.line = line
        self.text = text
        self.expected = expected
        self.unit = unit
        where = self.path if line is None else f"{self.path}, {unit} {line}"
        shown = "" if text is None else f": {_shorten(text)!r}"
        super().__init__(f"{where}: {expected}{shown}")

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild_input_file_error, (self.path, self.line, self.text, self.expected, self.unit))


def _rebuild_input_file_error(
    path: str, line: int | None, text: str | None, expected: str, unit: str
) -> InputFileError:
    return InputFileError(path, line, text, expected, unit=unit)


class RowError(ContextGridError):
    """A row given to a run or qrels table is wrong; ``row`` is its 0-based position in the input.

    Readers catch it and raise :class:`InputFileError` naming the line instead.
    """

    def __init__(self, row: int, text: str, expected: str) -> None:
        self.row = row
        self.text = text
        self.expected = expected
        super().__init__(f"row {row + 1}: {expected}: {_shorten(text)!r}")

    def __reduce__(self) -> tuple[object, ...]:
        return (RowError, (self.row, self.text, self.expected))


class OutputExistsError(ContextGridError, FileExistsError):
    """A writer was asked to create a file that already exists, and was not told to overwrite it."""


class OutputFileError(ContextGridError, OSError):
    """A file could not be written (a folder in its place, a full disk, no permission); what was there is left as
    it was."""
