"""Fixed-size chunkers: a window of so many characters, or so many tokens, sliding with overlap."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from contextgrid.chunking.base import (
    CHUNKERS,
    check_document,
    check_overlap,
    check_size,
    make_chunks,
)
from contextgrid.chunking.boundaries import RegexTokenizer
from contextgrid.chunking.packing import windows
from contextgrid.core.errors import ContextGridError, parameter_error
from contextgrid.data.records import Chunk

__all__ = ["FixedCharChunker", "FixedTokenChunker", "Tokenizer"]

Tokenizer = Callable[[str], Iterable[tuple[int, int]]]
"""Text in, token offsets ``(start, end)`` out: non-empty, in order, not overlapping."""


@CHUNKERS.register("fixed_chars")
@dataclass(frozen=True, slots=True, kw_only=True)
class FixedCharChunker:
    """Chunks of ``size`` characters; each starts ``size - overlap`` characters after the last.

    Consecutive chunks share exactly ``overlap`` characters, and only the last
    chunk of a document may be shorter than ``size``. Cuts fall anywhere,
    mid-word included.

    Examples
    --------
    >>> from contextgrid.chunking import FixedCharChunker
    >>> for chunk in FixedCharChunker(size=8, overlap=2).chunk("d", "Refunds in 30 days."):
    ...     print(chunk.id, chunk.span.start, chunk.span.end, repr(chunk.text))
    d#0 0 8 'Refunds '
    d#1 6 14 's in 30 '
    d#2 12 19 '0 days.'
    """

    name: ClassVar[str] = "fixed_chars"
    version: ClassVar[str] = "1"

    size: int = 1000
    overlap: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", check_size("FixedCharChunker", self.size))
        object.__setattr__(self, "overlap", check_overlap("FixedCharChunker", self.overlap, self.size))

    def chunk(self, doc_id: str, text: str) -> tuple[Chunk, ...]:
        """The chunks of one document, in order."""
        check_document("FixedCharChunker", doc_id, text)
        return make_chunks(doc_id, text, windows(len(text), self.size, self.overlap))


@CHUNKERS.register("fixed_tokens")
@dataclass(frozen=True, slots=True, kw_only=True)
class FixedTokenChunker:
    """Chunks of ``size`` tokens; each starts ``size - overlap`` tokens after the last.

    Consecutive chunks share exactly ``overlap`` tokens. A token's chunk
    runs from the token's start to the next token's start, so the whitespace
    after a token goes with it (and any before the first token with the first
    chunk): the chunks cover the whole document. A document with text but no
    tokens is one chunk.

    ``tokenizer`` is any callable from text to token offsets ``(start, end)``,
    non-empty, in order and not overlapping; the default is
    :class:`RegexTokenizer`. A Hugging Face fast tokenizer fits as
    ``lambda text: tok(text, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]``.

    Examples
    --------
    >>> from contextgrid.chunking import FixedTokenChunker
    >>> for chunk in FixedTokenChunker(size=3, overlap=1).chunk("d", "Refunds in 30 days."):
    ...     print(chunk.id, repr(chunk.text))
    d#0 'Refunds in 30 '
    d#1 '30 days.'
    """

    name: ClassVar[str] = "fixed_tokens"
    version: ClassVar[str] = "1"

    size: int = 256
    overlap: int = 0
    tokenizer: Tokenizer = field(default=RegexTokenizer())

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", check_size("FixedTokenChunker", self.size))
        object.__setattr__(self, "overlap", check_overlap("FixedTokenChunker", self.overlap, self.size))
        if not callable(self.tokenizer):
            expected = "a callable from text to token offsets"
            raise parameter_error("FixedTokenChunker", "tokenizer", expected, self.tokenizer)

    def tokens(self, doc_id: str, text: str) -> np.ndarray:
        """The tokenizer's offsets for ``text`` as an ``(n, 2)`` int array, checked."""
        given = list(self.tokenizer(text))
        try:
            tokens = np.array(given, dtype=np.int64).reshape(len(given), 2)
        except (TypeError, ValueError):
            raise ContextGridError(
                f"FixedTokenChunker: the tokenizer's output for doc {doc_id!r} is not a list of (start, end) "
                f"offsets: {given[:3]!r}…"
            ) from None
        previous_end = np.concatenate(([0], tokens[:-1, 1]))
        bad = (tokens[:, 0] < previous_end) | (tokens[:, 1] <= tokens[:, 0]) | (tokens[:, 1] > len(text))
        if bad.any():
            position = int(np.flatnonzero(bad)[0])
            raise ContextGridError(
                f"FixedTokenChunker: the tokenizer gave token {position} of doc {doc_id!r} as {given[position]!r}; "
                f"tokens must be non-empty (start, end) offsets, in order, not overlapping, within the text's "
                f"{len(text)} characters"
            )
        return tokens

    def chunk(self, doc_id: str, text: str) -> tuple[Chunk, ...]:
        """The chunks of one document, in order."""
        check_document("FixedTokenChunker", doc_id, text)
        if not text:
            return ()
        tokens = self.tokens(doc_id, text)
        # Unit i runs from token i's start to token i+1's start: the units tile the text.
        edges = np.concatenate(([0], tokens[1:, 0], [len(text)])).tolist()
        units = max(len(tokens), 1)
        ranges = windows(units, self.size, self.overlap)
        return make_chunks(doc_id, text, ((edges[first], edges[stop]) for first, stop in ranges))
