"""Every example of the published Metrics page, printing exactly what the page shows.

The code of each test is the page's example; the expected text is the page's
output. Where the page wraps a long message over several comment lines, the
real message is one line with single spaces.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import pytest

import contextgrid as cg
from contextgrid.index.base import Scored

QRELS = {"q1": {"c1": 2, "c2": 1, "c3": 0}, "q2": {"c4": 2}}
RUN = {"q1": ["c3", "c1", "c5", "c2"], "q2": ["c9", "c4", "c1"]}

Capture = pytest.CaptureFixture[str]


def printed(capsys: Capture) -> str:
    return capsys.readouterr().out


def test_available_metrics_lists_the_six_builtins(capsys: Capture) -> None:
    print(cg.available_metrics())
    assert printed(capsys) == "('hit_rate', 'map', 'mrr', 'ndcg', 'precision', 'recall')\n"


def test_a_repeated_chunk_id_is_refused_naming_the_question_and_the_id(capsys: Capture) -> None:
    try:
        cg.evaluate({"qa": {"c1": 2, "c2": 2}}, {"qa": ["c1", "c1", "c1", "c2"]}, ks=[3])
    except ValueError as e:
        print(e)
    assert printed(capsys) == (
        "the run for query 'qa' returns the same chunk id more than once: 'c1'. A ranking is a list "
        "of distinct chunks, and scoring one with repeats in it would report a retriever's bug as a "
        "score. De-duplicate the ranking, keeping each chunk at its best position.\n"
    )


def test_get_metric_returns_an_instance_shown_as_its_class(capsys: Capture) -> None:
    recall_metric = cg.get_metric("recall")
    print(recall_metric)
    assert printed(capsys) == "RecallMetric()\n"


def test_get_metric_refuses_a_name_with_a_cut_off(capsys: Capture) -> None:
    try:
        cg.get_metric("recall@5")
    except Exception as e:
        print(type(e).__name__, e)
    assert printed(capsys) == (
        "UnknownPluginError no metric named 'recall@5'. Available: hit_rate, map, mrr, ndcg, precision, recall\n"
    )


def test_default_ks_are_the_pages() -> None:
    DEFAULT_KS = (1, 3, 5, 10, 20)  # cg.DEFAULT_KS
    assert cg.DEFAULT_KS == DEFAULT_KS


def test_a_negative_k_is_refused(capsys: Capture) -> None:
    try:
        cg.evaluate({"q1": {"c1": 2}}, {"q1": ["c1"]}, ks=[-1], metrics=["recall"])
    except ValueError as e:
        print(e)
    assert printed(capsys) == (
        "cut-off k must be at least 1, got -1. A k of 0 or below is not a smaller top-k, it is a "
        "slice that means something else.\n"
    )


def test_evaluate_scores_every_metric_at_every_k_metric_major(capsys: Capture) -> None:
    qrels = {"q1": {"c1": 2, "c2": 1, "c3": 0}, "q2": {"c4": 2}}
    run = {"q1": ["c3", "c1", "c5", "c2"], "q2": ["c9", "c4", "c1"]}

    scores = cg.evaluate(qrels, run, ks=[1, 3], metrics=["recall", "ndcg"])
    print(scores)
    assert printed(capsys) == "{'recall@1': 0.0, 'recall@3': 0.75, 'ndcg@1': 0.0, 'ndcg@3': 0.5552773433538603}\n"


def test_empty_and_grade_0_judgements_score_the_same(capsys: Capture) -> None:
    run_two = {"q1": ["x"], "q2": ["c9"]}
    print(cg.evaluate({"q1": {"c1": 0}, "q2": {"c9": 2}}, run_two, ks=[3], metrics=["recall"]))
    print(cg.evaluate({"q1": {}, "q2": {"c9": 2}}, run_two, ks=[3], metrics=["recall"]))
    assert printed(capsys) == "{'recall@3': 1.0}\n{'recall@3': 1.0}\n"


def test_a_metric_that_raises_is_absent_and_logged(capsys: Capture) -> None:
    qrels, run = QRELS, RUN

    # A registered metric that raises partway through scoring -- not an unregistered name,
    # which would raise ValueError before scoring even starts.
    @dataclass(frozen=True, slots=True)
    class BrokenMetric:
        name: ClassVar[str] = "broken"
        version: ClassVar[str] = "1"

        def evaluate(self, judgements: Mapping[str, int], ranked: Sequence[str], k: int) -> float:
            raise RuntimeError("oops")

    cg.METRICS.register("broken")(BrokenMetric)

    warnings = cg.WarningLog()
    result = cg.evaluate(qrels, run, ks=[5], metrics=["recall", "broken"], warnings=warnings)
    print(result)
    for w in warnings.entries:
        print(w)
    assert printed(capsys) == (
        "{'recall@5': 1.0}\n"
        "CAUTION [score] (broken): the 'broken' metric raised RuntimeError('oops') and was left out "
        "of this run's results rather than silently scoring zero\n"
    )


def test_per_query_gives_one_score_per_question(capsys: Capture) -> None:
    qrels, run = QRELS, RUN
    pq = cg.per_query(qrels, run, "recall", 3)
    print(pq)
    assert printed(capsys) == "{'q1': 0.5, 'q2': 1.0}\n"


@pytest.fixture
def settlement() -> tuple[cg.EvalItem, cg.Chunk, cg.Chunk]:
    item = cg.EvalItem(
        id="q1",
        question="What was the settlement amount?",
        gold=(cg.GoldSpan(cg.Span("doc1", 100, 270)),),
    )

    # same evidence, retrieved two different ways
    big_chunk = cg.Chunk(id="c1", span=cg.Span("doc1", 0, 2000), text="x" * 2000)
    small_chunk = cg.Chunk(id="c2", span=cg.Span("doc1", 100, 270), text="x" * 170)
    return item, big_chunk, small_chunk


def test_character_precision_exposes_a_padded_chunk(
    settlement: tuple[cg.EvalItem, cg.Chunk, cg.Chunk], capsys: Capture
) -> None:
    item, big_chunk, small_chunk = settlement
    print(cg.character_recall(item, [big_chunk]), cg.character_precision(item, [big_chunk]))
    print(cg.character_recall(item, [small_chunk]), cg.character_precision(item, [small_chunk]))
    assert printed(capsys) == "1.0 0.085\n1.0 1.0\n"


def test_character_f1_is_the_harmonic_mean_of_the_two(settlement: tuple[cg.EvalItem, cg.Chunk, cg.Chunk]) -> None:
    item, big_chunk, small_chunk = settlement
    assert cg.character_f1(item, [big_chunk]) == pytest.approx(2 * 0.085 / 1.085, abs=1e-15)
    assert cg.character_f1(item, [small_chunk]) == 1.0


def test_retrieved_character_count_merges_overlaps(
    settlement: tuple[cg.EvalItem, cg.Chunk, cg.Chunk], capsys: Capture
) -> None:
    _, big_chunk, small_chunk = settlement
    print(cg.retrieved_character_count([big_chunk, small_chunk]))
    assert printed(capsys) == "2000\n"


def test_gold_coverage_by_chunk_scores_each_chunk_on_its_own(
    settlement: tuple[cg.EvalItem, cg.Chunk, cg.Chunk], capsys: Capture
) -> None:
    item, big_chunk, small_chunk = settlement
    print(cg.gold_coverage_by_chunk(item, [big_chunk, small_chunk]))
    assert printed(capsys) == "{'c1': 1.0, 'c2': 1.0}\n"


def test_coverage_fraction_counts_a_split_gold_span(capsys: Capture) -> None:
    gold = cg.Span("refund.md", 100, 200)  # 100 characters of evidence
    first = cg.Span("refund.md", 80, 150)  # covers 100-150
    second = cg.Span("refund.md", 150, 190)  # covers 150-190

    print(cg.coverage_fraction(gold, [first, second]))
    print(cg.coverage_fraction(gold, [first]))
    print(cg.coverage_fraction(gold, [cg.Span("other.md", 100, 200)]))
    assert printed(capsys) == "0.9\n0.5\n0.0\n"


@pytest.fixture
def searches() -> tuple[list[Scored], list[Scored]]:
    exact = [Scored("c1", 0.9), Scored("c2", 0.8), Scored("c3", 0.7)]
    approx = [Scored("c1", 0.9), Scored("c9", 0.75), Scored("c3", 0.7)]
    return exact, approx


def test_recall_against_exact_is_the_share_of_exacts_top_k_found(
    searches: tuple[list[Scored], list[Scored]], capsys: Capture
) -> None:
    exact, approx = searches
    print(cg.recall_against_exact(approx, exact, k=3))
    print(cg.recall_against_exact(approx, exact, k=1))
    assert printed(capsys) == "0.6666666666666666\n1.0\n"


def test_recall_against_an_empty_exact_list_is_1(searches: tuple[list[Scored], list[Scored]], capsys: Capture) -> None:
    _, approx = searches
    print(cg.recall_against_exact(approx, [], k=3))
    assert printed(capsys) == "1.0\n"


def test_scored_is_not_a_top_level_name() -> None:
    assert not hasattr(cg, "Scored")


@pytest.fixture
def refund() -> tuple[cg.EvalItem, cg.Chunk, cg.AssembledContext]:
    item = cg.EvalItem(
        id="q1",
        question="What is the refund window?",
        gold=(cg.GoldSpan(cg.Span("refund.md", 0, 46)),),
    )
    gold_chunk = cg.Chunk(
        id="g1",
        span=cg.Span("refund.md", 0, 46),
        text="Refunds are available within 30 days of purchase.",
    )
    context = cg.AssembledContext(
        text="Refunds are available within 30 days of purchase.",
        chunks=(gold_chunk,),
        tokens=12,
    )
    return item, gold_chunk, context


def test_a_grounded_cited_answer_scores_well(
    refund: tuple[cg.EvalItem, cg.Chunk, cg.AssembledContext], capsys: Capture
) -> None:
    item, gold_chunk, context = refund
    good = cg.Answer(text="Refunds are available within 30 days.", citations=(1,))
    print(cg.score_answer(item, good, context, gold_chunks=[gold_chunk]))
    assert printed(capsys) == (
        "AnswerScore(item_id='q1', groundedness=1.0, citation_accuracy=1.0, evidence_overlap=0.75, "
        "abstained=False, should_have_abstained=False, warnings=[])\n"
    )


def test_an_invented_answer_with_a_phantom_citation_is_warned_about(
    refund: tuple[cg.EvalItem, cg.Chunk, cg.AssembledContext], capsys: Capture
) -> None:
    item, gold_chunk, context = refund
    invented = cg.Answer(text="Contact the vendor by fax immediately.", citations=(1, 4))
    score = cg.score_answer(item, invented, context, gold_chunks=[gold_chunk])
    print(score.groundedness, score.citation_accuracy)
    for w in score.warnings:
        print("-", w)
    assert printed(capsys) == (
        "0.0 0.5\n"
        "- only 0% of the answer's words appear in the context it was given, so most of it came from "
        "somewhere else\n"
        "- cited passage(s) that were not in the context: [4]\n"
    )


def test_declining_with_nothing_to_answer_from_is_a_success(
    refund: tuple[cg.EvalItem, cg.Chunk, cg.AssembledContext], capsys: Capture
) -> None:
    item, _, _ = refund
    empty = cg.AssembledContext(text="", chunks=(), tokens=0)
    declined = cg.score_answer(item, cg.Answer(text="The passages do not contain the answer."), empty)
    print(declined.abstained, declined.should_have_abstained, declined.abstention_correct)
    assert printed(capsys) == "True True True\n"


def test_should_have_abstained_follows_is_resolved_not_is_answerable() -> None:
    lost = cg.EvalItem(id="q7", question="Who signs?", anchors=(cg.Anchor("c.md", "the Director"),))
    assert lost.is_answerable
    assert not lost.is_resolved
    chunk = cg.Chunk(id="c1", span=cg.Span("c.md", 0, 20), text="The contract is signed.")
    context = cg.AssembledContext(text=chunk.text, chunks=(chunk,), tokens=5)
    declined = cg.score_answer(lost, cg.Answer(text="The passages do not contain the answer."), context)
    assert (declined.abstained, declined.should_have_abstained, declined.abstention_correct) == (True, True, True)


def test_abstention_correct_is_a_property_not_a_field() -> None:
    fields = cg.AnswerScore.__dataclass_fields__
    assert list(fields) == [
        "item_id",
        "groundedness",
        "citation_accuracy",
        "evidence_overlap",
        "abstained",
        "should_have_abstained",
        "warnings",
    ]
    assert isinstance(cg.AnswerScore.abstention_correct, property)


def test_none_of_the_three_extra_scores_is_a_metric() -> None:
    for name in ("coverage_fraction", "recall_against_exact", "score_answer"):
        assert name not in cg.available_metrics()
        with pytest.raises(cg.UnknownPluginError):
            cg.evaluate(QRELS, RUN, ks=[1], metrics=[name])
