"""``contextgrid budget``: which configuration gives the model the most evidence for the context it can afford."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from contextgrid.cli.commands import Subcommand, limits
from contextgrid.workspace.manifest import load_workspace

if TYPE_CHECKING:
    from contextgrid.workspace.budget import BudgetCurves

__all__ = ["BUDGET_FORMATS", "COMMAND"]


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


def _table(curves: BudgetCurves) -> str:
    """One line per (configuration, budget), numbers as people read them."""
    means = curves.means().reset_index()
    table = means.assign(
        budget=[f"{value:,}" for value in means["budget"]],
        evidence_recall=[f"{value:.3f}" for value in means["evidence_recall"]],
        hit_rate=[f"{value:.3f}" for value in means["hit_rate"]],
        characters=[f"{value:,.0f}" for value in means["characters"]],
        chunks=[f"{value:.1f}" for value in means["chunks"]],
    )[["config", "budget", "evidence_recall", "hit_rate", "characters", "chunks", "questions"]]
    return table.rename(columns={"budget": f"budget ({curves.unit})"}).to_string(index=False) + "\n"


BUDGET_FORMATS: dict[str, Callable[[BudgetCurves], str]] = {
    "table": _table,
    "csv": lambda curves: curves.means().to_csv(),
    "json": lambda curves: json.dumps(curves.records(), indent=2) + "\n",
}
"""How ``contextgrid budget`` prints its curves, by ``--format``."""


def _run_budget(args: argparse.Namespace) -> int:
    from contextgrid.answering.context import DEFAULT_TOKENIZER
    from contextgrid.workspace.budget import budget_curves

    workspace = load_workspace(args.workspace, **limits(args))
    curves = budget_curves(workspace, budgets=args.budgets, tokenizer=DEFAULT_TOKENIZER if args.tokens else None)
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
