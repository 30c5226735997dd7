"""``contextgrid evaluate``'s table fits a 100-character terminal by default, says what it left out, prints every
column with ``--wide``, and its help explains every column it prints."""

from __future__ import annotations

import io
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from contextgrid.cli.main import main
from contextgrid.cli.tables import TERMINAL_WIDTH
from contextgrid.metrics.base import BUILTIN_METRICS, DEFAULT_K, DEFAULT_KS
from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.sample import SAMPLE


def run(*argv: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert main(list(argv)) == 0
    return out.getvalue(), err.getvalue()


def table(out: str) -> list[list[str]]:
    return [line.split() for line in out.split("\n\n")[0].splitlines()]


def test_the_workspace_table_fits_100_columns_and_holds_the_librarys_scores() -> None:
    out, err = run("evaluate", "--workspace", str(SAMPLE))
    assert max(map(len, out.splitlines())) <= TERMINAL_WIDTH
    rows = table(out)
    assert rows[0] == ["config", *(f"{metric}@{DEFAULT_K}" for metric in BUILTIN_METRICS)]
    workspace = load_workspace(SAMPLE)
    scores = workspace.evaluate().to_dataframe()
    assert [row[0] for row in rows[1:]] == list(workspace.names)
    for name, *cells in rows[1:]:
        for label, cell in zip(rows[0][1:], cells, strict=True):
            assert cell == f"{scores.loc[name, label]:.4f}"
    assert "--wide" in err


def test_wide_prints_every_metric_at_every_k() -> None:
    out, _ = run("evaluate", "--workspace", str(SAMPLE), "--wide")
    assert table(out)[0][1:] == [f"{metric}@{k}" for metric in BUILTIN_METRICS for k in DEFAULT_KS]


def test_metrics_and_k_chosen_by_flags_are_printed_as_asked() -> None:
    out, err = run("evaluate", "--workspace", str(SAMPLE), "--metrics", "ndcg", "--k", "10,20")
    assert table(out)[0][1:] == ["ndcg@10", "ndcg@20"]
    assert "--wide" not in err


def test_csv_keeps_every_column() -> None:
    out, _ = run("evaluate", "--workspace", str(SAMPLE), "--format", "csv")
    assert [line.split(",")[0] for line in out.splitlines()[1:]] == [
        f"{metric}@{k}" for metric in BUILTIN_METRICS for k in DEFAULT_KS
    ]


def test_long_names_leave_out_columns_never_cut_them(tmp_path: Path) -> None:
    sample = load_workspace(SAMPLE)
    config = sample.config(sample.names[0])
    names = [
        f"{retriever}-recursive-separators-{size}-overlap-{size // 8}-with-a-long-tail-of-words"
        for retriever, size in (("bm25", 128), ("lsa", 256), ("hybrid", 512), ("splade", 1024), ("dense", 2048))
    ]
    (tmp_path / "qrels.trec").write_bytes(Path(str(config.qrels)).read_bytes())
    (tmp_path / "run.trec").write_bytes(config.run.read_bytes())
    manifest = ['qrels = "qrels.trec"', *(f'[[config]]\nname = "{name}"\nrun = "run.trec"' for name in names)]
    (tmp_path / "contextgrid.toml").write_text("\n".join(manifest) + "\n")
    out, err = run("evaluate", "--workspace", str(tmp_path))
    assert max(map(len, out.split("\n\n")[0].splitlines())) <= TERMINAL_WIDTH
    rows = table(out)
    assert [row[0] for row in rows[1:]] == names  # every name whole
    shown = len(rows[0]) - 1
    assert 1 <= shown < len(BUILTIN_METRICS)
    assert f"{shown} of {len(BUILTIN_METRICS) * len(DEFAULT_KS)} columns shown" in err


def test_the_help_explains_every_column_the_table_prints(capsys: pytest.CaptureFixture[str]) -> None:
    main(["evaluate", "--help"])
    text = capsys.readouterr().out
    assert max(map(len, text.splitlines())) <= TERMINAL_WIDTH
    heads = re.findall(r"^  (\S.*?)  ", text.split("columns of the table:")[1], flags=re.MULTILINE)
    explained = {name.strip() for head in heads for name in head.split(",")}
    out, _ = run("evaluate", "--workspace", str(SAMPLE), "--wide")
    for header in table(out)[0]:
        name = "config" if header == "config" else re.sub(r"@\d+$", "@k", header)
        assert name in explained, header
    assert "--wide" in text
