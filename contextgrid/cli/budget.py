"""``contextgrid budget``: which configuration gives the model the most evidence for the context it can afford."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from contextgrid.cli.commands import Subcommand, limits
from contextgrid.cli.tables import TERMINAL_WIDTH
from contextgrid.workspace.manifest import load_workspace

if TYPE_CHECKING:
    from contextgrid.workspace.budget import BudgetCurves

__all__ = ["BUDGET_FORMATS", "COMMAND", "LEFT_OUT_FIRST", "TABLE_COLUMNS", "fitted_table"]


def _budgets(text: str) -> tuple[int, ...]:
    """``--budgets 500,1000,2000`` as whole numbers >= 1."""
    parts = [part.strip().replace("_", "") for part in text.split(",")]
    if not parts or not all(part.isdigit() and int(part) >= 1 for part in parts):
        raise argparse.ArgumentTypeError(
            f"expected whole numbers >= 1 separated by commas, like 500,1000,2000; got {text!r}"
        )
    if len(set(map(int, parts))) != len(parts):
        raise argparse.ArgumentTypeError(f"expected each budget once, got {text!r}")
    return tuple(sorted(int(part) for part in parts))


def _configure_budget(parser: argparse.ArgumentParser) -> None:
    from contextgrid.significance import CORRECTIONS, PAIRED_TESTS

    parser.add_argument("workspace", type=Path, metavar="WORKSPACE", help="the workspace folder")
    parser.add_argument(
        "--budgets",
        type=_budgets,
        metavar="B1,B2,...",
        help="budgets to compare at (default: about 8 log-spaced, from the smallest configuration's median chunk "
        "to the longest context any configuration retrieves)",
    )
    parser.add_argument(
        "--tokens", action="store_true", help="count budgets in tokens (the tokenizer assemble_context counts with)"
    )
    parser.add_argument("--test", choices=PAIRED_TESTS.names(), default="permutation", help="default: permutation")
    parser.add_argument("--correction", choices=CORRECTIONS.names(), default="holm", help="default: holm")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (default: 0.05)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the resampling (default: 0)")
    parser.add_argument("--format", choices=tuple(BUDGET_FORMATS), default="table", help="default: table")
    parser.add_argument(
        "--wide",
        action="store_true",
        help=f"print every column, however wide (default: fit {TERMINAL_WIDTH} characters)",
    )
    # Raw, for the epilog's columns: which keeps the description's one line as written too, so it is wrapped here.
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.description = textwrap.fill(parser.description or "", width=TERMINAL_WIDTH - 2)
    parser.epilog = BUDGET_EPILOG


TABLE_COLUMNS = ("config", "budget", "evidence_recall", "hit_rate", "characters", "chunks", "questions")
"""The columns of the table, in order."""

LEFT_OUT_FIRST = ("questions", "chunks", "characters", "hit_rate")
"""The columns the table leaves out, in this order, until its lines fit the terminal (``--wide`` keeps them all):
every configuration is averaged over the same questions, and the evidence is what the verdict weighs."""


BUDGET_EPILOG = f"""\
columns of the table (one row per configuration and budget; json and csv hold the same means):
  config           the configuration
  budget (UNIT)    what the model may read, in characters (in tokens with --tokens): the chunks
                   in rank order, while they fit, stopping at the first that would not
  evidence_recall  the share of each question's gold characters inside those chunks, averaged
  hit_rate         the share of questions with a chunk graded above 0 among them
  characters       the characters taken, on average (at most the budget)
  chunks           the chunks taken, on average
  questions        the questions averaged: those whose gold was found, the same for every row
The verdict (on stderr) tests the best configuration at each budget against the runner-up.
A line longer than {TERMINAL_WIDTH} characters (long configuration names) leaves out, in this order,
{", ".join(LEFT_OUT_FIRST)} until it fits, named in a note on stderr; --wide prints
every column."""


def _table(curves: BudgetCurves, columns: Sequence[str] = TABLE_COLUMNS) -> str:
    """One line per (configuration, budget) with ``columns``, numbers as people read them."""
    means = curves.means().reset_index()
    table = means.assign(
        budget=[f"{value:,}" for value in means["budget"]],
        evidence_recall=[f"{value:.3f}" for value in means["evidence_recall"]],
        hit_rate=[f"{value:.3f}" for value in means["hit_rate"]],
        characters=[f"{value:,.0f}" for value in means["characters"]],
        chunks=[f"{value:.1f}" for value in means["chunks"]],
    )[list(columns)]
    return table.rename(columns={"budget": f"budget ({curves.unit})"}).to_string(index=False) + "\n"


def fitted_table(curves: BudgetCurves, width: int = TERMINAL_WIDTH) -> tuple[str, list[str]]:
    """The table without the columns of :data:`LEFT_OUT_FIRST`, in its order, that its lines need left out to fit
    ``width`` characters (long configuration names), and the columns left out."""
    columns = list(TABLE_COLUMNS)
    text = _table(curves, columns)
    for column in LEFT_OUT_FIRST:
        if max(map(len, text.splitlines())) <= width:
            break
        columns.remove(column)
        text = _table(curves, columns)
    return text, [column for column in TABLE_COLUMNS if column not in columns]


BUDGET_FORMATS: dict[str, Callable[[BudgetCurves], str]] = {
    "table": _table,
    "csv": lambda curves: curves.means().to_csv(),
    "json": lambda curves: json.dumps(curves.records(), indent=2) + "\n",
}
"""How ``contextgrid budget`` prints its curves, by ``--format`` (the table with every column: ``--wide``)."""


def _run_budget(args: argparse.Namespace) -> int:
    from contextgrid.answering.context import DEFAULT_TOKENIZER
    from contextgrid.workspace.budget import budget_curves

    workspace = load_workspace(args.workspace, **limits(args))
    curves = budget_curves(workspace, budgets=args.budgets, tokenizer=DEFAULT_TOKENIZER if args.tokens else None)
    if args.format == "table" and not args.wide:
        text, left = fitted_table(curves)
        if left:
            print(
                f"contextgrid: note: {', '.join(left)} left out to fit {TERMINAL_WIDTH} characters; --wide prints "
                "every column (csv and json hold them all)",
                file=sys.stderr,
            )
        sys.stdout.write(text)
    else:
        sys.stdout.write(BUDGET_FORMATS[args.format](curves))
    if args.format == "table":
        verdict = curves.verdict(test=args.test, correction=args.correction, alpha=args.alpha, seed=args.seed)
        print(verdict.sentence(), file=sys.stderr)
    return 0


COMMAND = Subcommand(
    "budget",
    "which configuration holds the most evidence at an equal context budget, and is it significantly ahead?",
    _configure_budget,
    _run_budget,
    reads_files=True,
)
