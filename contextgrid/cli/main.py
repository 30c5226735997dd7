"""The ``contextgrid`` command: score runs from files or a workspace, or start the dashboard.

Subcommands and output formats are registries (:data:`COMMANDS`,
:data:`FORMATS`): a new one is registered, never dispatched on by name.
Bad input exits with status 2 and one ``contextgrid: error: ...`` line on
stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from contextgrid import __version__
from contextgrid.cli import (
    answers,
    app,
    audit,
    budget,
    compare,
    diagnose,
    evaluate,
    gate,
    import_chunks,
    report,
    sweep,
)
from contextgrid.cli.commands import COMMANDS, add_limit_options, register_command
from contextgrid.cli.tables import printable
from contextgrid.core.errors import ContextGridError

__all__ = [
    "COMMANDS",
    "build_parser",
    "main",
    "register_command",
]


for command in (
    evaluate.COMMAND,
    app.COMMAND,
    answers.COMMAND,
    compare.COMMAND,
    report.COMMAND,
    sweep.COMMAND,
    diagnose.COMMAND,
    import_chunks.COMMAND,
    budget.COMMAND,
    gate.COMMAND,
    audit.COMMAND,
):
    register_command(command)


class _Parser(argparse.ArgumentParser):
    """argparse, except that a usage error raises instead of exiting, so :func:`main` reports every error alike."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        raise ContextGridError(message)


def build_parser() -> argparse.ArgumentParser:
    """The ``contextgrid`` argument parser, one subparser per registered subcommand."""
    parser = _Parser(prog="contextgrid", description="Score retrieval runs, or open the contextgrid dashboard.")
    parser.add_argument("--version", action="version", version=f"contextgrid {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS.values():
        subparser = subparsers.add_parser(command.name, help=command.help, description=command.help)
        command.configure(subparser)
        if command.reads_files:
            add_limit_options(subparser)
    return parser


def _fail(message: str) -> int:
    # A message quotes names and text from files: their control characters are shown, not sent to the terminal.
    print(f"contextgrid: error: {printable(message)}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``contextgrid`` with ``argv`` (default: the process's arguments) and return the exit status.

    0 on success; 2 on bad input (an unreadable file, a malformed one, an
    unknown metric, a bad option), with the reason on stderr.
    """
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as stop:  # --help and --version print, then exit
            return stop.code if isinstance(stop.code, int) else 0
        status: int = COMMANDS[args.command].run(args)
        return status
    except ContextGridError as error:
        return _fail(str(error))
    except BrokenPipeError:  # the reader (say `| head`) stopped reading: nothing to report
        return 0
    except OSError as error:
        if error.filename is None:
            return _fail(str(error))
        return _fail(f"cannot read {error.filename!r}: {error.strerror}")
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
