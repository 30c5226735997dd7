"""The gold audit: each rule by hand and against a slow reference, and ``contextgrid audit`` finding a planted
duplicate question and a planted unlabelled copy of a gold passage."""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from commandline import run_main
from hypothesis import given, settings
from hypothesis import strategies as st

import contextgrid as cg
from contextgrid.analysis.audit import (
    _ascii_document_words,
    _chunk_words,
    _pair_keys,
    _product_pairs,
    _read_pairs,
    _regex_document_words,
    _text_pairs,
    _word_sets,
    chunk_pair_sets,
    chunking_repeats,
    document_words,
    gold_by_document,
    gold_passages,
    judged_grades,
    missing_labels,
    pair_sets,
    passage_pairs,
    repeated_questions,
    run_labels,
)
from contextgrid.analysis.word_sets import Vocabulary, set_sizes
from contextgrid.core.errors import ContextGridError, InvalidParameterError
from contextgrid.core.text import WORD, words
from contextgrid.evidence.run_waste import chunking_gold, gold_columns
from contextgrid.io import write_chunks, write_documents, write_questions
from contextgrid.workspace.audit import FINDING_KINDS, audit_workspace
from contextgrid.workspace.manifest import load_workspace

# -- repeated questions -------------------------------------------------------------------------------------------


def test_repeated_questions_by_hand() -> None:
    items = [
        cg.EvalItem("a", "What is the refund window?"),
        cg.EvalItem("b", "what is the REFUND window"),  # the same words: a duplicate
        cg.EvalItem("c", "What is the refund window for sale items?"),  # 5 of 8 words: 0.625
        cg.EvalItem("d", "Who signs the NDA?"),
    ]
    found = repeated_questions(items)
    assert found[["kind", "question", "other"]].values.tolist() == [["duplicate_question", "b", "a"]]
    assert found["detail"].tolist() == ["repeats 'a'"]
    near = repeated_questions(items, threshold=0.6)
    assert near[["question", "other"]].values.tolist() == [["b", "a"], ["c", "a"], ["c", "b"]]
    assert near["similarity"].tolist() == [1.0, 5 / 8, 5 / 8]
    with pytest.raises(InvalidParameterError, match="'threshold' parameter of repeated_questions"):
        repeated_questions(items, threshold=0)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(["refund", "Refund", "days", "the", "fee", "ship", "?"]), max_size=5), max_size=7
    ),
    st.sampled_from([0.3, 0.5, 0.8, 1.0]),
)
def test_repeated_questions_equal_every_pair_compared(texts: list[list[str]], threshold: float) -> None:
    items = [cg.EvalItem(f"q{i}", " ".join(text)) for i, text in enumerate(texts)]
    expected = []
    for later in range(len(items)):
        for earlier in range(later):
            a, b = words(items[earlier].question), words(items[later].question)
            if a & b and len(a & b) / len(a | b) >= threshold:
                expected.append((f"q{later}", f"q{earlier}", len(a & b) / len(a | b)))
    found = repeated_questions(items, threshold=threshold)
    assert list(zip(found["question"], found["other"], strict=True)) == [(q, other) for q, other, _ in expected]
    assert list(found["similarity"]) == pytest.approx([value for *_, value in expected])
    assert (found["kind"] == "duplicate_question").tolist() == [value == 1.0 for *_, value in expected]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(["refund", "days", "the", "fee", "ship", "what"]), max_size=5), max_size=9),
    st.sampled_from([0.1, 0.3, 0.5, 1.0]),
    st.integers(min_value=1, max_value=30),
)
def test_the_product_a_block_at_a_time_keeps_the_pairs_that_reach_the_threshold(
    texts: list[list[str]], threshold: float, pairs_at_once: int
) -> None:
    # Blocks of one set upwards: every pair whose sets are in different blocks is found as one in the same block.
    vocabulary = Vocabulary()
    sets = _word_sets([" ".join(text) for text in texts], vocabulary)
    size = set_sizes(sets, len(texts))
    first, second, both = _product_pairs(sets, size, threshold, vocabulary.size, pairs_at_once=pairs_at_once)
    found = sorted(zip(first.tolist(), second.tolist(), both.tolist(), strict=True))
    expected = []
    for earlier in range(len(texts)):
        for later in range(earlier + 1, len(texts)):
            a, b = set(texts[earlier]), set(texts[later])
            if a & b and len(a & b) / len(a | b) >= threshold:
                expected.append((earlier, later, len(a & b)))
    assert found == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(list("ab Z9_'’.-é\nßK[2]1,;")), max_size=30), max_size=6))
def test_question_word_sets_are_the_word_rules_sets(texts: list[str]) -> None:
    vocabulary = Vocabulary()
    owner, code = _word_sets(texts, vocabulary)
    spelled = {value: word for word, value in vocabulary.codes.items()}
    assert [{spelled[c] for c in code[owner == i].tolist()} for i in range(len(texts))] == [words(t) for t in texts]
    keys = owner * vocabulary.size + code
    assert (np.diff(keys) > 0).all()  # by owner, then code, each word once


def test_repeated_questions_sharing_a_common_word_by_the_thousand_take_either_road_to_the_same_pairs() -> None:
    # 2,100 questions share "refund": at a low threshold every prefix holds it (2.2 million pairs, past the
    # prefixes' budget: the sparse product finds them), at 0.9 no prefix does; a planted repeat is found by both.
    items = [cg.EvalItem(f"q{i}", f"Refund a{i} b{i} c{i}?") for i in range(2100)]
    items += [cg.EvalItem("dup", "refund A0 b0 C0"), cg.EvalItem("near", "refund a0 b0 x")]
    low = repeated_questions(items, threshold=0.3)  # other pairs share 1 word of 7: 1/7
    assert low[["kind", "question", "other"]].values.tolist() == [
        ["duplicate_question", "dup", "q0"],
        ["near_duplicate_question", "near", "q0"],
        ["near_duplicate_question", "near", "dup"],
    ]
    assert low["similarity"].tolist() == [1.0, 3 / 5, 3 / 5]
    pd.testing.assert_frame_equal(repeated_questions(items, threshold=0.9), low.iloc[:1])


# Apostrophes (straight, curly, doubled, at an edge), underscores, digits, case and non-ASCII letters: where a
# chunk's edge may cut a word.
TRICKY = st.text(alphabet=st.sampled_from(list("ab Z9_'’.-é\nß")), min_size=0, max_size=30)


@settings(max_examples=300, deadline=None)
@given(st.lists(TRICKY, min_size=1, max_size=3), st.data())
def test_chunk_pairs_read_from_the_documents_words_equal_the_pairs_found_in_the_texts(
    texts: list[str], data: st.DataObject
) -> None:
    documents = {f"d{i}": text for i, text in enumerate(texts)}
    chunks = []
    for position in range(data.draw(st.integers(0, 8))):
        doc = data.draw(st.sampled_from(sorted(documents)))
        start = data.draw(st.integers(0, len(documents[doc])))
        end = data.draw(st.integers(start, len(documents[doc])))
        chunks.append(cg.Chunk(f"c{position}", cg.Span(doc, start, end), documents[doc][start:end]))
    vocabulary = Vocabulary()
    read = chunk_pair_sets(chunks, document_words(documents, vocabulary), vocabulary)
    found = pair_sets([chunk.text for chunk in chunks], vocabulary)
    assert read is not None
    assert read.start.tolist() == found.start.tolist()
    assert read.key.tolist() == found.key.tolist()
    # And the pairs are the texts' own (passage_pairs, the rule read one text at a time).
    assert read.sizes.tolist() == [len(passage_pairs(chunk.text)) for chunk in chunks]


@settings(max_examples=300, deadline=None)
@given(st.lists(TRICKY, min_size=1, max_size=3), st.data())
def test_gold_passages_read_from_the_documents_words_equal_the_pairs_found_in_the_texts(
    texts: list[str], data: st.DataObject
) -> None:
    documents = {f"d{i}": text for i, text in enumerate(texts)}
    items = []
    for position in range(data.draw(st.integers(0, 4))):
        gold = []
        for _ in range(data.draw(st.integers(1, 2))):
            doc = data.draw(st.sampled_from(sorted(documents)))
            start = data.draw(st.integers(0, len(documents[doc])))
            gold.append(cg.GoldSpan(cg.Span(doc, start, data.draw(st.integers(start, len(documents[doc]))))))
        items.append(cg.EvalItem(f"q{position}", "?", tuple(gold)))
    vocabulary = Vocabulary()
    read = gold_passages(items, documents, vocabulary, words=document_words(documents, vocabulary)).pairs
    found = gold_passages(items, documents, vocabulary).pairs
    assert read.start.tolist() == found.start.tolist()
    assert read.key.tolist() == found.key.tolist()


@settings(max_examples=300, deadline=None)
@given(st.lists(TRICKY, min_size=1, max_size=3), st.data())
def test_repeats_read_from_the_documents_word_pairs_equal_those_of_the_texts(
    texts: list[str], data: st.DataObject
) -> None:
    # Chunks and passages cut anywhere in tricky texts: the pairs inside a chunk read from the documents' (word,
    # next word) pairs, those its cut pieces make, and a chunk of one word, against the pairs found in the texts.
    documents = {f"d{i}": text for i, text in enumerate(texts)}

    def span() -> cg.Span:
        doc = data.draw(st.sampled_from(sorted(documents)))
        start = data.draw(st.integers(0, len(documents[doc])))
        return cg.Span(doc, start, data.draw(st.integers(start, len(documents[doc]))))

    chunks = [cg.Chunk(f"c{i}", s, documents[s.doc_id][s.start : s.end])
              for i, s in enumerate(span() for _ in range(data.draw(st.integers(0, 8))))]  # fmt: skip
    items = [cg.EvalItem(f"q{i}", "?", (cg.GoldSpan(span()),)) for i in range(data.draw(st.integers(1, 3)))]
    # And a passage cut where each chunk is: its pairs, the cut pieces' included, are then a passage's.
    items += [cg.EvalItem(f"as-{chunk.id}", "?", (cg.GoldSpan(chunk.span),)) for chunk in chunks]
    threshold = data.draw(st.sampled_from([0.3, 0.5, 1.0]))
    vocabulary = Vocabulary()
    words = document_words(documents, vocabulary)
    passages = gold_passages(items, documents, vocabulary, words=words)
    # The (passage pair, chunk) pairs held, each of them, read from the words and found in the texts.
    read = _chunk_words(passages, chunking_gold(passages.gold, chunks), vocabulary, words)
    assert read is not None
    held = _read_pairs(passages, read, np.arange(len(chunks)), max(len(chunks), 1))
    assert held.tolist() == _text_pairs(passages, chunks, vocabulary, None).tolist()
    read = chunking_repeats(passages, chunks, vocabulary, threshold=threshold, words=words)
    found = chunking_repeats(gold_passages(items, documents, vocabulary), chunks, vocabulary, threshold=threshold)
    assert read.key.tolist() == found.key.tolist()
    assert read.passage.tolist() == found.passage.tolist()
    assert read.held.tolist() == found.held.tolist()
    # Elsewhere: the same repeats but those of chunks overlapping their question's gold.
    away = chunking_repeats(passages, chunks, vocabulary, threshold=threshold, words=words, elsewhere=True)
    beside = ~np.isin(read.key, read.overlapping)
    assert away.key.tolist() == read.key[beside].tolist()
    assert away.passage.tolist() == read.passage[beside].tolist()
    assert away.held.tolist() == read.held[beside].tolist()


@settings(max_examples=300, deadline=None)
@given(st.lists(TRICKY, max_size=3))
def test_document_words_are_the_word_rules_matches_in_each_document(texts: list[str]) -> None:
    documents = {f"d{i}": text for i, text in enumerate(texts)}
    found = document_words(documents, Vocabulary())
    spans = [[match.span() for match in WORD.finditer(text.replace("’", "'"))] for text in texts]
    assert np.diff(found.first).tolist() == [len(each) for each in spans]
    assert list(zip(found.start.tolist(), found.end.tolist(), strict=True)) == [span for each in spans for span in each]
    # One code per folded word, and one folded word per code.
    folded = [text[a:b].replace("’", "'").casefold() for text, each in zip(texts, spans, strict=True) for a, b in each]
    pairs = set(zip(folded, found.code.tolist(), strict=True))
    assert len(pairs) == len(set(folded)) == len(set(found.code.tolist()))
    # New words learn their codes in order of first appearance, after those the vocabulary knew.
    vocabulary = Vocabulary()
    vocabulary.code_words(["zz", "b"])
    known = {"zz": 0, "b": 1}
    for word in folded:
        known.setdefault(word, len(known))
    assert document_words(documents, vocabulary).code.tolist() == [known[word] for word in folded]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(list("ab Z9_'.-\n\x01[2]")), max_size=30), max_size=4))
def test_ascii_documents_words_found_on_their_bytes_equal_the_word_rules_regex(texts: list[str]) -> None:
    doc, start, end, found, folded = _ascii_document_words(texts)
    reference = _regex_document_words(texts)
    assert (doc.tolist(), start.tolist(), end.tolist()) == tuple(part.tolist() for part in reference[:3])
    assert found.to_pylist() == reference[3]
    assert folded.tobytes() == " ".join(texts).lower().encode("ascii")


def test_pieces_cut_at_every_character_of_ascii_and_other_documents_read_as_their_texts_words() -> None:
    # Every cut of words with apostrophes inside and around them, in an ASCII document (its pieces read from the
    # bytes) and in one that is not (from the texts): the same pairs as found in the chunks' texts.
    documents = {"ascii": "Don't 'rock'n'roll' O''Brien x", "other": "Don’t 'rock'n’roll' ÉTÉ''ß x"}
    vocabulary = Vocabulary()
    words = document_words(documents, vocabulary)
    chunks = [
        cg.Chunk(f"{doc}{a}-{b}", cg.Span(doc, a, b), text[a:b])
        for doc, text in documents.items()
        for a in range(len(text))
        for b in range(a, min(a + 8, len(text)) + 1)
    ]
    read = chunk_pair_sets(chunks, words, vocabulary)
    found = pair_sets([chunk.text for chunk in chunks], vocabulary)
    assert read is not None
    assert (read.start.tolist(), read.key.tolist()) == (found.start.tolist(), found.key.tolist())


def test_chunk_pairs_are_not_read_from_the_documents_for_a_chunk_whose_text_is_not_its_span() -> None:
    vocabulary = Vocabulary()
    words = document_words({"d": "Refunds take 30 days."}, vocabulary)
    assert chunk_pair_sets([cg.Chunk("c", cg.Span("d", 0, 7), "refunds")], words, vocabulary) is None
    assert chunk_pair_sets([cg.Chunk("c", cg.Span("e", 0, 7), "Refunds")], words, vocabulary) is None
    # Chunks end to end, compared as one run: one wrong in the middle is found.
    ends = [(0, 8), (8, 12), (12, 21)]
    tiled = [cg.Chunk(f"c{a}", cg.Span("d", a, b), "Refunds take 30 days."[a:b]) for a, b in ends]
    assert chunk_pair_sets(tiled, words, vocabulary) is not None
    tiled[1] = cg.Chunk("c8", cg.Span("d", 8, 12), "TAKE")
    assert chunk_pair_sets(tiled, words, vocabulary) is None


# -- each document's share of the gold ----------------------------------------------------------------------------


def test_gold_shares_count_overlaps_once_and_skip_grade_zero() -> None:
    def gold(doc: str, start: int, end: int, grade: int = 1) -> cg.GoldSpan:
        return cg.GoldSpan(cg.Span(doc, start, end), grade=grade)

    items = [
        cg.EvalItem("q1", "?", (gold("a", 0, 20), gold("a", 10, 30), gold("b", 0, 5, grade=0))),
        cg.EvalItem("q2", "?", (gold("b", 0, 10),)),
    ]
    table = gold_by_document(items)
    assert table.index.tolist() == ["a", "b"]
    assert table["gold_characters"].tolist() == [30, 10]
    assert table["share"].tolist() == [0.75, 0.25]
    assert table["questions"].tolist() == [1, 1]


# -- possible missing labels --------------------------------------------------------------------------------------

TEXT = "Refunds take thirty days. Shipping costs five dollars. Refunds of sale items take ninety days."
COPY = "Old policy. Refunds take thirty days. Call us."


def test_a_retrieved_unjudged_copy_of_the_gold_is_listed_and_a_judged_or_overlapping_chunk_is_not() -> None:
    documents = {"d": TEXT, "copy": COPY}
    chunks = [
        cg.Chunk("d#0", cg.Span("d", 0, 25), TEXT[0:25]),
        cg.Chunk("d#1", cg.Span("d", 26, 54), TEXT[26:54]),
        cg.Chunk("copy#0", cg.Span("copy", 0, 46), COPY),
        cg.Chunk("copy#1", cg.Span("copy", 12, 30), COPY[12:30]),  # "Refunds take thirt": 3 of 4 pairs
    ]
    item = cg.EvalItem("q", "How long?", (cg.GoldSpan(cg.Span("d", 0, 25)),))
    run = {"q": ["d#1", "copy#0", "d#0", "copy#1"]}
    found = missing_labels([item], chunks, run, {"q": {"d#0": 2, "d#1": 0}}, documents)
    # "refunds take", "take thirty", "thirty days": copy#0 holds all 3; copy#1 holds "refunds take" and
    # "take thirt" is not "take thirty": 1 of 3.
    assert found.to_dict("records") == [
        {"question": "q", "chunk_id": "copy#0", "rank": 2, "grade": None, "held": 1.0, "passage": "d [0, 25)"}
    ]
    assert missing_labels([item], chunks, run, {"q": {"copy#0": 2}}, documents).empty  # judged relevant
    graded_zero = missing_labels([item], chunks, run, {"q": {"copy#0": 0}}, documents)
    assert graded_zero["grade"].tolist() == [0]
    assert len(missing_labels([item], chunks, run, {}, documents, threshold=0.3)) == 2


def test_a_chunk_outside_the_chunking_is_refused_in_the_ranking_of_any_question_with_gold() -> None:
    # Only the rows of questions with a repeat not judged relevant are looked up, but every chunk of the run is
    # checked: one outside the chunking is refused even where no repeat could be listed (copy#0 judged relevant).
    documents = {"d": TEXT, "copy": COPY}
    chunks = [cg.Chunk("d#0", cg.Span("d", 0, 25), TEXT[0:25]), cg.Chunk("copy#0", cg.Span("copy", 0, 46), COPY)]
    item = cg.EvalItem("q", "How long?", (cg.GoldSpan(cg.Span("d", 0, 25)),))
    with pytest.raises(cg.ContextGridError, match="returns chunk 'nowhere#0' at rank 2"):
        missing_labels([item], chunks, {"q": ["copy#0", "nowhere#0"]}, {"q": {"copy#0": 2}}, documents)
    # A ranking of a question that is not asked is not read.
    found = missing_labels([item], chunks, {"q": ["copy#0"], "q9": ["nowhere#0"]}, {}, documents)
    assert found["chunk_id"].tolist() == ["copy#0"]


def reference_labels(
    items: Sequence[cg.EvalItem],
    chunks: Sequence[cg.Chunk],
    run: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Mapping[str, int]],
    documents: Mapping[str, str],
    threshold: float,
) -> list[tuple[str, str, int, str]]:
    by_id = {chunk.id: chunk for chunk in chunks}
    found = []
    for item in items:
        merged = cg.data.spans.union([g.span for g in item.gold if g.grade > 0])
        if not sum(len(span) for span in merged):
            continue
        for rank, chunk_id in enumerate(run.get(item.id, []), 1):
            chunk = by_id[chunk_id]
            if qrels.get(item.id, {}).get(chunk_id, 0) > 0:
                continue
            if any(s.doc_id == chunk.span.doc_id and s.start < chunk.span.end and chunk.span.start < s.end
                   for s in merged):  # fmt: skip
                continue
            for span in merged:
                pairs = passage_pairs(documents[span.doc_id][span.start : span.end])
                if pairs and len(pairs & passage_pairs(chunk.text)) / len(pairs) >= threshold:
                    found.append((item.id, chunk_id, rank, f"{span.doc_id} [{span.start}, {span.end})"))
    return found


@st.composite
def label_inputs(draw: st.DrawFn) -> tuple[Any, ...]:
    vocabulary = ["refunds", "take", "thirty", "days", "ship"]
    documents = {doc: " ".join(draw(st.lists(st.sampled_from(vocabulary), min_size=2, max_size=10))) for doc in "ab"}
    chunks = []
    for position in range(draw(st.integers(1, 6))):
        doc = draw(st.sampled_from("ab"))
        start = draw(st.integers(0, len(documents[doc]) - 1))
        end = draw(st.integers(start + 1, len(documents[doc])))
        chunks.append(cg.Chunk(f"c{position}", cg.Span(doc, start, end), documents[doc][start:end]))
    items = []
    for position in range(draw(st.integers(1, 3))):
        gold = []
        for _ in range(draw(st.integers(0, 2))):
            doc = draw(st.sampled_from("ab"))
            start = draw(st.integers(0, len(documents[doc])))
            end = draw(st.integers(start, len(documents[doc])))
            gold.append(cg.GoldSpan(cg.Span(doc, start, end), grade=draw(st.integers(0, 2))))
        items.append(cg.EvalItem(f"q{position}", "?", tuple(gold)))
    ids = [chunk.id for chunk in chunks]
    run = {item.id: draw(st.lists(st.sampled_from(ids), unique=True, max_size=4)) for item in items}
    qrels = {item.id: draw(st.dictionaries(st.sampled_from(ids), st.integers(0, 2), max_size=2)) for item in items}
    return items, chunks, run, qrels, documents, draw(st.sampled_from([0.3, 0.5, 0.8, 1.0]))


@settings(max_examples=300, deadline=None)
@given(label_inputs())
def test_missing_labels_equal_the_reference(case: tuple[Any, ...]) -> None:
    items, chunks, run, qrels, documents, threshold = case
    found = missing_labels(items, chunks, run, qrels, documents, threshold=threshold)
    rows = list(zip(found["question"], found["chunk_id"], found["rank"], found["passage"], strict=True))
    assert sorted(rows) == sorted(reference_labels(items, chunks, run, qrels, documents, threshold))


@pytest.mark.parametrize(("laid_out", "elsewhere"), [(False, False), (True, False), (True, True)])
@settings(max_examples=300, deadline=None)
@given(label_inputs())
def test_labels_read_from_the_documents_words_equal_the_reference(
    laid_out: bool, elsewhere: bool, case: tuple[Any, ...]
) -> None:
    # The audit of a workspace reads each chunking's words from the documents' (chunking_repeats' words), its
    # gold and each chunking laid out as the workspace keeps them, and only the repeats elsewhere than the gold.
    items, chunks, run, qrels, documents, threshold = case
    vocabulary = Vocabulary()
    gold = gold_columns(items) if laid_out else items
    words = document_words(documents, vocabulary)
    passages = gold_passages(gold, documents, vocabulary, words=words if laid_out else None)
    chunking = chunking_gold(passages.gold, chunks) if laid_out else chunks
    repeats = chunking_repeats(passages, chunking, vocabulary, threshold=threshold, words=words, elsewhere=elsewhere)
    found = run_labels(repeats, run, judged_grades(repeats, qrels) if laid_out else qrels)
    rows = list(zip(found["question"], found["chunk_id"], found["rank"], found["passage"], strict=True))
    assert sorted(rows) == sorted(reference_labels(items, chunks, run, qrels, documents, threshold))
    # Every chunk the run returns is one of the chunks: said so, the same rows, untested.
    pd.testing.assert_frame_equal(run_labels(repeats, run, qrels, aligned=True), found, check_exact=True)


def test_chunks_or_qrels_laid_out_against_other_gold_are_refused() -> None:
    item = cg.EvalItem("q", "?", (cg.GoldSpan(cg.Span("d", 0, 7)),))
    documents = {"d": "Refunds take 30 days."}
    passages = gold_passages([item], documents, Vocabulary())
    chunking = chunking_gold(gold_columns([item]), [cg.Chunk("c", cg.Span("d", 0, 7), "Refunds")])
    with pytest.raises(InvalidParameterError, match="built from the same GoldColumns"):
        chunking_repeats(passages, chunking, Vocabulary())
    chunks = [cg.Chunk("c", cg.Span("d", 0, 7), "Refunds")]
    repeats, other = (chunking_repeats(passages, chunks, Vocabulary()) for _ in range(2))
    with pytest.raises(InvalidParameterError, match="judged_grades of repeats"):
        run_labels(repeats, {"q": ["c"]}, judged_grades(other, {"q": {"c": 1}}))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=4), max_size=4))
def test_code_words_gives_the_codes_of_sets_of_one_word(batches: list[list[str]]) -> None:
    by_words, by_sets = Vocabulary(), Vocabulary()
    for batch in batches:
        assert by_words.code_words(batch).tolist() == by_sets.code([[word] for word in batch])[1].tolist()
    assert by_words.codes == by_sets.codes


CODES = st.lists(st.lists(st.sampled_from([0, 1, 2, 7, 2**30, 2**30 + 1]), max_size=5), max_size=12)


@settings(max_examples=300, deadline=None)
@given(CODES)
def test_pair_keys_equal_each_texts_distinct_pairs(texts: list[list[int]]) -> None:
    # Codes near 2**30 in 8 texts or more overflow the one-integer sort: both of _pair_keys' sorts are held to the rule.
    found = _pair_keys(np.array([c for text in texts for c in text], dtype=np.int64),
                       np.array([len(text) for text in texts], dtype=np.int64))  # fmt: skip
    expected = [
        sorted({(a << 32) + b + 1 for a, b in itertools.pairwise(text)} if len(text) > 1 else {c << 32 for c in text})
        for text in texts
    ]
    assert [found.key[a:b].tolist() for a, b in itertools.pairwise(found.start.tolist())] == expected


# -- the workspace and the command --------------------------------------------------------------------------------


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    """A workspace with a duplicate question and a retrieved, unjudged copy of a gold passage."""
    write_documents({"d.md": TEXT, "copy.md": COPY}, tmp_path / "documents.jsonl")
    questions = [
        cg.EvalItem("q1", "How long do refunds take?", anchors=(cg.Anchor("d.md", "Refunds take thirty days."),)),
        cg.EvalItem("q2", "What does shipping cost?", anchors=(cg.Anchor("d.md", "Shipping costs five dollars."),)),
        cg.EvalItem("q3", "how long do REFUNDS take", anchors=(cg.Anchor("d.md", "Refunds take thirty days."),)),
        cg.EvalItem("q4", "Where is the warranty?", anchors=(cg.Anchor("d.md", "A warranty sentence."),)),
    ]
    write_questions(questions, tmp_path / "questions.jsonl")
    spans = {"d.md#0": ("d.md", 0, 25), "d.md#1": ("d.md", 26, 54), "copy.md#0": ("copy.md", 12, 37)}
    texts = {"d.md": TEXT, "copy.md": COPY}
    chunks = [cg.Chunk(i, cg.Span(doc, a, b), texts[doc][a:b]) for i, (doc, a, b) in spans.items()]
    write_chunks(chunks, tmp_path / "chunks.jsonl")
    (tmp_path / "run.trec").write_text("q1 Q0 copy.md#0 1 9 t\nq1 Q0 d.md#0 2 8 t\nq2 Q0 d.md#1 1 9 t\n")
    (tmp_path / "qrels.trec").write_text("q1 0 d.md#0 1\nq2 0 d.md#1 1\nq3 0 d.md#0 1\n")
    (tmp_path / "contextgrid.toml").write_text(
        'name = "planted"\ndocuments = "documents.jsonl"\nquestions = "questions.jsonl"\n\n[[config]]\n'
        'name = "bm25"\nrun = "run.trec"\nqrels = "qrels.trec"\nchunks = "chunks.jsonl"\n'
    )
    return tmp_path


def test_audit_finds_the_planted_duplicate_and_the_unlabelled_copy(
    planted: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run_main(capsys, "audit", str(planted), "--format", "json")
    assert (status, err) == (0, "")
    findings = json.loads(out)
    assert all(set(finding) == {"kind", "question", "detail"} for finding in findings)
    kinds = {(finding["kind"], finding["question"]) for finding in findings}
    assert ("duplicate_question", "q3") in kinds
    assert ("possible_missing_label", "q1") in kinds
    assert ("unresolved_gold", "q4") in kinds
    [copy] = [finding for finding in findings if finding["kind"] == "possible_missing_label"]
    assert copy["detail"].startswith("chunk 'copy.md#0' (retrieved by bm25, rank 1 in bm25) is not judged")
    assert copy["detail"].endswith("holds 100% of the word pairs of the gold passage d.md [0, 25)")
    shares = [finding["detail"] for finding in findings if finding["kind"] == "gold_share"]
    # q1 and q3 share d.md [0, 25) (25 characters each), q2 has d.md [26, 54): all 78 in d.md.
    assert shares == ["d.md holds 100.0% of the gold characters (78), for 3 questions"]
    status, out, _ = run_main(capsys, "audit", str(planted))
    assert status == 0
    assert out.rstrip().endswith("1 duplicate_question, 1 unresolved_gold, 1 gold_share, 1 possible_missing_label")


def test_the_audit_names_gold_past_a_documents_end_or_in_an_unknown_one_with_its_line(planted: Path) -> None:
    with (planted / "questions.jsonl").open("a") as questions:  # lines 5 and 6
        questions.write('{"id": "q5", "question": "Past?", "gold": [{"doc_id": "d.md", "start": 60, "end": 99}]}\n')
        questions.write('{"id": "q6", "question": "Where?", "gold": [{"doc_id": "e.md", "start": 0, "end": 5}]}\n')
    findings = audit_workspace(load_workspace(planted))
    lost = findings.loc[findings["kind"] == "unresolved_gold"].set_index("question")["detail"]
    assert list(lost.index) == ["q4", "q5", "q6"]
    assert lost["q5"] == (
        "questions.jsonl, line 5: not resolved, so it has no gold evidence in this parse: gold span 1: offsets "
        f"60-99 of doc 'd.md' run past its end ({len(TEXT)} characters)"
    )
    assert lost["q6"] == (
        "questions.jsonl, line 6: not resolved, so it has no gold evidence in this parse: gold span 1: unknown "
        "document 'e.md'"
    )


def test_unreadable_configurations_are_named_in_manifest_order_and_the_others_audited(planted: Path) -> None:
    # "broken" fails reading its chunks, "stray" looking its run up in its chunking: the two ways a configuration
    # is left out, on either side of the runs labelled together.
    (planted / "broken.jsonl").write_text("{not json\n")
    (planted / "stray.trec").write_text("q1 Q0 nowhere#0 1 9 t\n")
    config = 'run = "run.trec"\nqrels = "qrels.trec"\nchunks = "chunks.jsonl"\n'
    with (planted / "contextgrid.toml").open("a") as manifest:
        manifest.write(f'\n[[config]]\nname = "stray"\n{config.replace("run.trec", "stray.trec")}')
        manifest.write(f'\n[[config]]\nname = "broken"\n{config.replace("chunks.jsonl", "broken.jsonl")}')
        manifest.write(f'\n[[config]]\nname = "again"\n{config}')
    findings = audit_workspace(load_workspace(planted))
    unreadable = findings.loc[findings["kind"] == "unreadable_configuration", "detail"].tolist()
    assert [detail.split(":")[0] for detail in unreadable] == ["stray", "broken"]
    assert "returns chunk 'nowhere#0' at rank 1" in unreadable[0]
    assert "broken.jsonl, line 1" in unreadable[1]
    copies = findings.loc[findings["kind"] == "possible_missing_label", "detail"].tolist()
    assert copies
    assert all("(retrieved by bm25, again, rank 1 in bm25)" in detail for detail in copies)


def test_the_audit_of_runs_the_workspace_found_aligned_equals_the_audit_that_tests_every_row() -> None:
    from contextgrid.workspace.sample import SAMPLE

    checked = load_workspace(SAMPLE)
    for name in checked.names:
        checked.check_alignment(name)
    assert all(checked.aligned(name) for name in checked.names)
    fresh = load_workspace(SAMPLE)
    assert not any(fresh.aligned(name) for name in fresh.names)
    found = audit_workspace(checked, repeats_gold=0.3)
    assert (found["kind"] == "possible_missing_label").sum() > 100
    pd.testing.assert_frame_equal(found, audit_workspace(fresh, repeats_gold=0.3), check_exact=True)


def test_audit_needs_questions_and_documents(planted: Path) -> None:
    manifest = (planted / "contextgrid.toml").read_text().replace('questions = "questions.jsonl"\n', "")
    (planted / "contextgrid.toml").write_text(manifest)
    with pytest.raises(ContextGridError, match="has no questions; the audit reads"):
        audit_workspace(load_workspace(planted))
    assert FINDING_KINDS[0] == "duplicate_question"


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 20), st.integers(0, 10), st.integers(0, 2)),
                 max_size=3),
        max_size=4,
    )
)  # fmt: skip
def test_gold_shares_equal_counting_characters(golds: list[list[tuple[str, int, int, int]]]) -> None:
    items = [
        cg.EvalItem(f"q{i}", "?", tuple(cg.GoldSpan(cg.Span(d, s, s + n), grade=g) for d, s, n, g in gold))
        for i, gold in enumerate(golds)
    ]
    characters: dict[str, int] = {}
    questions: dict[str, set[str]] = {}
    for item in items:
        held = {(g.span.doc_id, o) for g in item.gold if g.grade > 0 for o in range(g.span.start, g.span.end)}
        for doc, _ in held:
            characters[doc] = characters.get(doc, 0) + 1
            questions.setdefault(doc, set()).add(item.id)
    table = gold_by_document(items)
    pd.testing.assert_frame_equal(gold_by_document(gold_columns(items)), table)
    total = sum(characters.values())
    assert table["gold_characters"].to_dict() == characters
    assert table["questions"].to_dict() == {doc: len(ids) for doc, ids in questions.items()}
    assert table["share"].to_dict() == pytest.approx({doc: n / total for doc, n in characters.items()})
    assert list(table["gold_characters"]) == sorted(table["gold_characters"], reverse=True)
