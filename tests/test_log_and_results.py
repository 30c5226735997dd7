"""WarningLog, LogEntry and RunResult: what went wrong is kept and printed; scores are copied."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
from plugins import BrokenMetric

import contextgrid as cg
from contextgrid.core.errors import ContextGridError


def test_log_entry_prints_severity_stage_subject_and_message() -> None:
    caution = cg.LogEntry(cg.Severity.CAUTION, "score", "broken", "it raised")
    note = cg.LogEntry(cg.Severity.NOTE, "resolve", "q7", "anchor not found")
    assert str(caution) == "CAUTION [score] (broken): it raised"
    assert str(note) == "NOTE [resolve] (q7): anchor not found"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("CAUTION", "s", "x", "m"), "LogEntry: severity must be a Severity, got 'CAUTION'"),
        ((cg.Severity.NOTE, None, "x", "m"), "LogEntry: stage must be a str, got None"),
        ((cg.Severity.NOTE, "s", 3, "m"), "LogEntry: subject must be a str, got 3"),
        ((cg.Severity.NOTE, "s", "x", b"m"), "LogEntry: message must be a str, got b'm'"),
    ],
)
def test_log_entry_refuses_bad_fields(args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(ContextGridError) as caught:
        cg.LogEntry(*args)
    assert str(caught.value) == message


def test_log_entry_is_frozen() -> None:
    entry = cg.LogEntry(cg.Severity.NOTE, "s", "x", "m")
    with pytest.raises(dataclasses.FrozenInstanceError):
        entry.message = "other"  # type: ignore[misc]


def test_warning_log_keeps_entries_in_order() -> None:
    log = cg.WarningLog()
    first = log.caution("score", "broken", "it raised")
    second = log.note("resolve", "q7", "anchor not found")
    assert first == cg.LogEntry(cg.Severity.CAUTION, "score", "broken", "it raised")
    assert second == cg.LogEntry(cg.Severity.NOTE, "resolve", "q7", "anchor not found")
    assert log.entries == [first, second]
    assert list(log) == [first, second]
    assert len(log) == 2
    assert [str(entry) for entry in log] == [
        "CAUTION [score] (broken): it raised",
        "NOTE [resolve] (q7): anchor not found",
    ]


def test_warning_logs_do_not_share_entries() -> None:
    one, two = cg.WarningLog(), cg.WarningLog()
    one.note("s", "x", "m")
    assert len(two) == 0


def test_a_broken_metric_is_left_out_and_logged_as_the_spec_prints_it(capsys: pytest.CaptureFixture[str]) -> None:

    cg.METRICS.register("broken")(BrokenMetric)
    qrels = {"q1": {"c1": 2, "c2": 1, "c3": 0}, "q2": {"c4": 2}}
    run = {"q1": ["c3", "c1", "c5", "c2"], "q2": ["c9", "c4", "c1"]}
    warnings = cg.WarningLog()
    result = cg.evaluate(qrels, run, ks=[5], metrics=["recall", "broken"], warnings=warnings)
    print(result)
    for w in warnings.entries:
        print(w)
    assert capsys.readouterr().out == (
        "{'recall@5': 1.0}\n"
        "CAUTION [score] (broken): the 'broken' metric raised RuntimeError('oops') and was left out "
        "of this run's results rather than silently scoring zero\n"
    )
    scored = cg.RunResult("with-broken", result, tuple(warnings))
    assert scored.has("recall@5")
    assert not scored.has("broken@5")
    assert scored.warnings == tuple(warnings.entries)


# --- RunResult -----------------------------------------------------------------------------------------


def test_run_result_has_and_getitem() -> None:
    result = cg.RunResult("bm25-512", {"recall@5": 0.0, "ndcg@5": 0.25})
    assert result.has("recall@5")
    assert not result.has("recall@10")
    assert result["recall@5"] == 0.0
    assert result["ndcg@5"] == 0.25


def test_a_missing_score_names_the_configuration_and_what_was_scored() -> None:
    result = cg.RunResult("bm25-512", {"recall@5": 0.5, "ndcg@5": 0.25})
    with pytest.raises(cg.UnknownScoreError) as caught:
        result["broken@5"]
    assert isinstance(caught.value, ValueError)
    message = str(caught.value)
    assert message.startswith("configuration 'bm25-512' has no score 'broken@5'")
    assert message.endswith("Scored: recall@5, ndcg@5")


def test_a_missing_score_in_an_empty_result_says_nothing_was_scored() -> None:
    with pytest.raises(ContextGridError, match=r"Scored: nothing$"):
        cg.RunResult("empty", {})["recall@5"]


def test_run_result_copies_the_callers_scores() -> None:
    scores = {"recall@5": np.float64(0.5)}
    result = cg.RunResult("cfg", scores)
    scores["recall@5"] = np.float64(0.0)
    scores["ndcg@5"] = np.float64(1.0)
    assert dict(result.scores) == {"recall@5": 0.5}
    assert not result.has("ndcg@5")
    # The caller's dict is theirs: not converted or emptied by being passed in.
    assert scores == {"recall@5": 0.0, "ndcg@5": 1.0}
    assert type(scores["recall@5"]) is np.float64


def test_run_result_scores_are_plain_floats_and_read_only() -> None:
    result = cg.RunResult("cfg", {"recall@5": np.float64(0.5), "hit_rate@1": 1})
    assert all(type(value) is float for value in result.scores.values())
    assert repr(dict(result.scores)) == "{'recall@5': 0.5, 'hit_rate@1': 1.0}"
    with pytest.raises(TypeError):
        result.scores["recall@5"] = 1.0  # type: ignore[index]


def test_run_result_warnings_become_a_tuple() -> None:
    entry = cg.LogEntry(cg.Severity.NOTE, "s", "x", "m")
    entries = [entry]
    result = cg.RunResult("cfg", {}, entries)  # type: ignore[arg-type]
    entries.clear()
    assert result.warnings == (entry,)


@pytest.mark.parametrize(
    ("config", "scores", "message"),
    [
        ("", {}, "RunResult: config must be a non-empty str, got ''"),
        (None, {}, "RunResult: config must be a non-empty str, got None"),
        ("cfg", [("recall@5", 0.5)], "RunResult('cfg'): scores must be a mapping, got [('recall@5', 0.5)]"),
    ],
)
def test_run_result_refuses_bad_fields(config: Any, scores: Any, message: str) -> None:
    with pytest.raises(ContextGridError) as caught:
        cg.RunResult(config, scores)
    assert str(caught.value) == message


def test_run_result_is_frozen() -> None:
    result = cg.RunResult("cfg", {})
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.config = "other"  # type: ignore[misc]
