"""The shortcuts behind scoring many answers, each against the slow obvious computation it replaces.

``score_answers`` finds each chunk's words and token count once and adds them up per context, and
``score_frame`` scores every answer on coded columns (all texts split in one pass, membership by sorted keys);
these tests hold that to ``words(context.text)``, ``context_from_chunks`` and ``score_answer`` answer by answer,
on texts made to break a seam: citation markers, brackets and digits at a chunk's edges, both apostrophes,
characters whose case folding grows, the separator the one pass joins texts with, and whitespace the tokenizer
and ``str.strip`` might read differently.
"""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contextgrid as cg
from contextgrid.answering.batch import ScoredAnswer, answers_frame, chunk_words, score_answers, score_frame
from contextgrid.answering.context import ContextBuilder, context_from_chunks
from contextgrid.answering.lexical import ABSTENTION_PHRASES, abstentions, is_abstention
from contextgrid.chunking import RegexTokenizer
from contextgrid.core.text import CITATION, WORD, words
from contextgrid.io.answers import AnswerColumns

ALPHABET = "ab Zß İ’'_[]0123,;.-\n\t\u00a0\x1c\u0307é\x01"
TEXTS = st.text(alphabet=ALPHABET, max_size=40)
CHUNK_TEXTS = st.lists(TEXTS, min_size=0, max_size=5)


def reference_words(text: str) -> frozenset[str]:
    """The word rule as first written: every match folded and its apostrophe made plain, one by one."""
    return frozenset(match.casefold().replace("’", "'") for match in WORD.findall(CITATION.sub(" ", text)))


def chunks_of(texts: list[str]) -> list[cg.Chunk]:
    return [cg.Chunk(f"c{i}", cg.Span("d", 0, len(text)), text) for i, text in enumerate(texts)]


@settings(max_examples=400, deadline=None)
@given(TEXTS)
def test_words_is_the_word_rule_match_by_match(text: str) -> None:
    assert words(text) == reference_words(text)


def test_words_keeps_the_hand_checked_cases() -> None:
    # Folding, not lowering: "straße" and "STRASSE" are one word; "İ" folds to "i" and a combining dot.
    assert words("İstanbul’s [2] STRASSE straße don’t") == {"i\u0307stanbul's", "strasse", "don't"}


@settings(max_examples=300, deadline=None)
@given(CHUNK_TEXTS, st.randoms(use_true_random=False))
def test_a_builder_makes_the_context_context_from_chunks_makes(texts: list[str], order: object) -> None:
    chunks = chunks_of(texts)
    # A tokenizer whose tokens reach across whitespace (two words a token) is counted whole, not summed.
    for tokenizer in (RegexTokenizer(), RegexTokenizer(r"\S+(?:\s\S+)?")):
        build = ContextBuilder(tokenizer=tokenizer)
        # The same builder twice, the chunks in another order: counts come from its cache the second time.
        for shown in (chunks, order.sample(chunks, len(chunks))):  # type: ignore[attr-defined]
            assert build(shown) == context_from_chunks(shown, tokenizer=tokenizer)


def test_a_builder_counts_labels_of_two_digits() -> None:
    chunks = chunks_of([f"word{i}." for i in range(12)])
    assert ContextBuilder()(chunks).tokens == context_from_chunks(chunks).tokens == 12 * 3 + 12 * 2


@settings(max_examples=300, deadline=None)
@given(CHUNK_TEXTS, TEXTS, st.lists(st.integers(0, 4), max_size=3))
def test_score_answers_is_score_answer_on_the_whole_context(texts: list[str], said: str, gold: list[int]) -> None:
    chunks = chunks_of(texts)
    item = cg.EvalItem("q1", "Which?")
    record = cg.AnswerRecord("q1", cg.Answer(said), tuple(chunk.id for chunk in chunks))
    qrels = {"q1": {f"c{i}": 1 for i in gold if i < len(chunks)}}
    (scored,) = score_answers([item], [record], chunks, qrels)
    context = context_from_chunks(chunks)
    gold_chunks = [chunk for chunk in chunks if chunk.id in qrels["q1"]]
    assert scored.context == context
    assert scored.score == cg.score_answer(item, record.answer, context, gold_chunks=gold_chunks)


# -- many answers on columns ----------------------------------------------------------------------

Case = tuple[list[cg.EvalItem], list[cg.AnswerRecord], list[cg.Chunk], dict[str, dict[str, int]]]


def reference_frame(
    items: list[cg.EvalItem], records: list[cg.AnswerRecord], chunks: list[cg.Chunk], qrels: dict[str, dict[str, int]]
) -> pd.DataFrame:
    """Each answer judged alone by ``score_answer`` on its context rebuilt whole, then laid out by ``answers_frame``."""
    by_question = {item.id: item for item in items}
    by_id = {chunk.id: chunk for chunk in chunks}
    scored = []
    for record in records:
        item = by_question[record.question_id]
        context = context_from_chunks([by_id[chunk_id] for chunk_id in record.context_chunk_ids])
        judged = qrels.get(record.question_id, {})
        gold = [by_id[chunk_id] for chunk_id, grade in judged.items() if grade > 0 and chunk_id in by_id]
        score = cg.score_answer(item, record.answer, context, gold_chunks=gold)
        scored.append(ScoredAnswer(item, record, context, dict(judged), score))
    return answers_frame(scored)


@st.composite
def answer_sets(draw: st.DrawFn) -> Case:
    """Questions (resolved or not), chunks shared by many contexts, gold chunks graded (some 0, some unknown)."""
    chunks = chunks_of(draw(st.lists(st.one_of(TEXTS, ASCII_TEXTS), min_size=0, max_size=6)))
    ids = [chunk.id for chunk in chunks]
    resolved = cg.GoldSpan(cg.Span("d", 0, 1))
    items = [
        cg.EvalItem(f"q{i}", f"Question {i}?", gold=(resolved,) if draw(st.booleans()) else ())
        for i in range(draw(st.integers(1, 4)))
    ]
    qrels = {
        item.id: draw(st.dictionaries(st.sampled_from([*ids, "elsewhere"]), st.integers(-1, 2), max_size=4))
        for item in items
    }
    records = []
    for _ in range(draw(st.integers(0, 6))):
        item = draw(st.sampled_from(items))
        context = draw(st.permutations(ids).flatmap(lambda order: st.integers(0, len(order)).map(lambda n: order[:n])))
        cited = draw(st.lists(st.integers(1, 8), max_size=4))
        said = draw(st.one_of(TEXTS, ASCII_TEXTS))
        records.append(cg.AnswerRecord(item.id, cg.Answer(said, tuple(cited)), tuple(context)))
    return items, records, chunks, qrels


@settings(max_examples=300, deadline=None)
@given(answer_sets())
def test_score_frame_is_score_answer_answer_by_answer(case: Case) -> None:
    items, records, chunks, qrels = case
    expected = reference_frame(items, records, chunks, qrels)
    pd.testing.assert_frame_equal(score_frame(items, records, chunks, qrels), expected, check_exact=True)
    # The chunks' words found once and given again, and the records derived from the frame: the same scores.
    found = chunk_words(chunks)
    pd.testing.assert_frame_equal(score_frame(items, records, found, qrels), expected, check_exact=True)
    # The answers given as columns, as read_answer_columns reads them: the same scores.
    columns = AnswerColumns.from_records(records)
    pd.testing.assert_frame_equal(score_frame(items, columns, found, qrels), expected, check_exact=True)
    pd.testing.assert_frame_equal(
        answers_frame(score_answers(items, records, found, qrels)), expected, check_exact=True
    )


# ASCII texts are split by a faster way than the word rule's regex: apostrophes and separators at every place.
ASCII_TEXTS = st.text(alphabet="aZ09' _[]1,;.-\n\x0b\x1c\x01", max_size=40)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(TEXTS, ASCII_TEXTS), max_size=6))
def test_chunk_words_are_each_chunks_words(texts: list[str]) -> None:
    chunks = chunks_of(texts)
    found = chunk_words(chunks)
    for i, chunk in enumerate(chunks):
        codes = found.code[found.start[i] : found.start[i] + found.size[i]]
        assert {found.vocabulary[code] for code in codes} == words(chunk.text)
        assert len(set(codes.tolist())) == len(codes)


def test_the_first_bad_answer_is_refused_as_the_records_refuse_it() -> None:
    chunks = chunks_of(["Thirty days.", "Ninety minutes."])
    items = [cg.EvalItem("q1", "How long?")]
    good = cg.AnswerRecord("q1", cg.Answer("Thirty days."), ("c0",))
    twice = cg.AnswerRecord("q1", cg.Answer("x"), ("c1", "c1"))
    unknown_chunk = cg.AnswerRecord("q1", cg.Answer("x"), ("c0", "c9"))
    unknown_question = cg.AnswerRecord("q7", cg.Answer("x"), ("c9",))
    cases = [
        (
            [good, twice, unknown_question],
            r"^answer 2 \(question 'q1'\): context_from_chunks: chunk ids must be distinct",
        ),
        ([good, unknown_chunk, twice], r"^answer 2 \(question 'q1'\): the context names chunk\(s\) 'c9', which"),
        # An unknown question is said before the unknown chunk of the same answer.
        ([unknown_question, unknown_chunk], r"^answer 1 \(question 'q7'\): answers question 'q7', which is not"),
    ]
    for records, message in cases:
        for score in (score_frame, score_answers):
            with pytest.raises(cg.ContextGridError, match=message):
                score(items, records, chunks, {})
        with pytest.raises(cg.ContextGridError, match=message):
            score_frame(items, AnswerColumns.from_records(records), chunks, {})


def test_no_answers_make_the_empty_frame_the_records_make() -> None:
    pd.testing.assert_frame_equal(score_frame([], [], [], {}), answers_frame([]), check_exact=True)


# A lone surrogate (which no pyarrow string holds) and a no-break space among them.
PHRASE_PARTS = st.sampled_from(
    [*ABSTENTION_PHRASES, "I DON’T", "Cannot", "know", "answer", " ", "\n\t", "\x01", "ß", "x", "\ud800", "\u00a0"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(PHRASE_PARTS, max_size=6).map("".join), max_size=6))
def test_abstentions_read_in_one_pass_are_each_texts(texts: list[str]) -> None:
    def reference(text: str) -> bool:
        normalised = " ".join(text.casefold().replace("’", "'").split())
        return any(phrase in normalised for phrase in ABSTENTION_PHRASES)

    assert abstentions(texts).tolist() == [reference(text) for text in texts] == [is_abstention(t) for t in texts]
