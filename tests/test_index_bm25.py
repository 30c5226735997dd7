"""BM25Index against a plain-Python BM25 (bm25s's default variant, Lucene's)."""

from __future__ import annotations

import itertools
import json
import math
import os
import subprocess
import sys
from collections.abc import Callable

import pytest
import Stemmer  # type: ignore[import-not-found]
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import contextgrid as cg
from contextgrid.index import Analyzer, BM25Index, build_index, tokenize

WORDS = ["apple", "pear", "fig", "kiwi", "lime", "plum"]
INFLECTED = [*WORDS, "apples", "run", "runs", "running", "the", "is", "to", "cared", "caring"]


def chunks_of(texts: list[str]) -> list[cg.Chunk]:
    return [cg.Chunk(f"c{i}", cg.Span("doc", 10 * i, 10 * i + 10), text) for i, text in enumerate(texts)]


LUCENE_STOP = {
    "a",
    "an",
    "and",
    "are",
    "as",
    "at",
    "be",
    "but",
    "by",
    "for",
    "if",
    "in",
    "into",
    "is",
    "it",
    "no",
    "not",
    "of",
    "on",
    "or",
    "such",
    "that",
    "the",
    "their",
    "then",
    "there",
    "these",
    "they",
    "this",
    "to",
    "was",
    "will",
    "with",
}
"""Lucene's English stop set (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET), typed from Lucene's source."""


def stemmed(text: str) -> list[str]:
    """Lowercase space-separated words, Lucene's stopwords dropped, the rest Snowball-stemmed."""
    return list(Stemmer.Stemmer("english").stemWords([w for w in text.lower().split() if w not in LUCENE_STOP]))


def reference_scores(
    texts: list[str], query: str, k1: float = 1.5, b: float = 0.75, terms: Callable[[str], list[str]] = stemmed
) -> list[float]:
    """Lucene BM25 as bm25s scores it by default, from the formula, over the ``terms`` of each text."""
    documents = [terms(text) for text in texts]
    n = len(documents)
    average = sum(len(document) for document in documents) / n
    scores = []
    for document in documents:
        score = 0.0
        for word in terms(query):
            tf = document.count(word)
            if tf:
                df = sum(word in other for other in documents)
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                score += idf * tf / (tf + k1 * (1 - b + b * len(document) / average))
        scores.append(score)
    return scores


def test_the_chunk_with_the_querys_words_ranks_first() -> None:
    index = BM25Index.from_chunks(
        chunks_of(["the cat sat on the mat", "refunds are paid within thirty days", "the dog barked"])
    )
    assert [hit.chunk_id for hit in index.search("when are refunds paid", 3)] == ["c1"]


def test_scores_equal_the_lucene_bm25_formula_worked_by_hand() -> None:
    # N = 2, "pear" is in one chunk: idf = ln(1 + 1.5 / 1.5) = ln 2. Both chunks have 2 words, so
    # |d| / avgdl = 1 and the tf part is 1 / (1 + 1.5) = 0.4: the score is 0.4 ln 2.
    index = BM25Index.from_chunks(chunks_of(["red apple", "green pear"]))
    [hit] = index.search("pear", 5)
    assert hit.chunk_id == "c1"
    assert hit.score == pytest.approx(0.4 * math.log(2), rel=1e-6)


def test_running_matches_runs_and_stopwords_are_ignored() -> None:
    index = BM25Index.from_chunks(chunks_of(["she runs daily", "the cat sat on the mat", "a walk"]))
    assert [hit.chunk_id for hit in index.search("running", 3)] == ["c0"]
    # "the" and "a" are stopwords: in neither the chunks' terms nor the query's.
    assert index.search("the a", 3) == []
    assert "the" not in index.vocabulary
    assert "run" in index.vocabulary
    # Hand-worked: the terms are [she, run, daili], [cat, sat, mat] and [walk]: avgdl 7/3. "run" is in
    # 1 of 3 chunks: idf ln(1 + 2.5 / 1.5) = ln(8/3); tf part 1 / (1 + 1.5 (0.25 + 0.75 * 3 / (7/3))).
    [hit] = index.search("Running!", 3)
    assert hit.score == pytest.approx(math.log(8 / 3) / (1 + 1.5 * (0.25 + 0.75 * 9 / 7)), rel=1e-6)


def test_stemming_and_stopwords_can_each_be_turned_off_and_are_recorded() -> None:
    texts = ["she runs daily", "the cat sat on the mat"]
    plain = BM25Index.from_chunks(chunks_of(texts), stemmer=None, stopwords=None)
    assert plain.search("running", 3) == []
    assert [hit.chunk_id for hit in plain.search("the", 3)] == ["c1"]
    assert repr(plain) == "BM25Index(chunks=2, vocabulary=8, k1=1.5, b=0.75, stemmer=None, stopwords=None)"
    porter = build_index("bm25", chunks_of(texts), stemmer="porter")
    assert repr(porter).endswith("stemmer='porter', stopwords='en')")
    assert Analyzer(stopwords=None)("The runs") == ["the", "run"]
    assert Analyzer(stemmer=None)("The runs") == ["runs"]
    with pytest.raises(
        cg.InvalidParameterError, match=r"'stemmer' parameter of Analyzer must be None or one of .*english"
    ):
        BM25Index.from_chunks(chunks_of(texts), stemmer="English")
    with pytest.raises(cg.InvalidParameterError, match=r"'stopwords' parameter of Analyzer must be None or one of en"):
        BM25Index.from_chunks(chunks_of(texts), stopwords="fr")
    with pytest.raises(
        cg.ContextGridError, match=r"none of the 2 chunks has a word in its text that is not a stopword"
    ):
        BM25Index.from_chunks(chunks_of(["the", "to be or not to be"]))


def test_a_repeated_query_word_counts_each_time_and_k1_b_are_used() -> None:
    texts = ["apple apple pear", "pear fig", "fig fig fig kiwi"]
    index = BM25Index.from_chunks(chunks_of(texts), k1=0.9, b=0.4)
    got = {hit.chunk_id: hit.score for hit in index.search("fig fig pear", 3)}
    expected = reference_scores(texts, "fig fig pear", k1=0.9, b=0.4, terms=str.split)
    assert got == pytest.approx({f"c{i}": score for i, score in enumerate(expected)}, rel=1e-6)


@settings(max_examples=60, deadline=None)
@given(
    documents=st.lists(st.lists(st.sampled_from(INFLECTED), max_size=6), min_size=1, max_size=7),
    query=st.lists(st.sampled_from([*INFLECTED, "absent"]), max_size=4),
    analyzed=st.booleans(),
)
def test_every_ranking_matches_the_formula(documents: list[list[str]], query: list[str], analyzed: bool) -> None:
    texts = [" ".join(document) for document in documents]
    terms = stemmed if analyzed else str.split
    assume(any(terms(text) for text in texts))
    expected = reference_scores(texts, " ".join(query), terms=terms)
    options = {} if analyzed else {"stemmer": None, "stopwords": None}
    hits = BM25Index.from_chunks(chunks_of(texts), **options).search(" ".join(query), len(texts) + 3)
    # Every chunk sharing a word with the query, and only those; scores as the formula says.
    assert {hit.chunk_id for hit in hits} == {f"c{i}" for i, score in enumerate(expected) if score > 0}
    for hit in hits:
        assert hit.score == pytest.approx(expected[int(hit.chunk_id[1:])], rel=1e-5)
    # Best first; exactly equal formula scores keep chunk order.
    for before, after in itertools.pairwise(hits):
        first, second = expected[int(before.chunk_id[1:])], expected[int(after.chunk_id[1:])]
        assert first >= second - 1e-6
        if first == second:
            assert int(before.chunk_id[1:]) < int(after.chunk_id[1:])


def test_search_many_equals_search_one_at_a_time() -> None:
    texts = ["apple pear", "pear fig kiwi", "kiwi lime", "plum apple apple"]
    index = BM25Index.from_chunks(chunks_of(texts))
    queries = ["apple", "kiwi pear", "", "nothing here", "plum plum"]
    assert index.search_many(queries, 2) == [index.search(query, 2) for query in queries]


def test_k_larger_than_the_corpus_returns_every_matching_chunk_once() -> None:
    index = BM25Index.from_chunks(chunks_of(["apple pear", "pear", "fig"]))
    assert [hit.chunk_id for hit in index.search("pear apple", 50)] == ["c0", "c1"]


def test_an_empty_or_unknown_query_matches_nothing() -> None:
    index = BM25Index.from_chunks(chunks_of(["apple pear", "fig"]))
    assert index.search("", 3) == []
    assert index.search("  ?! ", 3) == []
    assert index.search("banana", 3) == []


def test_words_are_matched_case_insensitively_without_punctuation() -> None:
    assert tokenize("Don't PANIC: it's 42!") == ["don't", "panic", "it's", "42"]
    index = BM25Index.from_chunks(chunks_of(["Refunds, within 30 days.", "Shipping."]))
    assert [hit.chunk_id for hit in index.search("REFUNDS 30", 2)] == ["c0"]


def test_bad_parameters_and_chunks_are_refused_with_the_value_named() -> None:
    chunks = chunks_of(["apple", "pear"])
    with pytest.raises(cg.InvalidParameterError, match=r"'b' parameter of BM25Index.from_chunks .* Got 1.5"):
        BM25Index.from_chunks(chunks, b=1.5)
    with pytest.raises(cg.InvalidParameterError, match=r"'k1' parameter .* Got -1"):
        BM25Index.from_chunks(chunks, k1=-1)
    with pytest.raises(cg.ContextGridError, match=r"none of the 2 chunks has a word"):
        BM25Index.from_chunks(chunks_of(["", "?!"]))
    with pytest.raises(cg.ContextGridError, match=r"cut-off k must be at least 1, got 0"):
        BM25Index.from_chunks(chunks).search("apple", 0)
    with pytest.raises(cg.InvalidParameterError, match=r"'query' parameter of BM25Index.search must be a str"):
        BM25Index.from_chunks(chunks).search(["apple"], 1)  # type: ignore[arg-type]


def test_scores_are_the_same_to_the_last_digit_whatever_the_hash_seed() -> None:
    # bm25s numbers words in set order, which follows PYTHONHASHSEED; the scores must not.
    script = (
        "import random\n"
        "import contextgrid as cg\n"
        "from contextgrid.index import BM25Index\n"
        "rng = random.Random(7)\n"
        "words = [f'w{n}x' for n in range(300)]\n"
        "texts = [' '.join(rng.choices(words, k=rng.randint(3, 40))) for _ in range(200)]\n"
        "chunks = [cg.Chunk(f'c{i}', cg.Span('d', i, i + 1), t) for i, t in enumerate(texts)]\n"
        "index = BM25Index.from_chunks(chunks, stemmer=None)\n"
        "queries = [' '.join(rng.choices(words, k=8)) for _ in range(40)]\n"
        "print(repr([[(h.chunk_id, h.score) for h in hits] for hits in index.search_many(queries, 20)]))\n"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(outputs) == 1


PROBE = """
import json, sys
from contextgrid.index.bm25 import Analyzer
stop = sorted(Analyzer().stop)
print(json.dumps([stop, "numba" in sys.modules, "bm25s" in sys.modules]))
"""


def test_the_english_stop_list_is_bm25s_and_needs_no_import_of_bm25s_itself() -> None:
    import bm25s.stopwords

    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=120)
    stop, numba_loaded, bm25s_loaded = json.loads(done.stdout)
    assert stop == sorted(bm25s.stopwords.STOPWORDS_EN)
    assert len(stop) == 33
    assert (numba_loaded, bm25s_loaded) == (False, False)
    # Once bm25s is imported (to index), its own list is used: the same words.
    assert sorted(Analyzer().stop) == stop
