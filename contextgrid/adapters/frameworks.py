"""The three frameworks' chunk and retrieval objects, read by their fields (objects or their JSON dumps).

- LangChain ``Document``: ``page_content``, ``metadata[doc_id_key]`` (default ``"source"``) and, from a splitter
  with ``add_start_index=True``, ``metadata["start_index"]`` (no end; ``-1``, or the offset of an earlier copy,
  where text repeats); ``id`` when a vector store gave it one.
- LlamaIndex node: ``text``, ``start_char_idx`` / ``end_char_idx``, its source document's id
  (``ref_doc_id``, or the ``SOURCE`` relationship, ``"1"`` in a dump) and ``node_id`` (``id_`` in a dump).
- Haystack ``Document``: ``content``, ``meta["source_id"]``, ``meta["split_idx_start"]`` (top-level keys in a
  flattened dump) and ``id``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from contextgrid.adapters.located import Claimed, located_chunks
from contextgrid.core.checks import check_distinct
from contextgrid.core.errors import ContextGridError, parameter_error
from contextgrid.core.log import WarningLog
from contextgrid.data.records import Chunk

__all__ = [
    "chunks_from_haystack",
    "chunks_from_langchain",
    "chunks_from_llamaindex",
    "run_from_langchain",
    "run_from_llamaindex",
]

_LLAMA_SOURCE = "1"  # NodeRelationship.SOURCE's value in a node's dump


def _field(item: object, name: str, default: Any = None) -> Any:
    """``item[name]`` for a dump, ``item.name`` for the framework's object."""
    if isinstance(item, Mapping):
        return item.get(name, default)
    return getattr(item, name, default)


def _text(value: object, what: str, function: str, position: int) -> str:
    if not isinstance(value, str):
        raise ContextGridError(f"{function}: input {position} has no {what} text (got {value!r})")
    return value


def _items(given: object, function: str) -> list[object]:
    if isinstance(given, (str, bytes, Mapping)) or not isinstance(given, Iterable):
        raise parameter_error(function, "documents", "a sequence of the framework's objects or their dumps", given)
    return list(given)


def _langchain_claim(item: object, position: int, doc_id_key: str, function: str) -> Claimed:
    metadata = _field(item, "metadata") or {}
    doc_id = metadata.get(doc_id_key) if isinstance(metadata, Mapping) else None
    if not isinstance(doc_id, str):
        raise ContextGridError(f"{function}: input {position} has no metadata[{doc_id_key!r}] naming its document")
    start = metadata.get("start_index")
    chunk_id = _field(item, "id")
    return Claimed(
        chunk_id if isinstance(chunk_id, str) and chunk_id else None,
        doc_id,
        _text(_field(item, "page_content"), "page_content", function, position),
        start if isinstance(start, int) else None,
    )


def _llamaindex_doc_id(item: object) -> object:
    reference = _field(item, "ref_doc_id")
    if reference is not None:
        return reference
    relationships = _field(item, "relationships") or {}
    for key, related in dict(relationships).items():
        if str(getattr(key, "value", key)) == _LLAMA_SOURCE:
            return _field(related, "node_id")
    return None


def _llamaindex_claim(item: object, position: int, function: str) -> Claimed:
    doc_id = _llamaindex_doc_id(item)
    if not isinstance(doc_id, str):
        raise ContextGridError(f"{function}: input {position} has no source document (ref_doc_id)")
    chunk_id = _field(item, "node_id") if not isinstance(item, Mapping) else item.get("id_")
    start = _field(item, "start_char_idx")
    return Claimed(
        chunk_id if isinstance(chunk_id, str) and chunk_id else None,
        doc_id,
        _text(_field(item, "text"), "text", function, position),
        start if isinstance(start, int) else None,
    )


def _haystack_claim(item: object, position: int, function: str) -> Claimed:
    meta = _field(item, "meta") or {}
    flat = dict(item) if isinstance(item, Mapping) else {}
    doc_id = meta.get("source_id", flat.get("source_id"))
    if not isinstance(doc_id, str):
        raise ContextGridError(f"{function}: input {position} has no meta['source_id'] naming its document")
    start = meta.get("split_idx_start", flat.get("split_idx_start"))
    chunk_id = _field(item, "id")
    return Claimed(
        chunk_id if isinstance(chunk_id, str) and chunk_id else None,
        doc_id,
        _text(_field(item, "content"), "content", function, position),
        start if isinstance(start, int) else None,
    )


def chunks_from_langchain(
    documents: Sequence[object],
    texts: Mapping[str, str],
    *,
    doc_id_key: str = "source",
    warnings: WarningLog | None = None,
) -> tuple[Chunk, ...]:
    """LangChain splitter output (``Document`` objects or ``model_dump()`` dicts) as chunks of ``texts``.

    The documents are taken in the splitter's order: each chunk starts after the previous chunk of its document,
    so a ``start_index`` of ``-1``, or of an earlier copy of repeated text, is repaired.

    Examples
    --------
    >>> texts = {"a.md": "Refunds take 30 days. Refunds take 30 days."}
    >>> dumps = [{"page_content": "Refunds take 30 days.", "metadata": {"source": "a.md", "start_index": 0}}] * 2
    >>> log = WarningLog()
    >>> [(c.id, c.span.start, c.span.end) for c in chunks_from_langchain(dumps, texts, warnings=log)]
    [('a.md#0', 0, 21), ('a.md#1', 22, 43)]
    >>> print(log.entries[0])
    CAUTION [adapt] (a.md#1): the framework gave offset 0; its text is at 22 of 'a.md', used that
    """
    function = "chunks_from_langchain"
    claims = [_langchain_claim(item, n, doc_id_key, function) for n, item in enumerate(_items(documents, function))]
    return located_chunks(claims, texts, function=function, warnings=warnings, ordered=True)


def chunks_from_llamaindex(
    nodes: Sequence[object], texts: Mapping[str, str], *, warnings: WarningLog | None = None
) -> tuple[Chunk, ...]:
    """LlamaIndex nodes (objects or ``to_dict()`` dumps) as chunks of ``texts``, keyed by the nodes' source ids."""
    function = "chunks_from_llamaindex"
    claims = [_llamaindex_claim(item, n, function) for n, item in enumerate(_items(nodes, function))]
    return located_chunks(claims, texts, function=function, warnings=warnings)


def chunks_from_haystack(
    documents: Sequence[object], texts: Mapping[str, str], *, warnings: WarningLog | None = None
) -> tuple[Chunk, ...]:
    """Haystack split documents (objects or ``to_dict()`` dumps) as chunks of ``texts``."""
    function = "chunks_from_haystack"
    claims = [_haystack_claim(item, n, function) for n, item in enumerate(_items(documents, function))]
    return located_chunks(claims, texts, function=function, warnings=warnings)


def _run(
    results: Mapping[str, Sequence[object]], chunk_id: Callable[[object], object], function: str
) -> dict[str, list[str]]:
    if not isinstance(results, Mapping):
        raise parameter_error(function, "results", "a mapping of question id to retrieved objects", results)
    run: dict[str, list[str]] = {}
    for question, retrieved in results.items():
        ids = []
        for position, item in enumerate(retrieved):
            found = chunk_id(item[0] if isinstance(item, tuple) else item)
            if not isinstance(found, str) or not found:
                raise ContextGridError(
                    f"{function}: result {position} of question {question!r} has no chunk id; give the chunks ids "
                    "when they are indexed (the same ids the chunks file holds)"
                )
            ids.append(found)
        check_distinct(ids, function=f"{function}: question {question!r}", what="chunk", given="results")
        run[str(question)] = ids
    return run


def run_from_langchain(results: Mapping[str, Sequence[object]]) -> dict[str, list[str]]:
    """``{question_id: [Document | (Document, score) | dump]}`` from a retriever as a run of chunk ids.

    Examples
    --------
    >>> run_from_langchain({"q1": [({"id": "a.md#1", "page_content": "x"}, 0.9), {"id": "a.md#0"}]})
    {'q1': ['a.md#1', 'a.md#0']}
    """
    return _run(results, lambda item: _field(item, "id"), "run_from_langchain")


def run_from_llamaindex(results: Mapping[str, Sequence[object]]) -> dict[str, list[str]]:
    """``{question_id: [NodeWithScore | node | dump]}`` from a retriever as a run of node ids."""

    def node_id(item: object) -> object:
        node = _field(item, "node", item)
        return node.get("id_") if isinstance(node, Mapping) else _field(node, "node_id")

    return _run(results, node_id, "run_from_llamaindex")
