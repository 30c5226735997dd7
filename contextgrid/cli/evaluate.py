"""``contextgrid evaluate``: score runs from files, or every configuration of a workspace.

Metrics are named as the registry names them (``recall``: at every ``--k``) or as the labels the output
prints (``ndcg@10``: at that cut-off only). The table ends with how many questions each mean is over and why
the others are not in it. ``--trec-eval`` prints trec_eval's own lines instead, under its measure names and
with its averaging (:mod:`contextgrid.engine.trec_eval`).
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from contextgrid.cli.commands import Subcommand, limits
from contextgrid.cli.progress import FileProgress, file_size
from contextgrid.cli.tables import FORMATS, TERMINAL_WIDTH, ScoreTable, fitted, printable
from contextgrid.core.checks import check_ks
from contextgrid.core.errors import ContextGridError
from contextgrid.core.log import WarningLog
from contextgrid.engine.counts import QuestionCounts, question_counts
from contextgrid.engine.scoring import evaluate, per_query
from contextgrid.engine.trec_eval import DEFAULT_MEASURES, parse_measures, trec_eval_lines
from contextgrid.io import FORMATS as FILE_FORMATS
from contextgrid.io import read_qrels, read_run
from contextgrid.metrics.base import BUILTIN_METRICS, DEFAULT_K, DEFAULT_KS, Qrels
from contextgrid.metrics.labels import select_metrics
from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.model import Workspace

__all__ = ["COMMAND", "ROWS_FROM"]

ROWS_FROM = 5

_COLUMNS = f"""columns of the table:
  metric         a row per metric@k, with a column per run
  run, config    a row per run file, or per configuration of a workspace, with a column per metric@k
  <run>          a run's (a configuration's) mean on the row's metric@k over the questions scored
  recall@k       the share of a question's relevant chunks that are among its first k
  precision@k    the distinct relevant chunks among the first k, divided by k
  hit_rate@k     1 if any of the first k chunks is relevant, else 0
  mrr@k          1 / the rank of the first relevant chunk among the first k, else 0
  map@k          average precision at k over the number of relevant chunks (trec_eval's map_cut)
  ndcg@k         the grades of the first k, discounted by log2(rank + 1), over the best order's
  question, mean with --per-query: a row per question, then each column's mean
Under the table, for each run: the questions each mean is over, how many of them the run does not
answer (each scored 0), and which were left out and why.
A table of a row per run (from {ROWS_FROM} runs on, or --layout rows) shows each metric at
k = {DEFAULT_K}, as many as fit in {TERMINAL_WIDTH} characters, unless --metrics, --k or --wide say
otherwise; csv and json keep every column."""
"""From this many runs or configurations on, ``--layout auto`` prints them as rows (a column each is too wide)."""

MEAN = "mean"
"""The label of ``--per-query``'s last row: each column's mean, the number ``evaluate()`` gives."""

_Run = Mapping[str, Sequence[str]]


def _cutoffs(text: str) -> tuple[int, ...]:
    """``--k 1,3,5`` as cut-offs, checked as ``evaluate()`` checks them."""
    try:
        return check_ks([int(part) for part in text.split(",") if part.strip()], function="evaluate")
    except ValueError as error:
        message = str(error) if isinstance(error, ContextGridError) else f"invalid literal in {text!r}"
        raise argparse.ArgumentTypeError(f"expected comma-separated whole numbers like 1,3,5: {message}") from None


def _metric_names(text: str) -> tuple[str, ...]:
    """``--metrics recall,ndcg@10`` as names and labels, each once (checked once the cut-offs are known)."""
    names = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    if not names:
        raise argparse.ArgumentTypeError(f"expected comma-separated metric names like recall,ndcg@10, got {text!r}")
    return names


def _configure_evaluate(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="*", metavar="QRELS RUN", help="a qrels file, then one or more run files")
    parser.add_argument("--workspace", metavar="DIR", type=Path, help="score every configuration of a workspace")
    parser.add_argument(
        "--k",
        type=_cutoffs,
        metavar="K,K,...",
        help=f"cut-offs (default: {','.join(map(str, DEFAULT_KS))}; a table of a row per run: {DEFAULT_K})",
    )
    parser.add_argument(
        "--metrics",
        type=_metric_names,
        metavar="NAME,...",
        help=f"metric names, at every --k, or metric@k labels such as ndcg@10 (default: {','.join(BUILTIN_METRICS)})",
    )
    parser.add_argument(
        "--wide",
        action="store_true",
        help=f"a table of a row per run: every metric at every k, however wide (default: each metric at k = "
        f"{DEFAULT_K}, the first that fit in {TERMINAL_WIDTH} characters)",
    )
    parser.epilog = _COLUMNS
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "-q",
        "--per-query",
        action="store_true",
        help="every chosen metric@k per question, then a row of means (not in json); with --trec-eval: trec_eval's -q",
    )
    parser.add_argument(
        "--layout",
        choices=("auto", "rows", "columns"),
        default="auto",
        help=f"runs as columns or as rows (default auto: in a table, rows from {ROWS_FROM} runs on)",
    )
    parser.add_argument("--format", choices=tuple(FORMATS), default="table", help="output format (default: table)")
    for option, files in (("--qrels-format", "the qrels file"), ("--run-format", "the run files")):
        parser.add_argument(
            option,
            choices=FILE_FORMATS.names(),
            metavar="NAME",
            help=f"read {files} as NAME ({', '.join(FILE_FORMATS.names())}); default: from the suffix",
        )
    parser.add_argument(
        "--engine",
        choices=("memory", "dask"),
        default="memory",
        help="memory (default), or dask: Parquet runs and qrels too big for memory, shuffled by question and "
        "scored in partitions (pip install 'contextgrid[dask]'); the numbers are the same",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="with --engine dask: the Dask scheduler to compute on (tcp://host:8786); default: local threads",
    )
    trec = parser.add_argument_group(
        "trec_eval's command line",
        # Wrapped here: the parser keeps the epilog's lines as written, and so every description's.
        textwrap.fill(
            "--trec-eval prints what `trec_eval [-q] [-c] [-m MEASURE]... QRELS RUN` prints for the measures "
            "contextgrid has, averaged as trec_eval averages: over the questions both the run and the qrels have, "
            "a judged question without a relevant chunk scoring 0. contextgrid's own table instead leaves such "
            "questions out and counts a judged question the run does not answer as 0; -c is the nearest trec_eval "
            "comes to that rule (every judged question, unanswered ones 0).",
            width=78,
        ),
    )
    trec.add_argument("--trec-eval", action="store_true", help="print trec_eval's output lines for one run")
    trec.add_argument(
        "-m",
        dest="measures",
        action="append",
        metavar="MEASURE",
        help="a trec_eval measure: num_q, num_ret, num_rel, num_rel_ret, recip_rank, P.5,10, recall.5, "
        f"ndcg_cut.10, map_cut.10, success.1,5 (repeatable; default: {' '.join(DEFAULT_MEASURES)})",
    )
    trec.add_argument(
        "-c", dest="complete", action="store_true", help="average over every judged question (unanswered: 0)"
    )


def _report(log: WarningLog) -> None:
    for entry in log:
        print(f"contextgrid: warning: {printable(str(entry))}", file=sys.stderr)


def _score_table(names: Sequence[str], scores: Sequence[Mapping[str, float]], labels: Sequence[str]) -> ScoreTable:
    """``metric@k`` rows (those any run has), one column per run."""
    present = tuple(label for label in labels if any(label in run_scores for run_scores in scores))
    values = tuple(tuple(run_scores.get(label) for run_scores in scores) for label in present)
    return ScoreTable("metric", present, tuple(names), values)


def _per_query_table(columns: dict[str, dict[str, float]]) -> ScoreTable:
    """Question rows (in the order first met), one column per (run, metric@k)."""
    questions = tuple(dict.fromkeys(question for scores in columns.values() for question in scores))
    values = tuple(tuple(scores.get(question) for scores in columns.values()) for question in questions)
    return ScoreTable("question", questions, tuple(columns), values)


def _column_name(run: str, label: str, runs: int, labels: int) -> str:
    if labels == 1:
        return run
    return label if runs == 1 else f"{run} {label}"


def _with_means(table: ScoreTable, means: Sequence[float | None]) -> ScoreTable:
    """``table`` and a last row of each column's mean: evaluate()'s score, over the questions it scores."""
    return ScoreTable(table.corner, (*table.rows, MEAN), table.columns, (*table.values, tuple(means)))


def _read_files(args: argparse.Namespace) -> tuple[Qrels, dict[str, _Run]]:
    if len(args.files) < 2:
        raise ContextGridError("evaluate needs a qrels file and at least one run file (or --workspace DIR)")
    qrels_name, *run_names = args.files
    repeated = sorted({name for name in run_names if run_names.count(name) > 1})
    if repeated:
        raise ContextGridError(f"each run file can be given once, repeated: {', '.join(repeated)}")
    paths = [Path(name) for name in args.files]
    with FileProgress([file_size(path) for path in paths]) as progress:
        with progress.step(qrels_name, file_size(paths[0])):
            qrels = read_qrels(paths[0], format=args.qrels_format, **limits(args))
        runs: dict[str, _Run] = {}
        for name, path in zip(run_names, paths[1:], strict=True):
            with progress.step(name, file_size(path)):
                runs[name] = read_run(path, format=args.run_format, **limits(args))
    return qrels, runs


def _load_all(workspace: Workspace) -> None:
    """Read every run and qrels file of ``workspace`` now, behind a progress bar."""
    steps: dict[Path, tuple[Callable[[str], object], str]] = {}
    for config in workspace.configs:
        # Without a qrels file, its chunks are read and judged on the gold spans: that is the step shown.
        judged = config.qrels if config.qrels is not None else config.chunks
        if judged is not None:
            steps.setdefault(judged, (workspace.qrels, config.name))
        steps.setdefault(config.run, (workspace.run, config.name))
    sizes = {path: file_size(path) for path in steps}
    with FileProgress(list(sizes.values())) as progress:
        for path, (load, name) in steps.items():
            # A manifest may name files outside its folder (../runs/x.trec): those are shown as named.
            shown = path.relative_to(workspace.root) if path.is_relative_to(workspace.root) else path
            with progress.step(str(shown), sizes[path]):
                load(name)


def _workspace(args: argparse.Namespace) -> Workspace:
    if args.files:
        raise ContextGridError(f"give either QRELS RUN... or --workspace DIR, not both (got {' '.join(args.files)})")
    if args.qrels_format or args.run_format:
        raise ContextGridError(
            "--qrels-format and --run-format apply to files given on the command line; a workspace's files are "
            "read by their suffix"
        )
    workspace = load_workspace(args.workspace, **limits(args))
    _load_all(workspace)
    return workspace


def _scored_with_dask(
    args: argparse.Namespace, ks: Sequence[int], metrics: Sequence[str], log: WarningLog
) -> tuple[list[str], list[Mapping[str, float]], dict[str, QuestionCounts]]:
    """Each run scored by the Dask engine, straight from its Parquet files."""
    from contextgrid.scale.dask_engine import evaluate_dask

    refused = [option for option, given in (("--workspace", args.workspace), ("--per-query", args.per_query)) if given]
    refused += [option for option in ("--qrels-format", "--run-format") if getattr(args, option[2:].replace("-", "_"))]
    if refused:
        raise ContextGridError(
            f"{', '.join(refused)} do not apply with --engine dask, which reads Parquet files given on the command "
            "line (per-question scores: contextgrid.scale.dask_engine.per_question_dask)"
        )
    if len(args.files) < 2:
        raise ContextGridError("evaluate needs a qrels file and at least one run file")
    qrels, *runs = args.files
    scores: list[Mapping[str, float]] = []
    counts: dict[str, QuestionCounts] = {}
    for run in runs:
        result = evaluate_dask(qrels, run, ks=ks, metrics=metrics, scheduler=args.scheduler, warnings=log)
        scores.append(result.scores)
        counts[run] = result.counts
    return list(runs), scores, counts


def _warn_disjoint(qrels: Qrels, runs: Mapping[str, _Run], log: WarningLog) -> None:
    """Warn of a run whose rankings mostly hold none of their question's judged chunks: without chunks to
    check against, the one sign that the qrels and the run come from different chunkings."""
    from contextgrid.evidence.alignment import disjoint_rankings

    for name, run in runs.items():
        disjoint, ranked = disjoint_rankings(qrels, run)
        if disjoint * 2 > ranked:
            log.caution(
                "evaluate",
                name,
                f"{disjoint} of the {ranked} judged questions it ranks hold none of their judged chunks: the qrels "
                "and the run may come from different chunkings (ids such as doc#3 repeat across chunkings) or "
                "number their questions differently; evaluate a workspace with its chunks to check",
            )


def _scored(args: argparse.Namespace, log: WarningLog) -> tuple[ScoreTable, dict[str, QuestionCounts]]:
    """The table ``args`` ask for, and each run's question counts."""
    pairs = select_metrics(_metrics(args), _ks(args))
    labels = [f"{metric}@{k}" for metric, k in pairs]
    ks = sorted({k for _, k in pairs})
    metrics = list(dict.fromkeys(metric for metric, _ in pairs))
    per_question: dict[str, dict[str, float]] = {}
    if args.engine == "dask":
        names, by_run, counts = _scored_with_dask(args, ks, metrics, log)
        scores: list[Mapping[str, float]] = by_run
    elif args.workspace is None:
        qrels, runs = _read_files(args)
        names = list(runs)
        counts = {name: question_counts(qrels, run) for name, run in runs.items()}
        _warn_disjoint(qrels, runs, log)
        scores = []
        for run in runs.values():
            run_log = WarningLog()
            scores.append(evaluate(qrels, run, ks=ks, metrics=metrics, warnings=run_log))
            log.entries.extend(run_log.entries)
        if args.per_query:
            for name, run in runs.items():
                for metric, k in pairs:
                    column = _column_name(name, f"{metric}@{k}", len(runs), len(pairs))
                    per_question[column] = per_query(qrels, run, metric, k)
    else:
        workspace = _workspace(args)
        names = list(workspace.names)
        counts = {name: question_counts(workspace.qrels(name), workspace.run(name)) for name in names}
        scores = [result.scores for result in workspace.evaluate(ks=ks, metrics=metrics, warnings=log).results]
        if args.per_query:
            frames = {(metric, k): workspace.per_query(metric, k) for metric, k in pairs}
            for name in names:
                for (metric, k), frame in frames.items():
                    scored = frame[name].dropna()
                    column = _column_name(name, f"{metric}@{k}", len(names), len(pairs))
                    per_question[column] = dict(zip(map(str, scored.index), scored.tolist(), strict=True))
    if args.per_query:
        table = _per_query_table(per_question)
        if args.format == "json":  # keeps per_query()'s shape, {run: {question: score}}
            return table, counts
        return _with_means(table, [run_scores.get(label) for run_scores in scores for label in labels]), counts
    table = _score_table(names, scores, labels)
    # auto is for reading: csv and json keep one shape, whatever the number of runs.
    rows = args.layout == "rows" or (args.layout == "auto" and args.format == "table" and len(names) >= ROWS_FROM)
    if not rows:
        return table, counts
    turned = table.transposed("config" if args.workspace is not None else "run")
    return (_narrowed(turned) if _narrow(args) else turned), counts


def _metrics(args: argparse.Namespace) -> tuple[str, ...]:
    return tuple(args.metrics) if args.metrics is not None else BUILTIN_METRICS


def _ks(args: argparse.Namespace) -> tuple[int, ...]:
    return tuple(args.k) if args.k is not None else DEFAULT_KS


def _narrow(args: argparse.Namespace) -> bool:
    """Whether a table of a row per run shows the default few columns: nothing asked for them all."""
    return args.format == "table" and not args.wide and args.metrics is None and args.k is None


def _narrowed(table: ScoreTable) -> ScoreTable:
    """Each metric at :data:`~contextgrid.metrics.base.DEFAULT_K`, as many as fit in the terminal's width; a
    note on standard error says what was left out and how to see it."""
    keep = [i for i, column in enumerate(table.columns) if column.endswith(f"@{DEFAULT_K}")]
    chosen = ScoreTable(
        table.corner,
        table.rows,
        tuple(table.columns[i] for i in keep),
        tuple(tuple(row[i] for i in keep) for row in table.values),
    )
    shown = fitted(chosen, TERMINAL_WIDTH)
    left = len(table.columns) - len(shown.columns)
    if left:
        print(
            f"contextgrid: note: {len(shown.columns)} of {len(table.columns)} columns shown (each metric at k = "
            f"{DEFAULT_K} that fits in {TERMINAL_WIDTH} characters); --wide shows them all, --metrics and --k choose",
            file=sys.stderr,
        )
    return shown


def _count_lines(counts: Mapping[str, QuestionCounts], kind: str) -> list[str]:
    """One line per distinct count, naming its runs (``every run`` when they all share it)."""
    groups: dict[QuestionCounts, list[str]] = {}
    for name, count in counts.items():
        groups.setdefault(count, []).append(name)
    if len(groups) == 1 and len(counts) > 1:
        return [f"every {kind}: {next(iter(groups)).describe()}"]
    return [f"{', '.join(names)}: {count.describe()}" for count, names in groups.items()]


def _refuse_trec_options(args: argparse.Namespace) -> None:
    if args.measures or args.complete:
        raise ContextGridError("-m and -c are trec_eval's options: add --trec-eval to print trec_eval's lines")


def _run_trec_eval(args: argparse.Namespace) -> int:
    if args.workspace is not None or len(args.files) != 2:
        raise ContextGridError("--trec-eval scores one run, as trec_eval does: give QRELS RUN")
    changed = [
        option
        for option, changed in (
            ("--metrics", args.metrics is not None),
            ("--k", args.k is not None),
            ("--wide", args.wide),
            ("--layout", args.layout != "auto"),
            ("--format", args.format != "table"),
        )
        if changed
    ]
    if changed:
        raise ContextGridError(f"--trec-eval names its measures with -m; {', '.join(changed)} do not apply")
    measures = args.measures or list(DEFAULT_MEASURES)
    parse_measures(measures)  # refuse a bad -m before any file is read
    qrels, runs = _read_files(args)
    (run,) = runs.values()
    for line in trec_eval_lines(qrels, run, measures, per_query=args.per_query, complete=args.complete):
        print(printable(line))
    return 0


def _run_evaluate(args: argparse.Namespace) -> int:
    if args.scheduler is not None and args.engine != "dask":
        raise ContextGridError("--scheduler names a Dask scheduler: add --engine dask")
    if args.trec_eval and args.engine == "dask":
        raise ContextGridError("--trec-eval scores in memory, as trec_eval does; drop --engine dask")
    if args.trec_eval:
        return _run_trec_eval(args)
    _refuse_trec_options(args)
    select_metrics(_metrics(args), _ks(args))  # refuse an unknown metric before any file is read
    log = WarningLog()
    table, counts = _scored(args, log)
    _report(log)
    if not table.rows or (args.per_query and table.rows == (MEAN,)):
        print(
            "contextgrid: warning: no question in the qrels has a relevant chunk; nothing was scored", file=sys.stderr
        )
    FORMATS[args.format](table, sys.stdout)
    lines = _count_lines(counts, "configuration" if args.workspace is not None else "run")
    if args.format == "table":
        print("\n" + printable("\n".join(lines)))
    elif any(count.unanswered or count.not_judged for count in counts.values()):
        for line in lines:
            print(f"contextgrid: note: {printable(line)}", file=sys.stderr)
    return 0


COMMAND = Subcommand(
    "evaluate",
    "score runs against qrels: one column per run (or per configuration of a workspace)",
    _configure_evaluate,
    _run_evaluate,
    reads_files=True,
)
