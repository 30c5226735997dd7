from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pandas as pd
import pytest

from contextgrid.analysis.questions import shared_scores
from contextgrid.cli.main import main
from contextgrid.significance import compare_configurations
from contextgrid.workspace.manifest import load_workspace

HANDMADE = Path(__file__).resolve().parent.parent / "sample_data" / "handmade"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def expected(baseline: str, metric: str, k: int) -> str:
    workspace = load_workspace(HANDMADE)
    scores = shared_scores(workspace.per_query(metric, k), workspace.names)
    return str(compare_configurations(scores, baseline=baseline, metric=f"{metric}@{k}"))


def test_compare_wide_prints_the_librarys_table(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(
        capsys, "compare", str(HANDMADE), "--metric", "ndcg@10", "--baseline", "bm25-fixed-512", "--wide"
    )
    assert (status, err) == (0, "")
    assert out == expected("bm25-fixed-512", "ndcg", 10) + "\n"


def test_compare_baseline_defaults_to_the_first_configuration(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "compare", str(HANDMADE), "--metric", "recall@5", "--wide")
    assert status == 0
    assert out == expected(load_workspace(HANDMADE).names[0], "recall", 5) + "\n"


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_compare_writes_csv_and_json(capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    status, out, _ = run(capsys, "compare", str(HANDMADE), "--metric", "mrr@5", "--format", fmt)
    assert status == 0
    rows = pd.read_csv(io.StringIO(out)) if fmt == "csv" else pd.DataFrame(json.loads(out))
    assert len(rows) == len(load_workspace(HANDMADE).names)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--metric", "ndcg"], "expected a registered metric and a cut-off like ndcg@10"),
        (["--metric", "nope@5"], "expected a registered metric and a cut-off like ndcg@10"),
        (["--metric", "ndcg@0"], "expected a registered metric and a cut-off like ndcg@10"),
        (["--metric", "ndcg@5", "--baseline", "nope"], "no configuration named 'nope'"),
    ],
)
def test_bad_compare_options_exit_2_without_a_traceback(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, out, err = run(capsys, "compare", str(HANDMADE), *argv)
    assert out == ""
    assert status == 2
    assert message in err
    assert "Traceback" not in err


def test_compare_on_a_missing_workspace_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, _, err = run(capsys, "compare", str(tmp_path / "nowhere"), "--metric", "ndcg@5")
    assert status == 2
    assert err.startswith("contextgrid: error:")


def test_compare_json_rows_name_their_configuration_and_the_baseline(capsys: pytest.CaptureFixture[str]) -> None:
    names = load_workspace(HANDMADE).names
    status, out, _ = run(
        capsys, "compare", str(HANDMADE), "--metric", "mrr@5", "--baseline", names[1], "--format", "json"
    )
    assert status == 0
    rows = json.loads(out)
    assert [row["config"] for row in rows] == list(names)
    assert {row["baseline"] for row in rows} == {names[1]}
    assert [row["verdict"] for row in rows if row["config"] == names[1]] == ["baseline"]


@pytest.mark.parametrize("correction", ["none", "holm"])
def test_no_interval_printed_beside_a_verdict_contradicts_it(
    capsys: pytest.CaptureFixture[str], correction: str
) -> None:
    status, out, _ = run(
        capsys, "compare", str(HANDMADE), "--metric", "recall@5", "--correction", correction, "--format", "json"
    )
    assert status == 0
    for row in json.loads(out):
        if row["verdict"] == "baseline":
            continue
        low = -math.inf if row["ci_low"] is None else row["ci_low"]
        high = math.inf if row["ci_high"] is None else row["ci_high"]
        assert (low > 0 or high < 0) == (row["verdict"] != "not significant"), row


def test_compare_help_explains_every_column_of_its_table(capsys: pytest.CaptureFixture[str]) -> None:
    _, table, _ = run(capsys, "compare", str(HANDMADE), "--metric", "recall@5", "--wide")
    header = table.splitlines()[1]
    status, help_text, _ = run(capsys, "compare", "--help")
    assert status == 0
    columns = [cell for cell in header.split("  ") if cell.strip()]
    assert len(columns) == 7
    for column in columns:
        name = "p (CORRECTION)" if column.strip().startswith("p (") else column.strip()
        assert f"\n  {name} " in help_text, name
    for field in ("config", "baseline", "ci_low", "ci_level", "p_adjusted", "bootstrap_low"):
        assert field in help_text
