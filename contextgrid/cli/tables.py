"""Score tables as the command line prints them, and the registry of their output formats."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from contextgrid.core.errors import ContextGridError, NameTakenError

__all__ = [
    "FORMATS",
    "TERMINAL_WIDTH",
    "Formatter",
    "ScoreTable",
    "fitted",
    "printable",
    "register_format",
    "table_width",
]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` with every control character but tab and line feed written as its escape (``\\x1b``), and the
    invisible characters that reorder or hide text (``\\u202e``): a name from a file cannot clear the terminal,
    retitle it or show itself reversed.

    Examples
    --------
    >>> printable("bm25\\x1b]0;pwned\\x07\\x1b[2J\\u202eevil")
    'bm25\\\\x1b]0;pwned\\\\x07\\\\x1b[2J\\\\u202eevil'
    """
    return _CONTROL.sub(lambda match: match.group().encode("unicode_escape").decode("ascii"), text)


@dataclass(frozen=True, slots=True)
class ScoreTable:
    """A labelled table of scores: ``values[row][column]``, ``None`` where there is no score.

    Examples
    --------
    >>> ScoreTable("metric", ("recall@1",), ("a.trec", "b.trec"), ((0.5, None),)).values[0]
    (0.5, None)
    """

    corner: str
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    values: tuple[tuple[float | None, ...], ...]

    def __post_init__(self) -> None:
        if len(self.values) != len(self.rows) or any(len(row) != len(self.columns) for row in self.values):
            raise ContextGridError(
                f"ScoreTable: values must be {len(self.rows)} rows of {len(self.columns)} columns, got "
                f"{[len(row) for row in self.values]}"
            )

    def transposed(self, corner: str) -> ScoreTable:
        """Rows as columns and columns as rows, ``corner`` naming the new rows.

        Examples
        --------
        >>> ScoreTable("metric", ("recall@1",), ("a.trec", "b.trec"), ((0.5, None),)).transposed("run").values
        ((0.5,), (None,))
        """
        values = tuple(tuple(row[i] for row in self.values) for i in range(len(self.columns)))
        return ScoreTable(corner, self.columns, self.rows, values)


Formatter = Callable[[ScoreTable, TextIO], None]

TERMINAL_WIDTH = 100
"""Characters a line of a printed table takes at most by default: a terminal beside an editor."""

_GAP = 2  # spaces between two columns


def _cell(value: float | None) -> str:
    if value is None:
        return "-"
    return str(value) if isinstance(value, int) else f"{value:.4f}"


def _widths(grid: ScoreTable) -> tuple[int, list[int]]:
    """The width of the row labels and of each column, as the table format prints them."""
    label = max(len(printable(row)) for row in (grid.corner, *grid.rows))
    columns = [
        max(len(printable(column)), *(len(_cell(row[i])) for row in grid.values))
        for i, column in enumerate(grid.columns)
    ]
    return label, columns


def table_width(grid: ScoreTable) -> int:
    """The length of the longest line the table format prints for ``grid``.

    Examples
    --------
    >>> table_width(ScoreTable("config", ("bm25",), ("recall@5", "mrr@5"), ((0.5, 0.25),)))
    24
    """
    label, columns = _widths(grid)
    return label + sum(width + _GAP for width in columns)


def fitted(grid: ScoreTable, width: int = TERMINAL_WIDTH) -> ScoreTable:
    """``grid`` with as many of its first columns as fit in ``width`` characters (at least one): the rest are
    left out, never cut.

    Examples
    --------
    >>> grid = ScoreTable("config", ("bm25",), ("recall@5", "mrr@5", "ndcg@5"), ((0.5, 0.25, 0.75),))
    >>> fitted(grid, 24).columns
    ('recall@5', 'mrr@5')
    """
    label, columns = _widths(grid)
    used, kept = label, 0
    for column in columns:
        if kept and used + column + _GAP > width:
            break
        used, kept = used + column + _GAP, kept + 1
    return ScoreTable(grid.corner, grid.rows, grid.columns[:kept], tuple(row[:kept] for row in grid.values))


FORMATS: dict[str, Formatter] = {}
"""Output formats by name: ``formatter(grid, stream)`` writes the whole grid."""


def register_format(name: str) -> Callable[[Formatter], Formatter]:
    """Return a decorator that registers a formatter under ``name``."""

    def decorator(formatter: Formatter) -> Formatter:
        if name in FORMATS:
            raise NameTakenError(f"an output format named {name!r} is already registered")
        FORMATS[name] = formatter
        return formatter

    return decorator


@register_format("table")
def _write_table(grid: ScoreTable, stream: TextIO) -> None:
    """Aligned columns for reading, scores to 4 decimals (csv and json keep every digit)."""
    cells = [[_cell(value) for value in row] for row in grid.values]
    rows, columns = [printable(row) for row in (grid.corner, *grid.rows)], [printable(c) for c in grid.columns]
    label_width = max(map(len, rows))
    widths = [max(len(column), *(len(row[i]) for row in cells)) for i, column in enumerate(columns)]
    lines = [
        "  ".join([label.ljust(label_width), *(cell.rjust(width) for cell, width in zip(row, widths, strict=True))])
        for label, row in zip(rows, (columns, *cells), strict=True)
    ]
    stream.write("\n".join(lines) + "\n")


@register_format("csv")
def _write_csv(grid: ScoreTable, stream: TextIO) -> None:
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow([grid.corner, *grid.columns])
    for label, row in zip(grid.rows, grid.values, strict=True):
        writer.writerow([label, *("" if value is None else repr(value) for value in row)])


@register_format("json")
def _write_json(grid: ScoreTable, stream: TextIO) -> None:
    """One object per column, ``{row: score}``: the shape ``evaluate()`` and ``per_query()`` return."""
    by_column = {
        column: {label: row[i] for label, row in zip(grid.rows, grid.values, strict=True)}
        for i, column in enumerate(grid.columns)
    }
    stream.write(json.dumps(by_column, indent=2, allow_nan=False) + "\n")
