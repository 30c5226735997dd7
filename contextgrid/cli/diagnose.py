"""``contextgrid diagnose``: why each question fails, per configuration.

One row per (configuration, question) of the workspace's questions file, in
file order: the cause, its signals and what would have fixed it
(:func:`contextgrid.workspace.causes.failure_causes`); why each ``unresolved``
question's gold was not found goes to stderr, with its line of the questions
file. The table shows the
columns that fit a terminal (:data:`TABLE_COLUMNS`) and ends with the count of
each cause per configuration; csv and json hold every column, one row (one
JSON object) per (configuration, question). The rows mix words (causes, chunk
ids) with numbers, so they are printed by this module's own writers rather
than as a :class:`~contextgrid.cli.tables.ScoreTable`, which holds scores only.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from contextgrid.cli.commands import Subcommand, add_cutoff_option, limits
from contextgrid.cli.tables import printable
from contextgrid.core.log import Severity

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["COMMAND", "ROW_FORMATS", "TABLE_COLUMNS", "records"]

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
    "gold_recall_at_k": "recall_k",
    "vocabulary_gap": "lex_gap",
    "gold_density": "density",
    "smallest_k": "min_k",
    "smallest_budget": "min_budget",
    "hit_elsewhere": "elsewhere",
}
"""The table's headers for the long column names, so a row fits a terminal (csv and json keep the names)."""


def _write_table(records: list[dict[str, Cell]], columns: list[str], stream: TextIO) -> None:
    """Aligned columns, text to the left and numbers to the right, ``-`` where a signal does not apply."""
    cells = [[_table_cell(column, record[column]) for column in columns] for record in records]
    headers = [_SHORT.get(column, column) for column in columns]
    widths = [max(len(header), *(len(row[i]) for row in cells)) for i, header in enumerate(headers)]
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
        help="output format (default: table, the main columns with shortened headers (first_rank is "
        "first_relevant_rank, recall_k gold_recall_at_k, lex_gap vocabulary_gap, density gold_density, min_k and "
        "min_budget smallest_k and smallest_budget, elsewhere hit_elsewhere) and the count of each cause; csv and "
        "json: every column, one row per configuration and question)",
    )


def _run_diagnose(args: argparse.Namespace) -> int:
    """Print every question's cause; 0 on success (bad input raises :class:`ContextGridError`)."""
    from contextgrid.workspace.causes import failure_causes
    from contextgrid.workspace.manifest import load_workspace

    workspace = load_workspace(args.workspace, **limits(args))
    if args.config is not None:
        workspace.config(args.config)  # an unknown name is refused before any work, naming the available ones
    # Every configuration, even for one: hit_elsewhere counts the others that get each question right.
    frame = failure_causes(workspace, k=args.k)
    if args.config is not None:
        frame = frame.loc[frame["config"] == args.config].reset_index(drop=True)
    columns = [str(column) for column in frame.columns]
    if args.format == "table":
        columns = [column for column in TABLE_COLUMNS if column in columns]
    if args.config is not None:
        columns.remove("config")
    ROW_FORMATS[args.format](records(frame), columns, sys.stdout)
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
    "why each question fails: its cause (hit, split, ranked_low, not_retrieved ...) and the signals behind it",
    _configure_diagnose,
    _run_diagnose,
    reads_files=True,
)
