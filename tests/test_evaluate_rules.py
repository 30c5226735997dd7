"""Each rule the Metrics page states about evaluate(), per_query() and
mean_rank_of_first_relevant(), with hand-checked values."""

from __future__ import annotations

import copy
import warnings as python_warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest
from plugins import BrokenMetric

import contextgrid as cg

QRELS = {"q1": {"c1": 2, "c2": 1, "c3": 0}, "q2": {"c4": 2}}
RUN = {"q1": ["c3", "c1", "c5", "c2"], "q2": ["c9", "c4", "c1"]}

K_BELOW_1 = (
    "cut-off k must be at least 1, got {k}. A k of 0 or below is not a smaller top-k, it is a slice that means "
    "something else."
)
REPEATS = (
    "the run for query {question!r} returns the same chunk id more than once: {ids}. A ranking is a list of "
    "distinct chunks, and scoring one with repeats in it would report a retriever's bug as a score. "
    "De-duplicate the ranking, keeping each chunk at its best position."
)
BAD_GRADE = (
    "qrels for query {question!r} give chunk {chunk!r} the grade {grade!r}; a grade is a whole number "
    "(2 fully relevant, 1 partial, 0 or below irrelevant)"
)


def message(error: pytest.ExceptionInfo[BaseException]) -> str:
    return str(error.value)


# --- cut-offs ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("k", [0, -1, -5])
def test_a_k_below_1_is_refused_by_evaluate(k: int) -> None:
    with pytest.raises(cg.ContextGridError) as error:
        cg.evaluate({"q1": {"c1": 2}}, {"q1": ["c1"]}, ks=[3, k], metrics=["recall"])
    assert message(error) == K_BELOW_1.format(k=k)
    assert isinstance(error.value, ValueError)


@pytest.mark.parametrize("k", [0, -1])
def test_a_k_below_1_is_refused_by_per_query(k: int) -> None:
    with pytest.raises(cg.ContextGridError) as error:
        cg.per_query({"q1": {"c1": 2}}, {"q1": ["c1"]}, "recall", k)
    assert message(error) == K_BELOW_1.format(k=k)


@pytest.mark.parametrize("k", [2.0, 2.5, "3", None, True])
def test_a_k_that_is_not_an_int_is_refused_by_evaluate(k: object) -> None:
    with pytest.raises(cg.InvalidParameterError) as error:
        cg.evaluate({"q1": {"c1": 2}}, {"q1": ["c1"]}, ks=[1, k])  # type: ignore[list-item]
    assert message(error) == f"The 'ks' parameter of evaluate must be an int >= 1. Got {k!r} instead."
    assert isinstance(error.value, ValueError)


@pytest.mark.parametrize("k", [2.0, "3", None, False])
def test_a_k_that_is_not_an_int_is_refused_by_per_query(k: object) -> None:
    with pytest.raises(cg.InvalidParameterError) as error:
        cg.per_query({"q1": {"c1": 2}}, {"q1": ["c1"]}, "recall", k)  # type: ignore[arg-type]
    assert message(error) == f"The 'k' parameter of per_query must be an int >= 1. Got {k!r} instead."


def test_k_beyond_the_ranking_still_divides_precision_by_k() -> None:
    # 1 relevant chunk in a ranking of 3: precision@10 = 1/10, recall@10 = 1/2.
    result = cg.evaluate({"q1": {"c1": 2, "c2": 1}}, {"q1": ["x", "c1", "y"]}, ks=[10], metrics=["precision", "recall"])
    assert result == {"precision@10": 0.1, "recall@10": 0.5}


def test_map_divides_by_every_relevant_chunk_not_by_k() -> None:
    qrels = {"q1": {f"c{i}": 2 for i in range(20)}}
    perfect_top_5 = {"q1": [f"c{i}" for i in range(5)]}
    assert cg.evaluate(qrels, perfect_top_5, ks=[5], metrics=["map"]) == {"map@5": 0.25}


def test_ndcg_uses_the_grade_as_gain_and_log2_rank_plus_1_as_discount() -> None:
    # dcg@3 = 1/log2(2) + 0/log2(3) + 2/log2(4) = 2; idcg@3 = 2/1 + 1/log2(3)
    result = cg.per_query({"q1": {"a": 1, "b": 2, "z": 0}}, {"q1": ["a", "z", "b"]}, "ndcg", 3)
    assert result == {"q1": pytest.approx(2 / (2 + 1 / 1.584962500721156), abs=1e-15)}


# --- repeated chunk ids -----------------------------------------------------------------------------------------


def test_the_pages_repeated_id_example_is_refused() -> None:
    with pytest.raises(cg.DuplicateChunkError) as error:
        cg.evaluate({"qa": {"c1": 2, "c2": 2}}, {"qa": ["c1", "c1", "c1", "c2"]}, ks=[3])
    assert message(error) == REPEATS.format(question="qa", ids="'c1'")
    assert isinstance(error.value, ValueError)


def test_the_repeat_message_names_every_repeated_id() -> None:
    with pytest.raises(cg.DuplicateChunkError) as error:
        cg.evaluate({"qa": {"c1": 2}}, {"qa": ["c2", "c1", "c2", "c3", "c1", "c2"]}, ks=[1])
    assert message(error) == REPEATS.format(question="qa", ids="'c2', 'c1'")


def test_a_repeat_beyond_the_largest_k_is_refused_too() -> None:
    with pytest.raises(cg.DuplicateChunkError, match="'qa' returns the same chunk id more than once: 'c9'"):
        cg.evaluate({"qa": {"c1": 2}}, {"qa": ["c1", "c2", "c3", "c9", "c9"]}, ks=[1])


def test_repeats_are_refused_by_per_query_and_mean_rank_of_first_relevant() -> None:
    qrels, run = {"qa": {"c1": 2}}, {"qa": ["c1", "c1"]}
    expected = REPEATS.format(question="qa", ids="'c1'")
    with pytest.raises(cg.DuplicateChunkError) as error:
        cg.per_query(qrels, run, "recall", 1)
    assert message(error) == expected
    with pytest.raises(cg.DuplicateChunkError) as error:
        cg.mean_rank_of_first_relevant(qrels, run)
    assert message(error) == expected


@pytest.mark.parametrize(
    "qrels",
    [
        pytest.param({"q1": {"c1": 2}}, id="unjudged"),
        pytest.param({"q1": {"c1": 2}, "q2": {}}, id="empty-judgements"),
        pytest.param({"q1": {"c1": 2}, "q2": {"c1": 0, "c2": 0}}, id="all-grade-0"),
    ],
)
def test_repeats_in_a_question_that_is_not_scored_are_never_checked(qrels: dict[str, dict[str, int]]) -> None:
    run = {"q1": ["x", "c1"], "q2": ["c1", "c1", "c2", "c2"]}
    assert cg.evaluate(qrels, run, ks=[2], metrics=["mrr"]) == {"mrr@2": 0.5}
    assert cg.per_query(qrels, run, "mrr", 2) == {"q1": 0.5}
    assert cg.mean_rank_of_first_relevant(qrels, run) == 2.0


# --- which questions are scored ---------------------------------------------------------------------------------


def test_empty_and_all_grade_0_judgements_are_the_same_and_left_out() -> None:
    run = {"q1": ["x"], "q2": ["c9"]}
    graded = cg.evaluate({"q1": {"c1": 0}, "q2": {"c9": 2}}, run, ks=[3], metrics=["recall"])
    empty = cg.evaluate({"q1": {}, "q2": {"c9": 2}}, run, ks=[3], metrics=["recall"])
    assert graded == empty == {"recall@3": 1.0}
    assert cg.per_query({"q1": {"c1": 0}, "q2": {"c9": 2}}, run, "recall", 3) == {"q2": 1.0}
    assert cg.per_query({"q1": {}, "q2": {"c9": 2}}, run, "recall", 3) == {"q2": 1.0}


def test_a_judged_question_the_run_never_answered_scores_0() -> None:
    qrels = {"q1": {"c1": 2}, "q2": {"c2": 1}}
    run = {"q1": ["c1"]}
    assert cg.per_query(qrels, run, "recall", 5) == {"q1": 1.0, "q2": 0.0}
    result = cg.evaluate(qrels, run, ks=[1, 5], metrics=["recall", "ndcg", "mrr"])
    assert result == {"recall@1": 0.5, "recall@5": 0.5, "ndcg@1": 0.5, "ndcg@5": 0.5, "mrr@1": 0.5, "mrr@5": 0.5}


def test_a_question_answered_but_never_judged_is_not_averaged() -> None:
    result = cg.evaluate({"q1": {"c1": 2}}, {"q1": ["c1"], "q9": ["c7", "c8"]}, ks=[1], metrics=["precision"])
    assert result == {"precision@1": 1.0}


@pytest.mark.parametrize(
    "qrels",
    [{}, {"q1": {}}, {"q1": {"c1": 0}, "q2": {}}],
    ids=["no-questions", "empty-judgements", "all-grade-0"],
)
def test_nothing_relevant_anywhere_gives_an_empty_result(qrels: dict[str, dict[str, int]]) -> None:
    run = {"q1": ["c1"], "q2": ["c1"]}
    assert cg.evaluate(qrels, run) == {}
    assert cg.per_query(qrels, run, "ndcg", 3) == {}
    assert cg.mean_rank_of_first_relevant(qrels, run) is None


def test_the_pages_evaluate_and_per_query_examples_by_hand() -> None:
    # q1: relevant c1 (2) at rank 2, c2 (1) at rank 4; q2: c4 (2) at rank 2. log2(3) and log2(5) written out.
    expected_ndcg_q1 = (2 / 1.584962500721156) / (2 + 1 / 1.584962500721156)
    expected_ndcg_q2 = (2 / 1.584962500721156) / 2
    expected_ndcg_at_5_q1 = (2 / 1.584962500721156 + 1 / 2.321928094887362) / (2 + 1 / 1.584962500721156)
    result = cg.evaluate(QRELS, RUN, ks=[1, 3, 5], metrics=["recall", "precision", "mrr", "map", "ndcg"])
    assert result == pytest.approx(
        {
            "recall@1": 0.0,
            "recall@3": (0.5 + 1.0) / 2,
            "recall@5": 1.0,
            "precision@1": 0.0,
            "precision@3": 1 / 3,
            "precision@5": 0.3,
            "mrr@1": 0.0,
            "mrr@3": 0.5,
            "mrr@5": 0.5,
            "map@1": 0.0,
            "map@3": ((1 / 2) / 2 + 1 / 2) / 2,
            "map@5": ((1 / 2 + 2 / 4) / 2 + 1 / 2) / 2,
            "ndcg@1": 0.0,
            "ndcg@3": (expected_ndcg_q1 + expected_ndcg_q2) / 2,
            "ndcg@5": (expected_ndcg_at_5_q1 + expected_ndcg_q2) / 2,
        },
        abs=1e-15,
    )
    assert cg.per_query(QRELS, RUN, "recall", 3) == {"q1": 0.5, "q2": 1.0}


# --- metric names -----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CountingMetric:
    """Scores 1.0 and remembers that it was asked."""

    name: ClassVar[str] = "counting"
    version: ClassVar[str] = "1"
    calls: ClassVar[list[int]] = []

    def evaluate(self, judgements: Mapping[str, int], ranked: Sequence[str], k: int) -> float:
        CountingMetric.calls.append(k)
        return 1.0


def test_an_unknown_metric_name_is_refused_before_anything_is_scored() -> None:
    cg.METRICS.register("counting")(CountingMetric)
    CountingMetric.calls.clear()
    with pytest.raises(cg.UnknownPluginError) as error:
        cg.evaluate(QRELS, RUN, ks=[1], metrics=["counting", "recall", "nope"])
    assert message(error) == "no metric named 'nope'. Available: counting, hit_rate, map, mrr, ndcg, precision, recall"
    assert isinstance(error.value, ValueError)
    assert CountingMetric.calls == []


def test_an_unknown_metric_name_is_refused_by_per_query() -> None:
    with pytest.raises(cg.UnknownPluginError) as error:
        cg.per_query(QRELS, RUN, "recall@5", 5)
    assert message(error) == "no metric named 'recall@5'. Available: hit_rate, map, mrr, ndcg, precision, recall"


@pytest.mark.parametrize("metrics", ["recall", "ndcg"])
def test_metrics_given_as_a_bare_string_is_refused(metrics: str) -> None:
    with pytest.raises(cg.InvalidParameterError) as error:
        cg.evaluate(QRELS, RUN, ks=[1], metrics=metrics)
    expected = "The 'metrics' parameter of evaluate must be a sequence of registered metric names."
    assert message(error) == f"{expected} Got {metrics!r} instead."


def test_a_metric_that_raises_is_left_out_and_logged() -> None:
    cg.METRICS.register("broken")(BrokenMetric)
    log = cg.WarningLog()
    result = cg.evaluate(QRELS, RUN, ks=[1, 5], metrics=["broken", "recall"], warnings=log)
    assert result == {"recall@1": 0.0, "recall@5": 1.0}
    assert [str(entry) for entry in log.entries] == [
        "CAUTION [score] (broken): the 'broken' metric raised RuntimeError('oops') and was left out of this run's "
        "results rather than silently scoring zero"
    ]
    assert log.entries[0].severity is cg.Severity.CAUTION


def test_a_metric_that_raises_without_a_log_is_left_out_silently(capsys: pytest.CaptureFixture[str]) -> None:
    cg.METRICS.register("broken")(BrokenMetric)
    with python_warnings.catch_warnings():
        python_warnings.simplefilter("error")
        result = cg.evaluate(QRELS, RUN, ks=[5], metrics=["recall", "broken"])
    assert result == {"recall@5": 1.0}
    assert capsys.readouterr() == ("", "")


def test_a_registered_custom_metric_is_not_scored_by_default() -> None:
    cg.METRICS.register("counting")(CountingMetric)
    CountingMetric.calls.clear()
    result = cg.evaluate(QRELS, RUN)
    builtins = ("recall", "precision", "hit_rate", "mrr", "map", "ndcg")
    assert list(result) == [f"{metric}@{k}" for metric in builtins for k in (1, 3, 5, 10, 20)]
    assert CountingMetric.calls == []
    assert cg.evaluate(QRELS, RUN, ks=[2], metrics=["counting"]) == {"counting@2": 1.0}


# --- mean_rank_of_first_relevant --------------------------------------------------------------------------------


def test_mean_rank_of_first_relevant_by_hand() -> None:
    qrels = {
        "q1": {"c1": 2},
        "q2": {"c4": 1, "c5": 2, "c0": 0},
        "q3": {"c8": 1},
        "q4": {},
        "q5": {"c1": 0},
        "q6": {"c2": 2},
    }
    run = {
        "q1": ["c3", "c1"],  # rank 2
        "q2": ["c0", "y", "z", "c5", "c4"],  # rank 4: c0 is judged but grade 0
        "q3": ["c9"],  # none: left out, counted in the log
        "q4": ["c1"],  # not scored
        "q5": ["c1"],  # not scored
        # q6 never answered: none
    }
    log = cg.WarningLog()
    assert cg.mean_rank_of_first_relevant(qrels, run, warnings=log) == 3.0
    assert [str(entry) for entry in log.entries] == [
        "CAUTION [score] (mean_rank_of_first_relevant): 2 of 4 questions retrieved no relevant chunk "
        "and are not in this mean"
    ]


def test_mean_rank_of_first_relevant_looks_down_the_whole_ranking() -> None:
    deep = [f"x{i}" for i in range(24)] + ["c1"]
    assert cg.mean_rank_of_first_relevant({"q1": {"c1": 1}, "q2": {"c2": 2}}, {"q1": deep, "q2": ["c2"]}) == 13.0


def test_mean_rank_of_first_relevant_is_none_when_nothing_was_found() -> None:
    log = cg.WarningLog()
    assert cg.mean_rank_of_first_relevant({"q1": {"c1": 2}}, {"q1": ["c2"]}, warnings=log) is None
    assert len(log) == 1


# --- malformed input --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("grade", [1.5, 2.0, "2", True, None])
def test_a_grade_that_is_not_a_whole_number_is_refused(grade: object) -> None:
    qrels = {"q1": {"c1": 2}, "q2": {"c1": 1, "c7": grade}}
    for call in (
        lambda: cg.evaluate(qrels, {"q1": ["c1"]}),  # type: ignore[arg-type]
        lambda: cg.per_query(qrels, {"q1": ["c1"]}, "recall", 1),  # type: ignore[arg-type]
        lambda: cg.mean_rank_of_first_relevant(qrels, {"q1": ["c1"]}),  # type: ignore[arg-type]
    ):
        with pytest.raises(cg.ContextGridError) as error:
            call()
        assert message(error) == BAD_GRADE.format(question="q2", chunk="c7", grade=grade)


def test_numpy_integer_grades_are_whole_numbers() -> None:
    grade: int = np.int64(2)  # type: ignore[assignment]
    assert cg.evaluate({"q1": {"c1": grade}}, {"q1": ["c1"]}, ks=[1], metrics=["ndcg"]) == {"ndcg@1": 1.0}


@pytest.mark.parametrize("ranking", ["c1", b"c1"])
def test_a_run_value_that_is_a_string_is_refused(ranking: object) -> None:
    with pytest.raises(cg.ContextGridError) as error:
        cg.evaluate({"q1": {"c1": 2}}, {"q1": ranking}, ks=[1])  # type: ignore[dict-item]
    assert message(error) == f"the run for query 'q1' must be a list of chunk ids, best first, got {ranking!r}"


def test_a_tuple_ranking_is_a_ranking() -> None:
    assert cg.evaluate({"q1": {"c1": 2}}, {"q1": ("x", "c1")}, ks=[2], metrics=["mrr"]) == {"mrr@2": 0.5}


# --- inputs are left alone --------------------------------------------------------------------------------------


def test_nothing_the_caller_passed_is_modified() -> None:
    qrels = {"q1": {"c1": 2, "c2": 1, "c3": 0}, "q2": {"c4": 2}, "q3": {}, "q4": {"c1": 0}}
    run = {"q1": ["c3", "c1", "c5", "c2"], "q2": ["c9", "c4", "c1"], "q3": ["c1", "c1"], "q5": ["c4"]}
    ks = [5, 1, 3]
    metrics = ["ndcg", "recall", "map"]
    before = copy.deepcopy((qrels, run, ks, metrics))
    cg.evaluate(qrels, run, ks=ks, metrics=metrics, warnings=cg.WarningLog())
    cg.per_query(qrels, run, "precision", 2)
    cg.mean_rank_of_first_relevant(qrels, run, warnings=cg.WarningLog())
    for metric in ("recall", "precision", "hit_rate", "mrr", "map", "ndcg"):
        cg.get_metric(metric).evaluate(qrels["q1"], run["q1"], 3)
    assert (qrels, run, ks, metrics) == before
