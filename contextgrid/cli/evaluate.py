"""``contextgrid evaluate``: score runs from files, or every configuration of a workspace."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from contextgrid.cli.commands import Subcommand
from contextgrid.cli.progress import FileProgress, file_size
from contextgrid.cli.tables import FORMATS, ScoreTable
from contextgrid.core.checks import check_ks
from contextgrid.core.errors import ContextGridError
from contextgrid.core.log import WarningLog
from contextgrid.data.run_result import RunResult
from contextgrid.engine.scoring import evaluate, per_query
from contextgrid.io import FORMATS as FILE_FORMATS
from contextgrid.io import read_qrels, read_run
from contextgrid.metrics.base import BUILTIN_METRICS, DEFAULT_KS, METRICS
from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.model import Workspace

if TYPE_CHECKING:
    import pandas as pd


__all__ = ["COMMAND"]


def _cutoffs(text: str) -> tuple[int, ...]:
    """``--k 1,3,5`` as cut-offs, checked as ``evaluate()`` checks them."""
    try:
        return check_ks([int(part) for part in text.split(",") if part.strip()], function="evaluate")
    except ValueError as error:
        message = str(error) if isinstance(error, ContextGridError) else f"invalid literal in {text!r}"
        raise argparse.ArgumentTypeError(f"expected comma-separated whole numbers like 1,3,5: {message}") from None


def _metric_names(text: str) -> tuple[str, ...]:
    """``--metrics recall,ndcg`` as registered metric names, each once."""
    names = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    if not names:
        raise argparse.ArgumentTypeError(f"expected comma-separated metric names like recall,ndcg, got {text!r}")
    try:
        for name in names:
            METRICS.get(name)
    except ContextGridError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return names


def _configure_evaluate(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="*", metavar="QRELS RUN", help="a qrels file, then one or more run files")
    parser.add_argument("--workspace", metavar="DIR", type=Path, help="score every configuration of a workspace")
    parser.add_argument(
        "--k", type=_cutoffs, default=DEFAULT_KS, metavar="K,K,...", help="cut-offs (default: 1,3,5,10,20)"
    )
    parser.add_argument(
        "--metrics",
        type=_metric_names,
        default=BUILTIN_METRICS,
        metavar="NAME,...",
        help=f"registered metric names (default: {','.join(BUILTIN_METRICS)})",
    )
    parser.add_argument(
        "--per-query", action="store_true", help="one row per question for one metric at one k (question x run)"
    )
    parser.add_argument("--format", choices=tuple(FORMATS), default="table", help="output format (default: table)")
    for option, files in (("--qrels-format", "the qrels file"), ("--run-format", "the run files")):
        parser.add_argument(
            option,
            choices=FILE_FORMATS.names(),
            metavar="NAME",
            help=f"read {files} as NAME ({', '.join(FILE_FORMATS.names())}); default: from the suffix",
        )


def _report(log: WarningLog) -> None:
    for entry in log:
        print(f"contextgrid: warning: {entry}", file=sys.stderr)


def _score_table(results: Sequence[RunResult], labels: Iterable[str]) -> ScoreTable:
    """``metric@k`` rows (those any run has), one column per run."""
    present = tuple(label for label in labels if any(result.has(label) for result in results))
    values = tuple(tuple(result.scores.get(label) for result in results) for label in present)
    return ScoreTable("metric", present, tuple(result.config for result in results), values)


def _per_query_table(columns: dict[str, dict[str, float]]) -> ScoreTable:
    """Question rows (in the order first met), one column per run."""
    questions = tuple(dict.fromkeys(question for scores in columns.values() for question in scores))
    values = tuple(tuple(scores.get(question) for scores in columns.values()) for question in questions)
    return ScoreTable("question", questions, tuple(columns), values)


def _frame_table(frame: pd.DataFrame) -> ScoreTable:
    values = tuple(
        tuple(None if math.isnan(value) else float(value) for value in row) for row in frame.itertuples(index=False)
    )
    return ScoreTable("question", tuple(map(str, frame.index)), tuple(map(str, frame.columns)), values)


def _evaluate_files(args: argparse.Namespace, log: WarningLog) -> ScoreTable:
    if len(args.files) < 2:
        raise ContextGridError("evaluate needs a qrels file and at least one run file (or --workspace DIR)")
    qrels_name, *run_names = args.files
    repeated = sorted({name for name in run_names if run_names.count(name) > 1})
    if repeated:
        raise ContextGridError(f"each run file can be given once, repeated: {', '.join(repeated)}")
    paths = [Path(name) for name in args.files]
    with FileProgress([file_size(path) for path in paths]) as progress:
        with progress.step(qrels_name, file_size(paths[0])):
            qrels = read_qrels(paths[0], format=args.qrels_format)
        runs = {}
        for name, path in zip(run_names, paths[1:], strict=True):
            with progress.step(name, file_size(path)):
                runs[name] = read_run(path, format=args.run_format)
    if args.per_query:
        return _per_query_table({name: per_query(qrels, run, args.metrics[0], args.k[0]) for name, run in runs.items()})
    results = []
    for name, run in runs.items():
        run_log = WarningLog()
        results.append(RunResult(name, evaluate(qrels, run, ks=args.k, metrics=args.metrics, warnings=run_log)))
        log.entries.extend(run_log.entries)
    return _score_table(results, (f"{metric}@{k}" for metric in args.metrics for k in args.k))


def _load_all(workspace: Workspace) -> None:
    """Read every run and qrels file of ``workspace`` now, behind a progress bar."""
    steps: dict[Path, tuple[Callable[[str], object], str]] = {}
    for config in workspace.configs:
        steps.setdefault(config.qrels, (workspace.qrels, config.name))
        steps.setdefault(config.run, (workspace.run, config.name))
    sizes = {path: file_size(path) for path in steps}
    with FileProgress(list(sizes.values())) as progress:
        for path, (load, name) in steps.items():
            with progress.step(str(path.relative_to(workspace.root)), sizes[path]):
                load(name)


def _evaluate_workspace(args: argparse.Namespace, log: WarningLog) -> ScoreTable:
    if args.files:
        raise ContextGridError(f"give either QRELS RUN... or --workspace DIR, not both (got {' '.join(args.files)})")
    if args.qrels_format or args.run_format:
        raise ContextGridError(
            "--qrels-format and --run-format apply to files given on the command line; a workspace's files are "
            "read by their suffix"
        )
    workspace = load_workspace(args.workspace)
    _load_all(workspace)
    if args.per_query:
        return _frame_table(workspace.per_query(args.metrics[0], args.k[0]))
    results = workspace.evaluate(ks=args.k, metrics=args.metrics, warnings=log)
    return _score_table(results.results, results.labels)


def _run_evaluate(args: argparse.Namespace) -> int:
    if args.per_query and (len(args.metrics) != 1 or len(args.k) != 1):
        raise ContextGridError(
            f"--per-query prints one metric at one cut-off; choose them with --metrics NAME --k K "
            f"(got {len(args.metrics)} metrics and {len(args.k)} cut-offs)"
        )
    log = WarningLog()
    grid = _evaluate_files(args, log) if args.workspace is None else _evaluate_workspace(args, log)
    _report(log)
    if not grid.rows:
        print(
            "contextgrid: warning: no question in the qrels has a relevant chunk; nothing was scored", file=sys.stderr
        )
    FORMATS[args.format](grid, sys.stdout)
    return 0


COMMAND = Subcommand(
    "evaluate",
    "score runs against qrels: one column per run (or per configuration of a workspace)",
    _configure_evaluate,
    _run_evaluate,
)
