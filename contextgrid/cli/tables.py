"""Score tables as the command line prints them, and the registry of their output formats."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TextIO

from contextgrid.core.errors import ContextGridError, NameTakenError

__all__ = [
    "FORMATS",
    "TERMINAL_WIDTH",
    "Formatter",
    "ScoreTable",
    "fitted",
    "fitted_lines",
    "kept_columns",
    "printable",
    "register_format",
    "table_width",
    "wrapped_name",
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


def _greedy(name: str, width: int) -> list[str]:
    # A configuration's name breaks between its parts (bm25-fixed_chars-500), a column's between its words.
    breaks = "- " if re.search(r"[- ]", name) else "_"
    lines: list[str] = []
    for piece in re.findall(rf"[^{breaks}]*(?:[{breaks}]|$)", name):
        if lines and len(lines[-1]) + len(piece) <= width:
            lines[-1] += piece
        elif piece:
            lines.append(piece)
    return lines or [name]


def wrapped_name(name: str, width: int) -> list[str]:
    """``name`` in as few lines of at most ``width`` characters as it takes, as even as they can be, broken only
    after a ``-`` or space (after a ``_`` in a name without them): a piece longer than ``width`` stays whole
    (a name is never cut in a word).

    Examples
    --------
    >>> wrapped_name("bm25-fixed_chars-500-100", 20)
    ['bm25-fixed_chars-', '500-100']
    >>> wrapped_name("bm25-recursive-200-0", 19)
    ['bm25-recursive-', '200-0']
    >>> wrapped_name("should_have_abstained", 12)
    ['should_have_', 'abstained']
    >>> wrapped_name("groundedness", 5)
    ['groundedness']
    """
    lines = _greedy(name, width)
    # The greedy split fills the first lines: narrow it while it keeps as few lines, to even them out.
    while True:
        tighter = _greedy(name, max(map(len, lines)) - 1)
        if len(tighter) > len(lines) or max(map(len, tighter)) >= max(map(len, lines)):
            return lines
        lines = tighter


def _lines(grid: ScoreTable, header_width: int | None) -> list[str]:
    """The table format's lines, each column's header wrapped at ``header_width`` (None: on one line)."""
    cells = [[_cell(value) for value in row] for row in grid.values]
    rows, columns = [printable(row) for row in (grid.corner, *grid.rows)], [printable(c) for c in grid.columns]
    headers = [[column] if header_width is None else wrapped_name(column, header_width) for column in columns]
    depth = max(map(len, headers), default=1)
    # A header ends on the line of the corner, above its column's cells: a shorter one is padded from the top.
    padded = [[""] * (depth - len(header)) + header for header in headers]
    header_rows = [[column[line] for column in padded] for line in range(depth)]
    label_width = max(map(len, rows))
    widths = [max([*map(len, header), *(len(row[i]) for row in cells)]) for i, header in enumerate(headers)]
    labels = [*([""] * (depth - 1)), *rows]
    return [
        "  ".join(
            [label.ljust(label_width), *(cell.rjust(width) for cell, width in zip(row, widths, strict=True))]
        ).rstrip()
        for label, row in zip(labels, (*header_rows, *cells), strict=True)
    ]


def fitted_lines(grid: ScoreTable, width: int = TERMINAL_WIDTH) -> list[str] | None:
    """The table format's lines for ``grid`` within ``width`` characters, its column headers wrapped after a
    ``-``, ``_`` or space as little as that takes (:func:`wrapped_name`); ``None`` if no wrapping fits.

    Examples
    --------
    >>> grid = ScoreTable("measure", ("answers",), ("bm25-recursive-200", "lsa-recursive-200"), ((274, 274),))
    >>> print("\\n".join(fitted_lines(grid, 40)))
                     bm25-           lsa-
    measure  recursive-200  recursive-200
    answers            274            274
    >>> fitted_lines(grid, 20) is None
    True
    """
    longest = max((len(printable(column)) for column in grid.columns), default=0)
    for header_width in range(longest, 0, -1):
        lines = _lines(grid, header_width)
        if max(map(len, lines)) <= width:
            return lines
    return None


def kept_columns(widths: Sequence[int], droppable: Sequence[int], width: int = TERMINAL_WIDTH) -> list[int]:
    """The indices of the columns of ``widths`` (two spaces apart) kept to fit ``width`` characters: every
    column, or without the ``droppable`` ones, dropped in the order given, until the line fits (or none is
    left to drop).

    Examples
    --------
    >>> kept_columns([10, 8, 8, 8], droppable=[2, 1], width=30)
    [0, 1, 3]
    >>> kept_columns([10, 8, 8, 8], droppable=[2, 1], width=20)
    [0, 3]
    """
    kept = list(range(len(widths)))
    for index in (None, *droppable):
        if index is not None:
            kept.remove(index)
        if sum(widths[i] for i in kept) + _GAP * (len(kept) - 1) <= width:
            break
    return kept


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
    stream.write("\n".join(_lines(grid, None)) + "\n")


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
