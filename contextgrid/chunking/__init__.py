"""Chunkers whose chunks carry exact offsets: ``chunk.text == text[chunk.span.start:chunk.span.end]``.

Registered by name in :data:`CHUNKERS`: ``fixed_chars``, ``fixed_tokens``,
``sentences`` and ``recursive``.
"""

from __future__ import annotations

from collections.abc import Mapping

from contextgrid.chunking.base import CHUNKERS, Chunker
from contextgrid.chunking.boundaries import (
    PARAGRAPH_BREAK,
    SENTENCE_END,
    WHITESPACE,
    RegexTokenizer,
)
from contextgrid.chunking.fixed import FixedCharChunker, FixedTokenChunker, Tokenizer
from contextgrid.chunking.recursive import RecursiveChunker
from contextgrid.chunking.sentences import SentenceChunker
from contextgrid.core.errors import parameter_error
from contextgrid.data.records import Chunk

__all__ = [
    "CHUNKERS",
    "PARAGRAPH_BREAK",
    "SENTENCE_END",
    "WHITESPACE",
    "Chunker",
    "FixedCharChunker",
    "FixedTokenChunker",
    "RecursiveChunker",
    "RegexTokenizer",
    "SentenceChunker",
    "Tokenizer",
    "available_chunkers",
    "chunk_documents",
    "get_chunker",
]


def get_chunker(name: str, **params: object) -> Chunker:
    """The chunker registered under ``name``, made with ``params``.

    Examples
    --------
    >>> from contextgrid.chunking import get_chunker
    >>> get_chunker("fixed_chars", size=500, overlap=50)
    FixedCharChunker(size=500, overlap=50)
    """
    return CHUNKERS.get(name)(**params)


def available_chunkers() -> tuple[str, ...]:
    """Every registered chunker name, sorted."""
    return CHUNKERS.names()


def chunk_documents(documents: Mapping[str, str], chunker: Chunker) -> tuple[Chunk, ...]:
    """Every document's chunks, document by document in the mapping's order.

    Examples
    --------
    >>> from contextgrid.chunking import FixedCharChunker, chunk_documents
    >>> [c.id for c in chunk_documents({"a": "x" * 5, "b": "y" * 3}, FixedCharChunker(size=4))]
    ['a#0', 'a#1', 'b#0']
    """
    if not isinstance(documents, Mapping):
        raise parameter_error("chunk_documents", "documents", "a mapping of document id to text", documents)
    if not isinstance(chunker, Chunker):
        raise parameter_error("chunk_documents", "chunker", "a chunker (an object with a chunk method)", chunker)
    return tuple(chunk for doc_id, text in documents.items() for chunk in chunker.chunk(doc_id, text))
