"""read_documents and read_chunks: the corpus and how a parser cut it up.

Documents are a folder of ``.txt``/``.md`` files (the id is the path inside
the folder, ``/``-separated) or JSON Lines ``{"doc_id", "text"}``. Offsets
count characters of the text exactly as stored: nothing is normalised, not
even line endings.

Chunks are JSON Lines ``{"id", "doc_id", "start", "end", "text"}`` with
``text`` optional: filled from ``documents=`` when absent.
"""

from __future__ import annotations

import os
import re
from itertools import compress, repeat
from operator import and_, eq, le, not_, sub
from pathlib import Path
from typing import Any

from contextgrid.core.checks import is_whole
from contextgrid.core.errors import InputFileError
from contextgrid.core.log import WarningLog
from contextgrid.data.records import Chunk, Span
from contextgrid.io.files import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_RATIO,
    DOCUMENT_MAX_LINE_BYTES,
    Folders,
    Source,
    confined,
)
from contextgrid.io.jsonl import flat_objects, json_objects

__all__ = ["read_chunks", "read_documents"]

DOCUMENT_SUFFIXES = (".txt", ".md")
_BLANKS = re.compile(r"\s+")


def _folder_documents(
    folder: Path, shown: str, max_bytes: int, max_ratio: int | None, within: Folders | None
) -> dict[str, str]:
    confined(folder, within)
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in DOCUMENT_SUFFIXES)
    if not files:
        raise InputFileError(shown, None, None, f"expected a folder holding {' or '.join(DOCUMENT_SUFFIXES)} files")
    documents: dict[str, str] = {}
    for path in files:
        # A text file is one document, not lines: only its size is limited.
        # Each file is checked where its links lead: a link in the folder may point anywhere.
        source = Source(path, max_bytes=max_bytes, max_ratio=max_ratio, within=within)
        source.require_content("a document's text")
        source.check_utf8()
        documents[path.relative_to(folder).as_posix()] = source.data.decode("utf-8")
    return documents


def _text_field(source: Source, number: int, line: str, value: dict[str, Any], key: str) -> str:
    text = value.get(key)
    if not isinstance(text, str) or not text:
        raise source.error(number, line, f"expected {key!r} to be a non-empty string, got {text!r}")
    return text


def read_documents(
    path: str | os.PathLike[str],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_line_bytes: int | None = None,
    max_ratio: int | None = DEFAULT_MAX_RATIO,
    within: Folders | None = None,
) -> dict[str, str]:
    """Read documents: a folder of ``.txt``/``.md`` files, or a JSON Lines file of ``{"doc_id", "text"}``.

    Returns ``{doc_id: text}``. An empty document, undecodable bytes or a
    ``doc_id`` given twice is refused with an :class:`~contextgrid.core.errors.InputFileError`,
    and so is a file that holds more than ``max_bytes`` (1 GiB; each file of
    a folder), a gzip file that expands more than ``max_ratio`` times (100)
    or, in JSON Lines, a line longer than ``max_line_bytes`` (64 MiB: a line
    is a whole document). With ``within``, the file, or each file of the
    folder, must lie in one of those folders once its links are followed
    (:func:`~contextgrid.io.files.confined`).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from contextgrid.io import read_documents
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "refund.md").write_text("Refunds within 30 days.")
    >>> read_documents(folder)
    {'refund.md': 'Refunds within 30 days.'}
    """
    if Path(path).is_dir():
        return _folder_documents(Path(path), str(path), max_bytes, max_ratio, within)
    source = Source(
        path,
        max_bytes=max_bytes,
        max_line_bytes=DOCUMENT_MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes,
        max_ratio=max_ratio,
        within=within,
    )
    documents: dict[str, str] = {}
    for number, line, value in json_objects(source, 'a JSON object {"doc_id", "text"} per line'):
        doc_id = _text_field(source, number, line, value, "doc_id")
        text = value.get("text")
        if not isinstance(text, str):
            raise source.error(number, line, f"expected 'text' to be a string, got {text!r}")
        if doc_id in documents:
            raise source.error(number, line, f"expected each doc_id once, got {doc_id!r} again")
        documents[doc_id] = text
    return documents


def _offset(source: Source, number: int, line: str, value: dict[str, Any], key: str) -> int:
    offset = value.get(key)
    if not is_whole(offset, minimum=0):
        raise source.error(number, line, f"expected {key!r} to be a whole number, 0 or more, got {offset!r}")
    return int(offset)


def read_chunks(
    path: str | os.PathLike[str],
    *,
    documents: dict[str, str] | None = None,
    warnings: WarningLog | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_line_bytes: int | None = None,
    max_ratio: int | None = DEFAULT_MAX_RATIO,
    within: Folders | None = None,
) -> tuple[Chunk, ...]:
    """Read chunks from JSON Lines ``{"id", "doc_id", "start", "end", "text"}`` (``text`` optional).

    With ``documents`` (as :func:`read_documents` returns), a chunk of an
    unknown document or a span past the end of its document is refused, and
    a missing ``text`` is filled from the document. A ``text`` that
    disagrees with the document at its offsets is not refused (parsers
    rewrite text) but reported: a CAUTION in ``warnings`` when given, else a
    :class:`UserWarning`. Text that differs only in whitespace is accepted
    silently. The limits and ``within`` are :func:`read_documents`'.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from contextgrid.io import read_chunks
    >>> path = Path(tempfile.mkdtemp()) / "chunks.jsonl"
    >>> _ = path.write_text('{"id": "c1", "doc_id": "a.md", "start": 0, "end": 7}\\n')
    >>> read_chunks(path, documents={"a.md": "Refunds within 30 days."})
    (Chunk(id='c1', span=Span(doc_id='a.md', start=0, end=7), text='Refunds'),)
    """
    source = Source(
        path,
        max_bytes=max_bytes,
        max_line_bytes=DOCUMENT_MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes,
        max_ratio=max_ratio,
        within=within,
    )
    chunks = _chunks_at_once(source, documents, warnings)
    return _chunks_by_line(source, documents, warnings) if chunks is None else chunks


_CHUNK_EXPECTED = 'a JSON object {"id", "doc_id", "start", "end"} per line'
_STR, _TEXT = frozenset({str}), frozenset({str, type(None)})


def _types(values: list[Any]) -> set[type]:
    return set(map(type, values))


def _chunks_at_once(
    source: Source, documents: dict[str, str] | None, warnings: WarningLog | None
) -> tuple[Chunk, ...] | None:
    """The chunks of ``source`` read in one parse (:func:`~contextgrid.io.jsonl.flat_objects`) and checked over
    whole columns by builtins; None when the file is not so plain or something is wrong, for
    :func:`_chunks_by_line` to name the first wrong line (and report the mismatched texts before it, as it does)."""
    values = flat_objects(source)
    if values is None:
        return None
    columns: list[list[Any]] = [
        list(map(dict.get, values, repeat(key))) for key in ("id", "doc_id", "start", "end", "text")
    ]
    ids, doc_ids, starts, ends, texts = columns
    # Ids and spans as the records want them (checked before the documents are sliced at the offsets), each id once.
    if not (Chunk.common_columns(ids, doc_ids, starts, ends) and len(set(ids)) == len(ids)):
        return None
    if documents is not None:
        named = set(doc_ids)
        if not (
            _types(texts) <= _TEXT
            and named <= documents.keys()
            and all(isinstance(documents[doc_id], str) for doc_id in named)
        ):
            return None
        bodies = list(map(documents.__getitem__, doc_ids))
        if not all(map(le, ends, map(len, bodies))):
            return None
        texts, mismatched = _filled(bodies, starts, ends, texts)
        for row in mismatched:
            _report_mismatch(source, row + 1, ids[row], warnings)
    elif not _types(texts) <= _STR:
        return None
    return Chunk.from_columns(ids, doc_ids, starts, ends, texts)


def _filled(bodies: list[str], starts: list[int], ends: list[int], texts: list[Any]) -> tuple[list[str], list[int]]:
    """Each chunk's text, its document's slice where it has none, and the rows whose text its document does not
    hold."""
    filled = (
        [
            body[start:end] if text is None else text
            for body, start, end, text in zip(bodies, starts, ends, texts, strict=True)
        ]
        if None in texts
        else texts
    )
    # Most texts are their document's own slice, compared where they lie (no copy made) before normalising
    # whitespace; a text filled in is that slice.
    held = map(and_, map(eq, map(len, filled), map(sub, ends, starts)), map(str.startswith, bodies, filled, starts))
    rows = compress(range(len(filled)), map(not_, held))
    return filled, [row for row in rows if _mismatched(filled[row], bodies[row][starts[row] : ends[row]])]


def _mismatched(text: str, original: str) -> bool:
    """Whether ``text`` differs from ``original`` in more than whitespace."""
    return _BLANKS.sub(" ", text).strip() != _BLANKS.sub(" ", original).strip()


def _chunks_by_line(source: Source, documents: dict[str, str] | None, warnings: WarningLog | None) -> tuple[Chunk, ...]:
    """The chunks of ``source`` checked line by line, the first line that is not a chunk refused in words for it:
    the one copy of the rules, which :func:`_chunks_at_once` checks over columns."""
    chunks: dict[str, Chunk] = {}
    for number, line, value in json_objects(source, _CHUNK_EXPECTED):
        chunk_id = _text_field(source, number, line, value, "id")
        doc_id = _text_field(source, number, line, value, "doc_id")
        start, end = _offset(source, number, line, value, "start"), _offset(source, number, line, value, "end")
        if end < start:
            raise source.error(number, line, f"expected 'end' to be at or after 'start', got {start}..{end}")
        if chunk_id in chunks:
            raise source.error(number, line, f"expected each chunk id once, got {chunk_id!r} again")
        document = None
        if documents is not None:
            document = documents.get(doc_id)
            if document is None:
                raise source.error(number, line, f"expected the doc_id of a known document, got {doc_id!r}")
            if end > len(document):
                raise source.error(
                    number, line, f"expected a span inside {doc_id!r} ({len(document)} characters), got {start}..{end}"
                )
        text = value.get("text")
        if text is None:
            if document is None:
                raise source.error(number, line, "expected a 'text', or documents= to fill it from")
            text = document[start:end]
        elif not isinstance(text, str):
            raise source.error(number, line, f"expected 'text' to be a string, got {text!r}")
        elif document is not None:
            # Most texts are the document's own slice: compare as is before normalising whitespace.
            original = document[start:end]
            if text != original and _mismatched(text, original):
                _report_mismatch(source, number, chunk_id, warnings)
        chunks[chunk_id] = Chunk(chunk_id, Span(doc_id, start, end), text)
    return tuple(chunks.values())


def _report_mismatch(source: Source, number: int, chunk_id: str, warnings: WarningLog | None) -> None:
    import warnings as python_warnings

    message = (
        f"{source.shown}, line {number}: the text of chunk {chunk_id!r} is not what its document holds at its "
        "offsets; the chunk keeps its own text, but its span may be wrong"
    )
    if warnings is not None:
        warnings.caution("read", chunk_id, message)
    else:
        # Said of read_chunks' caller, two calls above the reader that reports it.
        python_warnings.warn(message, UserWarning, stacklevel=4)
