"""The registry of ``contextgrid`` subcommands: each command module registers one :class:`Subcommand`."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from contextgrid.core.checks import check_k
from contextgrid.core.errors import InvalidParameterError, NameTakenError
from contextgrid.io.files import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_MAX_RATIO,
    DOCUMENT_MAX_LINE_BYTES,
    RATIO_FLOOR,
    parse_ratio,
    parse_size,
    size_text,
)
from contextgrid.metrics.base import DEFAULT_K

__all__ = [
    "COMMANDS",
    "REPLACE_HINT",
    "Subcommand",
    "add_cutoff_option",
    "add_limit_options",
    "limits",
    "ratio_option",
    "register_command",
]

REPLACE_HINT = "pass --force to replace it"
"""What a command that writes a file says of one already there."""


@dataclass(frozen=True, slots=True)
class Subcommand:
    """One ``contextgrid`` subcommand: ``configure`` adds its arguments, ``run`` does it and returns the exit status.

    One that ``reads_files`` gets the limit options (:func:`add_limit_options`) and reads within :func:`limits`.
    """

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    reads_files: bool = False


COMMANDS: dict[str, Subcommand] = {}
"""Subcommands by name."""


def register_command(command: Subcommand) -> Subcommand:
    """Add ``command`` to :data:`COMMANDS`; a taken name is refused."""
    if command.name in COMMANDS:
        raise NameTakenError(f"a subcommand named {command.name!r} is already registered")
    COMMANDS[command.name] = command
    return command


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except InvalidParameterError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def ratio_option(text: str) -> int | None:
    """``--max-ratio``'s value (:func:`~contextgrid.io.files.parse_ratio`), refused as argparse refuses a value."""
    try:
        return parse_ratio(text)
    except InvalidParameterError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_cutoff_option(parser: argparse.ArgumentParser, *, command: str) -> None:
    """Add ``--k K``, the one cut-off of a command that judges each question on its top k (``DEFAULT_K``, as on
    the dashboard)."""

    def cutoff(text: str) -> int:
        try:
            return check_k(int(text), function=command)
        except ValueError as error:
            raise argparse.ArgumentTypeError(f"expected a whole number, 1 or more, got {text!r}: {error}") from None

    parser.add_argument(
        "--k",
        type=cutoff,
        default=DEFAULT_K,
        metavar="K",
        help=f"the cut-off (default: {DEFAULT_K}, as on the dashboard)",
    )


def add_limit_options(parser: argparse.ArgumentParser) -> None:
    """``--max-bytes``, ``--max-ratio`` and ``--max-line-bytes``, the limits every command that reads files reads
    them within."""
    group = parser.add_argument_group("limits", "every input file is refused as soon as it passes one of these")
    group.add_argument(
        "--max-bytes",
        type=_size,
        default=DEFAULT_MAX_BYTES,
        metavar="SIZE",
        help=f"the most one file may hold, decompressed: bytes, or with KiB, MiB, GiB (default: "
        f"{size_text(DEFAULT_MAX_BYTES).replace(' ', '')})",
    )
    group.add_argument(
        "--max-ratio",
        type=ratio_option,
        default=DEFAULT_MAX_RATIO,
        metavar="N",
        help=f"the most times a gzip file may expand, checked once {size_text(RATIO_FLOOR).replace(' ', '')} of it "
        f"is read; off for no limit (default: {DEFAULT_MAX_RATIO})",
    )
    group.add_argument(
        "--max-line-bytes",
        type=_size,
        metavar="SIZE",
        help=f"the longest line of a file read as lines (default: {size_text(DEFAULT_MAX_LINE_BYTES).replace(' ', '')}"
        f", {size_text(DOCUMENT_MAX_LINE_BYTES).replace(' ', '')} for documents and chunks)",
    )


def limits(args: argparse.Namespace) -> dict[str, Any]:
    """The keywords that read a file (``read_run(path, **limits(args))``) or a workspace within ``args``' limits."""
    return {"max_bytes": args.max_bytes, "max_line_bytes": args.max_line_bytes, "max_ratio": args.max_ratio}
