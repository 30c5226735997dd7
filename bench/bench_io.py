"""Benchmark reading a 10M-row TREC run and its qrels, and scoring them, against ranx and pyarrow.

Run from the repository root::

    python bench/bench_io.py                        # 10,000 questions x 1,000 ranks = 10M rows
    python bench/bench_io.py --questions 1000 --skip-ranx

The files are generated, seeded, in a temporary folder (deleted afterwards).
Three numbers are checked against the targets of the file-reading issue:

* read + evaluate end to end at least 10x faster than ranx's
  ``Run.from_file`` + ``Qrels.from_file`` + ``evaluate`` (numba compiled
  beforehand, untimed);
* ``read_run`` alone within 3x of the time pyarrow's CSV reader needs just
  to parse the same file (all six columns, types inferred);
* the loaded run held in under 500 MB (bytes pyarrow allocated for it).

Scoring uses the columnar path (:mod:`contextgrid.engine.columns` and the
metric kernels), which is what ``evaluate()`` runs for tables. Exits 1 when a
target is missed or contextgrid and ranx disagree beyond 1e-9.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

if __package__ in (None, ""):  # run as a script: make the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.engine.columns import ranked_grades_from_tables
from contextgrid.engine.kernels import KERNELS
from contextgrid.io import read_qrels, read_run
from contextgrid.metrics import BUILTIN_METRICS, METRICS

T = TypeVar("T")
KS = (1, 5, 10, 20)
MB = 1 << 20
# Chunk numbers: question q's ranking is (step_q * r + offset_q) mod PRIME, distinct for distinct ranks r.
PRIME = 2_000_003


def _write_lines(lines: Any, path: Path) -> None:
    with path.open("wb") as out:
        for chunk in lines.chunks if isinstance(lines, pa.ChunkedArray) else [lines]:
            offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32)[chunk.offset : chunk.offset + len(chunk) + 1]
            out.write(memoryview(chunk.buffers()[2])[int(offsets[0]) : int(offsets[-1])])


def generate(folder: Path, questions: int, depth: int, seed: int) -> tuple[Path, Path]:
    """A TREC run of ``questions * depth`` rows and qrels of 20 judgements per question (10 retrieved)."""
    rng = np.random.default_rng(seed)
    step = rng.integers(1, PRIME, size=(questions, 1))
    offset = rng.integers(0, PRIME, size=(questions, 1))
    docs = (step * np.arange(depth) + offset) % PRIME
    scores = np.round(np.sort(rng.gamma(2.0, 3.0, size=(questions, depth)), axis=1)[:, ::-1], 4)
    qids = np.repeat(np.char.add("q", np.arange(questions).astype(str)), depth)
    run_lines = pc.binary_join_element_wise(
        pa.array(qids),
        "Q0",
        pa.array(np.char.add("d", docs.ravel().astype(str))),
        pc.cast(pa.array(np.tile(np.arange(1, depth + 1), questions)), pa.string()),
        pc.cast(pa.array(scores.ravel()), pa.string()),
        "bench\n",
        " ",
    )
    run_path = folder / "run.trec"
    _write_lines(run_lines, run_path)

    judged_ranks = np.sort(rng.permuted(np.tile(np.arange(depth), (questions, 1)), axis=1)[:, :10], axis=1)
    retrieved = np.take_along_axis(docs, judged_ranks, axis=1)
    unretrieved = (step * np.arange(depth, depth + 10) + offset) % PRIME
    judged = np.concatenate([retrieved, unretrieved], axis=1)
    grades = rng.integers(0, 3, size=judged.shape)
    qrels_lines = pc.binary_join_element_wise(
        pa.array(np.repeat(np.char.add("q", np.arange(questions).astype(str)), judged.shape[1])),
        "0",
        pa.array(np.char.add("d", judged.ravel().astype(str))),
        pc.binary_join_element_wise(pc.cast(pa.array(grades.ravel()), pa.string()), "", "\n"),
        " ",
    )
    qrels_path = folder / "qrels.trec"
    _write_lines(qrels_lines, qrels_path)
    return run_path, qrels_path


def timed(function: Callable[[], T], repeat: int) -> tuple[T, float]:
    """The result of the last call and the best wall time of ``repeat`` calls.

    Each call's result is dropped before the next call starts, so no call
    pays for memory an earlier one still holds.
    """
    best = float("inf")
    result: T | None = None
    for _ in range(repeat):
        result = None
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    assert result is not None
    return result, best


def evaluate_tables(qrels: QrelsTable, run: RunTable) -> dict[str, float]:
    """``evaluate()`` for tables: the columnar ranked-grade matrix, then each metric's kernel."""
    batch = ranked_grades_from_tables(qrels, run, max(KS))
    return {f"{name}@{k}": float(np.mean(KERNELS[METRICS.get(name)](batch, k))) for name in BUILTIN_METRICS for k in KS}


def pyarrow_parse(path: Path) -> Any:
    names = ["qid", "Q0", "docid", "rank", "score", "tag"]
    return pcsv.read_csv(
        path,
        read_options=pcsv.ReadOptions(column_names=names),
        parse_options=pcsv.ParseOptions(delimiter=" "),
    )


def ranx_end_to_end(run_path: Path, qrels_path: Path) -> dict[str, float]:
    from ranx import Qrels, Run, evaluate

    run = Run.from_file(str(run_path), kind="trec")
    qrels = Qrels.from_file(str(qrels_path), kind="trec")
    metrics = [f"{name}@{k}" for name in BUILTIN_METRICS for k in KS]
    return {name: float(value) for name, value in evaluate(qrels, run, metrics).items()}


def warm_up_ranx() -> None:
    """Compile ranx's numba kernels on a tiny input, so compilation is not timed."""
    from ranx import Qrels, Run, evaluate

    metrics = [f"{name}@{k}" for name in BUILTIN_METRICS for k in KS]
    evaluate(Qrels({"q": {"d": 1}}), Run({"q": {"d": 1.0, "e": 0.5}}), metrics)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs for the contextgrid timings")
    parser.add_argument("--skip-ranx", action="store_true")
    args = parser.parse_args(argv)

    folder = Path(tempfile.mkdtemp(prefix="contextgrid-bench-io-"))
    failures: list[str] = []
    try:
        run_path, qrels_path = generate(folder, args.questions, args.depth, args.seed)
        rows = args.questions * args.depth
        print(f"{rows:,} run rows ({run_path.stat().st_size / MB:,.0f} MB), {args.questions:,} questions")

        _, parse_seconds = timed(lambda: pyarrow_parse(run_path), args.repeat)
        _, read_seconds = timed(lambda: read_run(run_path), args.repeat)
        before = pa.total_allocated_bytes()
        run = read_run(run_path)
        held = pa.total_allocated_bytes() - before
        columns = run.table.nbytes
        del run

        def end_to_end() -> dict[str, float]:
            return evaluate_tables(read_qrels(qrels_path), read_run(run_path))

        ours, ours_seconds = timed(end_to_end, args.repeat)
        print(f"pyarrow CSV parse alone         {parse_seconds:8.2f} s")
        print(f"read_run                        {read_seconds:8.2f} s  ({read_seconds / parse_seconds:.2f}x the parse)")
        print(f"run held in memory              {held / MB:8.0f} MB ({columns / MB:.0f} MB of columns)")
        print(f"contextgrid read + evaluate     {ours_seconds:8.2f} s")
        if read_seconds > 3 * parse_seconds:
            failures.append(f"read_run took {read_seconds / parse_seconds:.2f}x the pyarrow parse (target: 3x)")
        if held >= 500 * MB:
            failures.append(f"the run holds {held / MB:.0f} MB (target: under 500 MB)")

        if not args.skip_ranx:
            warm_up_ranx()
            theirs, ranx_seconds = timed(lambda: ranx_end_to_end(run_path, qrels_path), 1)
            speedup = ranx_seconds / ours_seconds
            print(f"ranx from_file + evaluate       {ranx_seconds:8.2f} s  (contextgrid {speedup:.1f}x faster)")
            worst = max(abs(ours[name] - theirs[name]) for name in ours)
            print(f"largest difference from ranx    {worst:8.1e}")
            if speedup < 10:
                failures.append(f"end to end only {speedup:.1f}x faster than ranx (target: 10x)")
            if worst > 1e-9:
                failures.append(f"contextgrid and ranx disagree by up to {worst:.3g}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    for failure in failures:
        print("MISSED:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
