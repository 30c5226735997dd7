"""``contextgrid audit``: what in a workspace's questions and gold makes scores lie.

One finding per row (:func:`contextgrid.workspace.audit.audit_workspace`): repeated questions, gold never found
in the documents, each document's share of the gold, and retrieved chunks that may be unlabelled copies of a
gold passage. Nothing is re-scored: the findings are listed for a person to judge.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path
from typing import TextIO

from contextgrid.cli.commands import Subcommand, limits
from contextgrid.cli.diagnose import ROW_FORMATS, Cell, records
from contextgrid.cli.tables import TERMINAL_WIDTH, printable

__all__ = ["AUDIT_EPILOG", "AUDIT_FORMATS", "COMMAND"]

AUDIT_FORMATS = ("table", "json")
"""The output formats of ``contextgrid audit``: json is a list of one object per finding."""

AUDIT_EPILOG = f"""\
columns of the table, one row per finding:
  kind      duplicate_question (two questions with the same words), near_duplicate_question (most
            words shared), unresolved_gold (gold not found in the documents), gold_share (a
            document's share of the gold), possible_missing_label (a retrieved chunk not judged
            relevant that holds the gold passage's words)
  question  the question the finding is about (- for a document's share)
  detail    what was found, in words: wrapped under its column to fit {TERMINAL_WIDTH} characters
            (--wide: each finding on one line, however long)
After the rows: how many findings of each kind."""


def _configure_audit(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``contextgrid audit WORKSPACE [--format table|json]``."""
    parser.add_argument("workspace", type=Path, metavar="WORKSPACE", help="the workspace folder")
    parser.add_argument(
        "--format",
        choices=AUDIT_FORMATS,
        default="table",
        help="output format (default: table; json: a list of one object per finding, with kind, question, detail)",
    )
    parser.add_argument(
        "--wide",
        action="store_true",
        help=f"each finding's detail on one line, however long (default: wrapped to {TERMINAL_WIDTH} characters)",
    )
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = AUDIT_EPILOG


def _run_audit(args: argparse.Namespace) -> int:
    """Print every finding, then how many of each kind; 0 on success (bad input raises)."""
    from contextgrid.workspace.audit import audit_workspace
    from contextgrid.workspace.manifest import load_workspace

    findings = audit_workspace(load_workspace(args.workspace, **limits(args)))
    rows = records(findings)
    columns = [str(column) for column in findings.columns]
    if args.format == "table" and not args.wide and rows:
        _write_wrapped(rows, columns, sys.stdout)
    else:
        ROW_FORMATS[args.format](rows, columns, sys.stdout)
    if args.format == "table":
        counts = findings["kind"].value_counts(sort=False)
        said = ", ".join(f"{int(n)} {kind}" for kind, n in counts.items()) or "nothing found"
        sys.stdout.write(f"\n{len(findings)} finding{'s' if len(findings) != 1 else ''}: {said}\n")
    return 0


def _write_wrapped(rows: list[dict[str, Cell]], columns: list[str], stream: TextIO) -> None:
    """The table with its last column (the detail) wrapped at spaces under itself, so a line fits the terminal;
    the other columns stay on the finding's first line."""
    *first, last = columns
    cells = [[printable("-" if row[column] is None else str(row[column])) for column in first] for row in rows]
    widths = [max(len(column), *(len(row[i]) for row in cells)) for i, column in enumerate(first)]
    indent = sum(width + 2 for width in widths)
    room = max(TERMINAL_WIDTH - indent, 20)  # very long kinds or ids: the detail still gets a readable width
    lines = ["  ".join([*(name.ljust(width) for name, width in zip(first, widths, strict=True)), last])]
    for row, cell in zip(rows, cells, strict=True):
        detail = textwrap.wrap(printable(str(row[last])), width=room, break_long_words=False, break_on_hyphens=False)
        head = "  ".join(text.ljust(width) for text, width in zip(cell, widths, strict=True))
        lines.append(f"{head}  {detail[0] if detail else ''}".rstrip())
        lines.extend(" " * indent + part for part in detail[1:])
    stream.write("\n".join(lines) + "\n")


COMMAND = Subcommand(
    "audit",
    "audit the gold: repeated questions, gold not found, each document's share, possible missing labels",
    _configure_audit,
    _run_audit,
    reads_files=True,
)
