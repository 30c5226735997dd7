"""``contextgrid audit``: what in a workspace's questions and gold makes scores lie.

One finding per row (:func:`contextgrid.workspace.audit.audit_workspace`): repeated questions, gold never found
in the documents, each document's share of the gold, and retrieved chunks that may be unlabelled copies of a
gold passage. Nothing is re-scored: the findings are listed for a person to judge.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from contextgrid.cli.commands import Subcommand, limits
from contextgrid.cli.diagnose import ROW_FORMATS, records

__all__ = ["AUDIT_FORMATS", "COMMAND"]

AUDIT_FORMATS = ("table", "json")
"""The output formats of ``contextgrid audit``: json is a list of one object per finding."""


def _configure_audit(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``contextgrid audit WORKSPACE [--format table|json]``."""
    parser.add_argument("workspace", type=Path, metavar="WORKSPACE", help="the workspace folder")
    parser.add_argument(
        "--format",
        choices=AUDIT_FORMATS,
        default="table",
        help="output format (default: table; json: a list of one object per finding, with kind, question, detail)",
    )


def _run_audit(args: argparse.Namespace) -> int:
    """Print every finding, then how many of each kind; 0 on success (bad input raises)."""
    from contextgrid.workspace.audit import audit_workspace
    from contextgrid.workspace.manifest import load_workspace

    findings = audit_workspace(load_workspace(args.workspace, **limits(args)))
    rows = records(findings)
    ROW_FORMATS[args.format](rows, [str(column) for column in findings.columns], sys.stdout)
    if args.format == "table":
        counts = findings["kind"].value_counts(sort=False)
        said = ", ".join(f"{int(n)} {kind}" for kind, n in counts.items()) or "nothing found"
        sys.stdout.write(f"\n{len(findings)} finding{'s' if len(findings) != 1 else ''}: {said}\n")
    return 0


COMMAND = Subcommand(
    "audit",
    "audit the gold: repeated questions, gold not found, each document's share, possible missing labels",
    _configure_audit,
    _run_audit,
    reads_files=True,
)
