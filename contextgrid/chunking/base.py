"""What a chunker is: the protocol, the registry, and the checks every chunker shares."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar, Protocol, runtime_checkable

from contextgrid.core.checks import check_int, is_whole
from contextgrid.core.errors import ContextGridError, parameter_error
from contextgrid.core.registry import Registry
from contextgrid.data.records import Chunk, Span

__all__ = ["CHUNKERS", "Chunker", "check_document", "check_overlap", "check_size", "make_chunks"]


@runtime_checkable
class Chunker(Protocol):
    """A chunker cuts one document into chunks that carry exact offsets.

    ``chunk(doc_id, text)`` returns chunks whose ``text`` is exactly
    ``text[span.start:span.end]``, in document order, with ids
    ``f"{doc_id}#{index}"``. The chunks cover every character of the document
    and none is empty; an empty document gives no chunks.
    """

    name: ClassVar[str]
    version: ClassVar[str]

    def chunk(self, doc_id: str, text: str) -> tuple[Chunk, ...]: ...


CHUNKERS: Registry[type[Chunker]] = Registry("chunker")


def check_size(owner: str, size: object) -> int:
    """``size`` as an int >= 1, or the sklearn-worded error."""
    return check_int(size, function=owner, parameter="size", minimum=1)


def check_overlap(owner: str, overlap: object, size: int) -> int:
    """``overlap`` as an int with ``0 <= overlap < size``, or the sklearn-worded error."""
    if not is_whole(overlap, minimum=0) or int(overlap) >= size:
        raise parameter_error(owner, "overlap", f"an int with 0 <= overlap < size={size}", overlap)
    return int(overlap)


def check_document(owner: str, doc_id: object, text: object) -> None:
    """Refuse a document id or text a chunk could not be built from."""
    if not isinstance(doc_id, str) or not doc_id:
        raise ContextGridError(f"{owner}.chunk: doc_id must be a non-empty str, got {doc_id!r}")
    if not isinstance(text, str):
        raise ContextGridError(f"{owner}.chunk: the text of doc {doc_id!r} must be a str, got {type(text).__name__}")


def make_chunks(doc_id: str, text: str, bounds: Iterable[tuple[int, int]]) -> tuple[Chunk, ...]:
    """One chunk per ``(start, end)``, numbered in order: ``f"{doc_id}#{index}"``."""
    return tuple(
        Chunk(f"{doc_id}#{index}", Span(doc_id, start, end), text[start:end])
        for index, (start, end) in enumerate(bounds)
    )
