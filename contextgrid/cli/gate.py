"""``contextgrid gate``: fail a CI build when a candidate is worse than its baseline, by a one-sided paired test.

Exit 0 when the gate passes, 1 when it fails (a regression shown, or with ``--require-proof`` no proof that
there is none), 2 on bad input. The summary is Markdown, fit for ``$GITHUB_STEP_SUMMARY``; ``--junit FILE``
writes JUnit XML beside it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from contextgrid.cli.commands import Subcommand, limits
from contextgrid.cli.compare import metric_at_k
from contextgrid.core.errors import ContextGridError

if TYPE_CHECKING:
    from contextgrid.workspace.gate import GateReport

__all__ = ["COMMAND"]

GATE_EPILOG = """\
two ways to name the inputs:
  contextgrid gate WORKSPACE --baseline NAME --candidate NAME --metric recall@5
  contextgrid gate QRELS BASELINE_RUN CANDIDATE_RUN --metric recall@5

exit status: 0 the gate passed, 1 it failed, 2 bad input.
The test is one-sided at --alpha: by default the gate fails only when the data show the candidate worse than
the baseline by more than --max-drop; with --require-proof it passes only when they show it is not.
"""


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    return value


def _configure_gate(parser: argparse.ArgumentParser) -> None:
    from contextgrid.significance import PAIRED_TESTS

    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = GATE_EPILOG
    parser.add_argument(
        "inputs",
        type=Path,
        nargs="+",
        metavar="INPUT",
        help="a workspace folder, or a qrels file, the baseline's run file and the candidate's run file",
    )
    parser.add_argument("--baseline", metavar="NAME", help="the baseline configuration (a workspace only)")
    parser.add_argument("--candidate", metavar="NAME", help="the candidate configuration (a workspace only)")
    parser.add_argument(
        "--metric",
        action="append",
        type=metric_at_k,
        required=True,
        metavar="METRIC@K",
        help="a metric to gate, e.g. recall@5; repeat it to gate several (one JUnit test case each)",
    )
    parser.add_argument(
        "--max-drop",
        type=_fraction,
        default=0.0,
        metavar="D",
        help="the drop allowed: fail only when the candidate is worse by more than D (default: 0)",
    )
    parser.add_argument("--alpha", type=_fraction, default=0.05, help="the one-sided test's level (default: 0.05)")
    parser.add_argument("--test", choices=PAIRED_TESTS.names(), default="permutation", help="default: permutation")
    parser.add_argument(
        "--require-proof",
        action="store_true",
        help="non-inferiority: pass only when the data show the candidate no more than --max-drop worse",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the resampling (default: 0)")
    parser.add_argument("--junit", type=Path, metavar="FILE", help="also write a JUnit XML report to FILE")


def _report(args: argparse.Namespace) -> GateReport:
    options = {
        "metrics": [f"{metric}@{k}" for metric, k in args.metric],
        "max_drop": args.max_drop,
        "alpha": args.alpha,
        "test": args.test,
        "require_proof": args.require_proof,
        "seed": args.seed,
    }
    inputs: list[Path] = args.inputs
    if len(inputs) == 1:
        from contextgrid.workspace.gate import gate_workspace
        from contextgrid.workspace.manifest import load_workspace

        if args.baseline is None or args.candidate is None:
            raise ContextGridError("gate: a workspace needs --baseline NAME and --candidate NAME")
        workspace = load_workspace(inputs[0], **limits(args))
        return gate_workspace(workspace, baseline=args.baseline, candidate=args.candidate, **options)
    if len(inputs) == 3:
        from contextgrid.workspace.gate import gate_files

        if args.baseline is not None or args.candidate is not None:
            raise ContextGridError(
                "gate: --baseline and --candidate name a workspace's configurations; files have none"
            )
        return gate_files(*inputs, read_limits=limits(args), **options)
    raise ContextGridError(
        f"gate: expected a workspace folder, or a qrels file and two run files; got {len(inputs)} inputs"
    )


def _run_gate(args: argparse.Namespace) -> int:
    from contextgrid.io.files import write_output
    from contextgrid.render.gate import gate_junit, gate_markdown

    report = _report(args)
    if args.junit is not None:
        # Atomic, so a CI step never reads half a file; replaced on every run.
        write_output(args.junit, gate_junit(report), overwrite=True)
    sys.stdout.write(gate_markdown(report))
    return 0 if report.passed else 1


COMMAND = Subcommand(
    "gate",
    "fail a CI build on a real regression: a one-sided paired test of a candidate against its baseline",
    _configure_gate,
    _run_gate,
    reads_files=True,
)
