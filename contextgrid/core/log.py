"""WarningLog: what went wrong but did not stop a run, kept for the user to read.

A metric that raised, a question that could not be resolved, a file line that
was skipped: each becomes an entry instead of a silent zero.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, field

from contextgrid.core.errors import ContextGridError

__all__ = ["LogEntry", "Severity", "WarningLog"]


class Severity(enum.Enum):
    """How much an entry should worry the reader."""

    NOTE = "NOTE"
    CAUTION = "CAUTION"


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One thing that went wrong: where (``stage``), to what (``subject``) and how.

    Examples
    --------
    >>> from contextgrid import LogEntry, Severity
    >>> print(LogEntry(Severity.CAUTION, "score", "broken", "it raised"))
    CAUTION [score] (broken): it raised
    """

    severity: Severity
    stage: str
    subject: str
    message: str

    def __post_init__(self) -> None:
        if not isinstance(self.severity, Severity):
            raise ContextGridError(f"LogEntry: severity must be a Severity, got {self.severity!r}")
        for name in ("stage", "subject", "message"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise ContextGridError(f"LogEntry: {name} must be a str, got {value!r}")

    def __str__(self) -> str:
        return f"{self.severity.value} [{self.stage}] ({self.subject}): {self.message}"


@dataclass(slots=True)
class WarningLog:
    """An append-only list of :class:`LogEntry`, passed to functions as ``warnings=``."""

    entries: list[LogEntry] = field(default_factory=list)

    def add(self, severity: Severity, stage: str, subject: str, message: str) -> LogEntry:
        entry = LogEntry(severity, stage, subject, message)
        self.entries.append(entry)
        return entry

    def caution(self, stage: str, subject: str, message: str) -> LogEntry:
        return self.add(Severity.CAUTION, stage, subject, message)

    def note(self, stage: str, subject: str, message: str) -> LogEntry:
        return self.add(Severity.NOTE, stage, subject, message)

    def __iter__(self) -> Iterator[LogEntry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)
