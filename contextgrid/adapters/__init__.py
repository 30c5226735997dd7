"""Chunks and runs from the RAG frameworks users already have: LangChain, LlamaIndex and Haystack.

Each adapter takes the framework's own objects or their JSON dumps (the frameworks are not imported), and
returns :class:`~contextgrid.data.records.Chunk` records whose text is exactly ``texts[doc_id][start:end]``:
an offset the framework got wrong or left out is repaired by finding the chunk's text nearest where it was
claimed to be, and the repair is logged.
"""

from __future__ import annotations

from contextgrid.adapters.frameworks import (
    chunks_from_haystack,
    chunks_from_langchain,
    chunks_from_llamaindex,
    run_from_langchain,
    run_from_llamaindex,
)

__all__ = [
    "chunks_from_haystack",
    "chunks_from_langchain",
    "chunks_from_llamaindex",
    "run_from_langchain",
    "run_from_llamaindex",
]
