"""The shortcuts behind scoring many answers, each against the slow obvious computation it replaces.

``score_answers`` finds each chunk's words and token count once and adds them up per context; these tests hold
that to ``words(context.text)``, ``context_from_chunks`` and ``score_answer`` on texts made to break a seam:
citation markers, brackets and digits at a chunk's edges, both apostrophes, characters whose case folding grows,
and whitespace the tokenizer and ``str.strip`` might read differently.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import contextgrid as cg
from contextgrid.answering.batch import score_answers
from contextgrid.answering.context import ContextBuilder, context_from_chunks
from contextgrid.chunking import RegexTokenizer
from contextgrid.core.text import CITATION, WORD, words

ALPHABET = "ab Zß İ’'_[]0123,;.-\n\t\u00a0\x1c\u0307é"
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
