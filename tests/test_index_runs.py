"""retrieve() into runs that evaluate() scores, and building retrievers by name."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

import pytest

import contextgrid as cg
from contextgrid.index import (
    RETRIEVERS,
    BM25Index,
    TfidfSvdEmbedder,
    available_retrievers,
    build_index,
    retrieve,
    retrieve_scored,
)
from contextgrid.index.base import RanksPositions, Scored

TEXTS = [
    "Refunds are paid within thirty days of the return.",
    "Shipping is free on orders over fifty dollars.",
    "Returns need the original receipt.",
    "Gift cards cannot be refunded or returned.",
    "Orders ship within two days.",
]
QUESTIONS = {
    "q_refund": "How long do refunds take?",
    "q_ship": "Is shipping free?",
    "q_receipt": "Do I need a receipt for returns?",
    "q_empty": "",
}


def chunks() -> list[cg.Chunk]:
    return [cg.Chunk(f"c{i}", cg.Span("policy.md", 60 * i, 60 * i + 60), text) for i, text in enumerate(TEXTS)]


OPTIONS: dict[str, dict[str, Any]] = {
    "bm25": {},
    "dense": {"embedder": TfidfSvdEmbedder(dim=4)},
    "dense_int8": {"embedder": TfidfSvdEmbedder(dim=4)},
    "hybrid": {"component_options": {"lsa": {"dim": 4}}},
    "lsa": {"dim": 4},
}
NAMES = list(OPTIONS)


def test_the_registry_holds_the_five_retrievers() -> None:
    assert available_retrievers() == ("bm25", "dense", "dense_int8", "hybrid", "lsa")
    assert RETRIEVERS.get("bm25") is BM25Index


def test_an_unknown_retriever_name_lists_the_available_ones() -> None:
    with pytest.raises(cg.UnknownPluginError) as raised:
        build_index("splade", chunks())
    assert str(raised.value) == "no retriever named 'splade'. Available: bm25, dense, dense_int8, hybrid, lsa"


def test_an_option_the_retriever_does_not_take_is_refused_with_the_ones_it_does() -> None:
    with pytest.raises(cg.InvalidParameterError) as raised:
        build_index("bm25", chunks(), seed=3)
    assert str(raised.value) == "the 'bm25' retriever has no option 'seed'. Its options: k1, b, stemmer, stopwords"


@pytest.mark.parametrize("name", NAMES)
def test_every_retriever_gives_a_run_evaluate_scores(name: str) -> None:
    index = build_index(name, chunks(), **OPTIONS[name])
    run = retrieve(index, QUESTIONS, 3)
    assert list(run) == list(QUESTIONS)
    for ranking in run.values():
        assert len(ranking) <= 3
        assert len(set(ranking)) == len(ranking)
        assert set(ranking) <= {f"c{i}" for i in range(len(TEXTS))}
    assert run["q_empty"] == []
    qrels = {"q_refund": {"c0": 2}, "q_ship": {"c1": 2}, "q_receipt": {"c2": 2}}
    scores = cg.evaluate(qrels, run, ks=[3], metrics=["recall"])
    assert set(scores) == {"recall@3"}
    # The run is the index's own rankings, nothing added or lost.
    assert run == {q: [hit.chunk_id for hit in index.search(text, 3)] for q, text in QUESTIONS.items()}


@pytest.mark.parametrize("name", NAMES)
def test_the_same_chunks_and_options_give_the_same_run(name: str) -> None:
    first = retrieve(build_index(name, chunks(), **OPTIONS[name]), QUESTIONS, 5)
    second = retrieve(build_index(name, chunks(), **OPTIONS[name]), QUESTIONS, 5)
    assert first == second


def test_bm25_run_scored_by_hand() -> None:
    # Stemmed, without stopwords, the chunks have 6, 6, 4, 5 and 5 terms (avgdl 5.2). "refund" is in c0
    # and c3 (refunded): idf ln(1 + 3.5 / 2.5) = ln 2.4; the tf part is 1 / (1 + 1.5 (0.25 + 0.75 |d| / 5.2)),
    # larger for the shorter c3, so c3 ranks above c0.
    scored = retrieve_scored(build_index("bm25", chunks()), QUESTIONS, 2)
    assert scored["q_refund"] == pytest.approx(
        {
            "c3": math.log(2.4) / (1 + 1.5 * (0.25 + 0.75 * 5 / 5.2)),
            "c0": math.log(2.4) / (1 + 1.5 * (0.25 + 0.75 * 6 / 5.2)),
        }
    )
    run = retrieve(build_index("bm25", chunks()), QUESTIONS, 2)
    assert run == {
        "q_refund": ["c3", "c0"],
        "q_ship": ["c1", "c4"],  # "ship" stems "Shipping" and "ship"; c1 also has "free"
        "q_receipt": ["c2", "c3"],
        "q_empty": [],
    }
    qrels = {"q_refund": {"c0": 2}, "q_ship": {"c2": 2}, "q_receipt": {"c2": 2, "c0": 1}}
    # recall@2 per question: 1, 0, 1/2; mean 0.5.
    assert cg.evaluate(qrels, run, ks=[2], metrics=["recall"]) == {"recall@2": 0.5}


def test_k_larger_than_the_corpus() -> None:
    run = retrieve(build_index("lsa", chunks(), dim=4), {"q": "refunds and shipping"}, 100)
    assert sorted(run["q"]) == [f"c{i}" for i in range(len(TEXTS))]


def test_the_chunks_given_are_left_as_they_were() -> None:
    given = chunks()
    before = list(given)
    build_index("hybrid", given)
    assert given == before


def test_bad_questions_are_refused_with_the_offending_entry() -> None:
    index = build_index("bm25", chunks())
    with pytest.raises(cg.ContextGridError, match=r"questions must map a str id to a str question, got 'q1': 7"):
        retrieve(index, {"q1": 7}, 3)  # type: ignore[dict-item]
    with pytest.raises(cg.InvalidParameterError, match=r"'questions' parameter of retrieve must be a mapping"):
        retrieve(index, ["How long?"], 3)  # type: ignore[arg-type]
    with pytest.raises(cg.InvalidParameterError, match=r"'index' parameter of retrieve must be an index"):
        retrieve("bm25", QUESTIONS, 3)  # type: ignore[arg-type]
    with pytest.raises(cg.ContextGridError, match=r"cut-off k must be at least 1, got -2"):
        retrieve(index, QUESTIONS, -2)
    with pytest.raises(
        cg.InvalidParameterError, match=r"'queries' parameter of BM25Index.search_many must be an iterable of str"
    ):
        index.search_many("one query", 3)


@pytest.mark.parametrize("name", NAMES)
def test_rank_many_is_search_many_as_columns(name: str) -> None:
    index = build_index(name, chunks(), **OPTIONS[name])
    assert isinstance(index, RanksPositions)
    queries = list(QUESTIONS.values())
    for (positions, scores), hits in zip(index.rank_many(queries, 4), index.search_many(queries, 4), strict=True):
        assert [index.chunk_ids[at] for at in positions.tolist()] == [hit.chunk_id for hit in hits]
        assert scores.tolist() == [hit.score for hit in hits]


class OnlySearchMany:
    """An index of the user's own with no rank_many: retrieve() falls back on search_many."""

    name: ClassVar[str] = "own"
    version: ClassVar[str] = "1"
    chunk_ids = ("c0", "c1", "c2")

    def search(self, query: str, k: int) -> list[Scored]:
        return self.search_many([query], k)[0]

    def search_many(self, queries: Sequence[str], k: int) -> list[list[Scored]]:
        return [[Scored(chunk_id, 1.0) for chunk_id in ("c2", "c0")[:k]] for _ in queries]


def test_an_index_with_only_search_many_makes_runs_too() -> None:
    assert not isinstance(OnlySearchMany(), RanksPositions)
    assert retrieve(OnlySearchMany(), {"q1": "a", "q2": "b"}, 1) == {"q1": ["c2"], "q2": ["c2"]}
