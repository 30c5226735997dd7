"""SpanResolver: gold evidence found in a parse, then graded onto a chunking.

Grades are checked by hand on small cases, and against a brute-force reference
(every gold span against every chunk, in plain Python) on generated ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contextgrid as cg
from contextgrid.chunking import (
    FixedCharChunker,
    RecursiveChunker,
    SentenceChunker,
    chunk_documents,
)
from contextgrid.core.errors import ContextGridError, InvalidParameterError
from contextgrid.evidence.resolver import GradeRule, SpanResolver, locate_quote
from contextgrid.io import read_questions, write_questions
from contextgrid.io.questions import read_located_questions

REFUND = "Refunds are available within 30 days of purchase. Fees apply. Refunds are final."
DOCS = {"refund.md": REFUND, "fees.md": "Fees are\n  LOW for members. Fees are low."}


def item(id: str = "q1", *, gold: tuple[cg.GoldSpan, ...] = (), anchors: tuple[cg.Anchor, ...] = ()) -> cg.EvalItem:
    return cg.EvalItem(id=id, question="?", gold=gold, anchors=anchors)


def resolve_one(evidence: cg.EvalItem, **options: bool) -> tuple[cg.EvalItem, list[str]]:
    log = cg.WarningLog()
    (resolved,) = SpanResolver(DOCS).resolve([evidence], warnings=log, **options)
    return resolved, [str(entry) for entry in log]


# -- locating quotes ---------------------------------------------------------------------------------


def test_exact_occurrences_are_all_found_overlapping_ones_included() -> None:
    assert locate_quote("aaaa", "aa") == ([(0, 2), (1, 3), (2, 4)], True)
    assert locate_quote(REFUND, "30 days") == ([(29, 36)], True)
    assert REFUND[29:36] == "30 days"


def test_loose_matching_ignores_whitespace_runs_and_case_and_maps_back_to_the_original_offsets() -> None:
    found, exact = locate_quote(DOCS["fees.md"], "  fees ARE low ")
    assert not exact
    assert found == [(0, 14), (28, 40)]
    assert DOCS["fees.md"][0:14] == "Fees are\n  LOW"


def test_loose_matching_only_runs_when_there_is_no_exact_match() -> None:
    assert locate_quote("Fees are low. FEES ARE LOW.", "Fees are low") == ([(0, 12)], True)


def test_whitespace_does_not_match_where_the_text_has_none() -> None:
    assert locate_quote("thirtydays", "thirty days") == ([], False)


def test_an_empty_quote_is_found_nowhere() -> None:
    assert locate_quote("abc", "  ") == ([], True)


# -- resolving anchors -------------------------------------------------------------------------------


def test_an_anchor_found_once_becomes_a_gold_span_with_its_grade_and_quote() -> None:
    resolved, log = resolve_one(item(anchors=(cg.Anchor("refund.md", "within 30 days", grade=1),)))
    assert resolved.gold == (cg.GoldSpan(cg.Span("refund.md", 22, 36), grade=1, quote="within 30 days"),)
    assert resolved.anchors == (cg.Anchor("refund.md", "within 30 days", grade=1),)
    assert (resolved.is_resolved, resolved.is_answerable) == (True, True)
    assert log == []


def test_a_loose_match_is_used_and_noted() -> None:
    resolved, log = resolve_one(item(anchors=(cg.Anchor("fees.md", "LOW FOR MEMBERS"),)))
    assert resolved.gold == (cg.GoldSpan(cg.Span("fees.md", 11, 26), quote="LOW FOR MEMBERS"),)
    assert log == ["NOTE [resolve] (q1): anchor 1: quote matched ignoring whitespace and case at 11-26 of 'fees.md'"]


def test_a_quote_found_several_times_is_reported_not_guessed() -> None:
    resolved, log = resolve_one(item(anchors=(cg.Anchor("refund.md", "Refunds are"),)))
    assert resolved.gold == ()
    assert (resolved.is_resolved, resolved.is_answerable) == (False, True)
    assert log == [
        "CAUTION [resolve] (q1): not resolved, so it has no gold evidence in this parse: anchor 1: quote "
        "'Refunds are' found 2 times in doc 'refund.md' (offsets 0-11, 62-73), so it was not guessed"
    ]


def test_a_loosely_ambiguous_quote_is_reported_too() -> None:
    resolved, log = resolve_one(item(anchors=(cg.Anchor("fees.md", "fees are LOW"),)))
    assert resolved.gold == ()
    assert "quote 'fees are LOW' found 2 times in doc 'fees.md' (offsets 0-14, 28-40)" in log[0]


def test_a_quote_not_found_and_an_unknown_document_are_reported_with_their_reasons() -> None:
    resolved, log = resolve_one(
        item(anchors=(cg.Anchor("refund.md", "within 60 days"), cg.Anchor("refnd.md", "within 30 days")))
    )
    assert resolved.gold == ()
    assert log == [
        "CAUTION [resolve] (q1): not resolved, so it has no gold evidence in this parse: anchor 1: quote "
        "'within 60 days' not found in doc 'refund.md'; anchor 2: unknown document 'refnd.md'"
    ]


def test_the_list_of_offsets_and_a_long_quote_are_shortened() -> None:
    text = "ab " * 8
    log = cg.WarningLog()
    (resolved,) = SpanResolver({"d": text}).resolve([item(anchors=(cg.Anchor("d", "ab"),))], warnings=log)
    assert resolved.gold == ()
    assert "found 8 times in doc 'd' (offsets 0-2, 3-5, 6-8, 9-11, 12-14, …)" in str(log.entries[0])
    long_quote = "x" * 100
    SpanResolver({"d": text}).resolve([item(anchors=(cg.Anchor("d", long_quote),))], warnings=log)
    assert f"quote {'x' * 59 + '…'!r} not found" in str(log.entries[1])


# -- checking offsets --------------------------------------------------------------------------------


def test_offsets_inside_the_text_are_kept() -> None:
    gold = cg.GoldSpan(cg.Span("refund.md", 0, 50), grade=2)
    resolved, log = resolve_one(item(gold=(gold,)))
    assert resolved.gold == (gold,)
    assert log == []


@pytest.mark.parametrize(
    ("span", "reason"),
    [
        (
            cg.Span("refund.md", 70, 200),
            "gold span 1: offsets 70-200 of doc 'refund.md' run past its end (80 characters)",
        ),
        (cg.Span("refund.md", 5, 5), "gold span 1: offsets 5-5 of doc 'refund.md' hold no characters"),
        (cg.Span("nowhere.md", 0, 5), "gold span 1: unknown document 'nowhere.md'"),
    ],
)
def test_offsets_that_do_not_fit_the_text_leave_the_item_unresolved(span: cg.Span, reason: str) -> None:
    resolved, log = resolve_one(item(gold=(cg.GoldSpan(span),)))
    assert resolved.gold == ()
    assert log == [f"CAUTION [resolve] (q1): not resolved, so it has no gold evidence in this parse: {reason}"]
    # Kept apart, not dropped: the question has evidence, unresolved (not "no gold"), and says so again.
    assert resolved.unplaced == (cg.GoldSpan(span),)
    assert (resolved.is_resolved, resolved.is_answerable) == (False, True)
    again, log_again = resolve_one(resolved)
    assert (again, log_again) == (resolved, log)


def test_a_caution_names_where_the_question_was_read(tmp_path: Path) -> None:
    path = tmp_path / "questions.jsonl"
    path.write_text(
        '{"id": "ok", "question": "?", "gold": [{"doc_id": "refund.md", "start": 0, "end": 7}]}\n'
        "\n"
        '{"id": "past", "question": "?", "gold": [{"doc_id": "refund.md", "start": 70, "end": 200}]}\n'
        '{"id": "lost", "question": "?", "gold": [{"doc_id": "nowhere.md", "start": 0, "end": 5, "grade": 1}]}\n'
    )
    items, lines = read_located_questions(path)
    assert lines == {"ok": 1, "past": 3, "lost": 4}
    log = cg.WarningLog()
    origins = {question: f"{path}, line {line}" for question, line in lines.items()}
    resolved = SpanResolver(DOCS).resolve(items, warnings=log, origins=origins)
    assert [str(entry) for entry in log] == [
        f"CAUTION [resolve] (past): {path}, line 3: not resolved, so it has no gold evidence in this parse: "
        "gold span 1: offsets 70-200 of doc 'refund.md' run past its end (80 characters)",
        f"CAUTION [resolve] (lost): {path}, line 4: not resolved, so it has no gold evidence in this parse: "
        "gold span 1: unknown document 'nowhere.md'",
    ]
    # Written and read back, the unplaced offsets are gold as the author gave them, for the next parse.
    write_questions(resolved, tmp_path / "again.jsonl")
    assert read_questions(tmp_path / "again.jsonl") == items


def test_offsets_left_out_with_an_unresolved_items_evidence_come_back_when_it_resolves() -> None:
    fits = cg.GoldSpan(cg.Span("refund.md", 0, 7))
    lost, _ = resolve_one(item(gold=(fits,), anchors=(cg.Anchor("refund.md", "Fees apply in full."),)))
    assert (lost.gold, lost.unplaced) == ((), (fits,))
    found = SpanResolver({**DOCS, "refund.md": REFUND + " Fees apply in full."}).resolve([lost])[0]
    assert found.gold == (fits, cg.GoldSpan(cg.Span("refund.md", 81, 100), quote="Fees apply in full."))
    assert found.unplaced == ()


def test_a_quote_that_matches_its_offsets_keeps_them_even_if_only_loosely() -> None:
    exact = cg.GoldSpan(cg.Span("refund.md", 29, 36), quote="30 days")
    loose = cg.GoldSpan(cg.Span("fees.md", 0, 14), quote="fees are low")
    resolved, log = resolve_one(item(gold=(exact, loose)))
    assert resolved.gold == (exact, loose)
    assert log == []


def test_a_quote_that_moved_is_found_again_and_noted() -> None:
    stale = cg.GoldSpan(cg.Span("refund.md", 0, 7), grade=1, quote="30 days")
    resolved, log = resolve_one(item(gold=(stale,)))
    assert resolved.gold == (cg.GoldSpan(cg.Span("refund.md", 29, 36), grade=1, quote="30 days"),)
    assert log == [
        "NOTE [resolve] (q1): gold span 1: offsets 0-7 of doc 'refund.md' did not hold its quote; found it at "
        "29-36 instead"
    ]


def test_a_quote_past_the_end_is_looked_for_too() -> None:
    stale = cg.GoldSpan(cg.Span("refund.md", 500, 507), quote="30 days")
    resolved, _ = resolve_one(item(gold=(stale,)))
    assert resolved.gold[0].span == cg.Span("refund.md", 29, 36)


def test_a_quote_lost_from_its_offsets_and_everywhere_else_is_reported() -> None:
    resolved, log = resolve_one(item(gold=(cg.GoldSpan(cg.Span("refund.md", 0, 7), quote="60 days"),)))
    assert resolved.gold == ()
    # Kept as evidence the author gave, so the item stays answerable though unresolved.
    assert resolved.anchors == (cg.Anchor("refund.md", "60 days"),)
    assert (resolved.is_resolved, resolved.is_answerable) == (False, True)
    assert log == [
        "CAUTION [resolve] (q1): not resolved, so it has no gold evidence in this parse: gold span 1: quote "
        "'60 days' not found in doc 'refund.md', and offsets 0-7 of doc 'refund.md' do not hold it"
    ]


# -- whole items -------------------------------------------------------------------------------------


def test_an_item_missing_part_of_its_evidence_is_unresolved_unless_partial_is_kept() -> None:
    evidence = item(anchors=(cg.Anchor("refund.md", "30 days"), cg.Anchor("refund.md", "60 days")))
    strict, log = resolve_one(evidence)
    assert strict.gold == ()
    assert log[0].startswith("CAUTION [resolve] (q1): not resolved")
    partial, log = resolve_one(evidence, keep_partial=True)
    assert partial.gold == (cg.GoldSpan(cg.Span("refund.md", 29, 36), quote="30 days"),)
    assert log == [
        "CAUTION [resolve] (q1): partly resolved (1 of 2 pieces of evidence found): anchor 2: quote '60 days' "
        "not found in doc 'refund.md'"
    ]


def test_an_item_with_no_evidence_at_all_stays_unanswerable_and_is_not_reported() -> None:
    resolved, log = resolve_one(item())
    assert (resolved.is_resolved, resolved.is_answerable, log) == (False, False, [])


def test_resolving_twice_changes_nothing_and_a_stale_resolution_is_redone_from_the_anchor() -> None:
    evidence = item(anchors=(cg.Anchor("refund.md", "Fees apply"),))
    resolver = SpanResolver(DOCS)
    once = resolver.resolve([evidence])
    assert once[0].gold == (cg.GoldSpan(cg.Span("refund.md", 50, 60), quote="Fees apply"),)
    assert resolver.resolve(once) == once
    # Resolved against one parse, then against another where the text moved.
    moved = SpanResolver({"refund.md": "Preface. " + REFUND}).resolve(once)
    assert moved[0].gold == (cg.GoldSpan(cg.Span("refund.md", 59, 69), quote="Fees apply"),)


def test_the_same_evidence_given_twice_is_one_gold_span() -> None:
    gold = cg.GoldSpan(cg.Span("refund.md", 29, 36))
    resolved, _ = resolve_one(item(gold=(gold, gold)))
    assert resolved.gold == (gold,)


def test_items_keep_their_order_and_other_fields_and_the_inputs_are_untouched() -> None:
    documents = dict(DOCS)
    items = [
        cg.EvalItem(id="a", question="A?", anchors=(cg.Anchor("refund.md", "30 days"),), reference_answer="30 days"),
        cg.EvalItem(id="b", question="B?"),
    ]
    before = list(items)
    resolver = SpanResolver(documents)
    documents["refund.md"] = "changed"
    resolved = resolver.resolve(iter(items))
    assert items == before
    assert [r.id for r in resolved] == ["a", "b"]
    assert resolved[0].reference_answer == "30 days"
    assert resolved[0].gold[0].span == cg.Span("refund.md", 29, 36)
    assert resolver.documents["refund.md"] == REFUND
    with pytest.raises(TypeError):
        resolver.documents["x"] = "y"  # type: ignore[index]


@st.composite
def texts_and_items(draw: st.DrawFn) -> tuple[dict[str, str], list[cg.EvalItem]]:
    words = st.sampled_from(["fee", "Fee", "refund", "days", "30", " ", "\n", ". "])
    documents = {doc: "".join(draw(st.lists(words, max_size=25))) for doc in ("a", "b")}
    items = []
    for n in range(draw(st.integers(0, 4))):
        anchors = tuple(
            cg.Anchor(
                draw(st.sampled_from(["a", "b", "c"])), draw(st.sampled_from(["fee", "refund days", "30 .", "x"]))
            )
            for _ in range(draw(st.integers(0, 2)))
        )
        gold = tuple(
            cg.GoldSpan(
                cg.Span(draw(st.sampled_from(["a", "b"])), start, start + draw(st.integers(0, 8))),
                quote=draw(st.sampled_from([None, "fee", "days 30", ""])),
            )
            for start in draw(st.lists(st.integers(0, 40), max_size=2))
        )
        items.append(cg.EvalItem(id=f"q{n}", question="?", gold=gold, anchors=anchors))
    return documents, items


def offsets_only(evidence: cg.EvalItem) -> list[cg.GoldSpan]:
    return [gold for gold in evidence.gold if not (gold.quote or "").strip()]


@given(texts_and_items(), st.booleans())
def test_resolution_is_idempotent_and_every_gold_span_holds_its_quote(
    case: tuple[dict[str, str], list[cg.EvalItem]], keep_partial: bool
) -> None:
    documents, items = case
    resolver = SpanResolver(documents)
    log = cg.WarningLog()
    once = resolver.resolve(items, keep_partial=keep_partial, warnings=log)
    reported = {entry.subject for entry in log if entry.severity is cg.Severity.CAUTION}
    for before, after, again in zip(items, once, resolver.resolve(once, keep_partial=keep_partial), strict=True):
        if keep_partial or set(offsets_only(after)) == set(offsets_only(before)):
            assert again == after
        assert after.anchors[: len(before.anchors)] == before.anchors
        if before.anchors or len(offsets_only(before)) < len(before.gold):
            assert after.is_answerable
        for gold in after.gold:
            text = documents[gold.span.doc_id]
            held = text[gold.span.start : gold.span.end]
            assert len(gold.span) > 0
            assert gold.span.end <= len(text)
            if (gold.quote or "").strip():
                assert " ".join(held.lower().split()) == " ".join(gold.quote.lower().split())
        if before.is_answerable and not after.is_resolved:
            assert before.id in reported


# -- the grade rule ----------------------------------------------------------------------------------


def test_the_default_rule_gives_the_whole_span_its_grade_and_any_part_grade_1() -> None:
    rule = GradeRule()
    assert [rule.grade(2, f) for f in (1.0, 0.999, 0.01, 0.0)] == [2, 1, 1, None]
    assert [rule.grade(1, f) for f in (1.0, 0.5)] == [1, 1]
    assert rule.grade(0, 0.5) == 0


def test_a_lower_full_fraction_and_a_min_fraction() -> None:
    rule = GradeRule(full_fraction=0.9, partial_grade=1, min_fraction=0.25)
    # 90 of 100 characters: exactly the threshold, as a user writing 0.9 means it.
    assert rule.grade(2, 90 / 100) == 2
    assert rule.grade(2, 89 / 100) == 1
    assert rule.grade(2, 25 / 100) == 1
    assert rule.grade(2, 24 / 100) is None
    assert GradeRule(partial_grade=3).grade(2, 0.5) == 2  # never more than the span's own grade


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"full_fraction": 0.0},
            "The 'full_fraction' parameter of GradeRule must be a float in (0, 1]. Got 0.0 instead.",
        ),
        (
            {"full_fraction": 1.5},
            "The 'full_fraction' parameter of GradeRule must be a float in (0, 1]. Got 1.5 instead.",
        ),
        (
            {"partial_grade": -1},
            "The 'partial_grade' parameter of GradeRule must be an int >= 0. Got -1 instead.",
        ),
        (
            {"partial_grade": 1.0},
            "The 'partial_grade' parameter of GradeRule must be an int >= 0. Got 1.0 instead.",
        ),
        (
            {"full_fraction": 0.5, "min_fraction": 0.6},
            "The 'min_fraction' parameter of GradeRule must be a float in [0, full_fraction=0.5]. Got 0.6 instead.",
        ),
    ],
)
def test_grade_rule_parameters_are_checked(options: dict[str, float], message: str) -> None:
    with pytest.raises(InvalidParameterError) as error:
        GradeRule(**options)  # type: ignore[arg-type]
    assert str(error.value) == message


# -- qrels -------------------------------------------------------------------------------------------

TEXT = "x" * 100
THREE = [
    cg.Chunk("c0", cg.Span("d", 0, 40), TEXT[0:40]),
    cg.Chunk("c1", cg.Span("d", 30, 70), TEXT[30:70]),
    cg.Chunk("c2", cg.Span("d", 60, 100), TEXT[60:100]),
]
GOLD = cg.EvalItem(id="q1", question="?", gold=(cg.GoldSpan(cg.Span("d", 35, 65)),))


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        # c0 and c2 each hold 5 of the span's 30 characters (1/6); c1 holds all 30.
        (GradeRule(), {"c0": 1, "c1": 2, "c2": 1}),
        (GradeRule(min_fraction=0.2), {"c1": 2}),
        (GradeRule(full_fraction=1 / 6), {"c0": 2, "c1": 2, "c2": 2}),
        (GradeRule(partial_grade=0), {"c0": 0, "c1": 2, "c2": 0}),
    ],
)
def test_hand_checked_grades(rule: GradeRule, expected: dict[str, int]) -> None:
    assert SpanResolver({"d": TEXT}, grade_rule=rule).qrels([GOLD], THREE) == {"q1": expected}


def test_a_span_split_across_chunks_gets_only_partial_grades_by_default() -> None:
    split = cg.EvalItem(id="q1", question="?", gold=(cg.GoldSpan(cg.Span("d", 20, 50)),))
    # c0 holds 20-40 (2/3), c1 holds 30-50 (2/3): neither holds it all.
    assert SpanResolver({"d": TEXT}).qrels([split], THREE) == {"q1": {"c0": 1, "c1": 1}}
    assert SpanResolver({"d": TEXT}, grade_rule=GradeRule(full_fraction=0.6)).qrels([split], THREE) == {
        "q1": {"c0": 2, "c1": 2}
    }


def test_a_chunk_overlapping_several_spans_takes_the_highest_grade() -> None:
    two = cg.EvalItem(
        id="q1",
        question="?",
        gold=(cg.GoldSpan(cg.Span("d", 0, 10), grade=1), cg.GoldSpan(cg.Span("d", 35, 45), grade=3)),
    )
    # c0: whole grade-1 span (1) and half the grade-3 span (partial 1); c1: whole grade-3 span (3).
    assert SpanResolver({"d": TEXT}).qrels([two], THREE) == {"q1": {"c0": 1, "c1": 3}}


def test_every_item_is_listed_and_one_without_gold_maps_to_nothing_which_evaluate_leaves_out() -> None:
    lost = cg.EvalItem(id="lost", question="?", anchors=(cg.Anchor("d", "not there"),))
    resolver = SpanResolver({"d": TEXT})
    qrels = resolver.qrels([lost, GOLD], THREE)
    assert qrels == {"lost": {}, "q1": {"c0": 1, "c1": 2, "c2": 1}}
    assert list(qrels) == ["lost", "q1"]
    run = {"lost": ["c0"], "q1": ["c1", "c0"]}
    assert cg.evaluate(qrels, run, ks=[1]) == cg.evaluate({"q1": qrels["q1"]}, run, ks=[1])


def test_chunks_are_listed_in_the_order_given() -> None:
    reversed_chunks = list(reversed(THREE))
    assert list(SpanResolver({"d": TEXT}).qrels([GOLD], reversed_chunks)["q1"]) == ["c2", "c1", "c0"]


def test_a_gold_span_no_chunk_covers_is_reported() -> None:
    far = cg.EvalItem(id="q1", question="?", gold=(cg.GoldSpan(cg.Span("d", 0, 40)), cg.GoldSpan(cg.Span("e", 0, 5))))
    log = cg.WarningLog()
    resolver = SpanResolver({"d": TEXT, "e": "hello"}, grade_rule=GradeRule(min_fraction=0.5))
    assert resolver.qrels([far], THREE[1:], warnings=log) == {"q1": {}}
    assert [str(entry) for entry in log] == [
        "CAUTION [resolve] (q1): no chunk holds at least 0.5 of gold span 1 (0-40 of doc 'd'), so this chunking "
        "has no relevant chunk for it",
        "CAUTION [resolve] (q1): no chunk holds any of gold span 2 (0-5 of doc 'e'), so this chunking has no "
        "relevant chunk for it",
    ]


def test_documents_and_empty_inputs() -> None:
    resolver = SpanResolver({"d": TEXT})
    assert resolver.qrels([], THREE) == {}
    assert resolver.qrels([GOLD], []) == {"q1": {}}


@pytest.mark.parametrize(
    ("items", "chunks", "message"),
    [
        ([GOLD], [*THREE, THREE[0]], "chunk ids must be distinct, repeated: 'c0' (chunks[0] and chunks[3])"),
        ([GOLD], [cg.Chunk("z", cg.Span("zz", 0, 4), "")], "spans 0-4 of doc 'zz', which is not one of this"),
        ([GOLD], [cg.Chunk("z", cg.Span("d", 90, 140), "")], "spans 90-140 of doc 'd', which has 100 characters"),
        ([GOLD], ["c0"], "The 'chunks[0]' parameter of SpanResolver.qrels must be a Chunk. Got 'c0' instead."),
        (
            [GOLD, GOLD],
            THREE,
            "SpanResolver.qrels: question ids must be distinct, repeated: 'q1' (items[0] and items[1])",
        ),
        (["q1"], THREE, "The 'items[0]' parameter of SpanResolver.qrels must be an EvalItem. Got 'q1' instead."),
        (
            [cg.EvalItem(id="q9", question="?", gold=(cg.GoldSpan(cg.Span("d", 50, 150)),))],
            THREE,
            "item 'q9' gold span 1 (50-150 of doc 'd') is not a non-empty span of this resolver's documents; pass "
            "the items through resolve() first",
        ),
    ],
)
def test_bad_qrels_input_is_refused_with_what_and_where(
    items: list[object], chunks: list[object], message: str
) -> None:
    with pytest.raises(ContextGridError) as error:
        SpanResolver({"d": TEXT}).qrels(items, chunks)  # type: ignore[arg-type]
    assert message in str(error.value)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: SpanResolver(["d"]), "The 'documents' parameter of SpanResolver must be a mapping"),  # type: ignore[arg-type]
        (lambda: SpanResolver({"d": 3}), "the text of document 'd' must be a str, got int"),  # type: ignore[dict-item]
        (lambda: SpanResolver({"": "x"}), "document ids must be non-empty str, got ''"),
        (lambda: SpanResolver({"d": "x"}, grade_rule=0.5), "The 'grade_rule' parameter of SpanResolver"),  # type: ignore[arg-type]
        (lambda: SpanResolver({"d": "x"}).resolve(GOLD), "The 'items' parameter of SpanResolver.resolve"),  # type: ignore[arg-type]
        (
            lambda: SpanResolver({"d": "x"}).resolve([GOLD, 1]),
            "The 'items[1]' parameter of SpanResolver.resolve must be an EvalItem. Got 1 instead.",
        ),  # type: ignore[list-item]
    ],
)
def test_bad_resolver_input_is_refused(call: object, message: str) -> None:
    with pytest.raises(ContextGridError) as error:
        call()  # type: ignore[operator]
    assert message in str(error.value)


# -- against a brute-force reference -----------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    documents: dict[str, str]
    chunks: list[cg.Chunk]
    items: list[cg.EvalItem]
    rule: GradeRule


@st.composite
def layouts(draw: st.DrawFn) -> Layout:
    documents = {doc: "x" * draw(st.integers(1, 60)) for doc in ("a", "b", "c")}

    def span(doc: str) -> cg.Span:
        start = draw(st.integers(0, len(documents[doc])))
        return cg.Span(doc, start, draw(st.integers(start, len(documents[doc]))))

    chunks = [
        cg.Chunk(f"c{n}", span(draw(st.sampled_from(sorted(documents)))), "") for n in range(draw(st.integers(0, 12)))
    ]
    items = []
    for n in range(draw(st.integers(0, 4))):
        gold = []
        for _ in range(draw(st.integers(0, 3))):
            doc = draw(st.sampled_from(sorted(documents)))
            start = draw(st.integers(0, len(documents[doc]) - 1))
            end = draw(st.integers(start + 1, len(documents[doc])))
            gold.append(cg.GoldSpan(cg.Span(doc, start, end), grade=draw(st.integers(0, 3))))
        items.append(cg.EvalItem(id=f"q{n}", question="?", gold=tuple(gold)))
    full = draw(st.sampled_from([1.0, 0.9, 0.5, 1 / 3]))
    rule = GradeRule(
        full_fraction=full,
        partial_grade=draw(st.integers(0, 3)),
        min_fraction=draw(st.sampled_from([0.0, 0.1, 0.25])) if full > 0.25 else 0.0,
    )
    return Layout(documents, chunks, items, rule)


def reference_qrels(layout: Layout) -> dict[str, dict[str, int]]:
    rule = layout.rule
    qrels: dict[str, dict[str, int]] = {}
    for evidence in layout.items:
        judged: dict[str, int] = {}
        for chunk in layout.chunks:
            for gold in evidence.gold:
                if chunk.span.doc_id != gold.span.doc_id:
                    continue
                shared = len(set(range(chunk.span.start, chunk.span.end)) & set(range(gold.span.start, gold.span.end)))
                held = shared / len(gold.span)
                if shared == 0 or held < rule.min_fraction:
                    continue
                grade = gold.grade if held >= rule.full_fraction else min(rule.partial_grade, gold.grade)
                judged[chunk.id] = max(grade, judged.get(chunk.id, -1))
        qrels[evidence.id] = judged
    return qrels


@given(layouts())
def test_qrels_match_every_span_against_every_chunk(layout: Layout) -> None:
    got = SpanResolver(layout.documents, grade_rule=layout.rule).qrels(layout.items, layout.chunks)
    expected = reference_qrels(layout)
    assert got == expected
    assert [list(judged) for judged in got.values()] == [list(judged) for judged in expected.values()]
    for judged in got.values():
        assert all(type(grade) is int for grade in judged.values())


# -- with real chunkers ------------------------------------------------------------------------------


@given(
    st.lists(
        st.sampled_from(["Refunds take 30 days.", "Fees apply.", "Ask first!", "\n\n", " ", "Thanks"]), max_size=30
    ),
    st.sampled_from([FixedCharChunker(size=20, overlap=5), SentenceChunker(size=40), RecursiveChunker(size=25)]),
)
def test_resolved_quotes_are_inside_the_chunks_that_get_their_full_grade(
    pieces: list[str], chunker: FixedCharChunker | SentenceChunker | RecursiveChunker
) -> None:
    documents = {"doc": "".join(pieces)}
    quotes = ["Refunds take 30 days.", "Fees apply.", "Ask first!"]
    items = [cg.EvalItem(id=q, question="?", anchors=(cg.Anchor("doc", q),)) for q in quotes]
    resolver = SpanResolver(documents)
    resolved = resolver.resolve(items)
    chunks = {chunk.id: chunk for chunk in chunk_documents(documents, chunker)}
    qrels = resolver.qrels(resolved, chunks.values())
    for evidence in resolved:
        assert evidence.is_resolved == (documents["doc"].count(evidence.id) == 1)
        # The chunks cover the document, so resolved evidence is always in some chunk.
        assert bool(qrels[evidence.id]) == evidence.is_resolved
        for chunk_id, grade in qrels[evidence.id].items():
            assert (grade == 2) == (evidence.id in chunks[chunk_id].text)
