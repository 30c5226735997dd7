"""The records refuse bad fields where they are made, with the offending values in the message."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import numpy as np
import pytest

import contextgrid as cg
from contextgrid.core.errors import ContextGridError


def refused(message: str) -> Any:
    """``pytest.raises`` for a ContextGridError whose message contains ``message`` verbatim."""
    return pytest.raises(ContextGridError, match=re.escape(message))


GOLD = cg.GoldSpan(cg.Span("doc", 0, 10))
CHUNK = cg.Chunk(id="c1", span=cg.Span("doc", 0, 10), text="0123456789")


# --- Span ---------------------------------------------------------------------------------------


def test_span_is_half_open_and_its_length_is_end_minus_start() -> None:
    span = cg.Span("refund.md", 100, 200)
    assert (span.doc_id, span.start, span.end, len(span)) == ("refund.md", 100, 200, 100)
    assert len(cg.Span("refund.md", 7, 7)) == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("", 0, 1), "Span('', 0, 1): doc_id must be a non-empty str"),
        ((3, 0, 1), "Span(3, 0, 1): doc_id must be a non-empty str"),
        (("d", True, 4), "Span('d', True, 4): start and end must be int"),
        (("d", 0, False), "Span('d', 0, False): start and end must be int"),
        (("d", 1.0, 4), "Span('d', 1.0, 4): start and end must be int"),
        (("d", "1", 4), "Span('d', '1', 4): start and end must be int"),
        (("d", -1, 4), "Span('d', -1, 4): start must be 0 or more"),
        (("d", 5, 3), "Span('d', 5, 3): end must not be before start"),
    ],
)
def test_span_refuses_bad_fields_naming_them(args: tuple[Any, Any, Any], message: str) -> None:
    with refused(message):
        cg.Span(*args)


def test_span_accepts_numpy_integers_and_stores_plain_ints() -> None:
    span = cg.Span("d", np.int64(3), np.int32(8))  # type: ignore[arg-type]
    assert type(span.start) is int
    assert type(span.end) is int
    assert span == cg.Span("d", 3, 8)


def test_errors_are_value_errors() -> None:
    with pytest.raises(ValueError, match="end must not be before start"):
        cg.Span("d", 2, 1)


# --- GoldSpan, Anchor ----------------------------------------------------------------------------


def test_goldspan_defaults() -> None:
    gold = cg.GoldSpan(cg.Span("d", 0, 5))
    assert (gold.grade, gold.quote) == (2, None)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"span": ("d", 0, 5)}, "GoldSpan(('d', 0, 5), grade=2): span must be a Span"),
        ({"grade": -1}, "grade=-1): grade must be an int, 0 or more"),
        ({"grade": True}, "grade=True): grade must be an int, 0 or more"),
        ({"grade": 1.5}, "grade=1.5): grade must be an int, 0 or more"),
        ({"quote": 3}, "quote must be a str or None"),
    ],
)
def test_goldspan_refuses_bad_fields(kwargs: dict[str, Any], message: str) -> None:
    fields: dict[str, Any] = {"span": cg.Span("d", 0, 5), **kwargs}
    with refused(message):
        cg.GoldSpan(**fields)


def test_goldspan_grade_zero_is_allowed() -> None:
    assert cg.GoldSpan(cg.Span("d", 0, 5), grade=0).grade == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("", "a quote"), "Anchor('', 'a quote', grade=2): doc_id must be a non-empty str"),
        (("d", "   "), "Anchor('d', '   ', grade=2): quote must be a non-empty str"),
        (("d", 7), "Anchor('d', 7, grade=2): quote must be a non-empty str"),
        (("d", "q", -2), "Anchor('d', 'q', grade=-2): grade must be an int, 0 or more"),
        (("d", "q", False), "Anchor('d', 'q', grade=False): grade must be an int, 0 or more"),
    ],
)
def test_anchor_refuses_bad_fields(args: tuple[Any, ...], message: str) -> None:
    with refused(message):
        cg.Anchor(*args)


# --- Chunk ----------------------------------------------------------------------------------------


def test_chunk_text_may_differ_in_length_from_its_span() -> None:
    # The spec's answer example: a 49-character sentence from the parser for a 46-character span.
    text = "Refunds are available within 30 days of purchase."
    chunk = cg.Chunk(id="g1", span=cg.Span("refund.md", 0, 46), text=text)
    assert (len(chunk.text), len(chunk.span)) == (49, 46)
    assert cg.Chunk(id="e", span=cg.Span("d", 0, 100), text="").text == ""


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"id": ""}, "Chunk(id='', span=Span(doc_id='d', start=0, end=3)): id must be a non-empty str"),
        ({"id": 5}, "Chunk(id=5, span="),
        ({"span": ("d", 0, 3)}, "Chunk(id='c', span=('d', 0, 3)): span must be a Span"),
        ({"text": b"abc"}, "Chunk(id='c', span=Span(doc_id='d', start=0, end=3)): text must be a str, got bytes"),
        ({"text": None}, "text must be a str, got NoneType"),
    ],
)
def test_chunk_refuses_bad_fields(kwargs: dict[str, Any], message: str) -> None:
    fields: dict[str, Any] = {"id": "c", "span": cg.Span("d", 0, 3), "text": "abc", **kwargs}
    with refused(message):
        cg.Chunk(**fields)


# --- EvalItem ---------------------------------------------------------------------------------------


def test_evalitem_stores_gold_and_anchors_as_tuples_without_touching_the_callers_lists() -> None:
    gold = [GOLD]
    anchors = [cg.Anchor("doc", "a quote")]
    item = cg.EvalItem(id="q1", question="?", gold=gold, anchors=anchors)  # type: ignore[arg-type]
    assert item.gold == (GOLD,)
    assert item.anchors == (cg.Anchor("doc", "a quote"),)
    gold.append(cg.GoldSpan(cg.Span("doc", 20, 30)))
    anchors.clear()
    assert item.gold == (GOLD,)
    assert item.anchors == (cg.Anchor("doc", "a quote"),)
    assert gold == [GOLD, cg.GoldSpan(cg.Span("doc", 20, 30))]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"id": ""}, "EvalItem(id=''): id must be a non-empty str"),
        ({"id": None}, "EvalItem(id=None): id must be a non-empty str"),
        ({"question": 42}, "EvalItem(id='q'): question must be a str"),
        ({"gold": "doc"}, "EvalItem(id='q'): gold must be a sequence of GoldSpan, got 'doc'"),
        ({"gold": 3}, "gold must be a sequence of GoldSpan, got 3"),
        (
            {"gold": (GOLD, cg.Span("doc", 0, 1))},
            "EvalItem(id='q'): gold[1] must be of type GoldSpan, got Span(doc_id='doc', start=0, end=1)",
        ),
        ({"anchors": ("the quote",)}, "EvalItem(id='q'): anchors[0] must be of type Anchor, got 'the quote'"),
        ({"reference_answer": 1}, "EvalItem(id='q'): reference_answer must be a str or None"),
    ],
)
def test_evalitem_refuses_bad_fields(kwargs: dict[str, Any], message: str) -> None:
    fields: dict[str, Any] = {"id": "q", "question": "?", **kwargs}
    with refused(message):
        cg.EvalItem(**fields)


@pytest.mark.parametrize(
    ("gold", "anchors", "answerable", "resolved"),
    [
        ((), (), False, False),
        ((GOLD,), (), True, True),
        # The spec's Note: an anchor this parse lost is answerable but not resolved.
        ((), (cg.Anchor("doc", "the Director"),), True, False),
        ((GOLD,), (cg.Anchor("doc", "the Director"),), True, True),
    ],
)
def test_answerable_and_resolved(
    gold: tuple[cg.GoldSpan, ...], anchors: tuple[cg.Anchor, ...], answerable: bool, resolved: bool
) -> None:
    item = cg.EvalItem(id="q", question="?", gold=gold, anchors=anchors)
    assert (item.is_answerable, item.is_resolved) == (answerable, resolved)


# --- AssembledContext, Answer ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"tokens": -1}, "AssembledContext(tokens=-1): tokens must be an int, 0 or more"),
        ({"tokens": True}, "AssembledContext(tokens=True): tokens must be an int, 0 or more"),
        ({"text": None}, "AssembledContext(tokens=3): text must be a str"),
        ({"chunks": (CHUNK, "c2")}, "AssembledContext(tokens=3): chunks[1] must be of type Chunk, got 'c2'"),
    ],
)
def test_assembled_context_refuses_bad_fields(kwargs: dict[str, Any], message: str) -> None:
    fields: dict[str, Any] = {"text": "t", "chunks": (CHUNK,), "tokens": 3, **kwargs}
    with refused(message):
        cg.AssembledContext(**fields)


def test_assembled_context_stores_chunks_as_a_tuple() -> None:
    chunks = [CHUNK]
    context = cg.AssembledContext(text="t", chunks=chunks, tokens=0)  # type: ignore[arg-type]
    chunks.clear()
    assert context.chunks == (CHUNK,)


@pytest.mark.parametrize(
    ("citations", "message"),
    [
        ((0,), "Answer(text='a', citations=(0,)): every citation must be a passage number, 1 or more"),
        ((2, -1), "Answer(text='a', citations=(2, -1)): every citation must be a passage number, 1 or more"),
        ((True,), "Answer(text='a', citations=(True,)): every citation must be a passage number, 1 or more"),
        (("1",), "Answer(text='a', citations=('1',)): citations[0] must be of type int, got '1'"),
        ((1.0,), "citations[0] must be of type int, got 1.0"),
        ("1", "citations must be a sequence of int, got '1'"),
    ],
)
def test_answer_refuses_citations_below_one_or_not_ints(citations: Any, message: str) -> None:
    with refused(message):
        cg.Answer(text="a", citations=citations)


def test_answer_refuses_non_str_text() -> None:
    with refused("Answer(text=None, citations=()): text must be a str"):
        cg.Answer(text=None)  # type: ignore[arg-type]


def test_answer_stores_citations_as_plain_ints() -> None:
    answer = cg.Answer(text="a", citations=[np.int64(2), 1])  # type: ignore[arg-type]
    assert answer.citations == (2, 1)
    assert all(type(c) is int for c in answer.citations)
    assert cg.Answer(text="a").citations == ()


# --- AnswerScore ---------------------------------------------------------------------------------------


def test_answer_score_repr_is_the_one_on_the_spec_page() -> None:
    score = cg.AnswerScore(
        item_id="q1",
        groundedness=1.0,
        citation_accuracy=1.0,
        evidence_overlap=0.75,
        abstained=False,
        should_have_abstained=False,
    )
    assert repr(score) == (
        "AnswerScore(item_id='q1', groundedness=1.0, citation_accuracy=1.0, evidence_overlap=0.75, "
        "abstained=False, should_have_abstained=False, warnings=[])"
    )


def test_abstention_correct_is_a_property_not_a_field() -> None:
    names = [f.name for f in dataclasses.fields(cg.AnswerScore)]
    assert names == [
        "item_id",
        "groundedness",
        "citation_accuracy",
        "evidence_overlap",
        "abstained",
        "should_have_abstained",
        "warnings",
    ]
    assert isinstance(vars(cg.AnswerScore)["abstention_correct"], property)


@pytest.mark.parametrize(
    ("abstained", "should", "correct"),
    [(False, False, True), (True, True, True), (True, False, False), (False, True, False)],
)
def test_abstention_correct_means_abstained_equals_should_have(abstained: bool, should: bool, correct: bool) -> None:
    score = cg.AnswerScore("q", 0.5, None, 0.0, abstained, should)
    assert score.abstention_correct is correct


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"groundedness": 1.5}, "AnswerScore(item_id='q'): groundedness must be in [0, 1], got 1.5"),
        ({"groundedness": -0.1}, "groundedness must be in [0, 1], got -0.1"),
        ({"groundedness": float("nan")}, "groundedness must be in [0, 1], got nan"),
        ({"groundedness": True}, "groundedness must be in [0, 1], got True"),
        ({"citation_accuracy": 2.0}, "citation_accuracy must be None or in [0, 1], got 2.0"),
        ({"evidence_overlap": "0.5"}, "evidence_overlap must be in [0, 1], got '0.5'"),
        ({"abstained": 1}, "abstained and should_have_abstained must be bool"),
        ({"should_have_abstained": None}, "abstained and should_have_abstained must be bool"),
        ({"warnings": ["ok", 3]}, "warnings must be a list of str"),
    ],
)
def test_answer_score_refuses_bad_fields(kwargs: dict[str, Any], message: str) -> None:
    fields: dict[str, Any] = {
        "item_id": "q",
        "groundedness": 0.5,
        "citation_accuracy": None,
        "evidence_overlap": 0.0,
        "abstained": False,
        "should_have_abstained": False,
        **kwargs,
    }
    with refused(message):
        cg.AnswerScore(**fields)


# --- every record -------------------------------------------------------------------------------------


RECORDS: list[tuple[object, str, object]] = [
    (cg.Span("d", 0, 1), "end", 5),
    (GOLD, "grade", 1),
    (cg.Anchor("d", "q"), "quote", "other"),
    (CHUNK, "text", "other"),
    (cg.EvalItem(id="q", question="?"), "gold", ()),
    (cg.AssembledContext(text="", chunks=(), tokens=0), "tokens", 9),
    (cg.Answer(text="a"), "citations", (1,)),
    (cg.AnswerScore("q", 0.0, None, 0.0, False, False), "groundedness", 1.0),
]


@pytest.mark.parametrize(("record", "field", "value"), RECORDS, ids=[type(r[0]).__name__ for r in RECORDS])
def test_records_are_frozen_and_slotted(record: object, field: str, value: object) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(record, field, value)
    assert not hasattr(record, "__dict__")


# --- AnswerRecord ---------------------------------------------------------------------------------


def test_answer_record_keeps_its_source_line_out_of_its_repr_and_equality() -> None:
    from contextgrid.data.provenance import SourceLine
    from contextgrid.data.records import AnswerRecord

    answer = cg.Answer("Within 30 days [1].", citations=(1,))
    where = SourceLine("answers.jsonl", 3, '{"question_id": "q1"}')
    read = AnswerRecord("q1", answer, ("c4",), source=where)
    made = AnswerRecord("q1", answer, ("c4",))
    assert (
        repr(read)
        == repr(made)
        == (
            "AnswerRecord(question_id='q1', answer=Answer(text='Within 30 days [1].', citations=(1,)), "
            "context_chunk_ids=('c4',))"
        )
    )
    assert read == made
    assert hash(read) == hash(made)
    assert (read.source, made.source) == (where, None)


def test_answer_record_refuses_a_source_that_is_not_a_source_line() -> None:
    from contextgrid.data.records import AnswerRecord

    with refused("source must be a SourceLine or None, got ('answers.jsonl', 3)"):
        AnswerRecord("q1", cg.Answer("x"), source=("answers.jsonl", 3))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: cg.Span("d", -1, 4), "Span('d', -1, 4): start must be 0 or more"),
        (lambda: cg.GoldSpan(cg.Span("d", 0, 1), grade=True), "grade must be an int, 0 or more"),
        (
            lambda: cg.Chunk("c1", cg.Span("d", 0, 1), 5),
            "Chunk(id='c1', span=Span(doc_id='d', start=0, end=1)): text must be a str, got int",
        ),
        (
            lambda: cg.EvalItem("q1", "?", gold=["abc"]),
            "EvalItem(id='q1'): gold[0] must be of type GoldSpan, got 'abc'",
        ),
    ],
)
def test_a_bad_field_is_an_invalid_parameter_of_the_record(make: Any, message: str) -> None:
    with pytest.raises(cg.InvalidParameterError) as caught:
        make()
    assert message in str(caught.value)
    assert isinstance(caught.value, ValueError)
