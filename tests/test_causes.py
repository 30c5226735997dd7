"""Why questions fail: the vectorised causes against a slow, obvious reference, hand-checked cases of every
cause and signal, the rule order, and the workspace-wide table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contextgrid as cg
from contextgrid.analysis.causes import (
    CAUSE_COLUMNS,
    CAUSES,
    cause_counts,
    content_words,
    question_causes,
    question_causes_only,
    question_hits,
)
from contextgrid.core.errors import ContextGridError, InvalidParameterError
from contextgrid.workspace.causes import failure_causes
from contextgrid.workspace.configuration import Configuration
from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.model import Workspace
from contextgrid.workspace.sample import SAMPLE

# ---------------------------------------------------------------------------------------------------------------
# The reference: the rules read literally, one question at a time, spans as sets of (document, offset).


def characters(span: cg.Span) -> set[tuple[str, int]]:
    return {(span.doc_id, offset) for offset in range(span.start, span.end)}


def runs_of(chars: set[tuple[str, int]]) -> list[tuple[str, int, int]]:
    """The characters as maximal runs of consecutive offsets: the merged gold spans."""
    found: list[tuple[str, int, int]] = []
    for doc, offset in sorted(chars):
        if found and found[-1][0] == doc and found[-1][2] == offset:
            found[-1] = (doc, found[-1][1], offset + 1)
        else:
            found.append((doc, offset, offset + 1))
    return found


def truncating(text: str) -> list[str]:
    """A stand-in stemmer for a lexical retriever: each word of the word rule cut to its first four letters."""
    return [word[:4] for word in sorted(content_words(text))]


def reference(
    items: Sequence[cg.EvalItem],
    chunks: Sequence[cg.Chunk],
    run: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Mapping[str, int]],
    documents: Mapping[str, str],
    k: int,
    threshold: float,
    partial: float = 0.5,
    analyzer: Any = None,
    dilution: float = 0.25,
    repeat: float = 0.8,
) -> list[dict[str, Any]]:
    by_id = {chunk.id: chunk for chunk in chunks}
    rows = []
    for item in items:
        gold: set[tuple[str, int]] = set()
        for entry in item.gold:
            if entry.grade > 0:
                gold |= characters(entry.span)
        evidence = any(entry.grade > 0 for entry in item.gold) or any(anchor.grade > 0 for anchor in item.anchors)
        ranking = list(run.get(item.id, []))
        judged = qrels.get(item.id, {})
        relevant_ranks = [rank for rank, chunk in enumerate(ranking, 1) if judged.get(chunk, 0) > 0]
        first = min(relevant_ranks) if relevant_ranks else None
        held = [len(gold & characters(chunk.span)) for chunk in chunks]
        best = max(range(len(chunks)), key=lambda i: (held[i], -i)) if chunks and gold and max(held) > 0 else None
        share = max(held, default=0) / len(gold) if gold else None
        top: set[tuple[str, int]] = set()
        for chunk_id in ranking[:k]:
            top |= characters(by_id[chunk_id].span)
        recall = len(top & gold) / len(gold) if gold else 0.0
        if not evidence:
            cause = "no_gold"
        elif not gold:
            cause = "unresolved"
        elif first is not None and first <= k and recall >= partial:
            cause = "hit"
        elif first is not None and first <= k:
            cause = "partial"
        elif share is not None and share < threshold:
            cause = "split"
        elif first is not None:
            cause = "ranked_low"
        else:
            cause = "not_retrieved"
        texts = [documents[doc][start:end] for doc, start, end in runs_of(gold)]
        passage: set[str] = set()
        for text in texts:
            passage |= content_words(text)
        row: dict[str, Any] = {
            "question": item.id,
            "cause": cause,
            "first_relevant_rank": first,
            "best_chunk_share": share,
            "vocabulary_gap": None,
            "distractor": None,
            "distractor_rank": None,
            "distractor_similarity": None,
            "gold_share_of_top_k": None,
            "gold_recall_at_k": None,
            "retrieved": len(ranking),
            "gold_density": None,
            "diluted": None,
            "distractors": None,
            "smallest_k": None,
            "smallest_budget": None,
        }
        if cause in ("ranked_low", "not_retrieved"):
            if analyzer is not None:
                terms = {term for text in texts for term in analyzer(text)}
                row["vocabulary_gap"] = not (set(analyzer(item.question)) & terms)
            assert best is not None
            density = held[best] / len(chunks[best].span)
            row["gold_density"], row["diluted"] = density, density < dilution
            asked = content_words(item.question)
            bar = len(asked & content_words(chunks[best].text))
            closest: tuple[float, int, str] | None = None
            count = 0
            for rank, chunk_id in enumerate(ranking, 1):
                if (first is not None and rank >= first) or judged.get(chunk_id, 0) > 0:
                    continue
                text = content_words(by_id[chunk_id].text)
                similarity = len(text & passage) / len(text | passage) if text | passage else 0.0
                count += len(asked & text) > bar or similarity >= repeat
                if not text & passage:
                    continue
                if closest is None or similarity > closest[0]:
                    closest = (similarity, rank, chunk_id)
            row["distractors"] = count
            if closest is not None:
                row["distractor_similarity"], row["distractor_rank"], row["distractor"] = closest
        if cause in ("hit", "partial"):
            row["gold_share_of_top_k"] = len(top & gold) / len(top) if top else 0.0
            row["gold_recall_at_k"] = recall
        if cause in ("split", "ranked_low", "not_retrieved") and first is not None:
            row["smallest_k"] = first
            row["smallest_budget"] = sum(len(by_id[chunk_id].text) for chunk_id in ranking[:first])
        rows.append(row)
    return rows


def plain(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The frame's rows as dicts, NA as None and numbers as Python numbers."""
    return [
        {column: (None if pd.isna(value) else value.item() if hasattr(value, "item") else value)
         for column, value in row.items()}
        for row in frame.astype(object).to_dict("records")
    ]  # fmt: skip


def causes(frame: pd.DataFrame) -> list[str]:
    return [str(cause) for cause in frame["cause"]]


# ---------------------------------------------------------------------------------------------------------------
# Random small inputs: few words, so passages, questions and chunks share words often; spans that overlap,
# touch, are empty or have grade 0; rankings that miss questions; qrels that disagree with the spans.

WORDS = ["refund", "Refunds", "days", "the", "a", "fee", "return", "item's", "[2]", "30", "ship", "of"]


@st.composite
def inputs(draw: st.DrawFn) -> tuple[Any, ...]:
    documents = {
        doc: " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=3, max_size=14))) for doc in ("a.md", "b.md")
    }
    chunks = []
    for position in range(draw(st.integers(1, 7))):
        doc = draw(st.sampled_from(sorted(documents)))
        start = draw(st.integers(0, len(documents[doc])))
        end = draw(st.integers(start, len(documents[doc])))
        chunks.append(cg.Chunk(f"c{position}", cg.Span(doc, start, end), documents[doc][start:end]))
    items = []
    for position in range(draw(st.integers(1, 6))):
        gold = []
        for _ in range(draw(st.integers(0, 3))):
            doc = draw(st.sampled_from(sorted(documents)))
            start = draw(st.integers(0, len(documents[doc])))
            end = draw(st.integers(start, min(start + 30, len(documents[doc]))))
            gold.append(cg.GoldSpan(cg.Span(doc, start, end), grade=draw(st.integers(0, 2))))
        anchors = [cg.Anchor("a.md", "x", grade=draw(st.integers(0, 2))) for _ in range(draw(st.integers(0, 1)))]
        question = " ".join(draw(st.lists(st.sampled_from(WORDS), max_size=4)))
        items.append(cg.EvalItem(f"q{position}", question, tuple(gold), tuple(anchors)))
    ids = [chunk.id for chunk in chunks]
    run = {
        item.id: draw(st.lists(st.sampled_from(ids), unique=True, max_size=len(ids)))
        for item in items
        if draw(st.booleans())
    }
    qrels = {
        item.id: draw(st.dictionaries(st.sampled_from(ids), st.integers(0, 2), max_size=3))
        for item in items
        if draw(st.booleans())
    }
    k = draw(st.integers(1, 4))
    fraction = st.sampled_from([0.25, 0.5, 1.0]) | st.floats(0.01, 1.0)
    threshold, partial, dilution, repeat = (draw(fraction) for _ in range(4))
    analyzer = draw(st.sampled_from([None, truncating]))
    options = {"partial": partial, "analyzer": analyzer, "dilution": dilution, "repeat": repeat}
    return items, chunks, run, qrels, documents, k, threshold, options


@settings(max_examples=300, deadline=None)
@given(inputs())
def test_the_vectorised_causes_equal_the_reference_on_random_inputs(case: tuple[Any, ...]) -> None:
    items, chunks, run, qrels, documents, k, threshold, options = case
    frame = question_causes(
        items,
        chunks,
        run,
        qrels,
        documents,
        k=k,
        split_threshold=threshold,
        partial_threshold=options["partial"],
        analyzer=options["analyzer"],
        dilution_threshold=options["dilution"],
        repeat_threshold=options["repeat"],
    )
    assert tuple(frame.columns) == CAUSE_COLUMNS
    assert plain(frame) == reference(items, chunks, run, qrels, documents, k, threshold, **options)


@settings(max_examples=300, deadline=None)
@given(inputs())
def test_the_causes_without_signals_equal_the_references_causes(case: tuple[Any, ...]) -> None:
    items, chunks, run, qrels, documents, k, threshold, options = case
    frame = question_causes_only(
        items, chunks, run, qrels, documents, k=k, split_threshold=threshold, partial_threshold=options["partial"]
    )
    expected = reference(items, chunks, run, qrels, documents, k, threshold, **options)
    assert list(frame.columns) == ["question", "cause"]
    assert plain(frame) == [{"question": row["question"], "cause": row["cause"]} for row in expected]


@settings(max_examples=300, deadline=None)
@given(inputs())
def test_the_hits_alone_are_the_references_hits(case: tuple[Any, ...]) -> None:
    items, chunks, run, qrels, documents, k, threshold, options = case
    hits = question_hits(items, chunks, run, qrels, documents, k=k, partial_threshold=options["partial"])
    expected = reference(items, chunks, run, qrels, documents, k, threshold, **options)
    assert hits.dtype == bool
    assert hits.tolist() == [row["cause"] == "hit" for row in expected]


# ---------------------------------------------------------------------------------------------------------------
# Hand-checked cases: one document, offsets counted by hand.

TEXT = "Refunds take thirty days. Shipping costs five dollars. Refunds of sale items take ninety days."
#       0         1         2         3         4         5         6         7         8         9
#       0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123
DOCS = {"d": TEXT}


def chunk(name: str, start: int, end: int) -> cg.Chunk:
    return cg.Chunk(name, cg.Span("d", start, end), TEXT[start:end])


SENTENCES = [chunk("s0", 0, 25), chunk("s1", 26, 54), chunk("s2", 55, 94)]


def item(question: str, *spans: tuple[int, int], anchors: int = 0, name: str = "q") -> cg.EvalItem:
    gold = tuple(cg.GoldSpan(cg.Span("d", start, end)) for start, end in spans)
    return cg.EvalItem(name, question, gold, tuple(cg.Anchor("d", "x") for _ in range(anchors)))


def one(question: cg.EvalItem, run: list[str], qrels: dict[str, int], **options: Any) -> dict[str, Any]:
    frame = question_causes(
        [question], options.pop("chunks", SENTENCES), {question.id: run}, {question.id: qrels}, DOCS, **options
    )
    return plain(frame)[0]


def test_no_gold_comes_first_even_with_an_empty_ranking_and_no_qrels() -> None:
    row = one(item("Who founded it?"), [], {})
    assert row["cause"] == "no_gold"
    assert row.pop("retrieved") == 0
    assert [row[column] for column in CAUSE_COLUMNS[2:] if column != "retrieved"] == [None] * 13


def test_gold_of_grade_zero_only_is_no_gold() -> None:
    question = cg.EvalItem("q", "?", (cg.GoldSpan(cg.Span("d", 0, 25), grade=0),))
    assert one(question, ["s0"], {"s0": 2})["cause"] == "no_gold"


def test_anchors_never_found_are_unresolved_even_when_a_judged_chunk_is_ranked_first() -> None:
    row = one(item("How long?", anchors=1), ["s0"], {"s0": 2})
    assert (row["cause"], row["first_relevant_rank"], row["best_chunk_share"]) == ("unresolved", 1, None)


def test_hit_gives_the_gold_share_of_the_distinct_top_k_characters() -> None:
    # Gold 0-25 (s0); top 2 = s0 (25 characters) and s1 (28): 25 of 53 are gold.
    row = one(item("How long do refunds take?", (0, 25)), ["s1", "s0", "s2"], {"s0": 2}, k=2)
    assert (row["cause"], row["first_relevant_rank"], row["best_chunk_share"]) == ("hit", 2, 1.0)
    assert row["gold_share_of_top_k"] == 25 / 53
    assert (row["vocabulary_gap"], row["distractor"], row["distractor_rank"]) == (None, None, None)


def test_hit_wins_over_split_the_rule_order() -> None:
    # Gold 20-30 is 5 characters in s0 (20-25) and 4 in s1 (26-30): best share 5/10 < 0.6, yet s0 is ranked 1st.
    row = one(item("?", (20, 30)), ["s0"], {"s0": 1}, k=1, split_threshold=0.6)
    assert (row["cause"], row["best_chunk_share"]) == ("hit", 0.5)


def test_exactly_the_threshold_is_not_split_and_just_below_is() -> None:
    # Gold 20-30 (10 characters): s0 holds 20-25, 5 of them, exactly half.
    question = item("?", (20, 30))
    assert one(question, ["s2", "s0"], {"s0": 2}, k=1)["cause"] == "ranked_low"
    assert one(question, ["s2", "s0"], {"s0": 2}, k=1, split_threshold=0.51)["cause"] == "split"
    assert one(question, [], {}, k=1, split_threshold=0.5)["cause"] == "not_retrieved"


def test_split_counts_overlapping_gold_once_and_looks_at_every_chunk_retrieved_or_not() -> None:
    # Gold 0-40 given twice, overlapping (0-30, 10-40): 40 characters, s0 holds 25 of them.
    question = item("?", (0, 30), (10, 40))
    row = one(question, [], {}, split_threshold=0.7)
    assert (row["cause"], row["best_chunk_share"]) == ("split", 25 / 40)
    assert one(question, [], {}, split_threshold=0.625)["cause"] == "not_retrieved"


def test_ranked_low_finds_the_first_relevant_rank_past_k_and_the_closest_chunk_above_it() -> None:
    # Gold is s2 ("Refunds of sale items take ninety days.": 6 content words); s0 ("Refunds take thirty
    # days.": 4) shares refunds, take, days: 3 of the 7 words of either. s1 shares none.
    row = one(item("How long for sale items?", (55, 94)), ["s1", "s0", "s2"], {"s2": 2}, k=2)
    assert (row["cause"], row["first_relevant_rank"]) == ("ranked_low", 3)
    assert (row["distractor"], row["distractor_rank"], row["distractor_similarity"]) == ("s0", 2, 3 / 7)
    assert row["vocabulary_gap"] is None
    assert row["gold_share_of_top_k"] is None


def test_distractor_ties_go_to_the_better_rank() -> None:
    twins = [*SENTENCES, chunk("t0", 0, 25)]  # t0 has s0's text: the same similarity
    row = one(item("?", (55, 94)), ["s1", "t0", "s0", "s2"], {"s2": 2}, k=1, chunks=twins)
    assert (row["distractor"], row["distractor_rank"], row["distractor_similarity"]) == ("t0", 2, 3 / 7)
    row = one(item("?", (55, 94)), ["s0", "t0"], {}, chunks=twins)
    assert (row["cause"], row["distractor"], row["distractor_rank"]) == ("not_retrieved", "s0", 1)


def test_only_chunks_above_the_first_relevant_rank_can_be_distractors() -> None:
    # s0 is below the relevant s2: for ranked_low there is no chunk above it sharing a word (s1 shares none).
    row = one(item("?", (55, 94)), ["s1", "s2", "s0"], {"s2": 2}, k=1)
    assert (row["cause"], row["first_relevant_rank"], row["distractor"]) == ("ranked_low", 2, None)
    assert (row["distractor_rank"], row["distractor_similarity"]) == (None, None)


def test_not_retrieved_takes_its_distractor_from_the_whole_ranking_and_flags_a_lexical_gap() -> None:
    # The question's content words (long, wait, discounted, goods) share none of the gold passage's.
    question = item("How long must I wait for discounted goods?", (55, 94))
    row = one(question, ["s1", "s0"], {}, k=1, analyzer=content_words)
    assert (row["cause"], row["first_relevant_rank"], row["vocabulary_gap"]) == ("not_retrieved", None, True)
    assert (row["distractor"], row["distractor_rank"]) == ("s0", 2)
    # "items" is a content word of both: no gap.
    assert one(item("Which items take longest?", (55, 94)), [], {}, analyzer=content_words)["vocabulary_gap"] is False
    # A retriever that does not match words (no analyzer) is told nothing of a lexical gap.
    assert one(question, ["s1", "s0"], {}, k=1)["vocabulary_gap"] is None


def test_the_lexical_gap_uses_the_retrievers_own_stemming() -> None:
    # "refund" and "Refunds" are different words, one term once stemmed by BM25's analyzer.
    from contextgrid.index.bm25 import Analyzer

    question = item("Can I get a refund?", (0, 25))
    assert one(question, [], {}, analyzer=content_words)["vocabulary_gap"] is True
    assert one(question, [], {}, analyzer=Analyzer())["vocabulary_gap"] is False
    assert one(question, [], {}, analyzer=Analyzer(stemmer=None))["vocabulary_gap"] is True


def test_stop_words_do_not_bridge_a_vocabulary_gap() -> None:
    assert one(item("Of the?", (55, 94)), [], {}, analyzer=content_words)["vocabulary_gap"] is True
    assert content_words("Of the sale") == {"sale"}


def test_partial_is_a_relevant_chunk_in_the_top_k_holding_less_than_the_share_of_the_gold() -> None:
    # Gold 0-54 (54 characters): s0 holds 0-25, 25 of them (46%); s0 and s1 together hold 53 (98%).
    question = item("How long do refunds take?", (0, 54))
    row = one(question, ["s0", "s2", "s1"], {"s0": 2, "s1": 2}, k=2, split_threshold=0.4)
    assert (row["cause"], row["gold_recall_at_k"]) == ("partial", 25 / 54)
    assert row["smallest_k"] is None
    assert one(question, ["s0", "s2", "s1"], {"s0": 2, "s1": 2}, k=3, split_threshold=0.4)["cause"] == "hit"
    # The share is a keyword: at 0.4, 46% is enough.
    assert one(question, ["s0"], {"s0": 2}, k=1, partial_threshold=0.4)["cause"] == "hit"
    assert one(question, ["s0"], {"s0": 2}, k=1, partial_threshold=0.47)["cause"] == "partial"


def test_dilution_is_the_golds_share_of_the_chunk_holding_most_of_it() -> None:
    # Gold 60-65 ("of sa", 5 characters) sits in s2 (39 characters): 5/39 < 0.25.
    row = one(item("?", (60, 65)), ["s0"], {}, k=1)
    assert (row["cause"], row["gold_density"], row["diluted"]) == ("not_retrieved", 5 / 39, True)
    assert one(item("?", (55, 94)), [], {})["diluted"] is False
    assert one(item("?", (60, 65)), [], {}, dilution_threshold=0.1)["diluted"] is False


def test_distractors_share_more_question_words_than_the_gold_chunk_or_repeat_the_gold() -> None:
    # Question words: refunds, take, thirty. The gold chunk s2 shares refunds, take (2); s0 shares all 3.
    twins = [*SENTENCES, chunk("t2", 55, 94)]  # t2 repeats the gold's text but is not judged
    question = item("Refunds take thirty?", (55, 94))
    row = one(question, ["s1", "s0", "t2", "s2"], {"s2": 2}, k=1, chunks=twins)
    assert (row["cause"], row["first_relevant_rank"], row["distractors"]) == ("ranked_low", 4, 2)
    assert (row["distractor"], row["distractor_similarity"]) == ("t2", 1.0)
    assert (row["smallest_k"], row["smallest_budget"]) == (4, 28 + 25 + 39 + 39)
    # Below the gold nothing counts; at repeat 1.0 the twin still counts (similarity exactly 1).
    assert one(question, ["s2", "s0"], {"s2": 2}, k=1, chunks=twins)["cause"] == "hit"
    assert one(question, ["s1", "s2", "s0"], {"s2": 2}, k=1, chunks=twins)["distractors"] == 0


def test_bad_k_and_threshold_are_refused_naming_the_parameter() -> None:
    question = [item("?", (0, 5))]
    with pytest.raises(InvalidParameterError, match="'k' parameter of question_causes"):
        question_causes(question, SENTENCES, {}, {}, DOCS, k=2.5)  # type: ignore[arg-type]
    with pytest.raises(ContextGridError, match="cut-off k must be at least 1"):
        question_causes(question, SENTENCES, {}, {}, DOCS, k=0)
    for bad in (0, 0.0, -0.5, 1.5, float("nan"), True, "0.5"):
        for name in ("split_threshold", "partial_threshold", "dilution_threshold", "repeat_threshold"):
            with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of question_causes"):
                question_causes(question, SENTENCES, {}, {}, DOCS, **{name: bad})
    with pytest.raises(InvalidParameterError, match="'analyzer' parameter of question_causes"):
        question_causes(question, SENTENCES, {}, {}, DOCS, analyzer="bm25")  # type: ignore[arg-type]
    assert one(item("?", (0, 25)), [], {}, split_threshold=1)["cause"] == "not_retrieved"


def test_inputs_that_disagree_are_refused() -> None:
    with pytest.raises(ContextGridError, match="returns chunk 'zz' at rank 1, which is not among the 3 chunks"):
        question_causes([item("?", (0, 5))], SENTENCES, {"q": ["zz"]}, {}, DOCS)
    with pytest.raises(ContextGridError, match="question ids must be distinct"):
        question_causes([item("?"), item("?")], SENTENCES, {}, {}, DOCS)
    with pytest.raises(ContextGridError, match=r"document 'elsewhere\.md', which is not among the documents"):
        question_causes([cg.EvalItem("q", "?", (cg.GoldSpan(cg.Span("elsewhere.md", 0, 3)),))], [], {}, {}, DOCS)


def test_rows_follow_the_items_and_the_dtypes_hold_missing_values() -> None:
    items = [item("?", (0, 25), name="z9"), item("?", name="a1"), item("?", (55, 94), name="m5")]
    frame = question_causes(items, SENTENCES, {"z9": ["s0"], "m5": ["s0"]}, {"z9": {"s0": 2}}, DOCS)
    assert frame["question"].tolist() == ["z9", "a1", "m5"]
    assert causes(frame) == ["hit", "no_gold", "not_retrieved"]
    assert frame["cause"].cat.ordered
    assert list(frame["cause"].cat.categories) == list(CAUSES)
    assert str(frame["first_relevant_rank"].dtype) == "Int64"
    assert str(frame["vocabulary_gap"].dtype) == "boolean"
    assert frame["best_chunk_share"].isna().tolist() == [False, True, False]


# ---------------------------------------------------------------------------------------------------------------
# The workspace-wide table and its summary.


def test_failure_causes_over_the_sample_has_a_row_per_configuration_and_question_in_order() -> None:
    workspace = load_workspace(SAMPLE)
    table = failure_causes(workspace, k=5)
    questions = [question.id for question in workspace.questions]
    assert len(table) == len(workspace.names) * len(questions) == 2740
    assert list(dict.fromkeys(table["config"])) == list(workspace.names)
    assert table.loc[table["config"] == workspace.names[3], "question"].tolist() == questions
    counts = cause_counts(table)
    assert list(counts.columns) == list(CAUSES)
    assert (counts.sum(axis=1) == len(questions)).all()
    assert (counts["no_gold"] == sum(not (q.gold or q.anchors) for q in workspace.questions)).all()
    assert (counts["unresolved"] == 0).all()
    # hit or partial is exactly "a relevant chunk in the top k": hit_rate@5 over the questions the qrels score.
    scores = workspace.per_query("hit_rate", 5)
    for name in workspace.names:
        hits = table[(table["config"] == name) & table["cause"].isin(["hit", "partial"])]["question"]
        assert set(hits) == set(scores.index[scores[name] == 1.0])


def test_failure_causes_takes_the_configurations_asked_for_in_that_order() -> None:
    workspace = load_workspace(SAMPLE)
    names = [workspace.names[2], workspace.names[0]]
    table = failure_causes(workspace, configs=names, k=3, split_threshold=0.9)
    assert list(dict.fromkeys(table["config"])) == names
    with pytest.raises(ContextGridError, match=r"no configuration named 'nope'\. Available: bm25-recursive-200-0"):
        failure_causes(workspace, configs=["nope"])
    with pytest.raises(InvalidParameterError, match="'split_threshold' parameter of failure_causes"):
        failure_causes(workspace, split_threshold=2)
    with pytest.raises(InvalidParameterError, match="'configs' parameter of failure_causes"):
        failure_causes(workspace, configs="bm25-recursive-200-0")


def test_a_workspace_without_questions_documents_or_chunks_is_told_what_is_missing(tmp_path: Path) -> None:
    runs_only = Workspace("w", tmp_path, (Configuration("bm25", {}, run=tmp_path / "r", qrels=tmp_path / "q"),))
    assert runs_only.missing_evidence() == ("documents", "questions", "chunks (for bm25)")
    with pytest.raises(ContextGridError, match="has no documents, no questions, no chunks \\(for bm25\\)"):
        failure_causes(runs_only)


def test_cause_counts_keeps_every_cause_and_refuses_unknown_ones() -> None:
    table = pd.DataFrame({"config": ["x"], "cause": ["split"]})
    assert cause_counts(table).loc["x"].tolist() == [0, 0, 0, 0, 1, 0, 0]
    with pytest.raises(ContextGridError, match="unknown causes \\['missed'\\]"):
        cause_counts(pd.DataFrame({"config": ["x"], "cause": ["missed"]}))
    with pytest.raises(ContextGridError, match="no 'config' column"):
        cause_counts(pd.DataFrame({"cause": ["hit"]}))


def test_hit_elsewhere_counts_the_other_configurations_that_make_the_question_a_hit() -> None:
    table = failure_causes(load_workspace(SAMPLE), k=3)
    hits: dict[str, set[str]] = {}
    for config, question, cause in zip(table["config"], table["question"], table["cause"], strict=True):
        if cause == "hit":
            hits.setdefault(question, set()).add(config)
    for row in table.itertuples(index=False):
        if row.cause in ("no_gold", "unresolved", "hit"):
            assert pd.isna(row.hit_elsewhere)
        else:
            assert row.hit_elsewhere == len(hits.get(row.question, set()) - {row.config})


def test_the_lexical_gap_is_told_for_lexical_retrievers_only() -> None:
    workspace = load_workspace(SAMPLE)
    table = failure_causes(workspace, k=5)
    lexical = table["config"].map(lambda name: workspace.config(name).params.get("retriever") in ("bm25", "hybrid"))
    missed = table["cause"].isin(["ranked_low", "not_retrieved"])
    assert table.loc[~lexical | ~missed, "vocabulary_gap"].isna().all()
    assert table.loc[lexical & missed, "vocabulary_gap"].notna().all()


def test_a_sliver_of_gold_in_the_top_k_is_no_hit() -> None:
    # The gold is 0..54 (54 characters); s0 holds 25 of them, s0 and s1 together 53.
    items = [item("How long do refunds take?", (0, 54))]
    chunks, qrels = SENTENCES, {"q": {"s0": 1, "s1": 1}}
    assert question_hits(items, chunks, {"q": ["s0", "s2"]}, qrels, DOCS, k=2).tolist() == [False]
    assert question_hits(items, chunks, {"q": ["s0", "s1"]}, qrels, DOCS, k=2).tolist() == [True]
    assert question_hits(items, chunks, {"q": ["s0", "s1"]}, qrels, DOCS, k=1).tolist() == [False]
    assert question_hits(items, chunks, {"q": ["s0"]}, qrels, DOCS, k=1, partial_threshold=0.4).tolist() == [True]
    with pytest.raises(InvalidParameterError, match="'partial_threshold' parameter of question_hits"):
        question_hits(items, chunks, {}, qrels, DOCS, partial_threshold=0)
