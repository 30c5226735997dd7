"""``contextgrid report``: write a one-file HTML report of one configuration."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from contextgrid.cli.commands import REPLACE_HINT, Subcommand, add_cutoff_option, limits
from contextgrid.core.errors import OutputExistsError, OutputFileError
from contextgrid.io.files import write_output
from contextgrid.metrics import METRICS
from contextgrid.render.report import build_report

__all__ = ["COMMAND"]


def _configure_report(parser: argparse.ArgumentParser) -> None:
    """Add ``contextgrid report``'s arguments:
    ``WORKSPACE --config NAME -o FILE [--k K] [--metric METRIC] [--baseline NAME] [--force]``."""
    parser.add_argument("workspace", type=Path, metavar="WORKSPACE", help="the workspace folder")
    parser.add_argument("--config", required=True, metavar="NAME", help="the configuration to report on")
    parser.add_argument("-o", "--output", type=Path, required=True, metavar="FILE", help="the HTML file to write")
    add_cutoff_option(parser, command="report")
    parser.add_argument(
        "--metric",
        default="recall",
        choices=METRICS.names(),
        help="the metric that ranks the configurations and that the summary's paired tests compare (default: recall)",
    )
    parser.add_argument(
        "--baseline", metavar="NAME", help="the configuration to compare with (default: the workspace's first)"
    )
    parser.add_argument("--force", action="store_true", help="replace FILE if it exists")


def _run_report(args: argparse.Namespace) -> int:
    """Write the report ``args`` ask for; 0 on success (bad input raises :class:`ContextGridError`)."""
    from contextgrid.workspace.manifest import load_workspace

    output: Path = args.output
    # Checked before the report is built, which takes a while; written whole or not at all (write_output).
    if output.is_dir():
        raise OutputFileError(f"{output} is a folder; expected the path of a file to write (-o FILE)")
    if output.exists() and not args.force:
        raise OutputExistsError(f"{output} already exists; {REPLACE_HINT}")
    workspace = load_workspace(args.workspace, **limits(args))
    page = build_report(workspace, args.config, k=args.k, metric=args.metric, baseline=args.baseline)
    written = write_output(output, page, overwrite=args.force, replace_hint=REPLACE_HINT)
    print(f"wrote {output} ({written:,} bytes)", file=sys.stdout)
    return 0


COMMAND = Subcommand(
    "report",
    "write a one-file HTML report of one configuration",
    _configure_report,
    _run_report,
    reads_files=True,
)
