"""Span algebra against the obvious reference: the set of (document, offset) characters covered."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextgrid import Span
from contextgrid.core.errors import ContextGridError
from contextgrid.data.spans import (
    covered_length,
    intersection,
    overlap_length,
    overlap_pairs,
    union,
)

DOCS = ("a", "b", "c")


def chars(spans: Iterable[Span]) -> set[tuple[str, int]]:
    """Every character the spans cover, as (document, offset) pairs."""
    return {(span.doc_id, offset) for span in spans for offset in range(span.start, span.end)}


@st.composite
def spans_in(draw: st.DrawFn, docs: tuple[str, ...] = DOCS) -> Span:
    start = draw(st.integers(0, 60))
    return Span(draw(st.sampled_from(docs)), start, start + draw(st.integers(0, 25)))


span_lists = st.lists(spans_in(), max_size=8)


def assert_normalised(spans: tuple[Span, ...]) -> None:
    """Sorted by document then start, no empty span, and within a document neither
    overlapping nor touching (touching spans would have been one span)."""
    assert all(len(span) > 0 for span in spans)
    assert list(spans) == sorted(spans, key=lambda s: (s.doc_id, s.start))
    for before, after in pairwise(spans):
        if before.doc_id == after.doc_id:
            assert before.end < after.start


@given(span_lists)
def test_union_covers_the_same_characters_as_disjoint_sorted_non_touching_spans(spans: list[Span]) -> None:
    merged = union(spans)
    assert chars(merged) == chars(spans)
    assert_normalised(merged)


@given(span_lists)
def test_union_is_idempotent_and_ignores_order(spans: list[Span]) -> None:
    merged = union(spans)
    assert union(merged) == merged
    assert union(reversed(spans)) == merged


@given(span_lists)
def test_covered_length_counts_each_character_once(spans: list[Span]) -> None:
    assert covered_length(spans) == len(chars(spans))


@given(span_lists, span_lists)
def test_overlap_length_is_the_size_of_the_common_characters(first: list[Span], second: list[Span]) -> None:
    assert overlap_length(first, second) == len(chars(first) & chars(second))


@given(span_lists, span_lists)
def test_intersection_covers_exactly_the_common_characters(first: list[Span], second: list[Span]) -> None:
    common = intersection(first, second)
    assert chars(common) == chars(first) & chars(second)
    assert_normalised(common)


@given(span_lists, span_lists)
def test_intersection_is_commutative(first: list[Span], second: list[Span]) -> None:
    assert intersection(first, second) == intersection(second, first)
    assert overlap_length(first, second) == overlap_length(second, first)


@given(span_lists, span_lists)
def test_inclusion_exclusion(first: list[Span], second: list[Span]) -> None:
    assert covered_length(first + second) == (
        covered_length(first) + covered_length(second) - overlap_length(first, second)
    )


@given(span_lists, st.lists(st.builds(lambda d, o: Span(d, o, o), st.sampled_from(DOCS), st.integers(0, 90))))
def test_empty_spans_cover_nothing(spans: list[Span], empties: list[Span]) -> None:
    assert covered_length(empties) == 0
    assert union(empties) == ()
    assert overlap_length(empties, spans) == 0
    assert union(spans + empties) == union(spans)
    assert intersection(spans, spans + empties) == union(spans)


@given(st.lists(spans_in(("a",)), max_size=6), st.lists(spans_in(("b",)), max_size=6))
def test_different_documents_never_overlap(in_a: list[Span], in_b: list[Span]) -> None:
    shifted = [Span("b", span.start, span.end) for span in in_a]
    assert overlap_length(in_a, in_b + shifted) == 0
    assert intersection(in_a, in_b + shifted) == ()
    assert covered_length(in_a + shifted) == 2 * covered_length(in_a)


@given(span_lists, span_lists)
def test_overlap_pairs_lists_every_pair_sharing_characters(targets: list[Span], spans: list[Span]) -> None:
    pairs = overlap_pairs(targets, spans)
    found = list(zip(pairs.target.tolist(), pairs.span.tolist(), pairs.length.tolist(), strict=True))
    expected = [
        (t, s, len(chars([target]) & chars([span])))
        for t, target in enumerate(targets)
        for s, span in enumerate(spans)
        if chars([target]) & chars([span])
    ]
    assert found == expected


def test_hand_checked_values() -> None:
    touching = [Span("a", 5, 9), Span("a", 0, 5)]
    assert union(touching) == (Span("a", 0, 9),)
    assert union([Span("b", 3, 4), Span("a", 10, 12), Span("a", 0, 2)]) == (
        Span("a", 0, 2),
        Span("a", 10, 12),
        Span("b", 3, 4),
    )
    assert covered_length([Span("a", 0, 10), Span("a", 5, 15), Span("b", 0, 10)]) == 25
    assert overlap_length([Span("a", 0, 10)], [Span("a", 5, 15)]) == 5
    assert overlap_length([Span("a", 0, 10)], [Span("a", 10, 15)]) == 0
    assert intersection([Span("a", 0, 10), Span("a", 20, 30)], [Span("a", 5, 25)]) == (
        Span("a", 5, 10),
        Span("a", 20, 25),
    )


def test_iterators_are_accepted_and_the_callers_list_is_untouched() -> None:
    spans = [Span("a", 5, 9), Span("a", 0, 3)]
    assert covered_length(iter(spans)) == 7
    assert overlap_length(iter(spans), (s for s in spans)) == 7
    assert spans == [Span("a", 5, 9), Span("a", 0, 3)]


NOT_A_SPAN: Any = ("a", 0, 1)


@pytest.mark.parametrize(
    "call",
    [
        lambda: union([NOT_A_SPAN]),
        lambda: covered_length([Span("a", 0, 1), NOT_A_SPAN]),
        lambda: overlap_length([Span("a", 0, 1)], [NOT_A_SPAN]),
        lambda: intersection([NOT_A_SPAN], [Span("a", 0, 1)]),
    ],
)
def test_a_non_span_is_refused_by_name(call: Callable[[], object]) -> None:
    with pytest.raises(ContextGridError, match=r"expected a Span, got \('a', 0, 1\)"):
        call()
