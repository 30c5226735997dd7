"""Sentence packing: whole sentences, as many as fit in a chunk."""

from __future__ import annotations

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
from contextgrid.chunking.boundaries import SENTENCE_END, cuts
from contextgrid.chunking.packing import pack
from contextgrid.data.records import Chunk

__all__ = ["SentenceChunker"]


@CHUNKERS.register("sentences")
@dataclass(frozen=True, slots=True, kw_only=True)
class SentenceChunker:
    """Whole sentences packed into chunks of at most ``size`` characters.

    Sentences end where :data:`~contextgrid.chunking.boundaries.SENTENCE_END`
    matches; the whitespace after a sentence goes with it. A sentence longer
    than ``size`` is a chunk on its own, never cut. Each chunk after the first
    starts by repeating the previous chunk's last sentences, as many as fit in
    ``overlap`` characters (fewer than all of them), so consecutive chunks
    share at most ``overlap`` characters.

    Examples
    --------
    >>> from contextgrid.chunking import SentenceChunker
    >>> text = "Refunds take 30 days. Fees apply. Ask us."
    >>> [c.text for c in SentenceChunker(size=35).chunk("d", text)]
    ['Refunds take 30 days. Fees apply. ', 'Ask us.']
    >>> [c.text for c in SentenceChunker(size=35, overlap=12).chunk("d", text)]
    ['Refunds take 30 days. Fees apply. ', 'Fees apply. Ask us.']
    """

    name: ClassVar[str] = "sentences"
    version: ClassVar[str] = "1"

    size: int = 1000
    overlap: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", check_size("SentenceChunker", self.size))
        object.__setattr__(self, "overlap", check_overlap("SentenceChunker", self.overlap, self.size))

    def chunk(self, doc_id: str, text: str) -> tuple[Chunk, ...]:
        """The chunks of one document, in order."""
        check_document("SentenceChunker", doc_id, text)
        if not text:
            return ()
        edges = cuts(SENTENCE_END, text, 0, len(text))
        lengths = [end - start for start, end in pairwise(edges)]
        return make_chunks(
            doc_id, text, ((edges[first], edges[stop]) for first, stop in pack(lengths, self.size, self.overlap))
        )
