"""Chunks from LangChain, LlamaIndex and Haystack, with the real packages on real splitter output over the sample
corpus: every chunk's text is exactly its span of the document, and a wrong or missing offset is repaired."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from haystack import Document as HaystackDocument
from haystack.components.preprocessors import DocumentSplitter
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.documents import Document as LangChainDocument
from langchain_text_splitters import RecursiveCharacterTextSplitter
from llama_index.core import Document as LlamaDocument
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.schema import NodeWithScore

import contextgrid as cg
from contextgrid.adapters import (
    chunks_from_haystack,
    chunks_from_langchain,
    chunks_from_llamaindex,
    run_from_langchain,
    run_from_llamaindex,
)
from contextgrid.adapters.located import locate
from contextgrid.cli.main import main
from contextgrid.io import read_chunks

ROOT = Path(__file__).resolve().parent.parent
PARAGRAPH = "Refunds are paid within thirty days of the return reaching us. " * 3
TEXTS = {path.name: path.read_text() for path in sorted((ROOT / "sample_data" / "corpus" / "documents").glob("*.md"))}
TEXTS["repeated.md"] = (PARAGRAPH + "\n\n") * 3


def exact(chunks: tuple[cg.Chunk, ...]) -> bool:
    return all(TEXTS[chunk.span.doc_id][chunk.span.start : chunk.span.end] == chunk.text for chunk in chunks)


def langchain_split() -> list[LangChainDocument]:
    splitter = RecursiveCharacterTextSplitter(chunk_size=120, chunk_overlap=20, add_start_index=True)
    return splitter.split_documents(
        [LangChainDocument(page_content=t, metadata={"source": d}) for d, t in TEXTS.items()]
    )


def test_langchain_chunks_are_their_documents_text() -> None:
    split = langchain_split()
    chunks = chunks_from_langchain(split, TEXTS)
    assert len(chunks) == len(split)
    assert exact(chunks)
    assert [chunk.span.start for chunk in chunks] == [doc.metadata["start_index"] for doc in split]
    assert chunks_from_langchain([doc.model_dump() for doc in split], TEXTS) == chunks


def test_langchain_offsets_of_repeated_text_are_repaired_and_logged() -> None:
    split = [doc for doc in langchain_split() if doc.metadata["source"] == "repeated.md"]
    truth = chunks_from_langchain(split, TEXTS)
    # What splitters give where text repeats: -1, or the offset of the first copy.
    first = {doc.page_content: doc.metadata["start_index"] for doc in reversed(split)}
    damaged = [
        LangChainDocument(
            page_content=doc.page_content,
            metadata={**doc.metadata, "start_index": -1 if n % 2 else first[doc.page_content]},
        )
        for n, doc in enumerate(split)
    ]
    log = cg.WarningLog()
    repaired = chunks_from_langchain(damaged, TEXTS, warnings=log)
    assert repaired == truth
    wrong = sum(doc.metadata["start_index"] != chunk.span.start for doc, chunk in zip(damaged, truth, strict=True))
    assert len(log) == wrong > 0
    assert all(entry.stage == "adapt" for entry in log)


def test_llamaindex_nodes_and_their_dumps() -> None:
    documents = [LlamaDocument(text=text, id_=doc_id) for doc_id, text in TEXTS.items()]
    nodes = SentenceSplitter(chunk_size=64, chunk_overlap=10).get_nodes_from_documents(documents)
    chunks = chunks_from_llamaindex(nodes, TEXTS)
    assert exact(chunks)
    assert [chunk.id for chunk in chunks] == [node.node_id for node in nodes]
    assert chunks_from_llamaindex([json.loads(node.to_json()) for node in nodes], TEXTS) == chunks
    results = {"q1": [NodeWithScore(node=nodes[3], score=0.9), NodeWithScore(node=nodes[1], score=0.5)]}
    assert run_from_llamaindex(results) == {"q1": [nodes[3].node_id, nodes[1].node_id]}


def test_haystack_documents_and_their_flattened_dumps() -> None:
    splitter = DocumentSplitter(split_by="word", split_length=40, split_overlap=5)
    split = splitter.run(documents=[HaystackDocument(content=t, id=d) for d, t in TEXTS.items()])["documents"]
    chunks = chunks_from_haystack(split, TEXTS)
    assert exact(chunks)
    assert [chunk.id for chunk in chunks] == [doc.id for doc in split]
    assert chunks_from_haystack([doc.to_dict() for doc in split], TEXTS) == chunks


def test_langchain_runs_name_the_chunks_by_id() -> None:
    ranked = [(LangChainDocument(id="faq#2", page_content="x"), 0.9), LangChainDocument(id="faq#0", page_content="y")]
    assert run_from_langchain({"q1": ranked}) == {"q1": ["faq#2", "faq#0"]}
    with pytest.raises(cg.ContextGridError, match="result 0 of question 'q1' has no chunk id"):
        run_from_langchain({"q1": [LangChainDocument(page_content="x")]})
    with pytest.raises(cg.ContextGridError, match=re.escape("repeated: 'a' (results[0] and results[1])")):
        run_from_langchain({"q1": [{"id": "a"}, {"id": "a"}]})


def test_what_cannot_be_located_is_refused_naming_the_chunk() -> None:
    with pytest.raises(cg.ContextGridError, match=r"chunk 'nowhere\.md#0' .* not in the texts given"):
        chunks_from_langchain([{"page_content": "x", "metadata": {"source": "nowhere.md"}}], TEXTS)
    with pytest.raises(cg.ContextGridError, match=r"the text of chunk 'repeated\.md#0' .* is nowhere in document"):
        chunks_from_langchain([{"page_content": "Not in it.", "metadata": {"source": "repeated.md"}}], TEXTS)
    with pytest.raises(cg.ContextGridError, match=re.escape("repeated: 'n1' (inputs[0] and inputs[1])")):
        chunks_from_haystack([{"id": "n1", "content": "Refunds", "source_id": "repeated.md"}] * 2, TEXTS)


@given(
    st.lists(st.sampled_from(["ab", "cd", "ab cd", " "]), min_size=1, max_size=12).map("".join),
    st.sampled_from(["ab", "cd", "b c"]),
    st.integers(-3, 40),
)
def test_the_located_span_holds_the_text_and_is_the_occurrence_nearest_the_claim(
    document: str, text: str, claimed: int
) -> None:
    found = locate(document, text, claimed)
    starts = [n for n in range(len(document)) if document.startswith(text, n)]
    if not starts:
        assert found is None
        return
    assert found is not None
    assert document[found : found + len(text)] == text
    assert abs(found - claimed) == min(abs(start - claimed) for start in starts)


def test_the_import_command_writes_a_chunks_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    documents = tmp_path / "documents"
    documents.mkdir()
    for doc_id, text in TEXTS.items():
        (documents / doc_id).write_text(text)
    split = [doc.model_dump() for doc in langchain_split()]
    split[1]["metadata"]["start_index"] = -1
    dump = tmp_path / "split.json"
    dump.write_text(json.dumps(split))
    out = tmp_path / "part"
    assert main(["import", "langchain", str(dump), "--documents", str(documents), "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"wrote {len(split)} chunks to {out / 'chunks.jsonl'}\n"
    assert "contextgrid: warning: CAUTION [adapt]" in captured.err
    written = read_chunks(out / "chunks.jsonl")
    assert written == chunks_from_langchain(split, TEXTS)
    dump.write_text(json.dumps([{"page_content": "Not in it.", "metadata": {"source": "repeated.md"}}]))
    assert main(["import", "langchain", str(dump), "--documents", str(documents), "-o", str(tmp_path / "x")]) == 2
    assert capsys.readouterr().err.startswith("contextgrid: error: chunks_from_langchain: the text of chunk")
