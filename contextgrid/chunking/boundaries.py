"""Where text may be cut: paragraph breaks, sentence ends, whitespace and tokens.

Every boundary is a character offset. Whitespace after a unit belongs to that
unit, so the units of a document tile it exactly, with nothing left between.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from contextgrid.core.errors import ContextGridError, parameter_error

__all__ = ["PARAGRAPH_BREAK", "SENTENCE_END", "WHITESPACE", "RegexTokenizer", "cuts"]

PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
"""A blank line (and any whitespace after it) ends a paragraph."""

SENTENCE_END = re.compile(r"""[.!?…]+["'”’)\]]*\s+|\n[ \t]*\n\s*""")
"""A sentence ends after ``.``, ``!``, ``?`` or ``…`` (and any closing quotes or
brackets) followed by whitespace, or at a blank line. Deliberately simple:
"e.g. this" is cut after "e.g.", and "3.5" is not cut."""

WHITESPACE = re.compile(r"\s+")
"""Words are separated by runs of whitespace."""


def cuts(pattern: re.Pattern[str], text: str, start: int, end: int) -> list[int]:
    """Offsets that cut ``text[start:end]`` after each match of ``pattern``, with both ends.

    Examples
    --------
    >>> from contextgrid.chunking.boundaries import SENTENCE_END, cuts
    >>> cuts(SENTENCE_END, "One. Two! Three", 0, 15)
    [0, 5, 10, 15]
    """
    inner = [match.end() for match in pattern.finditer(text, start, end) if match.end() < end]
    return [start, *inner, end]


@dataclass(frozen=True, slots=True)
class RegexTokenizer:
    """Tokens as the matches of a regular expression, returned as ``(start, end)`` offsets.

    The default pattern takes runs of word characters and single punctuation
    marks as tokens, roughly what a subword tokenizer counts.

    Examples
    --------
    >>> from contextgrid.chunking import RegexTokenizer
    >>> RegexTokenizer()("Refunds: 30 days.")
    ((0, 7), (7, 8), (9, 11), (12, 16), (16, 17))
    """

    pattern: str = r"\w+|[^\w\s]"

    def __post_init__(self) -> None:
        if not isinstance(self.pattern, str):
            raise parameter_error("RegexTokenizer", "pattern", "a regular expression as a str", self.pattern)
        try:
            compiled = re.compile(self.pattern)
        except re.error as error:
            raise ContextGridError(f"RegexTokenizer: pattern {self.pattern!r} is not a valid regex: {error}") from None
        if compiled.match(""):
            raise ContextGridError(f"RegexTokenizer: pattern {self.pattern!r} matches the empty string")

    def __call__(self, text: str) -> tuple[tuple[int, int], ...]:
        return tuple(match.span() for match in re.finditer(self.pattern, text))
