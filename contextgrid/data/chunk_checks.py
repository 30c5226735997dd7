"""The one check of a set of chunks a function is given: Chunk records, with distinct ids."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from contextgrid.core.checks import check_distinct
from contextgrid.core.errors import DuplicateChunkError, InvalidParameterError, parameter_error
from contextgrid.data.records import Chunk

__all__ = ["checked_chunks"]


def checked_chunks(chunks: object, *, function: str, nonempty: bool = False, hint: str = "") -> tuple[Chunk, ...]:
    """``chunks`` (an iterable of :class:`Chunk`, or a mapping whose values are) as a tuple, their ids distinct.

    ``nonempty`` refuses no chunks at all; ``hint`` says what to do about a repeat, after the repeated ids.

    Examples
    --------
    >>> from contextgrid.data.records import Span
    >>> one = Chunk("c1", Span("a.md", 0, 5), "Hello")
    >>> checked_chunks([one, one], function="build_index")
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.DuplicateChunkError: build_index: chunk ids must be distinct, repeated: 'c1' (chunks[0] and
    chunks[1])
    >>> checked_chunks([one, "c2"], function="build_index")
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.InvalidParameterError: The 'chunks[1]' parameter of build_index must be a Chunk. Got 'c2'
    instead.
    """
    if isinstance(chunks, (str, bytes, Chunk)) or not isinstance(chunks, Iterable):
        raise parameter_error(function, "chunks", "an iterable of Chunk", chunks)
    given = tuple(chunks.values() if isinstance(chunks, Mapping) else chunks)
    if nonempty and not given:
        raise parameter_error(function, "chunks", "a non-empty sequence of Chunk", chunks)
    for position, chunk in enumerate(given):
        if not isinstance(chunk, Chunk):
            raise parameter_error(function, f"chunks[{position}]", "a Chunk", chunk)
    try:
        check_distinct((chunk.id for chunk in given), function=function, what="chunk ids", given="chunks")
    except InvalidParameterError as error:
        raise DuplicateChunkError(f"{error}{'; ' + hint if hint else ''}") from None
    return given
