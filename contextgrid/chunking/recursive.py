"""Recursive splitting: paragraphs, then sentences, then words, then characters."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise
from typing import ClassVar

from contextgrid.chunking.base import (
    CHUNKERS,
    check_document,
    check_overlap,
    check_size,
    make_chunks,
)
from contextgrid.chunking.boundaries import PARAGRAPH_BREAK, SENTENCE_END, WHITESPACE, cuts
from contextgrid.chunking.packing import pack, windows
from contextgrid.data.records import Chunk

__all__ = ["RecursiveChunker"]

_LEVELS: tuple[re.Pattern[str], ...] = (PARAGRAPH_BREAK, SENTENCE_END, WHITESPACE)


@CHUNKERS.register("recursive")
@dataclass(frozen=True, slots=True, kw_only=True)
class RecursiveChunker:
    """Chunks of at most ``size`` characters, cut at the coarsest boundary that makes them fit.

    A text that fits is one chunk. Otherwise it is cut into paragraphs; runs
    of consecutive paragraphs that fit are packed together as
    :class:`SentenceChunker` packs sentences, and a paragraph too long on its
    own is cut the same way into sentences, a sentence into words, and a word
    into ``size``-character pieces. Every chunk is at most ``size``
    characters; consecutive chunks share at most ``overlap`` characters (whole
    pieces), and none across a place where a too-long piece was cut further.

    Examples
    --------
    >>> from contextgrid.chunking import RecursiveChunker
    >>> text = "Refunds take 30 days.\\n\\nFees apply. Ask us first."
    >>> [c.text for c in RecursiveChunker(size=25).chunk("d", text)]
    ['Refunds take 30 days.\\n\\n', 'Fees apply. Ask us first.']
    >>> [c.text for c in RecursiveChunker(size=12).chunk("d", text)]
    ['Refunds ', 'take 30 ', 'days.\\n\\n', 'Fees apply. ', 'Ask us ', 'first.']
    """

    name: ClassVar[str] = "recursive"
    version: ClassVar[str] = "1"

    size: int = 1000
    overlap: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", check_size("RecursiveChunker", self.size))
        object.__setattr__(self, "overlap", check_overlap("RecursiveChunker", self.overlap, self.size))

    def _split(self, text: str, start: int, end: int, level: int) -> list[tuple[int, int]]:
        if end - start <= self.size:
            return [(start, end)]
        if level == len(_LEVELS):
            return [(start + first, start + stop) for first, stop in windows(end - start, self.size, self.overlap)]
        out: list[tuple[int, int]] = []
        fitting: list[int] = []  # edges of the current run of pieces that fit

        def flush() -> None:
            lengths = [stop - first for first, stop in pairwise(fitting)]
            out.extend((fitting[first], fitting[stop]) for first, stop in pack(lengths, self.size, self.overlap))
            fitting.clear()

        for piece_start, piece_end in pairwise(cuts(_LEVELS[level], text, start, end)):
            if piece_end - piece_start <= self.size:
                if not fitting:
                    fitting.append(piece_start)
                fitting.append(piece_end)
            else:
                flush()
                out.extend(self._split(text, piece_start, piece_end, level + 1))
        flush()
        return out

    def chunk(self, doc_id: str, text: str) -> tuple[Chunk, ...]:
        """The chunks of one document, in order."""
        check_document("RecursiveChunker", doc_id, text)
        if not text:
            return ()
        return make_chunks(doc_id, text, self._split(text, 0, len(text), 0))
