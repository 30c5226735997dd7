"""``contextgrid budget``: the library's curves in three formats, the verdict on stderr, and bad input as one line."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from budget_reference import reference
from commandline import run_main

from contextgrid.answering.context import DEFAULT_TOKENIZER, count_tokens
from contextgrid.workspace.budget import budget_curves
from contextgrid.workspace.manifest import load_workspace

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "sample_data" / "workspace"
HANDMADE = REPO / "sample_data" / "handmade"


def expected_means(budgets: list[int], cost: Callable[[str], int] = len) -> dict[tuple[str, int], dict[str, float]]:
    """Each (configuration, budget)'s means over the resolved questions, from the slow reference."""
    workspace = load_workspace(SAMPLE)
    items, _ = workspace.resolved
    questions = [item.id for item in items if any(g.grade > 0 for g in item.gold)]
    means = {}
    for name in workspace.names:
        rows = reference(
            items,
            workspace.run(name).to_dict(),
            workspace.chunks(name),
            workspace.qrels(name).to_dict(),
            budgets,
            cost=cost,
        )
        for budget in budgets:
            at = [rows[budget, q] for q in questions]
            means[name, budget] = {
                "evidence_recall": float(np.mean([r["evidence_recall"] for r in at])),
                "hit_rate": float(np.mean([r["hit"] for r in at])),
                "characters": float(np.mean([r["characters"] for r in at])),
                "questions": len(questions),
            }
    return means


def test_json_has_one_object_per_configuration_and_budget_with_the_reference_numbers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run_main(capsys, "budget", str(SAMPLE), "--budgets", "2000,500,1000", "--format", "json")
    assert (status, err) == (0, "")
    records = json.loads(out)
    expected = expected_means([500, 1000, 2000])
    assert len(records) == len(expected)
    for record in records:
        assert {"config", "budget", "evidence_recall", "hit_rate", "characters", "questions"} <= record.keys()
        want = expected[record["config"], record["budget"]]
        assert record["questions"] == want["questions"]
        for key in ("evidence_recall", "hit_rate", "characters"):
            assert record[key] == pytest.approx(want[key], rel=1e-12), (record["config"], record["budget"], key)


def test_table_prints_the_curves_and_the_verdict_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_main(capsys, "budget", str(SAMPLE), "--budgets", "1000,4000")
    assert status == 0
    curves = budget_curves(load_workspace(SAMPLE), budgets=[1000, 4000])
    assert err == curves.verdict().sentence() + "\n"
    lines = out.splitlines()
    assert lines[0].split() == [
        "config",
        "budget",
        "(characters)",
        "evidence_recall",
        "hit_rate",
        "characters",
        "chunks",
        "questions",
    ]
    assert len(lines) == 1 + 2 * len(curves.configs)
    first = curves.means().iloc[0]
    assert lines[1].split()[:3] == [curves.configs[0], "1,000", f"{first['evidence_recall']:.3f}"]


def test_csv_is_the_means_table(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_main(capsys, "budget", str(SAMPLE), "--budgets", "700", "--format", "csv")
    assert status == 0
    table = pd.read_csv(io.StringIO(out))
    expected = expected_means([700])
    assert len(table) == len(expected)
    for row in table.to_dict("records"):
        assert row["evidence_recall"] == pytest.approx(expected[row["config"], 700]["evidence_recall"], rel=1e-12)


def test_tokens_count_budgets_with_the_context_tokenizer(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_main(capsys, "budget", str(SAMPLE), "--budgets", "300", "--tokens", "--format", "json")
    assert status == 0
    expected = expected_means([300], cost=lambda text: count_tokens(text, DEFAULT_TOKENIZER))
    for record in json.loads(out):
        assert record["evidence_recall"] == pytest.approx(expected[record["config"], 300]["evidence_recall"], rel=1e-12)
        assert record["spent"] <= 300


def test_default_budgets_are_the_librarys_grid(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_main(capsys, "budget", str(SAMPLE), "--format", "json")
    assert status == 0
    budgets = sorted({record["budget"] for record in json.loads(out)})
    assert tuple(budgets) == budget_curves(load_workspace(SAMPLE)).budgets


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--budgets", "0,100"], "expected whole numbers >= 1 separated by commas"),
        (["--budgets", "100,abc"], "expected whole numbers >= 1 separated by commas"),
        (["--budgets", "100,100"], "expected each budget once"),
    ],
)
def test_bad_budgets_are_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    status, out, err = run_main(capsys, "budget", str(SAMPLE), *argv)
    assert (status, out) == (2, "")
    # argparse's way: the usage, then one line naming the option and what was expected.
    assert err.startswith("usage: contextgrid budget")
    assert "error: argument --budgets: " + message in err.splitlines()[-1]


def test_a_workspace_without_documents_says_what_it_lacks(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_main(capsys, "budget", str(HANDMADE))
    assert status == 2
    assert err.startswith("contextgrid: error: budget_curves: workspace")
    assert "needs documents, questions and chunks" in err
