"""The ``contextgrid`` command: score runs from files or a workspace, or start the dashboard.

Subcommands and output formats are registries (:data:`COMMANDS`,
:data:`FORMATS`): a new one is registered, never dispatched on by name.
Bad input exits with status 2 and one ``contextgrid: error: ...`` line on
stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import signal
import subprocess
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TextIO

from . import __version__
from .answer_scores import configure_answers, run_answers
from .errors import ContextGridError
from .io import FORMATS as FILE_FORMATS
from .io import read_qrels, read_run
from .log import WarningLog
from .metrics.base import BUILTIN_METRICS, DEFAULT_KS, METRICS
from .params import check_ks
from .progress import FileProgress, file_size
from .report import configure_report, run_report
from .results import RunResult
from .scoring import evaluate, per_query
from .workspace import SAMPLE, Workspace, load_workspace

if TYPE_CHECKING:
    import pandas as pd

    from .significance import ComparisonTable

__all__ = [
    "COMMANDS",
    "FORMATS",
    "Grid",
    "Subcommand",
    "app_command",
    "build_parser",
    "main",
    "register_command",
    "register_format",
]

APP = Path(__file__).resolve().parent.parent / "app.py"
"""The dashboard script ``contextgrid app`` starts (at the repository root)."""


@dataclass(frozen=True, slots=True)
class Grid:
    """A labelled table of scores: ``values[row][column]``, ``None`` where there is no score.

    Examples
    --------
    >>> Grid("metric", ("recall@1",), ("a.trec", "b.trec"), ((0.5, None),)).values[0]
    (0.5, None)
    """

    corner: str
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    values: tuple[tuple[float | None, ...], ...]

    def __post_init__(self) -> None:
        if len(self.values) != len(self.rows) or any(len(row) != len(self.columns) for row in self.values):
            raise ContextGridError(
                f"Grid: values must be {len(self.rows)} rows of {len(self.columns)} columns, got "
                f"{[len(row) for row in self.values]}"
            )


Formatter = Callable[[Grid, TextIO], None]

FORMATS: dict[str, Formatter] = {}
"""Output formats by name: ``formatter(grid, stream)`` writes the whole grid."""


def register_format(name: str) -> Callable[[Formatter], Formatter]:
    """Return a decorator that registers a formatter under ``name``."""

    def decorator(formatter: Formatter) -> Formatter:
        if name in FORMATS:
            raise ContextGridError(f"an output format named {name!r} is already registered")
        FORMATS[name] = formatter
        return formatter

    return decorator


def _cell(value: float | None) -> str:
    if value is None:
        return "-"
    return str(value) if isinstance(value, int) else f"{value:.4f}"


@register_format("table")
def _write_table(grid: Grid, stream: TextIO) -> None:
    """Aligned columns for reading, scores to 4 decimals (csv and json keep every digit)."""
    cells = [[_cell(value) for value in row] for row in grid.values]
    label_width = max(map(len, (grid.corner, *grid.rows)))
    widths = [max(len(column), *(len(row[i]) for row in cells)) for i, column in enumerate(grid.columns)]
    lines = [
        "  ".join([label.ljust(label_width), *(cell.rjust(width) for cell, width in zip(row, widths, strict=True))])
        for label, row in zip((grid.corner, *grid.rows), (list(grid.columns), *cells), strict=True)
    ]
    stream.write("\n".join(lines) + "\n")


@register_format("csv")
def _write_csv(grid: Grid, stream: TextIO) -> None:
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow([grid.corner, *grid.columns])
    for label, row in zip(grid.rows, grid.values, strict=True):
        writer.writerow([label, *("" if value is None else repr(value) for value in row)])


@register_format("json")
def _write_json(grid: Grid, stream: TextIO) -> None:
    """One object per column, ``{row: score}``: the shape ``evaluate()`` and ``per_query()`` return."""
    by_column = {
        column: {label: row[i] for label, row in zip(grid.rows, grid.values, strict=True)}
        for i, column in enumerate(grid.columns)
    }
    stream.write(json.dumps(by_column, indent=2, allow_nan=False) + "\n")


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
        raise ContextGridError(f"a subcommand named {command.name!r} is already registered")
    COMMANDS[command.name] = command
    return command


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


def _score_grid(results: Sequence[RunResult], labels: Iterable[str]) -> Grid:
    """``metric@k`` rows (those any run has), one column per run."""
    present = tuple(label for label in labels if any(result.has(label) for result in results))
    values = tuple(tuple(result.scores.get(label) for result in results) for label in present)
    return Grid("metric", present, tuple(result.config for result in results), values)


def _per_query_grid(columns: dict[str, dict[str, float]]) -> Grid:
    """Question rows (in the order first met), one column per run."""
    questions = tuple(dict.fromkeys(question for scores in columns.values() for question in scores))
    values = tuple(tuple(scores.get(question) for scores in columns.values()) for question in questions)
    return Grid("question", questions, tuple(columns), values)


def _frame_grid(frame: pd.DataFrame) -> Grid:
    values = tuple(
        tuple(None if math.isnan(value) else float(value) for value in row) for row in frame.itertuples(index=False)
    )
    return Grid("question", tuple(map(str, frame.index)), tuple(map(str, frame.columns)), values)


def _evaluate_files(args: argparse.Namespace, log: WarningLog) -> Grid:
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
        return _per_query_grid({name: per_query(qrels, run, args.metrics[0], args.k[0]) for name, run in runs.items()})
    results = []
    for name, run in runs.items():
        run_log = WarningLog()
        results.append(RunResult(name, evaluate(qrels, run, ks=args.k, metrics=args.metrics, warnings=run_log)))
        log.entries.extend(run_log.entries)
    return _score_grid(results, (f"{metric}@{k}" for metric in args.metrics for k in args.k))


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


def _evaluate_workspace(args: argparse.Namespace, log: WarningLog) -> Grid:
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
        return _frame_grid(workspace.per_query(args.metrics[0], args.k[0]))
    results = workspace.evaluate(ks=args.k, metrics=args.metrics, warnings=log)
    return _score_grid(results.results, results.labels)


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


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number from 1 to 65535, got {text!r}")
    return port


def _configure_app(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "workspace",
        nargs="?",
        type=Path,
        default=SAMPLE,
        metavar="WORKSPACE",
        help="the workspace folder to open (default: the sample workspace)",
    )
    parser.add_argument("--port", type=_port, help="serve on this port (default: streamlit's, 8501)")
    parser.add_argument("--headless", action="store_true", help="do not open a browser")


def app_command(workspace: Path, *, port: int | None = None, headless: bool = False) -> list[str]:
    """The command line that serves the dashboard on ``workspace``.

    Examples
    --------
    >>> from pathlib import Path
    >>> app_command(Path("/data/ws"), port=8600, headless=True)[3:]  # doctest: +ELLIPSIS
    ['run', '.../app.py', '--server.port', '8600', '--server.headless', 'true', '--', '--workspace', '/data/ws']
    """
    options = [] if port is None else ["--server.port", str(port)]
    options += ["--server.headless", "true"] if headless else []
    return [sys.executable, "-m", "streamlit", "run", str(APP), *options, "--", "--workspace", str(workspace)]


def _run_app(args: argparse.Namespace) -> int:
    workspace = load_workspace(args.workspace)  # a broken workspace fails here, not inside the dashboard
    if not APP.is_file():
        raise ContextGridError(f"the dashboard script is not at {APP}; `contextgrid app` needs the source checkout")
    process = subprocess.Popen(app_command(workspace.root, port=args.port, headless=args.headless))

    def forward(signum: int, _frame: object) -> None:
        process.send_signal(signum)

    previous = signal.signal(signal.SIGTERM, forward)
    try:
        return process.wait()
    except KeyboardInterrupt:  # the terminal sent SIGINT to streamlit too; let it finish shutting down
        return process.wait()
    finally:
        signal.signal(signal.SIGTERM, previous)


def _metric_at_k(text: str) -> tuple[str, int]:
    """``--metric ndcg@10`` as a registered metric name and a cut-off."""
    name, _, k = text.partition("@")
    if name not in METRICS or not k.isdigit() or int(k) < 1:
        raise argparse.ArgumentTypeError(
            f"expected a registered metric and a cut-off like ndcg@10 (metrics: {', '.join(METRICS.names())}), "
            f"got {text!r}"
        )
    return name, int(k)


def _configure_compare(parser: argparse.ArgumentParser) -> None:
    from .significance import CORRECTIONS, PAIRED_TESTS

    parser.add_argument("workspace", type=Path, metavar="WORKSPACE", help="the workspace folder")
    parser.add_argument("--metric", type=_metric_at_k, required=True, metavar="METRIC@K", help="e.g. ndcg@10")
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
    from .diagnose import shared_scores
    from .significance import compare_configurations

    workspace = load_workspace(args.workspace)
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


def _names(text: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    if not names:
        raise argparse.ArgumentTypeError(f"expected comma-separated names, got {text!r}")
    return names


def _numbers(text: str) -> tuple[int, ...]:
    try:
        numbers = tuple(dict.fromkeys(int(part) for part in text.split(",") if part.strip()))
    except ValueError:
        numbers = ()
    if not numbers or min(numbers) < 0:
        raise argparse.ArgumentTypeError(f"expected comma-separated whole numbers, 0 or more, got {text!r}")
    return numbers


def _configure_sweep(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("documents", type=Path, help="a folder of .txt/.md files, or JSON Lines {doc_id, text}")
    parser.add_argument("questions", type=Path, help="JSON Lines questions with gold evidence (quotes or offsets)")
    parser.add_argument("-o", "--output", type=Path, required=True, help="the workspace folder to write")
    parser.add_argument("--chunkers", type=_names, default=("recursive",), help="default: recursive")
    parser.add_argument("--sizes", type=_numbers, default=(200, 500, 1000, 2000), help="default: 200,500,1000,2000")
    parser.add_argument("--overlaps", type=_numbers, default=(0,), help="default: 0")
    parser.add_argument("--retrievers", type=_names, default=("bm25", "dense"), help="default: bm25,dense")
    parser.add_argument("--depth", type=_numbers, default=(20,), help="ranks retrieved per question (default: 20)")
    parser.add_argument("--name", default="sweep", help="the workspace's name")


def _run_sweep(args: argparse.Namespace) -> int:
    from .io import read_documents, read_questions
    from .sweep import sweep, sweep_grid

    documents = read_documents(args.documents)
    items = read_questions(args.questions)
    grid = sweep_grid(
        chunkers=args.chunkers, sizes=args.sizes, overlaps=args.overlaps, retrievers=args.retrievers, depths=args.depth
    )
    shown = sys.stderr.isatty()
    done = iter(range(1, len(grid) + 1))

    def progress(name: str) -> None:
        if shown:
            print(f"\rsweep [{next(done)}/{len(grid)}] {name}".ljust(60), end="", file=sys.stderr, flush=True)

    log = WarningLog()
    report = sweep(documents, items, grid, args.output, name=args.name, warnings=log, progress=progress)
    if shown:
        print(file=sys.stderr)
    for name, reason in report.failed.items():
        print(f"contextgrid: {name} failed and was left out: {reason}", file=sys.stderr)
    print(f"wrote {len(report.written)} configurations to {report.root}")
    return 0


register_command(
    Subcommand(
        "evaluate",
        "score runs against qrels: one column per run (or per configuration of a workspace)",
        _configure_evaluate,
        _run_evaluate,
    )
)
register_command(Subcommand("app", "start the dashboard on a workspace", _configure_app, _run_app))
register_command(
    Subcommand(
        "answers",
        "score generated answers per configuration: groundedness, citations, abstentions",
        configure_answers,
        run_answers,
    )
)
register_command(
    Subcommand(
        "compare",
        "is the winner real? every configuration against a baseline, with paired tests and intervals",
        _configure_compare,
        _run_compare,
    )
)
register_command(
    Subcommand("report", "write a one-file HTML report of one configuration", configure_report, run_report)
)
register_command(
    Subcommand(
        "sweep",
        "chunk, resolve gold evidence, retrieve and write a workspace for a grid of configurations",
        _configure_sweep,
        _run_sweep,
    )
)


class _Parser(argparse.ArgumentParser):
    """argparse, except that a usage error raises instead of exiting, so :func:`main` reports every error alike."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        raise ContextGridError(message)


def build_parser() -> argparse.ArgumentParser:
    """The ``contextgrid`` argument parser, one subparser per registered subcommand."""
    parser = _Parser(prog="contextgrid", description="Score retrieval runs, or open the contextgrid dashboard.")
    parser.add_argument("--version", action="version", version=f"contextgrid {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS.values():
        command.configure(subparsers.add_parser(command.name, help=command.help, description=command.help))
    return parser


def _fail(message: str) -> int:
    print(f"contextgrid: error: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``contextgrid`` with ``argv`` (default: the process's arguments) and return the exit status.

    0 on success; 2 on bad input (an unreadable file, a malformed one, an
    unknown metric, a bad option), with the reason on stderr.
    """
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as stop:  # --help and --version print, then exit
            return stop.code if isinstance(stop.code, int) else 0
        status: int = COMMANDS[args.command].run(args)
        return status
    except ContextGridError as error:
        return _fail(str(error))
    except BrokenPipeError:  # the reader (say `| head`) stopped reading: nothing to report
        return 0
    except OSError as error:
        if error.filename is None:
            return _fail(str(error))
        return _fail(f"cannot read {error.filename!r}: {error.strerror}")
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
