"""``contextgrid compare``: is the winner real? Every configuration against a baseline."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from contextgrid.cli.commands import Subcommand, limits
from contextgrid.metrics.base import METRICS
from contextgrid.workspace.manifest import load_workspace

if TYPE_CHECKING:
    from contextgrid.significance import ComparisonTable

__all__ = ["COMMAND", "COMPARE_FORMATS", "metric_at_k"]


def metric_at_k(text: str) -> tuple[str, int]:
    """``--metric ndcg@10`` as a registered metric name and a cut-off."""
    name, _, k = text.partition("@")
    if name not in METRICS or not k.isdigit() or int(k) < 1:
        raise argparse.ArgumentTypeError(
            f"expected a registered metric and a cut-off like ndcg@10 (metrics: {', '.join(METRICS.names())}), "
            f"got {text!r}"
        )
    return name, int(k)


def _configure_compare(parser: argparse.ArgumentParser) -> None:
    from contextgrid.significance import CORRECTIONS, PAIRED_TESTS

    parser.add_argument("workspace", type=Path, metavar="WORKSPACE", help="the workspace folder")
    parser.add_argument("--metric", type=metric_at_k, required=True, metavar="METRIC@K", help="e.g. ndcg@10")
    parser.add_argument("--baseline", metavar="NAME", help="the configuration to compare with (default: the first)")
    parser.add_argument("--test", choices=PAIRED_TESTS.names(), default="permutation", help="default: permutation")
    parser.add_argument("--correction", choices=CORRECTIONS.names(), default="holm", help="default: holm")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (default: 0.05)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the resampling (default: 0)")
    parser.add_argument("--format", choices=tuple(COMPARE_FORMATS), default="table", help="default: table")


COMPARE_FORMATS: dict[str, Callable[[ComparisonTable], str]] = {
    "table": lambda table: f"{table}\n",
    "csv": lambda table: table.to_dataframe().to_csv(),
    "json": lambda table: table.to_dataframe().to_json(orient="records", indent=2) + "\n",
}
"""How ``contextgrid compare`` prints its table, by ``--format``."""


def _run_compare(args: argparse.Namespace) -> int:
    from contextgrid.analysis.questions import shared_scores
    from contextgrid.significance import compare_configurations

    workspace = load_workspace(args.workspace, **limits(args))
    metric, k = args.metric
    baseline = workspace.names[0] if args.baseline is None else args.baseline
    workspace.config(baseline)  # an unknown name fails here, with the names there are
    scores = shared_scores(workspace.per_query(metric, k), workspace.names)
    table = compare_configurations(
        scores,
        baseline=baseline,
        metric=f"{metric}@{k}",
        test=args.test,
        correction=args.correction,
        alpha=args.alpha,
        seed=args.seed,
    )
    sys.stdout.write(COMPARE_FORMATS[args.format](table))
    return 0


COMMAND = Subcommand(
    "compare",
    "is the winner real? every configuration against a baseline, with paired tests and intervals",
    _configure_compare,
    _run_compare,
    reads_files=True,
)
