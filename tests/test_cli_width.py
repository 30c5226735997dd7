"""The tables of ``contextgrid evaluate``, ``compare``, ``diagnose``, ``answers``, ``audit`` and ``budget`` fit a
100-character terminal by default, say what they left out, print every column with ``--wide``, and each
command's help explains every column it prints."""

from __future__ import annotations

import io
import re
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pandas as pd
import pytest

from contextgrid.analysis.questions import shared_scores
from contextgrid.answering.batch import SCORE_COLUMNS, answers_frame, worst_first
from contextgrid.cli.budget import LEFT_OUT_FIRST as BUDGET_LEFT_OUT
from contextgrid.cli.budget import TABLE_COLUMNS as BUDGET_COLUMNS
from contextgrid.cli.diagnose import TABLE_COLUMNS
from contextgrid.cli.main import main
from contextgrid.cli.tables import TERMINAL_WIDTH
from contextgrid.metrics.base import BUILTIN_METRICS, DEFAULT_K, DEFAULT_KS
from contextgrid.significance import compare_configurations
from contextgrid.significance.wording import format_interval, format_level
from contextgrid.workspace.answers import workspace_answers, workspace_summary
from contextgrid.workspace.audit import audit_workspace
from contextgrid.workspace.budget import budget_curves
from contextgrid.workspace.causes import failure_causes
from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.model import Workspace
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


# -- compare, diagnose, answers, audit, budget: each fits, says what it left out, and --wide prints it all --------


def lines_of(out: str) -> list[str]:
    return out.rstrip("\n").splitlines()


def fits(out: str) -> bool:
    return max(map(len, lines_of(out))) <= TERMINAL_WIDTH


def explained(command: str) -> set[str]:
    """The names the command's help explains: the first words of its indented column lines."""
    out = help_of(command)
    heads = re.findall(r"^  (\S.*?)(?:  |$)", out, flags=re.MULTILINE)
    return {name.strip() for head in heads for name in head.split(",")}


def help_of(command: str) -> str:
    return run(command, "--help")[0]


def sliced(lines: list[str], header: str) -> list[list[str]]:
    """Rows of a table whose columns are left-aligned under ``header``'s words (two spaces apart), cell by cell."""
    starts = [match.start() for match in re.finditer(r"(?:^|(?<=  ))\S", header)]
    ends = [*starts[1:], None]
    return [[line[start:end].strip() for start, end in zip(starts, ends, strict=True)] for line in lines]


@pytest.fixture(scope="module")
def sample() -> Workspace:
    return load_workspace(SAMPLE)


def test_compare_fits_with_the_librarys_numbers_and_wide_prints_every_column(sample: Workspace) -> None:
    out, err = run("compare", str(SAMPLE), "--metric", "recall@10")
    assert fits(out)
    assert "d and W/T/L left out" in err
    assert "--wide" in err
    lines = lines_of(out)
    header = next(line for line in lines if line.startswith("config "))
    rows = sliced(lines[lines.index(header) + 1 : lines.index(header) + 1 + len(sample.names)], header)
    assert sliced([header], header)[0] == ["config", "mean", "difference", "interval (level)", "p (holm)", "verdict"]
    scores = shared_scores(sample.per_query("recall", 10), sample.names)
    table = compare_configurations(scores, baseline=sample.names[0], metric="recall@10")
    frame = table.to_dataframe()
    assert [row[0] for row in rows] == list(sample.names)
    for config, mean, difference, interval, _, verdict in rows:
        record = frame.loc[config].to_dict()
        assert mean == f"{record['mean']:.4f}"
        if config == sample.names[0]:
            assert (difference, interval, verdict) == ("", "", "baseline")
            continue
        assert difference == f"{record['difference']:+.4f}"
        level = format_level(float(record["ci_level"]))
        assert interval == f"{format_interval(float(record['ci_low']), float(record['ci_high']))} ({level})"
        words = {"▲": "▲ better", "▼": "▼ worse", "": "not significant"}
        assert verdict == words[str(record["marker"])]
    assert "▲ better, ▼ worse: significantly so at alpha 0.05, after the holm correction" in lines
    wide, err = run("compare", str(SAMPLE), "--metric", "recall@10", "--wide")
    assert (wide, err) == (str(table) + "\n", "")
    csv_out, _ = run("compare", str(SAMPLE), "--metric", "recall@10", "--format", "csv")
    assert csv_out == frame.to_csv()


def test_diagnose_fits_with_the_librarys_causes_and_wide_prints_every_column(sample: Workspace) -> None:
    out, err = run("diagnose", str(SAMPLE))
    table_lines = out.split("\n\n")[0].splitlines()
    assert fits(out)
    heads = table_lines[0].split()
    assert heads == ["config", "question", "cause", "first_rank", "best_share", "gold_recall", "elsewhere"]
    assert "retrieved, vocab_gap, density, distractors, min_k, min_budget left out" in err
    assert "--wide" in err
    frame = failure_causes(sample, k=DEFAULT_K)
    assert len(table_lines) - 1 == len(frame)
    for line, (_, record) in zip(table_lines[1:], frame.iterrows(), strict=True):
        config, question, cause, rank, share, recall, elsewhere = line.split()
        assert (config, question, cause) == (record["config"], record["question"], record["cause"])
        for cell, value, shown in (
            (rank, record["first_relevant_rank"], str),
            (share, record["best_chunk_share"], "{:.2f}".format),
            (recall, record["gold_recall_at_k"], "{:.2f}".format),
            (elsewhere, record["hit_elsewhere"], str),
        ):
            assert cell == ("-" if pd.isna(value) else shown(value)), (question, cell, value)
    wide, err = run("diagnose", str(SAMPLE), "--wide")
    assert err == ""
    assert len(wide.splitlines()[0].split()) == len(TABLE_COLUMNS)
    names = explained("diagnose")
    assert {*wide.splitlines()[0].split(), "causes"} - {"causes"} <= names


def test_the_diagnose_counts_and_the_csv_keep_every_column(sample: Workspace) -> None:
    out, _ = run("diagnose", str(SAMPLE), "--format", "csv")
    assert out.splitlines()[0].split(",") == [str(column) for column in failure_causes(sample, k=DEFAULT_K).columns]


def answers_header(lines: list[str], corner: str) -> tuple[list[str], int]:
    """The column names of a table whose headers are wrapped over several lines, right-aligned, and the index of
    the line that holds the corner (the last header line)."""
    last = next(i for i, line in enumerate(lines) if line.startswith(corner + " "))
    ends = [match.end() for match in re.finditer(r"\S+", lines[last])][1:]
    names = ["" for _ in ends]
    for line in lines[: last + 1]:
        for match in re.finditer(r"\S+", line):
            if match.end() in ends:
                names[ends.index(match.end())] += match.group()
    return names, last


def test_answers_fits_by_wrapping_configuration_names_with_the_librarys_numbers(sample: Workspace) -> None:
    out, err = run("answers", str(SAMPLE))
    assert fits(out)
    assert err == ""
    summary = workspace_summary(sample)
    lines = lines_of(out)
    names, last = answers_header(lines, "measure")
    assert names == list(summary.index)  # every configuration, its name whole once its lines are joined
    assert last > 0  # wrapped: on one line the table is wider than the terminal
    for line, measure in zip(lines[last + 1 :], summary.columns, strict=True):
        label, *cells = line.split()
        assert label == measure
        for cell, value in zip(cells, summary[measure], strict=True):
            assert cell == (f"{value:.4f}" if isinstance(value, float) else str(int(value)))
    wide, _ = run("answers", str(SAMPLE), "--wide")
    assert wide.splitlines()[0].split() == ["measure", *summary.index]
    assert not fits(wide)


def test_answers_of_one_configuration_fit_with_every_column(sample: Workspace) -> None:
    config = sample.names[3]
    out, err = run("answers", str(SAMPLE), "--config", config)
    assert fits(out)
    assert err == ""
    names, last = answers_header(lines_of(out), "question")
    assert names == list(SCORE_COLUMNS)
    frame = worst_first(answers_frame(workspace_answers(sample, config)))
    assert [line.split()[0] for line in lines_of(out)[last + 1 :]] == list(map(str, frame.index))
    help_names = explained("answers")
    assert {"measure", "config", "question", *SCORE_COLUMNS, *workspace_summary(sample).columns} <= help_names
    assert "--wide" in help_of("answers")


def test_answers_too_many_for_wrapped_names_turn_to_a_row_per_configuration(tmp_path: Path) -> None:
    sample = load_workspace(SAMPLE)
    config = sample.config(sample.names[3])
    assert config.answers is not None
    names = [f"configuration-with-a-long-name-{i}" for i in range(8)]
    for name in ("qrels", "run", "chunks", "answers"):
        source = getattr(config, name)
        (tmp_path / Path(str(source)).name).write_bytes(Path(str(source)).read_bytes())
    (tmp_path / "documents").symlink_to(Path(str(sample.documents_path)))
    (tmp_path / "questions.jsonl").write_bytes(Path(str(sample.questions_path)).read_bytes())
    files = {name: Path(str(getattr(config, name))).name for name in ("qrels", "run", "chunks", "answers")}
    manifest = [
        'documents = "documents"\nquestions = "questions.jsonl"',
        *(
            f'[[config]]\nname = "{name}"\n' + "\n".join(f'{key} = "{value}"' for key, value in files.items())
            for name in names
        ),
    ]
    (tmp_path / "contextgrid.toml").write_text("\n".join(manifest) + "\n")
    out, err = run("answers", str(tmp_path))
    assert fits(out)
    assert [line.split()[0] for line in lines_of(out)[1:]] == names
    shown = lines_of(out)[0].split()[1:]
    assert shown == list(workspace_summary(load_workspace(tmp_path)).columns[: len(shown)])
    assert f"{', '.join(workspace_summary(load_workspace(tmp_path)).columns[len(shown) :])} left out" in err


def test_audit_wraps_each_detail_under_its_column(sample: Workspace) -> None:
    out, err = run("audit", str(SAMPLE))
    assert fits(out)
    assert err == ""
    findings = audit_workspace(sample)
    lines = out.split("\n\n")[0].splitlines()
    indent = lines[0].index("detail")
    details: list[str] = []
    for line in lines[1:]:
        if line[:indent].strip():
            details.append(line[indent:])
        else:
            details[-1] += " " + line[indent:]
    assert details == list(findings["detail"])
    wide, _ = run("audit", str(SAMPLE), "--wide")
    assert len(wide.split("\n\n")[0].splitlines()) == len(findings) + 1
    assert {"kind", "question", "detail"} <= explained("audit")


def test_budget_fits_with_every_column_on_the_sample() -> None:
    out, err = run("budget", str(SAMPLE))
    assert fits(out)
    assert lines_of(out)[0].split() == ["config", "budget", "(characters)", *BUDGET_COLUMNS[2:]]
    assert "left out" not in err


def long_named(folder: Path, prefix: str) -> Path:
    """A copy of the sample workspace with ``prefix`` before each configuration's name."""
    copy = Path(shutil.copytree(SAMPLE, folder / "workspace"))
    manifest = (copy / "contextgrid.toml").read_text()
    (copy / "contextgrid.toml").write_text(re.sub(r'^name = "(.*)"$', rf'name = "{prefix}\1"', manifest, flags=re.M))
    return copy


def test_budget_leaves_out_columns_for_long_names_says_which_and_wide_prints_them(tmp_path: Path) -> None:
    workspace = long_named(tmp_path, "retrieval-configuration-")
    means = budget_curves(load_workspace(workspace)).means()
    out, err = run("budget", str(workspace))
    assert fits(out)
    header = lines_of(out)[0].split()
    left = [column for column in BUDGET_COLUMNS if column not in ["budget", *header]]
    assert left
    assert set(left) == set(BUDGET_LEFT_OUT[: len(left)])
    assert f"contextgrid: note: {', '.join(left)} left out to fit {TERMINAL_WIDTH} characters" in err
    wide, wide_err = run("budget", str(workspace), "--wide")
    assert not fits(wide)
    assert lines_of(wide)[0].split() == ["config", "budget", "(characters)", *BUDGET_COLUMNS[2:]]
    assert "left out" not in wide_err
    # The cells are the library's means, as the table rounds them.
    rows = [line.split() for line in lines_of(wide)[1:]]
    assert len(rows) == len(means)
    for row, ((config, budget), mean) in zip(rows, means.iterrows(), strict=True):
        assert (row[0], row[1]) == (config, f"{budget:,}")
        assert row[2:] == [
            f"{mean['evidence_recall']:.3f}",
            f"{mean['hit_rate']:.3f}",
            f"{mean['characters']:,.0f}",
            f"{mean['chunks']:.1f}",
            str(int(mean["questions"])),
        ]


def test_the_budget_help_explains_every_column() -> None:
    names = explained("budget")
    assert {"config", "budget (UNIT)", *BUDGET_COLUMNS[2:]} <= names


@pytest.mark.parametrize("command", ["compare", "diagnose", "answers", "audit", "budget"])
def test_each_help_fits_the_terminal(command: str) -> None:
    assert fits(help_of(command))


def test_the_compare_help_explains_every_column_of_either_table() -> None:
    narrow, _ = run("compare", str(SAMPLE), "--metric", "recall@10")
    wide, _ = run("compare", str(SAMPLE), "--metric", "recall@10", "--wide")
    names = explained("compare")
    for out in (narrow, wide):
        header = next(line for line in lines_of(out) if line.startswith("config "))
        for name in sliced([header], header)[0]:
            assert ("p (CORRECTION)" if name.startswith("p (") else name) in names, name
