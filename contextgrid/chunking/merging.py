"""Small chunks merged into a neighbour, offsets kept exact.

A splitter that cuts at headings and blank lines leaves fragments such as a
lone heading (``backoff\\n=======``): retrieved on their own they hold no
answer and crowd the ranking. :func:`merge_small` joins every chunk shorter
than ``minimum`` characters to the chunk after it in its document (the last
one to the chunk before), so a heading goes with the text it heads. A merged
chunk spans from the first piece's start to the last piece's end and its text
is exactly that slice of the document; chunks are numbered again in order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from contextgrid.chunking.base import make_chunks
from contextgrid.core.checks import check_int
from contextgrid.data.records import Chunk

__all__ = ["merge_small"]


def merge_small(chunks: Sequence[Chunk], documents: Mapping[str, str], *, minimum: int) -> tuple[Chunk, ...]:
    """``chunks`` (grouped by document, each group in document order) with every chunk under ``minimum``
    characters merged into a neighbour; ``minimum=0`` changes nothing.

    A document whose whole text is shorter than ``minimum`` keeps one chunk.

    Examples
    --------
    >>> from contextgrid.chunking import get_chunker
    >>> from contextgrid.chunking.merging import merge_small
    >>> text = "backoff\\n=======\\n\\nRetries wait twice as long each time, up to a minute.\\n\\nEnd."
    >>> chunks = get_chunker("recursive", size=56, overlap=0).chunk("d.md", text)
    >>> [len(chunk.text) for chunk in chunks]
    [17, 55, 4]
    >>> merged = merge_small(chunks, {"d.md": text}, minimum=20)  # the heading joins the next, End. the one before
    >>> [(chunk.id, chunk.span.start, chunk.span.end) for chunk in merged]
    [('d.md#0', 0, 76)]
    >>> [(c.id, c.text) for c in merge_small(chunks, {"d.md": text}, minimum=5)]  # doctest: +NORMALIZE_WHITESPACE
    [('d.md#0', 'backoff\\n=======\\n\\n'),
     ('d.md#1', 'Retries wait twice as long each time, up to a minute.\\n\\nEnd.')]
    """
    check_int(minimum, function="merge_small", parameter="minimum", minimum=0)
    if minimum == 0:
        return tuple(chunks)
    merged: list[Chunk] = []
    start = 0
    while start < len(chunks):
        doc_id = chunks[start].span.doc_id
        stop = start
        while stop < len(chunks) and chunks[stop].span.doc_id == doc_id:
            stop += 1
        bounds = _merged_bounds([(c.span.start, c.span.end) for c in chunks[start:stop]], minimum)
        merged.extend(make_chunks(doc_id, documents[doc_id], bounds))
        start = stop
    return tuple(merged)


def _merged_bounds(bounds: list[tuple[int, int]], minimum: int) -> list[tuple[int, int]]:
    """One document's ``(start, end)`` pairs with each one under ``minimum`` joined to the next (the last to the
    one before)."""
    kept: list[tuple[int, int]] = []
    pending: tuple[int, int] | None = None
    for start, end in bounds:
        if pending is not None:
            start, end = min(pending[0], start), max(pending[1], end)
        if end - start < minimum:
            pending = (start, end)
            continue
        kept.append((start, end))
        pending = None
    if pending is not None:
        if kept:
            before = kept.pop()
            pending = (min(before[0], pending[0]), max(before[1], pending[1]))
        kept.append(pending)
    return kept
