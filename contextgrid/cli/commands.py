"""The registry of ``contextgrid`` subcommands: each command module registers one :class:`Subcommand`."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

from contextgrid.core.errors import NameTakenError

__all__ = ["COMMANDS", "Subcommand", "register_command"]


@dataclass(frozen=True, slots=True)
class Subcommand:
    """One ``contextgrid`` subcommand: ``configure`` adds its arguments, ``run`` does it and returns the exit status."""

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


COMMANDS: dict[str, Subcommand] = {}
"""Subcommands by name."""


def register_command(command: Subcommand) -> Subcommand:
    """Add ``command`` to :data:`COMMANDS`; a taken name is refused."""
    if command.name in COMMANDS:
        raise NameTakenError(f"a subcommand named {command.name!r} is already registered")
    COMMANDS[command.name] = command
    return command
