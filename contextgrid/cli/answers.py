"""``contextgrid answers``: score generated answers per configuration."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from contextgrid.answering.batch import SCORE_COLUMNS, worst_first
from contextgrid.cli.commands import Subcommand, limits
from contextgrid.cli.tables import TERMINAL_WIDTH
from contextgrid.workspace.answers import workspace_answers_frame, workspace_summary

if TYPE_CHECKING:
    import pandas as pd

    from contextgrid.cli.tables import ScoreTable


__all__ = ["ANSWERS_EPILOG", "COMMAND"]

ANSWERS_EPILOG = f"""\
columns of the table (rows, with --config):
  measure, config        a row per measure, a column per configuration with answers (its name
                         wrapped after a - to fit; a row per configuration if still too wide)
  question               with --config: a row per answer, worst first (most problems first)
  answers                the configuration's answers
  answered               those that did not abstain
  groundedness           the share of an answer's distinct words its context holds (per
                         configuration: the mean over the answers that did not abstain, as for
                         the next two)
  citation_accuracy      the share of its cited passages that were in its context (- if none)
  evidence_overlap       the share of its gold chunks' distinct words the answer uses
  abstained              1 if it declined to answer (per configuration: how many did)
  should_have_abstained  1 if its context held no gold chunk, so declining was right
  correct_refusals       abstained with nothing to answer from
  wrong_refusals         abstained although the context held the answer's evidence
  unwarranted_answers    answered although the context held none of it
  problems               the warnings on the answer (a citation of a passage not in its context ...)
A table wider than {TERMINAL_WIDTH} characters has its headers wrapped after a - or _; if that is not enough, its
columns are left out from the right, named in a note on stderr. --wide prints it whole; csv and json
always hold every column."""


def _column(frame: pd.DataFrame, column: str) -> list[float | None]:
    """A column as the command prints it: flags as 1 or 0, counts as ints, a missing mean as ``None``."""
    cells: list[float | None] = []
    for value in frame[column].tolist():
        if isinstance(value, bool):
            cells.append(int(value))
        elif isinstance(value, float) and math.isnan(value):
            cells.append(None)
        else:
            cells.append(value)
    return cells


def _configure_answers(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``contextgrid answers WORKSPACE [--config NAME] [--format table|csv|json]``; json is a list
    of one object per row of the table."""
    from contextgrid.cli.tables import FORMATS

    parser.add_argument("workspace", type=Path, metavar="WORKSPACE", help="the workspace folder")
    parser.add_argument(
        "--config",
        metavar="NAME",
        help="one row per answer of this configuration, worst first (default: one column per configuration)",
    )
    parser.add_argument("--format", choices=tuple(FORMATS), default="table", help="output format (default: table)")
    parser.add_argument(
        "--wide",
        action="store_true",
        help=f"print the table whole, however wide (default: fit {TERMINAL_WIDTH} characters)",
    )
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = ANSWERS_EPILOG


def _run_answers(args: argparse.Namespace) -> int:
    """Print the answer scores: per configuration (means and abstention counts), or per answer of ``--config``."""
    from contextgrid.cli.tables import FORMATS, ScoreTable
    from contextgrid.workspace.manifest import load_workspace

    workspace = load_workspace(args.workspace, **limits(args))
    if args.config is None:
        summary = workspace_summary(workspace)
        values = tuple(tuple(_column(summary, column)) for column in summary.columns)
        grid = ScoreTable("measure", tuple(summary.columns), tuple(map(str, summary.index)), values)
    else:
        frame = worst_first(workspace_answers_frame(workspace, args.config))
        columns = [_column(frame, column) for column in SCORE_COLUMNS]
        values = tuple(zip(*columns, strict=True))
        grid = ScoreTable("question", tuple(map(str, frame.index)), SCORE_COLUMNS, values)
    if args.format == "json":
        _write_rows(grid, "config" if args.config is None else "question")
    elif args.format == "table" and not args.wide:
        _write_fitted(grid, summary=args.config is None)
    else:
        FORMATS[args.format](grid, sys.stdout)
    return 0


def _write_fitted(grid: ScoreTable, *, summary: bool) -> None:
    """``grid`` within the terminal's width: its headers wrapped where that is enough, else (the summary turned
    to a row per configuration) its first columns that fit, with a note on stderr naming the others."""
    from contextgrid.cli.tables import FORMATS, fitted, fitted_lines, printable

    lines = fitted_lines(grid)
    if lines is not None:
        print("\n".join(lines))
        return
    table = grid.transposed("config") if summary else grid
    shown = fitted(table)
    left = table.columns[len(shown.columns) :]
    print(
        f"contextgrid: note: {', '.join(map(printable, left))} left out to fit {TERMINAL_WIDTH} characters; "
        "--wide prints every column (csv and json hold them all)",
        file=sys.stderr,
    )
    FORMATS["table"](shown, sys.stdout)


def _write_rows(grid: ScoreTable, key: str) -> None:
    """JSON as every command prints it: a list of one object per row of the data, its name under ``key``, then
    its numbers: per configuration (the table's columns), or per answer of ``--config`` (the table's rows)."""
    from contextgrid.cli.diagnose import ROW_FORMATS

    if key == "config":
        names, fields = grid.columns, grid.rows
        cells = [[row[i] for row in grid.values] for i in range(len(grid.columns))]
    else:
        names, fields, cells = grid.rows, grid.columns, [list(row) for row in grid.values]
    rows = [{key: name, **dict(zip(fields, row, strict=True))} for name, row in zip(names, cells, strict=True)]
    ROW_FORMATS["json"](rows, [key, *fields], sys.stdout)


COMMAND = Subcommand(
    "answers",
    "score generated answers per configuration: groundedness, citations, abstentions",
    _configure_answers,
    _run_answers,
    reads_files=True,
)
