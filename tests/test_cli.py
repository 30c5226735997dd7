"""The contextgrid command: numbers that are contextgrid.evaluate's, formats, exit statuses and the dashboard."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from commandline import run_main
from plugins import BrokenMetric

import contextgrid as cg
from contextgrid.cli.main import main as run_cli
from contextgrid.cli.progress import LARGE_FILE_BYTES, FileProgress
from contextgrid.workspace.manifest import load_workspace

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "sample_data" / "workspace"

QRELS = {"q1": {"c1": 2, "c2": 1, "c3": 0}, "q2": {"c4": 2}, "q3": {"c5": 0}}
RUN_A = {"q1": ["c3", "c1", "c5", "c2"], "q2": ["c9", "c4", "c1"]}
RUN_B = {"q1": ["c1", "c2", "c7"], "q3": ["c5"]}  # never answers q2


def trec_qrels(qrels: dict[str, dict[str, int]]) -> str:
    return "".join(f"{q} 0 {c} {g}\n" for q, judged in qrels.items() for c, g in judged.items())


def trec_run(run: dict[str, list[str]]) -> str:
    return "".join(
        f"{q} Q0 {c} {rank} {50 - rank}.25 test\n" for q, ranked in run.items() for rank, c in enumerate(ranked, 1)
    )


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "qrels.trec").write_text(trec_qrels(QRELS))
    (tmp_path / "a.trec").write_text(trec_run(RUN_A))
    (tmp_path / "b.trec").write_text(trec_run(RUN_B))
    return tmp_path


def test_table_prints_one_column_per_run_with_hand_checked_numbers(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run_main(
        capsys, "evaluate", "qrels.trec", "a.trec", "b.trec", "--k", "1,3", "--metrics", "recall,ndcg"
    )
    assert (status, err) == (0, "")
    # a: the spec's example (recall@3 0.75, ndcg@3 0.5553). b at k=1: q1 finds c1 of {c1, c2} and
    # q2 is unanswered, so recall 0.25; ndcg@1 = (2/2 + 0) / 2 = 0.5; at k=3 q1 has both: recall 0.5,
    # ndcg@3 = (2 + 1/log2(3)) / (2 + 1/log2(3)) / 2 = 0.5.
    assert out == (
        "metric    a.trec  b.trec\n"
        "recall@1  0.0000  0.2500\n"
        "recall@3  0.7500  0.5000\n"
        "ndcg@1    0.0000  0.5000\n"
        "ndcg@3    0.5553  0.5000\n"
        "\n"
        "a.trec: 2 questions scored, all answered; 1 judged question left out (no relevant chunk)\n"
        "b.trec: 2 questions scored (1 answered, 1 not in the run, each scored 0); 1 judged question left out "
        "(no relevant chunk)\n"
    )


def test_csv_and_json_carry_evaluates_numbers_exactly(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = {name: cg.evaluate(QRELS, run) for name, run in (("a.trec", RUN_A), ("b.trec", RUN_B))}
    status, out, _ = run_main(capsys, "evaluate", "qrels.trec", "a.trec", "b.trec", "--format", "csv")
    assert status == 0
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["metric", "a.trec", "b.trec"]
    assert [row[0] for row in rows[1:]] == list(expected["a.trec"])  # evaluate's order: metric-major
    assert {row[0]: float(row[1]) for row in rows[1:]} == expected["a.trec"]
    assert {row[0]: float(row[2]) for row in rows[1:]} == expected["b.trec"]

    status, out, _ = run_main(capsys, "evaluate", "qrels.trec", "a.trec", "b.trec", "--format", "json")
    assert status == 0
    assert json.loads(out) == expected


def test_per_query_prints_question_by_run(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_main(
        capsys, "evaluate", "qrels.trec", "a.trec", "b.trec", "--per-query", "--metrics", "recall", "--k", "3"
    )
    assert status == 0
    table, counts = out.split("\n\n")
    # The last row is each run's recall@3, as evaluate() gives it.
    assert (
        table
        == "question  a.trec  b.trec\nq1        0.5000  1.0000\nq2        1.0000  0.0000\nmean      0.7500  0.5000"
    )
    assert counts.startswith("a.trec: 2 questions scored, all answered")
    status, out, _ = run_main(
        capsys,
        "evaluate",
        "qrels.trec",
        "a.trec",
        "b.trec",
        "--per-query",
        "--metrics",
        "ndcg",
        "--k",
        "2",
        "--format",
        "json",
    )
    assert json.loads(out) == {
        "a.trec": cg.per_query(QRELS, RUN_A, "ndcg", 2),
        "b.trec": cg.per_query(QRELS, RUN_B, "ndcg", 2),
    }


def test_file_formats_can_be_named_when_the_suffix_does_not_tell(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (files / "judged.dat").write_text(trec_qrels(QRELS))
    (files / "a.out").write_text(trec_run(RUN_A))
    argv = ["evaluate", "judged.dat", "a.out", "--qrels-format", "trec", "--run-format", "trec", "--format", "json"]
    status, out, _ = run_main(capsys, *argv)
    assert status == 0
    assert json.loads(out) == {"a.out": cg.evaluate(QRELS, RUN_A)}
    status, _, err = run_main(capsys, "evaluate", "judged.dat", "a.out")
    assert status == 2
    assert "cannot tell the format of 'judged.dat'" in err


def test_workspace_prints_one_column_per_configuration(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_main(capsys, "evaluate", "--workspace", str(SAMPLE), "--format", "json", "--k", "5,10")
    # The sample's 21 questions without gold evidence are in the runs but not in the qrels: said, not scored.
    assert (status, err) == (
        0,
        "contextgrid: note: every configuration: 253 questions scored, all answered; 21 run questions not judged "
        "(ignored)\n",
    )
    scores = json.loads(out)
    workspace = load_workspace(SAMPLE)
    assert list(scores) == list(workspace.names)
    for config in workspace.configs:
        qrels = {q: dict(j) for q, j in workspace.qrels(config.name).items()}
        run = {q: list(r) for q, r in workspace.run(config.name).items()}
        assert scores[config.name] == cg.evaluate(qrels, run, ks=[5, 10])

    status, out, _ = run_main(
        capsys,
        "evaluate",
        "--workspace",
        str(SAMPLE),
        "--per-query",
        "--metrics",
        "mrr",
        "--k",
        "10",
        "--format",
        "csv",
    )
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["question", *workspace.names]
    config = workspace.configs[2]
    expected = cg.per_query(
        {q: dict(j) for q, j in workspace.qrels(config.name).items()},
        {q: list(r) for q, r in workspace.run(config.name).items()},
        "mrr",
        10,
    )
    *questions, means = rows[1:]
    assert {row[0]: float(row[3]) for row in questions if row[3]} == expected
    assert means[0] == "mean"
    assert (
        float(means[3])
        == cg.evaluate(
            {q: dict(j) for q, j in workspace.qrels(config.name).items()},
            {q: list(r) for q, r in workspace.run(config.name).items()},
            ks=[10],
            metrics=["mrr"],
        )["mrr@10"]
    )


def test_a_question_one_configuration_does_not_score_shows_as_missing(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (files / "own.trec").write_text(trec_qrels({"q1": {"c1": 1}, "q9": {"c7": 2}}))
    (files / "contextgrid.toml").write_text(
        'qrels = "qrels.trec"\n[[config]]\nname = "a"\nrun = "a.trec"\n'
        '[[config]]\nname = "b"\nrun = "b.trec"\nqrels = "own.trec"\n'
    )
    argv = ["evaluate", "--workspace", ".", "--per-query", "--metrics", "recall", "--k", "1"]
    status, out, _ = run_main(capsys, *argv)
    assert status == 0
    # a scores q1 (c3 first: 0) and q2 (c9 first: 0); b is judged on q1 (c1 first: 1) and q9 (unanswered: 0).
    assert out == (
        "question       a       b\nq1        0.0000  1.0000\nq2        0.0000       -\nq9             -  0.0000\n"
        "mean      0.0000  0.5000\n\n"
        "a: 2 questions scored, all answered; 1 judged question left out (no relevant chunk)\n"
        "b: 2 questions scored (1 answered, 1 not in the run, each scored 0); 1 run question not judged (ignored)\n"
    )
    status, out, _ = run_main(capsys, *argv, "--format", "json")
    assert json.loads(out) == {"a": {"q1": 0.0, "q2": 0.0, "q9": None}, "b": {"q1": 1.0, "q2": None, "q9": 0.0}}
    status, out, _ = run_main(capsys, *argv, "--format", "csv")
    assert out == "question,a,b\nq1,0.0,1.0\nq2,0.0,\nq9,,0.0\nmean,0.0,0.5\n"


def test_a_workspace_may_name_files_outside_its_folder(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (files / "ws").mkdir()
    (files / "ws" / "contextgrid.toml").write_text(
        'qrels = "../qrels.trec"\n[[config]]\nname = "a"\nrun = "../a.trec"\n'
    )
    status, out, err = run_main(capsys, "evaluate", "--workspace", "ws", "--metrics", "recall", "--k", "1,3")
    assert (status, err) == (0, "")
    # q1: c1 of c1, c2 at rank 2 (1/2); q2: c4 at rank 2 (1); q3 has nothing relevant and is left out.
    assert out == (
        "metric         a\nrecall@1  0.0000\nrecall@3  0.7500\n\n"
        "a: 2 questions scored, all answered; 1 judged question left out (no relevant chunk)\n"
    )


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["evaluate", "missing.trec", "a.trec"], "missing.trec: expected a file to read, but there is no such file"),
        (["evaluate", "qrels.trec", "x" * 300 + ".trec"], "cannot read 'xxx"),  # an OSError: name too long
        (["evaluate", "qrels.trec", "broken.trec"], "broken.trec, line 2"),
        (["evaluate", "qrels.trec", "a.trec", "--metrics", "recall@five"], "'recall@five' is not a metric@k label"),
        (["evaluate", "qrels.trec", "a.trec", "--metrics", "ndcg_cut_10"], "trec_eval's ndcg_cut_10 is 'ndcg@10' here"),
        (["evaluate", "qrels.trec", "a.trec", "--k", "0"], "cut-off k must be at least 1, got 0"),
        (["evaluate", "qrels.trec", "a.trec", "--k", "one"], "expected comma-separated whole numbers"),
        (["evaluate", "qrels.trec", "a.trec", "-m", "P.5"], "-m and -c are trec_eval's options: add --trec-eval"),
        (["evaluate", "qrels.trec", "a.trec", "--trec-eval", "-m", "bpref"], "trec_eval measure 'bpref' is not one"),
        (["evaluate", "qrels.trec", "a.trec", "b.trec", "--trec-eval"], "--trec-eval scores one run"),
        (["evaluate", "qrels.trec", "a.trec", "--trec-eval", "--k", "5"], "--k do not apply"),
        (["evaluate", "qrels.trec"], "needs a qrels file and at least one run file"),
        (["evaluate", "qrels.trec", "a.trec", "a.trec"], "each run file can be given once"),
        (["evaluate", "qrels.trec", "--workspace", "."], "not both"),
        (["evaluate", "--workspace", ".", "--run-format", "trec"], "apply to files given on the command line"),
        (["evaluate", "qrels.trec", "a.trec", "--run-format", "xml"], "argument --run-format: invalid choice"),
        (["evaluate", "--workspace", "nowhere"], "no such workspace folder"),
        (["evaluate", "--workspace", "bad-ws"], "contextgrid.toml, line 2"),
        (["evaluate", "qrels.trec", "a.trec", "--format", "xml"], "invalid choice: 'xml'"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        (["app", "nowhere"], "no such workspace folder"),
        (["app", "--port", "99999"], "expected a port number"),
        (["app", "--allow-folders", "nowhere"], "--allow-folders: 'nowhere' is not a folder"),
        (["app", "--max-upload-mb", "0"], "expected a whole number of megabytes, 1 or more, got '0'"),
    ],
)
def test_bad_input_exits_2_with_one_error_line_and_no_traceback(
    files: Path, capsys: pytest.CaptureFixture[str], argv: list[str], expected: str
) -> None:
    (files / "broken.trec").write_text("q1 Q0 c1 1 2.0 x\nq1 Q0 c2\n")
    (files / "bad-ws").mkdir()
    (files / "bad-ws" / "contextgrid.toml").write_text('qrels = "../qrels.trec"\nflavour = "x"\n')
    status, out, err = run_main(capsys, *argv)
    assert status == 2
    assert out == ""
    assert "Traceback" not in err
    last = err.rstrip("\n").splitlines()[-1]
    assert last.startswith("contextgrid: error: ")
    assert expected in last


def test_help_and_version_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_main(capsys, "--help")
    assert status == 0
    assert "evaluate" in out
    assert "app" in out
    status, out, _ = run_main(capsys, "evaluate", "--help")
    assert status == 0
    assert "--per-query" in out
    status, out, _ = run_main(capsys, "--version")
    assert (status, out) == (0, f"contextgrid {cg.__version__}\n")


def test_python_m_contextgrid_is_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    from contextgrid.workspace.sample import SAMPLE

    arguments = ["evaluate", "--workspace", str(SAMPLE), "--metrics", "recall", "--k", "5", "--format", "json"]
    done = subprocess.run(
        [sys.executable, "-m", "contextgrid", *arguments], capture_output=True, text=True, timeout=120, check=False
    )
    status, out, _ = run_main(capsys, *arguments)
    assert (done.returncode, done.stdout) == (status, out) == (0, out)
    assert json.loads(out)
    refused = subprocess.run(
        [sys.executable, "-m", "contextgrid", "evaluate"], capture_output=True, text=True, timeout=120, check=False
    )
    assert refused.returncode == 2
    assert refused.stderr.startswith("contextgrid: error: evaluate needs a qrels file")


def test_nothing_to_score_warns_and_prints_an_empty_grid(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (files / "zero.trec").write_text("q1 0 c1 0\n")
    status, out, err = run_main(capsys, "evaluate", "zero.trec", "a.trec", "--format", "json")
    assert status == 0
    assert json.loads(out) == {"a.trec": {}}
    assert "nothing was scored" in err


def test_a_metric_that_raises_is_reported_on_stderr_and_left_out(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:

    cg.METRICS.register("broken")(BrokenMetric)
    status, out, err = run_main(capsys, "evaluate", "qrels.trec", "a.trec", "--metrics", "recall,broken", "--k", "3")
    assert status == 0
    assert out.startswith("metric    a.trec\nrecall@3  0.7500\n\n")
    assert "contextgrid: warning: CAUTION [score] (broken): the 'broken' metric raised RuntimeError('oops')" in err


def test_the_input_files_are_left_as_they_were(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = {path.name: path.read_bytes() for path in files.iterdir()}
    run_main(capsys, "evaluate", "qrels.trec", "a.trec", "b.trec")
    assert {path.name: path.read_bytes() for path in files.iterdir()} == before


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_draws_on_a_terminal_and_erases_itself() -> None:
    stream = FakeTerminal()
    with FileProgress([300, 100], stream=stream) as progress:
        assert progress.enabled
        with progress.step("runs/a.trec", 300):
            assert "0/2 files" in progress.render()
            assert "runs/a.trec" in progress.render()
        assert progress.render().startswith("loading [" + "#" * 18 + "." * 6 + "] 1/2 files, 300 B of 400 B")
        with progress.step("qrels.trec", 100):
            pass
    drawn = stream.getvalue()
    assert "2/2 files, 400 B of 400 B" in drawn
    assert drawn.endswith("\r")  # the last thing written clears the line
    assert drawn.rsplit("\r", 2)[-2].strip() == ""


@pytest.mark.parametrize(
    ("sizes", "terminal", "shown"),
    [
        ([10, 10], True, True),
        ([10], True, False),  # one small file: nothing to wait for
        ([LARGE_FILE_BYTES], True, True),  # one large one
        ([10, 10], False, False),  # not a terminal: never
    ],
)
def test_progress_bar_shows_only_on_a_terminal_with_enough_to_load(
    sizes: list[int], terminal: bool, shown: bool
) -> None:
    stream = FakeTerminal() if terminal else io.StringIO()
    with FileProgress(sizes, stream=stream) as progress:
        for size in sizes:
            with progress.step("f", size):
                pass
    assert progress.enabled is shown
    assert bool(stream.getvalue()) is shown


def test_the_command_shows_progress_on_a_terminal_and_keeps_stdout_clean(
    files: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    status = run_cli(["evaluate", "qrels.trec", "a.trec", "--format", "json"])
    assert status == 0
    assert "loading [" in terminal.getvalue()
    assert "a.trec" in terminal.getvalue()
    assert json.loads(capsys.readouterr().out) == {"a.trec": cg.evaluate(QRELS, RUN_A)}


def contextgrid_command() -> list[str]:
    found = shutil.which("contextgrid", path=str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    assert found is not None, "the contextgrid entry point is not installed (pip install -e .)"
    return [found]


def test_the_installed_entry_point_runs_and_exits_2_on_bad_input(files: Path) -> None:
    done = subprocess.run(
        [*contextgrid_command(), "evaluate", "qrels.trec", "a.trec", "b.trec", "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"a.trec": cg.evaluate(QRELS, RUN_A), "b.trec": cg.evaluate(QRELS, RUN_B)}
    failed = subprocess.run(
        [*contextgrid_command(), "evaluate", "qrels.trec", "missing.trec"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert failed.returncode == 2
    assert failed.stdout == ""
    assert failed.stderr == "contextgrid: error: missing.trec: expected a file to read, but there is no such file\n"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_app_serves_the_dashboard_over_http() -> None:
    port = free_port()
    process = subprocess.Popen(
        [*contextgrid_command(), "app", str(SAMPLE), "--port", str(port), "--headless"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group, so streamlit goes down with it
    )
    try:
        deadline = time.monotonic() + 60
        answered = False
        while time.monotonic() < deadline and process.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as response:
                    answered = response.status == 200
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.5)
        assert answered, f"no answer on port {port} within 60 s; exit status {process.poll()}"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            output = process.communicate(timeout=20)[0]
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            output = process.communicate()[0]
    assert b"Traceback" not in output, output.decode(errors="replace")
