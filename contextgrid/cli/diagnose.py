"""``contextgrid diagnose``: why each question fails, per configuration.

One row per (configuration, question) of the workspace's questions file, in
file order: the cause, its signals and what would have fixed it
(:func:`contextgrid.workspace.causes.failure_causes`); why each ``unresolved``
question's gold was not found goes to stderr, with its line of the questions
file. The table shows the
main columns (:data:`TABLE_COLUMNS`), those of least weight left out
(:data:`LEFT_OUT_FIRST`) until a row fits a terminal unless ``--wide``, and ends
with the count of each cause per configuration; csv and json hold every column,
one row (one JSON object) per (configuration, question). The rows mix words (causes, chunk
ids) with numbers, so they are printed by this module's own writers rather
than as a :class:`~contextgrid.cli.tables.ScoreTable`, which holds scores only.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from contextgrid.cli.commands import Subcommand, add_cutoff_option, limits
from contextgrid.cli.tables import TERMINAL_WIDTH, kept_columns, printable
from contextgrid.core.log import Severity

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["COMMAND", "LEFT_OUT_FIRST", "ROW_FORMATS", "TABLE_COLUMNS", "fitted_columns", "records"]

Cell = str | int | float | bool | None

TABLE_COLUMNS = (
    "config",
    "question",
    "cause",
    "first_relevant_rank",
    "retrieved",
    "best_chunk_share",
    "gold_recall_at_k",
    "vocabulary_gap",
    "gold_density",
    "distractors",
    "smallest_k",
    "smallest_budget",
    "hit_elsewhere",
)
"""The columns of the table format, in order (csv and json hold them all)."""

LEFT_OUT_FIRST = (
    "retrieved",
    "distractors",
    "smallest_budget",
    "gold_density",
    "vocabulary_gap",
    "smallest_k",
    "best_chunk_share",
    "gold_recall_at_k",
    "hit_elsewhere",
    "first_relevant_rank",
)
"""The columns the table leaves out to fit a terminal, first to last: the run's depth and the signals a
--wide table adds to the cause, before the rank, the gold's share and the other configurations' hits."""

_SHARES = ("best_chunk_share", "distractor_similarity", "gold_share_of_top_k", "gold_recall_at_k", "gold_density")
"""Columns printed to 2 decimals in the table (csv and json keep every digit)."""


def _plain(value: object) -> Cell:
    """A cell as JSON holds it: missing as ``None``, numpy scalars as Python numbers, anything else as text."""
    import pandas as pd

    if pd.isna(value):  # type: ignore[call-overload]
        return None
    if isinstance(value, (bool, int, float)):
        return value
    item = getattr(value, "item", None)
    return item() if callable(item) else str(value)  # a numpy scalar has .item()


def records(frame: pd.DataFrame) -> list[dict[str, Cell]]:
    """The rows as plain values, the cause as its name."""
    return [
        {str(column): _plain(value) for column, value in row.items()} for row in frame.astype(object).to_dict("records")
    ]


def _table_cell(column: str, value: Cell) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if column in _SHARES and isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


_SHORT = {
    "first_relevant_rank": "first_rank",
    "best_chunk_share": "best_share",
    "gold_recall_at_k": "gold_recall",
    "vocabulary_gap": "vocab_gap",
    "gold_density": "density",
    "smallest_k": "min_k",
    "smallest_budget": "min_budget",
    "hit_elsewhere": "elsewhere",
}
"""The table's headers for the long column names, so a row fits a terminal (csv and json keep the names)."""

DIAGNOSE_EPILOG = """\
columns of the table (csv and json: every column, under its full name):
  config       the configuration (left out with --config)
  question     the question's id, in the order of the questions file
  cause        hit, partial, split, ranked_low, not_retrieved, no_gold (nothing to find) or
               unresolved (its gold not found in the documents)
  first_rank   first_relevant_rank: the rank of the first chunk holding gold (- if none)
  retrieved    the chunks the run ranks for the question
  best_share   best_chunk_share: the largest share of the gold one chunk holds, retrieved or not
  gold_recall  gold_recall_at_k: the share of the gold's characters in the top k
  vocab_gap    vocabulary_gap: yes when no term of the question is in the gold (BM25 only)
  density      gold_density: the gold's share of the chunk holding the most of it
  distractors  chunks ranked above the first relevant one (all, for not_retrieved) sharing more of
               the question's words than the gold's chunk, or nearly repeating the gold
  min_k        smallest_k: the smallest k at which this configuration would get it
  min_budget   smallest_budget: the smallest context, in characters, at which it would
  elsewhere    hit_elsewhere: the other configurations that get it right at k
  -            where a signal does not apply to the row's cause
After the rows: the count of each cause per configuration.
"""


def _epilog() -> str:
    order = ", ".join(_SHORT.get(column, column) for column in LEFT_OUT_FIRST)
    fit = (
        f"A row is kept within {TERMINAL_WIDTH} characters: columns are left out in this order until it fits "
        f"({order}), named in a note on stderr; --wide prints them all."
    )
    return DIAGNOSE_EPILOG + textwrap.fill(fit, width=TERMINAL_WIDTH - 2)


def _widths(records: list[dict[str, Cell]], columns: list[str]) -> list[int]:
    headers = [_SHORT.get(column, column) for column in columns]
    return [
        max(len(header), *(len(_table_cell(column, record[column])) for record in records))
        for header, column in zip(headers, columns, strict=True)
    ]


def fitted_columns(records: list[dict[str, Cell]], columns: list[str], width: int = TERMINAL_WIDTH) -> list[str]:
    """``columns`` without those of :data:`LEFT_OUT_FIRST`, in its order, that a row of the table needs left out
    to fit ``width`` characters."""
    droppable = [columns.index(column) for column in LEFT_OUT_FIRST if column in columns]
    return [columns[i] for i in kept_columns(_widths(records, columns), droppable, width)]


def _write_table(records: list[dict[str, Cell]], columns: list[str], stream: TextIO) -> None:
    """Aligned columns, text to the left and numbers to the right, ``-`` where a signal does not apply."""
    cells = [[_table_cell(column, record[column]) for column in columns] for record in records]
    headers = [_SHORT.get(column, column) for column in columns]
    widths = _widths(records, columns)
    numeric = [
        any(isinstance(record[column], (int, float)) and not isinstance(record[column], bool) for record in records)
        for column in columns
    ]
    lines = []
    for row in [headers, *cells]:
        parts = [
            cell.rjust(width) if right else cell.ljust(width)
            for cell, width, right in zip(row, widths, numeric, strict=True)
        ]
        lines.append("  ".join(parts).rstrip())
    stream.write("\n".join(lines) + "\n")


def _write_csv(records: list[dict[str, Cell]], columns: list[str], stream: TextIO) -> None:
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(columns)
    for record in records:
        writer.writerow(["" if record[column] is None else record[column] for column in columns])


def _write_json(records: list[dict[str, Cell]], columns: list[str], stream: TextIO) -> None:
    """A list with one object per row, missing values as ``null``."""
    rows = [{column: record[column] for column in columns} for record in records]
    stream.write(json.dumps(rows, indent=2, allow_nan=False) + "\n")


ROW_FORMATS: dict[str, Callable[[list[dict[str, Cell]], list[str], TextIO], None]] = {
    "table": _write_table,
    "csv": _write_csv,
    "json": _write_json,
}
"""The output formats of ``contextgrid diagnose``, by name: ``writer(records, columns, stream)``."""


def _configure_diagnose(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``contextgrid diagnose WORKSPACE [--config NAME] [--k K] [--format table|csv|json]``."""
    parser.add_argument("workspace", type=Path, metavar="WORKSPACE", help="the workspace folder")
    parser.add_argument("--config", metavar="NAME", help="only this configuration (default: every one)")
    add_cutoff_option(parser, command="diagnose")
    parser.add_argument(
        "--format",
        choices=tuple(ROW_FORMATS),
        default="table",
        help="output format (default: table, the main columns under the headers below and the count of each "
        "cause; csv and json: every column, one row per configuration and question)",
    )
    parser.add_argument(
        "--wide",
        action="store_true",
        help=f"print every column of the table, however wide (default: those that fit {TERMINAL_WIDTH} characters)",
    )
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = _epilog()


def _run_diagnose(args: argparse.Namespace) -> int:
    """Print every question's cause; 0 on success (bad input raises :class:`ContextGridError`)."""
    from contextgrid.workspace.causes import failure_causes
    from contextgrid.workspace.manifest import load_workspace

    workspace = load_workspace(args.workspace, **limits(args))
    if args.config is not None:
        workspace.config(args.config)  # an unknown name is refused before any work, naming the available ones
    # One configuration's rows count every other's hits in hit_elsewhere (their causes alone are found for that).
    one = None if args.config is None else [args.config]
    frame = failure_causes(workspace, k=args.k, configs=one, others=None if one is None else workspace.names)
    columns = [str(column) for column in frame.columns]
    if args.format == "table":
        columns = [column for column in TABLE_COLUMNS if column in columns]
    if args.config is not None:
        columns.remove("config")
    rows = records(frame)
    if args.format == "table" and not args.wide:
        shown = fitted_columns(rows, columns)
        left = [_SHORT.get(column, column) for column in columns if column not in shown]
        if left:
            print(
                f"contextgrid: note: {', '.join(left)} left out to fit {TERMINAL_WIDTH} characters; --wide prints "
                "every column (csv and json hold them all)",
                file=sys.stderr,
            )
        columns = shown
    ROW_FORMATS[args.format](rows, columns, sys.stdout)
    if args.format == "table":
        _write_counts(frame, sys.stdout)
    # Why each unresolved question is: its gold not found, named with its line of the questions file.
    for entry in workspace.resolved[1]:
        if entry.severity is Severity.CAUTION:
            print(f"contextgrid: warning: {printable(str(entry))}", file=sys.stderr)
    return 0


def _write_counts(frame: pd.DataFrame, stream: TextIO) -> None:
    """The count of each cause per configuration, after the rows: a blank line, then one row per configuration."""
    from contextgrid.analysis.causes import cause_counts

    counts = cause_counts(frame)
    records: list[dict[str, Cell]] = [
        {"causes": str(config), **{str(cause): int(n) for cause, n in row.items()}} for config, row in counts.iterrows()
    ]
    stream.write("\n")
    _write_table(records, ["causes", *map(str, counts.columns)], stream)


COMMAND = Subcommand(
    "diagnose",
    "why each question fails: its cause (hit, split, ranked_low ...) and the signals behind it",
    _configure_diagnose,
    _run_diagnose,
    reads_files=True,
)
