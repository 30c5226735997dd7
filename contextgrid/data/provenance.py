"""SourceLine: where in an input file a record was read from, so that a later check can name the line."""

from __future__ import annotations

from dataclasses import dataclass

from contextgrid.core.errors import ContextGridError, InputFileError

__all__ = ["SourceLine"]


@dataclass(frozen=True, slots=True)
class SourceLine:
    """One line of an input file: the file as messages show it, the line number (1-based) and its text.

    Examples
    --------
    >>> where = SourceLine("answers.jsonl", 3, '{"question_id": "q7"}')
    >>> print(where.error("answers question 'q7', which is not a question"))
    answers.jsonl, line 3: answers question 'q7', which is not a question: '{"question_id": "q7"}'
    """

    path: str
    line: int
    text: str

    def __post_init__(self) -> None:
        if not isinstance(self.path, str) or not self.path:
            raise ContextGridError(f"SourceLine: path must be a non-empty str, got {self.path!r}")
        if not isinstance(self.line, int) or isinstance(self.line, bool) or self.line < 1:
            raise ContextGridError(f"SourceLine({self.path!r}): line must be an int of 1 or more, got {self.line!r}")
        if not isinstance(self.text, str):
            raise ContextGridError(f"SourceLine({self.path!r}): text must be a str, got {self.text!r}")

    def error(self, expected: str) -> InputFileError:
        """The :class:`~contextgrid.core.errors.InputFileError` refusing this line for ``expected``."""
        return InputFileError(self.path, self.line, self.text, expected)
