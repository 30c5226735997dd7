"""Benchmark reading TREC text written with different whitespace: one space, tabs, CRLF, and mixed padding.

Run from the repository root::

    python bench/bench_trec.py                     # 1M run lines, 1M qrels lines
    python bench/bench_trec.py --lines 200000 --repeat 5

The files are generated, seeded, in a temporary folder (deleted afterwards).
For each style it prints the best wall time of ``read_run`` and ``read_qrels``
and the time pyarrow's CSV reader needs just to parse the single-space file,
so runs of the script before and after a change to the reader compare.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
import pyarrow.csv as pcsv

if __package__ in (None, ""):  # run as a script: make the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from contextgrid.io import read_qrels, read_run

DEPTH = 100
# Each style: how the fields of a line are joined, and what ends the line.
STYLES = {
    "spaces": (" ", "\n"),
    "tabs": ("\t", "\n"),
    "crlf": (" ", "\r\n"),
    "padded": (" \t ", " \r\n"),
}


def lines(lines: int, seed: int) -> tuple[list[list[str]], list[list[str]]]:
    """The fields of a run of ``lines`` lines (``DEPTH`` per question) and of qrels of as many lines."""
    rng = np.random.default_rng(seed)
    questions = np.char.add("q", (np.arange(lines) // DEPTH).astype(str))
    docs = np.char.add("d", rng.permutation(lines).astype(str))
    ranks = (np.arange(lines) % DEPTH + 1).astype(str)
    scores = np.round(np.sort(rng.gamma(2.0, 3.0, size=lines))[::-1], 4).astype(str)
    grades = rng.integers(0, 3, size=lines).astype(str)
    run = [questions.tolist(), ["Q0"] * lines, docs.tolist(), ranks.tolist(), scores.tolist(), ["bench"] * lines]
    qrels = [questions.tolist(), ["0"] * lines, docs.tolist(), grades.tolist()]
    return run, qrels


def write(path: Path, columns: list[list[str]], separator: str, end: str) -> Path:
    path.write_text("".join(separator.join(fields) + end for fields in zip(*columns, strict=True)))
    return path


def best(function: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    folder = Path(tempfile.mkdtemp(prefix="contextgrid-bench-trec-"))
    try:
        run, qrels = lines(args.lines, args.seed)
        print(f"{args.lines:,} lines per file")
        for style, (separator, end) in STYLES.items():
            run_path = write(folder / f"{style}.run", run, separator, end)
            qrels_path = write(folder / f"{style}.qrels", qrels, separator, end)
            if style == "spaces":
                options = pcsv.ReadOptions(column_names=["qid", "Q0", "docid", "rank", "score", "tag"])
                parse = partial(
                    pcsv.read_csv, run_path, read_options=options, parse_options=pcsv.ParseOptions(delimiter=" ")
                )
                print(f"pyarrow CSV parse of the run     {best(parse, args.repeat):7.3f} s")
            run_seconds = best(partial(read_run, run_path), args.repeat)
            qrels_seconds = best(partial(read_qrels, qrels_path), args.repeat)
            print(f"{style:<8} read_run {run_seconds:7.3f} s   read_qrels {qrels_seconds:7.3f} s")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
