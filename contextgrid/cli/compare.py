"""``contextgrid compare``: is the winner real? Every configuration against a baseline."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from contextgrid.cli.commands import Subcommand, limits
from contextgrid.cli.tables import TERMINAL_WIDTH
from contextgrid.metrics.base import METRICS
from contextgrid.workspace.manifest import load_workspace

if TYPE_CHECKING:
    from contextgrid.significance import ComparisonTable

__all__ = ["COMMAND", "COMPARE_EPILOG", "COMPARE_FORMATS", "metric_at_k"]


def metric_at_k(text: str) -> tuple[str, int]:
    """``--metric ndcg@10`` as a registered metric name and a cut-off."""
    name, _, k = text.partition("@")
    if name not in METRICS or not k.isdigit() or int(k) < 1:
        raise argparse.ArgumentTypeError(
            f"expected a registered metric and a cut-off like ndcg@10 (metrics: {', '.join(METRICS.names())}), "
            f"got {text!r}"
        )
    return name, int(k)


COMPARE_EPILOG = f"""\
the table, one row per configuration against the baseline:
  config            the configuration (the baseline's row says "baseline")
  mean              the configuration's mean METRIC@K
  difference        its mean minus the baseline's (positive: it scored higher)
  interval (level)  the paired test's own confidence interval of the difference: the shifts of
                    every question's difference the test does not reject, at the level the
                    correction sets for that row (95% without one). It leaves out 0 exactly when
                    the verdict is significant; -inf/+inf where the test cannot reject any shift
                    that way (too few questions differ). For --test wilcoxon it is the
                    Hodges-Lehmann interval of the typical difference (the median of the pairwise
                    means of the differences), not of the mean
  p (CORRECTION)    the test's two-sided p-value, corrected for the comparisons made together;
                    "< 0.001" below what the test or its resampling can tell apart
  d                 the effect size: the difference in standard deviations of the per-question
                    differences (Cohen's d; about 0.2 small, 0.5 medium, 0.8 large)
  W/T/L             questions the configuration won, tied (within 1e-9) and lost against the
                    baseline
  verdict           significantly better (▲), significantly worse (▼) or not significant
Under the table, one line per configuration says what limits its verdict: how many questions
differ, the smallest p-value the test can reach with them, the smallest difference they detect
with 80% power, and the correction where it changed the verdict.

To fit {TERMINAL_WIDTH} characters, the table leaves out d and W/T/L, then writes a verdict as
▲ better or ▼ worse (a line under the table says what they mean), then leaves out the interval,
as far as it takes; a note on stderr says so, and --wide prints every column on whole lines.

--format csv and json give the same numbers by field name, one record per configuration naming
it (config) and the baseline: ci_low/ci_high and ci_level are the interval and its level (an
unbounded end is null in json), p_value and p_adjusted the raw and corrected p-values, p_floor
the smallest p-value reachable, detectable the 80%-power difference, bootstrap_low/bootstrap_high
a separate bootstrap interval (not corrected, and never what the verdict rests on).
"""


def _configure_compare(parser: argparse.ArgumentParser) -> None:
    from contextgrid.significance import CORRECTIONS, PAIRED_TESTS

    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = COMPARE_EPILOG

    parser.add_argument("workspace", type=Path, metavar="WORKSPACE", help="the workspace folder")
    parser.add_argument("--metric", type=metric_at_k, required=True, metavar="METRIC@K", help="e.g. ndcg@10")
    parser.add_argument("--baseline", metavar="NAME", help="the configuration to compare with (default: the first)")
    parser.add_argument("--test", choices=PAIRED_TESTS.names(), default="permutation", help="default: permutation")
    parser.add_argument("--correction", choices=CORRECTIONS.names(), default="holm", help="default: holm")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (default: 0.05)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the resampling (default: 0)")
    parser.add_argument("--format", choices=tuple(COMPARE_FORMATS), default="table", help="default: table")
    parser.add_argument(
        "--wide",
        action="store_true",
        help=f"every column and whole lines, however wide (default: fit {TERMINAL_WIDTH} characters)",
    )


COMPARE_FORMATS: dict[str, Callable[[ComparisonTable], str]] = {
    "table": lambda table: f"{table}\n",
    "csv": lambda table: table.to_dataframe().to_csv(),
    # A record names its configuration and the baseline: config is the frame's index, which records would drop.
    "json": lambda table: table.to_dataframe().reset_index().to_json(orient="records", indent=2) + "\n",
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
    if args.format == "table" and not args.wide:
        sys.stdout.write(_fitted(table) + "\n")
    else:
        sys.stdout.write(COMPARE_FORMATS[args.format](table))
    return 0


_NARROWER = (
    ((), False),
    (("d", "W/T/L"), False),
    (("d", "W/T/L"), True),
    (("d", "W/T/L", "interval"), True),
)
"""How the table narrows to fit a terminal, step by step: the columns it leaves out and whether a verdict is
shortened to its marker and a word (``▲ better``, a line under the table saying what the markers mean)."""


def _fitted(table: ComparisonTable) -> str:
    """The table's text within the terminal's width, at the first step of :data:`_NARROWER` that fits (else the
    last); a note on stderr names what was left out."""
    from contextgrid.significance.comparisons import TEXT_COLUMNS

    for left, short in _NARROWER:
        columns = [column for column in TEXT_COLUMNS if column not in left]
        text = table.text(columns=columns, short_verdicts=short, width=TERMINAL_WIDTH)
        if max(map(len, text.splitlines())) <= TERMINAL_WIDTH:
            break
    if left or short:
        said = [f"{' and '.join(left)} left out"] + (["verdicts shortened to ▲ better, ▼ worse"] if short else [])
        print(
            f"contextgrid: note: {', '.join(said)} to fit {TERMINAL_WIDTH} characters; --wide prints every column",
            file=sys.stderr,
        )
    return text


COMMAND = Subcommand(
    "compare",
    "is the winner real? every configuration against a baseline, with paired tests and intervals",
    _configure_compare,
    _run_compare,
    reads_files=True,
)
