"""What the command line prints shows a name's control characters rather than sending them to the terminal: a
configuration or file named with ANSI escapes cannot clear the screen or retitle it (issue #34, items 5 and 10)."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextgrid.cli.main import main
from contextgrid.cli.tables import printable

NAME = "run\x1b]0;pwned\x07\x1b[2J\u202e.trec"
SHOWN = "run\\x1b]0;pwned\\x07\\x1b[2J\\u202e.trec"


def test_printable_escapes_controls_and_keeps_tabs_lines_and_text() -> None:
    assert printable(NAME) == SHOWN
    assert printable("a\tb\nc é ü 漢") == "a\tb\nc é ü 漢"


def test_evaluate_prints_a_run_named_with_escapes_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "q.trec").write_text("q1 0 c1 1\n")
    run = tmp_path / NAME
    run.write_text("q1 Q0 c1 1 1 x\n")
    assert main(["evaluate", str(tmp_path / "q.trec"), str(run), "--k", "1", "--metrics", "recall"]) == 0
    printed = capsys.readouterr()
    assert "\x1b" not in printed.out + printed.err
    assert "\u202e" not in printed.out + printed.err
    assert SHOWN in printed.out


def test_an_error_naming_a_file_with_escapes_shows_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "q.trec").write_text("q1 0 c1 1\n")
    run = tmp_path / NAME
    run.write_text("q1 Q0 c1 1 high x\n")
    assert main(["evaluate", str(tmp_path / "q.trec"), str(run)]) == 2
    error = capsys.readouterr().err
    assert "\x1b" not in error
    assert error.startswith(f"contextgrid: error: {tmp_path}/{SHOWN}, line 1: ")
