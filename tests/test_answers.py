"""score_answer: the spec's three examples, the word rule, abstention and every warning."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contextgrid as cg
from contextgrid.answering.lexical import ABSTENTION_PHRASES, is_abstention
from contextgrid.core.errors import ContextGridError
from contextgrid.core.text import words

ITEM = cg.EvalItem(
    id="q1",
    question="What is the refund window?",
    gold=(cg.GoldSpan(cg.Span("refund.md", 0, 46)),),
)
GOLD_CHUNK = cg.Chunk(
    id="g1",
    span=cg.Span("refund.md", 0, 46),
    text="Refunds are available within 30 days of purchase.",
)
CONTEXT = cg.AssembledContext(
    text="Refunds are available within 30 days of purchase.",
    chunks=(GOLD_CHUNK,),
    tokens=12,
)
EMPTY = cg.AssembledContext(text="", chunks=(), tokens=0)
# An anchor exists, but this parse lost it: answerable, not resolved.
LOST = cg.EvalItem(id="q7", question="Who signs?", anchors=(cg.Anchor("contract.md", "the Director"),))

DECLINED_WRONGLY = "declined to answer although the context held passages and the gold evidence was resolved"
NOTHING_TO_ANSWER_FROM = "answered although there was nothing to answer from: "


# --- the spec page's examples ------------------------------------------------------------------------


def test_a_good_answer(capsys: pytest.CaptureFixture[str]) -> None:
    good = cg.Answer(text="Refunds are available within 30 days.", citations=(1,))
    print(cg.score_answer(ITEM, good, CONTEXT, gold_chunks=[GOLD_CHUNK]))
    assert capsys.readouterr().out == (
        "AnswerScore(item_id='q1', groundedness=1.0, citation_accuracy=1.0, evidence_overlap=0.75, "
        "abstained=False, should_have_abstained=False, warnings=[])\n"
    )


def test_an_invented_answer_citing_a_missing_passage(capsys: pytest.CaptureFixture[str]) -> None:
    invented = cg.Answer(text="Contact the vendor by fax immediately.", citations=(1, 4))
    score = cg.score_answer(ITEM, invented, CONTEXT, gold_chunks=[GOLD_CHUNK])
    print(score.groundedness, score.citation_accuracy)
    for w in score.warnings:
        print("-", w)
    assert capsys.readouterr().out == (
        "0.0 0.5\n"
        "- only 0% of the answer's words appear in the context it was given, so most of it came from somewhere else\n"
        "- cited passage(s) that were not in the context: [4]\n"
    )


def test_a_refusal_with_nothing_to_answer_from(capsys: pytest.CaptureFixture[str]) -> None:
    declined = cg.score_answer(ITEM, cg.Answer(text="The passages do not contain the answer."), EMPTY)
    print(declined.abstained, declined.should_have_abstained, declined.abstention_correct)
    assert capsys.readouterr().out == "True True True\n"
    assert declined.warnings == []


# --- the word rule -------------------------------------------------------------------------------------


def test_words_are_lowercased_and_stripped_of_punctuation() -> None:
    assert words("Refunds, REFUNDS; refunds!") == {"refunds"}
    assert words("(30) days... of: purchase?") == {"30", "days", "of", "purchase"}
    assert words("30-day window") == {"30", "day", "window"}
    assert words("") == frozenset()
    assert words(" -- !! ") == frozenset()


def test_apostrophes_inside_words_are_kept() -> None:
    assert words("Don't wait; it's the vendor's call.") == {"don't", "wait", "it's", "the", "vendor's", "call"}
    assert words("Don’t") == {"don't"}
    assert words("'quoted'") == {"quoted"}


def test_repetition_does_not_change_any_score() -> None:
    once = cg.Answer(text="Refunds within 30 days by fax.", citations=(1,))
    many = cg.Answer(text="Refunds refunds REFUNDS within within 30 30 days by fax fax.", citations=(1, 1))
    first = cg.score_answer(ITEM, once, CONTEXT, gold_chunks=[GOLD_CHUNK])
    second = cg.score_answer(ITEM, many, CONTEXT, gold_chunks=[GOLD_CHUNK, GOLD_CHUNK])
    # words {refunds, within, 30, days, by, fax}: 4 of 6 in the context; 4 of the gold's 8 words used.
    assert first == second
    assert (first.groundedness, first.evidence_overlap, first.citation_accuracy) == (4 / 6, 0.5, 1.0)


word_text = st.text(alphabet="abcdefgHIJ0123", min_size=1, max_size=6)
separators = st.sampled_from([" ", ", ", ". ", "! ", " -- ", "?\n", "; ", " ("])


@st.composite
def texts(draw: st.DrawFn) -> tuple[str, frozenset[str]]:
    """A text and the word set it was built from."""
    chosen = draw(st.lists(word_text, min_size=1, max_size=8))
    pieces = []
    for word in chosen:
        pieces.extend([word, draw(separators)])
    return "".join(pieces), frozenset(word.lower() for word in chosen)


@given(texts(), texts(), texts())
def test_scores_follow_the_word_sets(
    answer: tuple[str, frozenset[str]], context: tuple[str, frozenset[str]], gold: tuple[str, frozenset[str]]
) -> None:
    answer_text, answer_words = answer
    context_text, context_words = context
    gold_text, gold_words = gold
    assert words(answer_text) == answer_words
    score = cg.score_answer(
        ITEM,
        cg.Answer(text=answer_text),
        cg.AssembledContext(text=context_text, chunks=(GOLD_CHUNK,), tokens=0),
        gold_chunks=[cg.Chunk(id="g", span=cg.Span("d", 0, 1), text=gold_text)],
    )
    assert score.groundedness == len(answer_words & context_words) / len(answer_words)
    assert score.evidence_overlap == len(answer_words & gold_words) / len(gold_words)
    repeated = cg.score_answer(
        ITEM,
        cg.Answer(text=" ".join([answer_text.upper()] * 3)),
        cg.AssembledContext(text=context_text + context_text, chunks=(GOLD_CHUNK,), tokens=0),
        gold_chunks=[cg.Chunk(id="g", span=cg.Span("d", 0, 1), text=gold_text)] * 2,
    )
    assert repeated == score


# --- abstention ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("phrase", ABSTENTION_PHRASES)
def test_every_abstention_phrase_is_detected_whatever_its_case_and_spacing(phrase: str) -> None:
    assert is_abstention(phrase)
    assert is_abstention(phrase.upper())
    spread = "  \n\t ".join(phrase.title().split())
    assert is_abstention(f"Sorry: {spread}, based on the passages.")
    score = cg.score_answer(ITEM, cg.Answer(text=f"Well, {phrase.upper()}."), CONTEXT)
    assert score.abstained is True


@pytest.mark.parametrize(
    "text", ["Refunds are available within 30 days.", "It is not what you think.", "They answer in 30 days."]
)
def test_ordinary_answers_are_not_abstentions(text: str) -> None:
    assert not is_abstention(text)
    assert cg.score_answer(ITEM, cg.Answer(text=text), CONTEXT).abstained is False


def test_should_have_abstained_follows_is_resolved_not_is_answerable() -> None:
    assert LOST.is_answerable
    assert not LOST.is_resolved
    refusal = cg.score_answer(LOST, cg.Answer(text="I don't know."), CONTEXT)
    assert (refusal.abstained, refusal.should_have_abstained, refusal.abstention_correct) == (True, True, True)
    assert refusal.warnings == []
    answer = cg.score_answer(LOST, cg.Answer(text="Refunds are available within 30 days."), CONTEXT)
    assert (answer.abstained, answer.should_have_abstained, answer.abstention_correct) == (False, True, False)
    assert answer.warnings == [NOTHING_TO_ANSWER_FROM + "no gold evidence was resolved in this parse"]


@pytest.mark.parametrize(
    ("item", "context", "reasons"),
    [
        (ITEM, EMPTY, "the context held no passages"),
        (LOST, CONTEXT, "no gold evidence was resolved in this parse"),
        (LOST, EMPTY, "no gold evidence was resolved in this parse and the context held no passages"),
    ],
)
def test_an_answer_when_there_was_nothing_to_answer_from_is_warned_about(
    item: cg.EvalItem, context: cg.AssembledContext, reasons: str
) -> None:
    # With an empty context the answer is ungrounded too; the answering warning comes last.
    score = cg.score_answer(item, cg.Answer(text=context.text or "nothing"), context)
    assert score.should_have_abstained is True
    assert score.abstention_correct is False
    assert score.warnings[-1] == NOTHING_TO_ANSWER_FROM + reasons


def test_a_wrong_refusal_is_warned_about_but_not_for_groundedness() -> None:
    # None of the refusal's words is in the context, yet a refusal invents nothing.
    score = cg.score_answer(ITEM, cg.Answer(text="I do not know."), CONTEXT, gold_chunks=[GOLD_CHUNK])
    assert score.groundedness == 0.0
    assert (score.abstained, score.should_have_abstained, score.abstention_correct) == (True, False, False)
    assert score.warnings == [DECLINED_WRONGLY]


# --- groundedness, citations, evidence -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "groundedness", "warned"),
    [
        ("Refunds are available by fax.", 3 / 5, False),
        ("Refunds are by fax.", 0.5, False),
        ("Refunds by fax now.", 0.25, True),
    ],
)
def test_groundedness_and_its_warning(text: str, groundedness: float, warned: bool) -> None:
    score = cg.score_answer(ITEM, cg.Answer(text=text), CONTEXT)
    assert score.groundedness == groundedness
    expected = (
        [
            f"only {groundedness:.0%} of the answer's words appear in the context it was given, "
            "so most of it came from somewhere else"
        ]
        if warned
        else []
    )
    assert score.warnings == expected


TWO_PASSAGES = cg.AssembledContext(
    text=CONTEXT.text,
    chunks=(GOLD_CHUNK, cg.Chunk(id="x", span=cg.Span("other.md", 0, 5), text="other")),
    tokens=14,
)


@pytest.mark.parametrize(
    ("citations", "accuracy", "missing"),
    [
        ((), None, None),
        ((1,), 1.0, None),
        ((2,), 1.0, None),
        ((1, 1, 1), 1.0, None),
        ((1, 3, 3, 3), 0.5, "[3]"),
        ((9, 3, 7), 0.0, "[3, 7, 9]"),
        ((7, 2, 3, 1, 3), 0.5, "[3, 7]"),
    ],
)
def test_citation_accuracy_counts_distinct_passage_numbers(
    citations: tuple[int, ...], accuracy: float | None, missing: str | None
) -> None:
    answer = cg.Answer(text="Refunds are available within 30 days.", citations=citations)
    score = cg.score_answer(ITEM, answer, TWO_PASSAGES)
    assert score.citation_accuracy == accuracy
    expected = [] if missing is None else [f"cited passage(s) that were not in the context: {missing}"]
    assert score.warnings == expected


def test_evidence_overlap_is_zero_without_gold_chunks() -> None:
    answer = cg.Answer(text="Refunds are available within 30 days.")
    assert cg.score_answer(ITEM, answer, CONTEXT).evidence_overlap == 0.0
    empty_text = cg.Chunk(id="g", span=cg.Span("d", 0, 5), text="")
    assert cg.score_answer(ITEM, answer, CONTEXT, gold_chunks=[empty_text]).evidence_overlap == 0.0


def test_evidence_overlap_pools_the_words_of_every_gold_chunk() -> None:
    second = cg.Chunk(id="g2", span=cg.Span("refund.md", 46, 80), text="Store credit is issued after 30 days.")
    # Pooled gold words: the first chunk's 8 plus store, credit, is, issued, after = 13.
    answer = cg.Answer(text="Store credit after 30 days.")
    score = cg.score_answer(ITEM, answer, CONTEXT, gold_chunks=iter([GOLD_CHUNK, second]))
    assert score.evidence_overlap == 5 / 13


def test_every_field_is_a_plain_float_or_bool() -> None:
    scores = [
        cg.score_answer(ITEM, cg.Answer(text="Refunds in 30 days.", citations=(1, 2)), CONTEXT, [GOLD_CHUNK]),
        cg.score_answer(ITEM, cg.Answer(text=""), EMPTY),
    ]
    for score in scores:
        assert type(score.groundedness) is float
        assert score.citation_accuracy is None or type(score.citation_accuracy) is float
        assert type(score.evidence_overlap) is float
        assert type(score.abstained) is bool
        assert type(score.should_have_abstained) is bool
        assert type(score.abstention_correct) is bool
        assert type(score.warnings) is list
        assert all(type(w) is str for w in score.warnings)
    assert type(scores[0].citation_accuracy) is float


def test_score_answer_leaves_its_inputs_alone() -> None:
    gold_chunks = [GOLD_CHUNK]
    answer = cg.Answer(text="Refunds are available within 30 days.", citations=(1,))
    cg.score_answer(ITEM, answer, CONTEXT, gold_chunks=gold_chunks)
    assert gold_chunks == [GOLD_CHUNK]
    assert answer == cg.Answer(text="Refunds are available within 30 days.", citations=(1,))


NOT_A_RECORD: Any = "text"


@pytest.mark.parametrize(
    ("args", "name"),
    [
        ((NOT_A_RECORD, cg.Answer(text="a"), CONTEXT), "item"),
        ((ITEM, NOT_A_RECORD, CONTEXT), "answer"),
        ((ITEM, cg.Answer(text="a"), NOT_A_RECORD), "context"),
    ],
)
def test_wrong_argument_types_are_refused_by_name(args: tuple[Any, Any, Any], name: str) -> None:
    with pytest.raises(ContextGridError, match=rf"^score_answer: {name} must be of type \w+, got 'text'$"):
        cg.score_answer(*args)
