"""Where a chunk's text really is in its document: at its claimed offset, or at the occurrence nearest to it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from contextgrid.core.checks import check_distinct, is_whole
from contextgrid.core.errors import ContextGridError
from contextgrid.core.log import WarningLog
from contextgrid.data.records import Chunk, Span

__all__ = ["Claimed", "locate", "located_chunks"]


@dataclass(frozen=True, slots=True)
class Claimed:
    """A chunk as a framework describes it: its id (``None``: number it per document), its document, its text
    and the start offset the framework claims (``None`` when it gives none)."""

    chunk_id: str | None
    doc_id: str
    text: str
    start: int | None


def locate(document: str, text: str, claimed: int | None, *, not_before: int = 0) -> int | None:
    """The start of ``text`` in ``document``, at ``not_before`` or later: ``claimed`` if it is there, else the
    occurrence nearest to ``claimed`` (the first one when there is no claim; the earlier of two equally near);
    ``None`` if there is none.

    Examples
    --------
    >>> document = "abc xyz abc xyz abc"
    >>> locate(document, "abc", 8), locate(document, "abc", 13), locate(document, "abc", None), locate(document, "q", 0)
    (8, 16, 0, None)
    >>> locate(document, "abc", 0, not_before=1)
    8
    """
    if claimed is not None and claimed >= not_before and document.startswith(text, claimed):
        return claimed
    starts = []
    found = document.find(text, not_before)
    while found >= 0:
        starts.append(found)
        found = document.find(text, found + 1)
    if not starts:
        return None
    if claimed is None:
        return starts[0]
    return min(starts, key=lambda start: (abs(start - claimed), start))


def located_chunks(
    claims: Sequence[Claimed],
    texts: Mapping[str, str],
    *,
    function: str,
    warnings: WarningLog | None,
    ordered: bool = False,
) -> tuple[Chunk, ...]:
    """Chunks in input order whose text is ``texts[doc_id][start:end]``; each repaired offset is logged.

    ``ordered``: the claims of each document come in document order (a splitter's output), so a chunk starts
    after the one before it; a claim before that is a copy earlier in the document. Such a claim, or a missing
    one, is taken to be where the chunk before it ended (a splitter's chunks follow each other, overlapping a
    little), and the occurrence nearest there is used.
    """
    counts: dict[str, int] = {}
    previous: dict[str, tuple[int, int]] = {}
    chunks = []
    for position, claim in enumerate(claims):
        number = counts.get(claim.doc_id, 0)
        counts[claim.doc_id] = number + 1
        chunk_id = claim.chunk_id if claim.chunk_id is not None else f"{claim.doc_id}#{number}"
        document = texts.get(claim.doc_id)
        if document is None:
            raise ContextGridError(
                f"{function}: chunk {chunk_id!r} (input {position}) is from document {claim.doc_id!r}, which is not "
                f"in the texts given ({len(texts)} documents)"
            )
        if not claim.text:
            raise ContextGridError(f"{function}: chunk {chunk_id!r} (input {position}) has no text to locate")
        claimed = claim.start if is_whole(claim.start, minimum=0) else None
        floor = 0
        if ordered and claim.doc_id in previous:
            before, end = previous[claim.doc_id]
            floor = before + 1
            claimed = end if claimed is None or claimed < floor else claimed
        start = locate(document, claim.text, claimed, not_before=floor)
        if start is None:
            raise ContextGridError(
                f"{function}: the text of chunk {chunk_id!r} (input {position}) is nowhere in document "
                f"{claim.doc_id!r}{f' after offset {floor}' if floor else ''}: {claim.text[:60]!r}"
            )
        if start != claim.start and warnings is not None:
            said = "no offset" if claim.start is None else f"offset {claim.start}"
            warnings.caution(
                "adapt", chunk_id, f"the framework gave {said}; its text is at {start} of {claim.doc_id!r}, used that"
            )
        previous[claim.doc_id] = (start, start + len(claim.text))
        chunks.append(Chunk(chunk_id, Span(claim.doc_id, start, start + len(claim.text)), claim.text))
    check_distinct((chunk.id for chunk in chunks), function=function, what="chunk", given="inputs")
    return tuple(chunks)
