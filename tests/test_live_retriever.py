"""evaluate_retriever: a live retriever function scored without writing a file, as a workspace would score it."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpora import DOCUMENTS, ITEMS

import contextgrid as cg
from contextgrid.index import build_index, retrieve
from contextgrid.io import read_chunks
from contextgrid.workspace.sweep import sweep, sweep_grid


def test_a_live_retriever_scores_as_its_swept_run_does(tmp_path: Path) -> None:
    grid = sweep_grid(chunkers=["recursive"], sizes=[120], overlaps=[0], retrievers=["bm25"])
    sweep(DOCUMENTS, ITEMS, grid, tmp_path)
    swept = cg.load_workspace(tmp_path).evaluate(ks=[1, 3], metrics=["recall", "mrr"])
    chunks = read_chunks(tmp_path / "chunks" / "recursive-120-0.jsonl")
    index = build_index("bm25", chunks)

    def live(question: str, k: int) -> list[str]:
        return retrieve(index, {"q": question}, k)["q"]

    results = cg.evaluate_retriever(live, ITEMS, DOCUMENTS, chunks, ks=[1, 3], metrics=["recall", "mrr"])
    assert results.labels == swept.labels
    assert results["retriever"].scores == swept["bm25-recursive-120-0"].scores
    assert results.to_dataframe().loc["retriever", "depth"] == 20


def test_several_retrievers_by_name_and_what_they_may_return() -> None:
    chunks = [cg.Chunk(f"c{n}", cg.Span("x.md", 10 * n, 10 * n + 10), "0123456789") for n in range(3)]
    documents = {"x.md": "0123456789" * 3}
    gold = (cg.GoldSpan(cg.Span("x.md", 10, 20)),)
    questions = [cg.EvalItem("q1", "which?", gold)]
    results = cg.evaluate_retriever(
        {"ids": lambda q, k: ["c1"], "records": lambda q, k: [chunks[0], chunks[1]]},
        questions,
        documents,
        chunks,
        ks=[1, 2],
        metrics=["hit_rate"],
    )
    assert [result.scores for result in results.results] == [
        {"hit_rate@1": 1.0, "hit_rate@2": 1.0},
        {"hit_rate@1": 0.0, "hit_rate@2": 1.0},
    ]
    with pytest.raises(cg.ContextGridError, match="returned chunk 'c9' for question 'q1', which is not among the 3"):
        cg.evaluate_retriever(lambda q, k: ["c9"], questions, documents, chunks)
    with pytest.raises(cg.InvalidParameterError, match="'retrieve' parameter of evaluate_retriever"):
        cg.evaluate_retriever("bm25", questions, documents, chunks)  # type: ignore[arg-type]
    with pytest.raises(cg.UnknownPluginError, match="no metric named 'recal'"):
        cg.evaluate_retriever(lambda q, k: [], questions, documents, chunks, metrics=["recal"])
