"""write_documents, write_chunks and write_questions: the corpus side written in the
formats read_documents, read_chunks and read_questions read back unchanged."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

from contextgrid.core.errors import ContextGridError
from contextgrid.data.records import Chunk, EvalItem
from contextgrid.io.files import atomic_output

__all__ = ["write_chunks", "write_documents", "write_questions"]


def _lines(rows: Iterable[dict[str, Any]], path: str | os.PathLike[str], overwrite: bool) -> None:
    with atomic_output(path, overwrite=overwrite) as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False).encode() + b"\n")


def write_documents(documents: Mapping[str, str], path: str | os.PathLike[str], *, overwrite: bool = False) -> None:
    """Write ``{doc_id: text}`` as JSON Lines ``{"doc_id", "text"}``, in the order given.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from contextgrid.io import read_documents, write_documents
    >>> path = Path(tempfile.mkdtemp()) / "documents.jsonl"
    >>> write_documents({"a.md": "Refunds: 30 days.\\r\\n"}, path)
    >>> read_documents(path)
    {'a.md': 'Refunds: 30 days.\\r\\n'}
    """
    for doc_id, text in documents.items():
        if not isinstance(doc_id, str) or not doc_id or not isinstance(text, str):
            raise ContextGridError(
                f"write_documents: expected str ids and texts, got {doc_id!r}: {type(text).__name__}"
            )
    _lines(({"doc_id": doc_id, "text": text} for doc_id, text in documents.items()), path, overwrite)


def write_chunks(chunks: Iterable[Chunk], path: str | os.PathLike[str], *, overwrite: bool = False) -> None:
    """Write chunks as JSON Lines ``{"id", "doc_id", "start", "end", "text"}``."""
    rows = []
    for chunk in chunks:
        if not isinstance(chunk, Chunk):
            raise ContextGridError(f"write_chunks: expected Chunk records, got {chunk!r}")
        rows.append(
            {
                "id": chunk.id,
                "doc_id": chunk.span.doc_id,
                "start": chunk.span.start,
                "end": chunk.span.end,
                "text": chunk.text,
            }
        )
    _lines(rows, path, overwrite)


def write_questions(items: Iterable[EvalItem], path: str | os.PathLike[str], *, overwrite: bool = False) -> None:
    """Write questions as JSON Lines: gold spans as offsets (with their quote), anchors as quotes.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import contextgrid as cg
    >>> from contextgrid.io import read_questions, write_questions
    >>> item = cg.EvalItem(id="q1", question="Window?", anchors=(cg.Anchor("a.md", "30 days", 1),))
    >>> path = Path(tempfile.mkdtemp()) / "questions.jsonl"
    >>> write_questions([item], path)
    >>> read_questions(path) == (item,)
    True
    """
    rows = []
    for item in items:
        if not isinstance(item, EvalItem):
            raise ContextGridError(f"write_questions: expected EvalItem records, got {item!r}")
        gold: list[dict[str, Any]] = [
            {"doc_id": g.span.doc_id, "start": g.span.start, "end": g.span.end, "grade": g.grade}
            | ({} if g.quote is None else {"quote": g.quote})
            for g in (*item.gold, *item.unplaced)  # unplaced offsets are read back as given, for a resolver
        ]
        gold += [{"doc_id": a.doc_id, "quote": a.quote, "grade": a.grade} for a in item.anchors]
        row: dict[str, Any] = {"id": item.id, "question": item.question, "gold": gold}
        if item.reference_answer is not None:
            row["reference_answer"] = item.reference_answer
        rows.append(row)
    _lines(rows, path, overwrite)
