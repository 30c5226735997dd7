"""``contextgrid gate`` and the functions beside it: exit 1 on a planted regression, 0 on a tie, 2 on bad input;
the Markdown summary and the JUnit file; the one-sided test against a slow reference."""

from __future__ import annotations

import itertools
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import contextgrid as cg
from contextgrid.cli.main import main
from contextgrid.io import read_qrels, read_run
from contextgrid.significance.gate import gate
from contextgrid.workspace.gate import gate_files, gate_workspace

N = 40


def write_inputs(root: Path, *, lost: int, gained: int = 0) -> tuple[Path, Path, Path]:
    """A qrels file and two runs on N questions: the baseline finds every question's chunk at rank 1, the
    candidate misses it on the first ``lost`` and finds it on the rest (a planted regression)."""
    qrels = root / "qrels.trec"
    qrels.write_text("".join(f"q{i:02d} 0 c{i} 1\n" for i in range(N)))
    base = root / "baseline.trec"
    candidate = root / "candidate.trec"
    base.write_text("".join(f"q{i:02d} Q0 {'x' if i < gained else f'c{i}'} 1 9 base\n" for i in range(N)))
    candidate.write_text(
        "".join(f"q{i:02d} Q0 {'x' if gained <= i < gained + lost else f'c{i}'} 1 9 cand\n" for i in range(N))
    )
    return qrels, base, candidate


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_a_planted_regression_exits_1_with_a_summary_and_a_junit_failure(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    qrels, base, candidate = write_inputs(tmp_path, lost=10)
    junit = tmp_path / "reports" / "gate.xml"
    junit.parent.mkdir()
    status, out, err = run(
        capsys, "gate", str(qrels), str(base), str(candidate), "--metric", "recall@5", "--junit", str(junit)
    )
    assert (status, err) == (1, "")
    assert out.startswith("## contextgrid gate: failed, candidate against baseline\n")
    assert "10 questions went from hit to miss on recall\\@5" in out
    suite = ET.parse(junit).getroot()
    assert (suite.tag, suite.get("tests"), suite.get("failures")) == ("testsuite", "1", "1")
    (case,) = suite.findall("testcase")
    assert case.get("name") == "recall@5: candidate against baseline"
    failure = case.find("failure")
    assert failure is not None
    assert "worse than baseline" in (failure.get("message") or "")
    # Written whole, nothing left beside it.
    assert sorted(p.name for p in junit.parent.iterdir()) == ["gate.xml"]


def test_a_tie_exits_0_and_each_metric_is_a_passing_test_case(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    qrels, base, _ = write_inputs(tmp_path, lost=0)
    junit = tmp_path / "gate.xml"
    status, out, _ = run(
        capsys, "gate", str(qrels), str(base), str(base), "--metric", "recall@5", "--metric", "ndcg@10",
        "--junit", str(junit),
    )  # fmt: skip
    assert status == 0
    assert "## contextgrid gate: passed" in out
    suite = ET.parse(junit).getroot()
    assert (suite.get("tests"), suite.get("failures")) == ("2", "0")
    assert [case.find("failure") for case in suite.findall("testcase")] == [None, None]


def test_a_small_drop_within_max_drop_passes_and_require_proof_asks_for_evidence(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    qrels, base, candidate = write_inputs(tmp_path, lost=10)
    files = (str(qrels), str(base), str(candidate))
    # A drop of 0.25 with 0.5 allowed: not a regression, and with proof asked, the data show it is within 0.5.
    assert run(capsys, "gate", *files, "--metric", "recall@5", "--max-drop", "0.5")[0] == 0
    assert run(capsys, "gate", *files, "--metric", "recall@5", "--max-drop", "0.5", "--require-proof")[0] == 0
    # A tie with proof asked and no drop allowed: nothing shows the candidate is not worse.
    assert run(capsys, "gate", str(qrels), str(base), str(base), "--metric", "recall@5", "--require-proof")[0] == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--metric", "recall@0"], "expected a registered metric and a cut-off like ndcg@10"),
        (["--metric", "recall@5", "--alpha", "0.7"], "'alpha' parameter of gate"),
        (["--metric", "recall@5", "--max-drop", "-1"], "'max_drop' parameter of gate"),
        (["--metric", "recall@5", "--baseline", "x"], "files have none"),
    ],
)
def test_bad_options_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], message: str) -> None:
    qrels, base, candidate = write_inputs(tmp_path, lost=3)
    status, out, err = run(capsys, "gate", str(qrels), str(base), str(candidate), *argv)
    assert (status, out) == (2, "")
    assert message in err
    assert "Traceback" not in err


def test_a_malformed_run_file_exits_2_naming_the_file_and_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    qrels, base, candidate = write_inputs(tmp_path, lost=3)
    candidate.write_text("q00 Q0 c0 1 9 cand\nq01 Q0 c1 one nine cand\n")
    junit = tmp_path / "gate.xml"
    status, out, err = run(capsys, "gate", str(qrels), str(base), str(candidate), "--metric", "recall@5",
                           "--junit", str(junit))  # fmt: skip
    assert (status, out) == (2, "")
    assert err.startswith("contextgrid: error:")
    assert "candidate.trec" in err
    assert "line 2" in err
    assert not junit.exists()


def test_two_inputs_are_neither_a_workspace_nor_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    qrels, base, _ = write_inputs(tmp_path, lost=0)
    status, _, err = run(capsys, "gate", str(qrels), str(base), "--metric", "recall@5")
    assert status == 2
    assert "expected a workspace folder, or a qrels file and two run files; got 2 inputs" in err


def test_a_workspace_gate_names_the_causes_of_the_questions_lost(capsys: pytest.CaptureFixture[str]) -> None:
    from contextgrid.workspace.sample import SAMPLE

    workspace = cg.load_workspace(SAMPLE)
    # Pick, from the sample as it is, a pair whose recall@5 differs on some questions.
    frame = workspace.per_query("recall", 5)
    base, candidate = max(
        itertools.permutations(workspace.names, 2),
        key=lambda pair: int(((frame[pair[0]] > 0) & (frame[pair[1]] == 0)).sum()),
    )
    report = gate_workspace(workspace, baseline=base, candidate=candidate, metrics=["recall@5"])
    assert report.causes
    lost = report.lost["recall@5"]
    assert len(lost) > 0
    assert set(lost["cause"]) <= {"split", "ranked_low", "not_retrieved", "partial", "no_gold", "unresolved"}
    status, out, _ = run(
        capsys, "gate", str(SAMPLE), "--baseline", base, "--candidate", candidate, "--metric", "recall@5"
    )
    assert status == (0 if report.passed else 1)
    assert "| question | baseline | candidate | cause |" in out
    status, _, err = run(capsys, "gate", str(SAMPLE), "--metric", "recall@5")
    assert status == 2
    assert "needs --baseline NAME and --candidate NAME" in err


def one_sided_reference(base: list[float], candidate: list[float], drop: float) -> float:
    """P(T <= t) over every sign vector of the differences raised by ``drop``: the one-sided sign-flip p-value
    of "worse by more than drop", counted by hand."""
    d = np.array(candidate) - np.array(base) + drop
    observed = d.sum()
    flipped = [(np.array(signs) * d).sum() for signs in itertools.product((1, -1), repeat=len(d))]
    return float(np.mean([value <= observed + 1e-9 for value in flipped]))


@pytest.mark.parametrize("drop", [0.0, 0.1, 0.3, 0.6])
def test_the_gate_is_a_one_sided_test_at_alpha(drop: float) -> None:
    rng = np.random.default_rng(7)
    base = rng.integers(0, 5, 10) / 4
    candidate = np.clip(base - rng.integers(0, 3, 10) / 4, 0, 1)
    before = {f"q{i}": float(v) for i, v in enumerate(base)}
    after = {f"q{i}": float(v) for i, v in enumerate(candidate)}
    result = gate(before, after, metric="recall@5", max_drop=drop)
    reference = one_sided_reference(base.tolist(), candidate.tolist(), drop)
    if (candidate - base + drop).sum() < 0:
        # On the worse side, half the two-sided p-value of an exact, symmetric null is the one-sided one.
        assert result.p_value == pytest.approx(reference, abs=1e-12)
    else:
        assert result.p_value >= 0.5
    assert result.regressed == (result.p_value <= result.alpha)
    assert result.regressed == (result.high < -drop)
    assert math.isfinite(result.comparison.difference)


def test_the_file_gate_and_the_score_gate_agree(tmp_path: Path) -> None:
    qrels, base, candidate = write_inputs(tmp_path, lost=6, gained=2)
    report = gate_files(qrels, base, candidate, metrics=["recall@5"])
    before = cg.per_query(read_qrels(qrels), read_run(base), "recall", 5)
    after = cg.per_query(read_qrels(qrels), read_run(candidate), "recall", 5)
    (result,) = report.results
    assert result == gate(before, after, metric="recall@5")
    assert list(report.lost["recall@5"]["question"]) == [f"q{i:02d}" for i in range(2, 8)]
    assert report.lost["recall@5"]["cause"].tolist() == [""] * 6


def test_names_from_the_inputs_cannot_break_the_summary(tmp_path: Path) -> None:
    from contextgrid.render.gate import gate_markdown

    qrels, base, candidate = write_inputs(tmp_path, lost=4)
    report = gate_files(qrels, base, candidate, names=("main|x", "pr_*<b>*"), metrics=["recall@5"])
    text = gate_markdown(report)
    assert "main\\|x" in text
    assert "pr\\_\\*\\<b\\>\\*" in text
    assert "<b>" not in text
    # Every table row keeps its columns: no name adds a cell.
    rows = [line for line in text.splitlines() if line.startswith("| recall")]
    assert [row.replace("\\|", "").count("|") for row in rows] == [8]
