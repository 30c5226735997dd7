"""assemble_context: numbered passages under a token budget, with what was cut."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contextgrid as cg
from contextgrid.answering.context import (
    BudgetedContext,
    assemble_context,
    context_from_chunks,
    count_tokens,
    passage,
)
from contextgrid.chunking import RegexTokenizer
from contextgrid.core.errors import DuplicateChunkError, InvalidParameterError

REFUND = cg.Chunk("r0", cg.Span("refund.md", 0, 51), "Refunds are available within 30 days of purchase.\n")
CREDIT = cg.Chunk("r1", cg.Span("refund.md", 52, 90), "  Store credit is offered after 30 days.")
STOVE = cg.Chunk("s4", cg.Span("stove.md", 0, 20), "Burns 90 minutes.")


def test_passages_are_numbered_in_order_and_separated_by_a_blank_line() -> None:
    context = assemble_context([REFUND, CREDIT, STOVE], 100)
    assert context.text == (
        "[1] Refunds are available within 30 days of purchase.\n\n"
        "[2] Store credit is offered after 30 days.\n\n"
        "[3] Burns 90 minutes."
    )
    assert context.chunks == (REFUND, CREDIT, STOVE)
    assert context.cut == ()
    # By hand: 3 label tokens each; 8 words + '.', 7 words + '.', 3 words + '.'.
    assert context.tokens == (3 + 9) + (3 + 8) + (3 + 4) == 30
    assert context.budget_tokens == 100


def test_assembly_stops_at_the_first_chunk_that_does_not_fit() -> None:
    # 12 + 11 = 23 tokens for two passages; the third needs 7 more.
    context = assemble_context([REFUND, CREDIT, STOVE], 29)
    assert context.chunks == (REFUND, CREDIT)
    assert context.cut == (STOVE,)
    assert context.tokens == 23
    # A later, shorter chunk is not squeezed in after one that did not fit: the context stays a prefix.
    context = assemble_context([REFUND, CREDIT, STOVE], 20)
    assert context.chunks == (REFUND,)
    assert context.cut == (CREDIT, STOVE)
    assert context.tokens == 12


def test_a_budget_exactly_met_keeps_the_passage() -> None:
    assert assemble_context([REFUND, CREDIT], 23).chunks == (REFUND, CREDIT)
    assert assemble_context([REFUND, CREDIT], 22).chunks == (REFUND,)


def test_a_first_chunk_over_budget_gives_an_empty_context() -> None:
    context = assemble_context([REFUND], 5)
    assert (context.text, context.chunks, context.tokens, context.cut) == ("", (), 0, (REFUND,))
    empty = assemble_context([], 5)
    assert (empty.text, empty.chunks, empty.tokens, empty.cut) == ("", (), 0, ())


def test_a_custom_tokenizer_counts_the_whole_text() -> None:
    def characters(text: str) -> list[tuple[int, int]]:
        return [(i, i + 1) for i in range(len(text))]

    context = assemble_context([STOVE, CREDIT], 30, tokenizer=characters)
    assert context.text == "[1] Burns 90 minutes."
    assert context.tokens == len("[1] Burns 90 minutes.") == 21


def test_the_context_goes_straight_to_score_answer() -> None:
    context = assemble_context([REFUND, CREDIT], 100)
    assert isinstance(context, cg.AssembledContext)
    item = cg.EvalItem(id="q1", question="Refund window?", gold=(cg.GoldSpan(cg.Span("refund.md", 0, 51)),))
    score = cg.score_answer(item, cg.Answer("Within 30 days [2].", citations=(2, 3)), context)
    # words: within, 30, days, 2 -- all in the context; passage 3 does not exist.
    assert (score.groundedness, score.citation_accuracy) == (1.0, 0.5)


def test_input_is_not_modified_and_any_iterable_is_taken() -> None:
    given = [REFUND, CREDIT]
    assemble_context(given, 15)
    assert given == [REFUND, CREDIT]
    assert assemble_context(iter(given), 100).chunks == (REFUND, CREDIT)


@pytest.mark.parametrize("budget", [0, -3, 2.5, True, "100", None])
def test_a_budget_that_is_not_a_whole_number_of_at_least_one_is_refused(budget: object) -> None:
    with pytest.raises(InvalidParameterError) as caught:
        assemble_context([REFUND], budget)  # type: ignore[arg-type]
    assert str(caught.value) == (
        f"The 'budget_tokens' parameter of assemble_context must be an int >= 1. Got {budget!r} instead."
    )


def test_bad_chunks_and_tokenizers_are_refused() -> None:
    with pytest.raises(InvalidParameterError, match=r"'chunks\[1\]' parameter of assemble_context must be a Chunk"):
        assemble_context([REFUND, "c2"], 10)  # type: ignore[list-item]
    with pytest.raises(InvalidParameterError, match="'chunks' parameter"):
        assemble_context(REFUND, 10)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="'tokenizer' parameter"):
        assemble_context([REFUND], 10, tokenizer="words")  # type: ignore[arg-type]
    twice = cg.Chunk("r0", cg.Span("other.md", 0, 3), "abc")
    with pytest.raises(DuplicateChunkError, match="assemble_context: chunk ids must be distinct, repeated: 'r0'"):
        assemble_context([REFUND, CREDIT, twice], 10)


def test_a_budgeted_context_cannot_claim_more_tokens_than_its_budget() -> None:
    with pytest.raises(cg.ContextGridError, match="over its budget"):
        BudgetedContext("[1] x", (STOVE,), 5, (), budget_tokens=4)


def test_context_from_chunks_keeps_every_chunk() -> None:
    context = context_from_chunks([STOVE, REFUND])
    assert context.text == "[1] Burns 90 minutes.\n\n[2] Refunds are available within 30 days of purchase."
    assert context.chunks == (STOVE, REFUND)
    assert context.tokens == 7 + 12
    assert passage(7, CREDIT) == "[7] Store credit is offered after 30 days."


texts = st.text(alphabet=st.sampled_from("ab 1.,\n?é"), max_size=40)


@st.composite
def chunk_lists(draw: st.DrawFn) -> list[cg.Chunk]:
    bodies = draw(st.lists(texts, max_size=8))
    return [cg.Chunk(f"c{i}", cg.Span("d", 0, len(body)), body) for i, body in enumerate(bodies)]


@given(chunk_lists(), st.integers(min_value=1, max_value=80))
def test_laws_of_assembly(chunks: list[cg.Chunk], budget: int) -> None:
    context = assemble_context(chunks, budget)
    kept = len(context.chunks)
    # cut + kept = input, in order: the context is a prefix of the ranking.
    assert context.chunks + context.cut == tuple(chunks)
    assert context.tokens == count_tokens(context.text, RegexTokenizer()) <= budget
    # Passages numbered 1..n, in order, each the chunk's stripped text.
    expected = "\n\n".join(f"[{n}] {chunk.text.strip()}" for n, chunk in enumerate(context.chunks, 1))
    assert context.text == expected
    labels = [int(number) for number in re.findall(r"^\[(\d+)\] ", context.text, flags=re.MULTILINE)]
    assert labels == list(range(1, kept + 1))
    # Nothing that fitted was cut: one more passage would have gone over the budget.
    if context.cut:
        longer = context_from_chunks(context.chunks + context.cut[:1])
        assert longer.tokens > budget
    # A bigger budget never keeps fewer passages.
    assert len(assemble_context(chunks, budget + 10).chunks) >= kept
