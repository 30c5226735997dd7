"""An answer drawn as HTML: each word marked by whether the context holds it, and each citation by whether
its passage exists."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from contextgrid.core.errors import ContextGridError
from contextgrid.core.text import CITATION, WORD, words
from contextgrid.data.records import AssembledContext

__all__ = ["ANSWER_MARKS", "Piece", "answer_html", "mark_answer"]


ANSWER_MARKS: dict[str, str] = {
    "held": "a word the context holds",
    "missing": "a word the context does not hold",
    "cite": "a citation of a passage in the context",
    "bad-cite": "a citation of a passage the context does not have",
}
"""The CSS classes a piece of a marked answer can carry, and what each means (the legend)."""


_STYLE = """<style>
.cg-answer{font-size:15px;line-height:1.9;white-space:pre-wrap;word-break:break-word}
.cg-answer .held{background:#d8f3dc}.cg-answer .missing{background:#f4a6a6;text-decoration:underline wavy #c0392b}
.cg-answer .cite{color:#1d6fa5;font-weight:bold}.cg-answer .bad-cite{color:#fff;background:#c0392b;font-weight:bold}
</style>"""


@dataclass(frozen=True, slots=True)
class Piece:
    """A stretch of an answer's text and its :data:`ANSWER_MARKS` mark (``""`` for spaces and punctuation)."""

    text: str
    mark: str

    def __post_init__(self) -> None:
        if self.mark not in ("", *ANSWER_MARKS):
            raise ContextGridError(
                f"Piece({self.text!r}): mark must be '' or one of {list(ANSWER_MARKS)}, got {self.mark!r}"
            )


def mark_answer(text: str, context: AssembledContext) -> tuple[Piece, ...]:
    """Cut ``text`` into pieces: citation markers, words (held or missing from the context), and the rest.

    A marker ``[n]`` (or ``[n, m]``) is ``bad-cite`` when one of its numbers
    names no passage of the context. Words follow
    :func:`~contextgrid.core.text.words`, so the held words are exactly
    ``words(text) & words(context.text)`` outside the markers. The pieces
    joined give ``text`` back.

    Examples
    --------
    >>> import contextgrid as cg
    >>> chunk = cg.Chunk("a", cg.Span("d", 0, 12), "Thirty days.")
    >>> context = cg.AssembledContext(text="[1] Thirty days.", chunks=(chunk,), tokens=6)
    >>> [(p.text, p.mark) for p in mark_answer("Ninety days [2].", context) if p.mark]
    [('Ninety', 'missing'), ('days', 'held'), ('[2]', 'bad-cite')]
    """
    held = words(context.text)
    passages = len(context.chunks)
    pieces: list[Piece] = []
    cursor = 0

    def plain_and_words(stretch: str) -> None:
        start = 0
        for match in WORD.finditer(stretch):
            if match.start() > start:
                pieces.append(Piece(stretch[start : match.start()], ""))
            word = match.group()
            pieces.append(Piece(word, "held" if words(word) <= held else "missing"))
            start = match.end()
        if start < len(stretch):
            pieces.append(Piece(stretch[start:], ""))

    for marker in CITATION.finditer(text):
        plain_and_words(text[cursor : marker.start()])
        numbers = [int(number) for number in re.findall(r"\d+", marker.group())]
        valid = all(1 <= number <= passages for number in numbers)
        pieces.append(Piece(marker.group(), "cite" if valid else "bad-cite"))
        cursor = marker.end()
    plain_and_words(text[cursor:])
    return tuple(pieces)


def answer_html(text: str, context: AssembledContext) -> str:
    """The answer as escaped HTML, each word and citation marked with its :data:`ANSWER_MARKS` class.

    Examples
    --------
    >>> import contextgrid as cg
    >>> empty = cg.AssembledContext(text="", chunks=(), tokens=0)
    >>> page = answer_html("<b>Yes</b> [1]", empty)
    >>> "<b>" not in page and "&lt;/" in page
    True
    >>> '<span class="bad-cite" title="a citation of a passage the context does not have">[1]</span>' in page
    True
    """
    parts = [_STYLE, '<div class="cg-answer">']
    for piece in mark_answer(text, context):
        shown = html.escape(piece.text)
        parts.append(
            f'<span class="{piece.mark}" title="{ANSWER_MARKS[piece.mark]}">{shown}</span>' if piece.mark else shown
        )
    parts.append("</div>")
    return "".join(parts)
