"""The checks of the records a function is given: chunks with distinct ids, and questions (EvalItem records)."""

from __future__ import annotations

from collections.abc import Mapping

from contextgrid.core.checks import check_distinct, check_sequence
from contextgrid.core.errors import DuplicateChunkError, InvalidParameterError
from contextgrid.data.records import Chunk, EvalItem

__all__ = ["checked_chunks", "checked_items"]


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
    values = tuple(chunks.values()) if isinstance(chunks, Mapping) else chunks
    given = check_sequence(values, Chunk, function=function, parameter="chunks", nonempty=nonempty)
    try:
        check_distinct((chunk.id for chunk in given), function=function, what="chunk ids", given="chunks")
    except InvalidParameterError as error:
        raise DuplicateChunkError(f"{error}{'; ' + hint if hint else ''}") from None
    return given


def checked_items(items: object, *, function: str, distinct: bool = True) -> tuple[EvalItem, ...]:
    """``items`` (an iterable of :class:`EvalItem`) as a tuple, their question ids distinct unless ``distinct`` is
    false.

    Examples
    --------
    >>> item = EvalItem("q1", "How long do refunds take?")
    >>> checked_items([item, item], function="SpanResolver.qrels")
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.InvalidParameterError: SpanResolver.qrels: question ids must be distinct, repeated: 'q1'
    (items[0] and items[1])
    """
    given = check_sequence(items, EvalItem, function=function, parameter="items")
    if distinct:
        check_distinct((item.id for item in given), function=function, what="question ids", given="items")
    return given
