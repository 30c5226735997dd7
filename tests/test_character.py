"""Character-level scores: the spec's values, and every score against a character-set reference."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contextgrid as cg
from contextgrid.core.errors import ContextGridError

DOCS = ("a", "b")


def chars(spans: Iterable[cg.Span]) -> set[tuple[str, int]]:
    """Every character the spans cover, as (document, offset) pairs."""
    return {(span.doc_id, offset) for span in spans for offset in range(span.start, span.end)}


def fraction(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


# --- the spec's examples ---------------------------------------------------------------------------

ITEM = cg.EvalItem(
    id="q1",
    question="What was the settlement amount?",
    gold=(cg.GoldSpan(cg.Span("doc1", 100, 270)),),
)
BIG = cg.Chunk(id="c1", span=cg.Span("doc1", 0, 2000), text="x" * 2000)
SMALL = cg.Chunk(id="c2", span=cg.Span("doc1", 100, 270), text="x" * 170)


def test_big_and_small_chunk_from_the_spec() -> None:
    assert (cg.character_recall(ITEM, [BIG]), cg.character_precision(ITEM, [BIG])) == (1.0, 0.085)
    assert (cg.character_recall(ITEM, [SMALL]), cg.character_precision(ITEM, [SMALL])) == (1.0, 1.0)
    assert cg.retrieved_character_count([BIG, SMALL]) == 2000
    assert cg.gold_coverage_by_chunk(ITEM, [BIG, SMALL]) == {"c1": 1.0, "c2": 1.0}
    # 2 * 0.085 * 1.0 / 1.085, i.e. 2 * 170 / (170 + 2000)
    assert cg.character_f1(ITEM, [BIG]) == pytest.approx(340 / 2170, rel=1e-12)
    assert cg.character_f1(ITEM, [SMALL]) == 1.0


def test_printed_values_are_plain_floats_and_ints(capsys: pytest.CaptureFixture[str]) -> None:
    print(cg.character_recall(ITEM, [BIG]), cg.character_precision(ITEM, [BIG]))
    print(cg.retrieved_character_count([BIG, SMALL]))
    print(cg.gold_coverage_by_chunk(ITEM, [BIG, SMALL]))
    assert capsys.readouterr().out == "1.0 0.085\n2000\n{'c1': 1.0, 'c2': 1.0}\n"


def test_coverage_fraction_from_the_spec() -> None:
    gold = cg.Span("refund.md", 100, 200)
    first = cg.Span("refund.md", 80, 150)
    second = cg.Span("refund.md", 150, 190)
    assert cg.coverage_fraction(gold, [first, second]) == 0.9
    assert cg.coverage_fraction(gold, [first]) == 0.5
    assert cg.coverage_fraction(gold, [cg.Span("other.md", 100, 200)]) == 0.0


def test_coverage_fraction_of_an_empty_target_is_zero() -> None:
    assert cg.coverage_fraction(cg.Span("d", 5, 5), [cg.Span("d", 0, 10)]) == 0.0


def test_coverage_fraction_counts_overlapping_others_once() -> None:
    target = cg.Span("d", 0, 100)
    assert cg.coverage_fraction(target, [cg.Span("d", 0, 60), cg.Span("d", 20, 60), cg.Span("d", 40, 80)]) == 0.8


# --- hand-checked edge cases -------------------------------------------------------------------------


def item_with(*spans: cg.Span) -> cg.EvalItem:
    return cg.EvalItem(id="q", question="?", gold=tuple(cg.GoldSpan(span) for span in spans))


def chunk(chunk_id: str, doc_id: str, start: int, end: int) -> cg.Chunk:
    return cg.Chunk(id=chunk_id, span=cg.Span(doc_id, start, end), text="")


def test_recall_is_zero_without_gold_even_when_something_came_back() -> None:
    no_gold = cg.EvalItem(id="q", question="?")
    assert cg.character_recall(no_gold, [chunk("c1", "d", 0, 10)]) == 0.0
    assert cg.character_f1(no_gold, [chunk("c1", "d", 0, 10)]) == 0.0
    assert cg.gold_coverage_by_chunk(no_gold, [chunk("c1", "d", 0, 10)]) == {"c1": 0.0}


def test_precision_is_zero_when_nothing_was_retrieved() -> None:
    item = item_with(cg.Span("d", 0, 10))
    assert cg.character_precision(item, []) == 0.0
    assert cg.character_precision(item, [chunk("empty", "d", 3, 3)]) == 0.0
    assert cg.character_f1(item, []) == 0.0
    assert cg.retrieved_character_count([]) == 0


def test_overlapping_gold_spans_count_once() -> None:
    # 150 gold characters: 0-100 and 50-150 overlap on 50-100.
    item = item_with(cg.Span("d", 0, 100), cg.Span("d", 50, 150))
    assert cg.character_recall(item, [chunk("c1", "d", 0, 150)]) == 1.0
    assert cg.character_recall(item, [chunk("c1", "d", 0, 75)]) == 0.5
    assert cg.character_precision(item, [chunk("c1", "d", 0, 300)]) == 0.5
    assert cg.gold_coverage_by_chunk(item, [chunk("c1", "d", 60, 90), chunk("c2", "d", 120, 180)]) == {
        "c1": 0.2,
        "c2": 0.2,
    }


def test_overlapping_retrieved_chunks_count_once() -> None:
    item = item_with(cg.Span("d", 0, 50))
    both = [chunk("c1", "d", 0, 100), chunk("c2", "d", 50, 100)]
    assert cg.retrieved_character_count(both) == 100
    assert cg.character_precision(item, both) == 0.5


def test_gold_in_another_document_is_never_found() -> None:
    item = item_with(cg.Span("a", 0, 50))
    assert cg.character_recall(item, [chunk("c1", "b", 0, 50)]) == 0.0
    assert cg.character_precision(item, [chunk("c1", "b", 0, 50)]) == 0.0


def test_duplicate_chunk_ids_are_refused_in_gold_coverage_by_chunk() -> None:
    item = item_with(cg.Span("d", 0, 10))
    with pytest.raises(
        ContextGridError,
        match=r"gold_coverage_by_chunk: chunk ids must be distinct, repeated: 'c1' \(chunks\[0\] and chunks\[2\]\)",
    ):
        cg.gold_coverage_by_chunk(item, [chunk("c1", "d", 0, 5), chunk("c2", "d", 0, 5), chunk("c1", "d", 5, 10)])


def test_retrieved_may_be_any_iterable() -> None:
    item = item_with(cg.Span("d", 0, 10))
    chunks = [chunk("c1", "d", 0, 20)]
    assert cg.character_recall(item, iter(chunks)) == 1.0
    assert cg.character_precision(item, iter(chunks)) == 0.5
    assert cg.character_f1(item, iter(chunks)) == pytest.approx(2 / 3, rel=1e-12)
    assert cg.retrieved_character_count(iter(chunks)) == 20


NOT_A_CHUNK: Any = cg.Span("d", 0, 1)
NOT_AN_ITEM: Any = "q1"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: cg.character_recall(ITEM, [NOT_A_CHUNK]), "expected a Chunk, got Span(doc_id='d', start=0, end=1)"),
        (lambda: cg.character_precision(ITEM, [NOT_A_CHUNK]), "expected a Chunk, got Span("),
        (lambda: cg.retrieved_character_count([BIG, NOT_A_CHUNK]), "expected a Chunk, got Span("),
        (
            lambda: cg.gold_coverage_by_chunk(ITEM, [NOT_A_CHUNK]),
            "'chunks[0]' parameter of gold_coverage_by_chunk must be a Chunk. Got Span(",
        ),
        (lambda: cg.character_recall(NOT_AN_ITEM, [BIG]), "expected an EvalItem, got 'q1'"),
        (lambda: cg.coverage_fraction(NOT_AN_ITEM, []), "coverage_fraction: target must be a Span, got 'q1'"),
    ],
)
def test_wrong_types_are_refused_by_name(call: Any, message: str) -> None:
    with pytest.raises(ContextGridError) as caught:
        call()
    assert message in str(caught.value)


# --- against the character-set reference --------------------------------------------------------------


@st.composite
def spans(draw: st.DrawFn) -> cg.Span:
    start = draw(st.integers(0, 80))
    return cg.Span(draw(st.sampled_from(DOCS)), start, start + draw(st.integers(0, 40)))


items = st.builds(
    lambda gold: cg.EvalItem(id="q", question="?", gold=tuple(cg.GoldSpan(s, grade=g) for s, g in gold)),
    st.lists(st.tuples(spans(), st.integers(1, 2)), max_size=5),
)
chunk_lists = st.lists(spans(), max_size=6).map(
    lambda found: [cg.Chunk(id=f"c{n}", span=span, text="") for n, span in enumerate(found)]
)


def gold_chars(item: cg.EvalItem) -> set[tuple[str, int]]:
    return chars(gold.span for gold in item.gold)


@given(items, chunk_lists)
def test_recall_precision_and_count_equal_the_reference(item: cg.EvalItem, retrieved: list[cg.Chunk]) -> None:
    gold, found = gold_chars(item), chars(c.span for c in retrieved)
    recall = cg.character_recall(item, retrieved)
    precision = cg.character_precision(item, retrieved)
    count = cg.retrieved_character_count(retrieved)
    assert recall == fraction(len(gold & found), len(gold))
    assert precision == fraction(len(gold & found), len(found))
    assert count == len(found)
    assert type(recall) is float
    assert type(precision) is float
    assert type(count) is int
    assert 0.0 <= recall <= 1.0
    assert 0.0 <= precision <= 1.0
    assert count >= 0


@given(items, chunk_lists)
def test_f1_equals_the_reference(item: cg.EvalItem, retrieved: list[cg.Chunk]) -> None:
    gold, found = gold_chars(item), chars(c.span for c in retrieved)
    f1 = cg.character_f1(item, retrieved)
    # Harmonic mean of |G∩R|/|G| and |G∩R|/|R| is 2|G∩R| / (|G| + |R|), 0 when nothing is shared.
    assert f1 == pytest.approx(fraction(2 * len(gold & found), len(gold) + len(found)), rel=1e-12, abs=0.0)
    assert type(f1) is float
    assert 0.0 <= f1 <= 1.0


@given(items, chunk_lists)
def test_gold_coverage_by_chunk_equals_the_reference(item: cg.EvalItem, retrieved: list[cg.Chunk]) -> None:
    gold = gold_chars(item)
    coverage = cg.gold_coverage_by_chunk(item, retrieved)
    assert coverage == {c.id: fraction(len(gold & chars([c.span])), len(gold)) for c in retrieved}
    assert list(coverage) == [c.id for c in retrieved]
    assert all(type(value) is float and 0.0 <= value <= 1.0 for value in coverage.values())


@given(spans(), st.lists(spans(), max_size=6))
def test_coverage_fraction_equals_the_reference(target: cg.Span, others: list[cg.Span]) -> None:
    value = cg.coverage_fraction(target, others)
    assert value == fraction(len(chars([target]) & chars(others)), len(target))
    assert type(value) is float
    assert 0.0 <= value <= 1.0
