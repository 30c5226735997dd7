"""The Dask engine on a run too big for comfort: time and peak memory against the in-memory engine.

    python3 bench/bench_scale.py [--rows 100000000] [--depth 100] [--memory-limit 4GiB] [--folder DIR]

Writes a Parquet run of ``rows`` rows (``rows / depth`` questions, ``depth`` chunks each, in files of a
million rows) and qrels of three judged chunks per question, then scores it:

- with the Dask engine on a LocalCluster of two worker processes, ``memory-limit`` each: its time, and the peak
  resident memory of the workers and of this process (the client);
- with the in-memory engine (``read_run`` + ``evaluate``) in a child process, at every size up to the largest
  that fits in half this machine's memory: its time and peak memory, and the Dask engine's at the same size;
- and how the Dask engine's time grows from a tenth of the rows to all of them.

The numbers of both engines are compared at every size both ran: they must be equal.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

FILE_ROWS = 1_000_000
KS = (1, 3, 5, 10, 20)


def write_inputs(folder: Path, rows: int, depth: int, seed: int = 0) -> tuple[Path, Path]:
    """A run of ``rows`` rows in files of a million rows, and its qrels, written with pyarrow (never all in memory)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    runs, qrels = folder / f"run-{rows}", folder / f"qrels-{rows}.parquet"
    if runs.is_dir() and qrels.is_file():
        return runs, qrels
    runs.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    questions = rows // depth
    per_file = FILE_ROWS // depth
    for start in range(0, questions, per_file):
        count = min(per_file, questions - start)
        ids = np.repeat(np.arange(start, start + count), depth)
        # Chunk ids distinct within a question: its number times the depth plus a permutation of the depth.
        chunks = ids * depth + np.argsort(rng.random((count, depth)), axis=1).ravel()
        table = pa.table(
            {
                "question_id": pa.array(np.char.add("q", ids.astype(str))),
                "chunk_id": pa.array(np.char.add("c", chunks.astype(str))),
                "score": rng.random(count * depth),
            }
        )
        pq.write_table(table, runs / f"part-{start // per_file:05d}.parquet")
    ids = np.repeat(np.arange(questions), 3)
    judged = ids * depth + rng.integers(0, depth * 2, size=len(ids))  # some judged chunks never retrieved
    grades = rng.integers(0, 3, size=len(ids))
    table = pa.table(
        {
            "question_id": pa.array(np.char.add("q", ids.astype(str))),
            "chunk_id": pa.array(np.char.add("c", judged.astype(str))),
            "grade": grades,
        }
    )
    # A judged chunk drawn twice for a question is one judgement.
    frame = table.to_pandas().drop_duplicates(["question_id", "chunk_id"])
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), qrels)
    return runs, qrels


CHILD = """
import json, resource, sys, time
from pathlib import Path
import pyarrow.parquet as pq
import contextgrid as cg
from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.io import read_qrels
started = time.perf_counter()
table = pq.read_table(sys.argv[1])
run = RunTable.from_columns(table.column("question_id"), table.column("chunk_id"), score=table.column("score"))
del table
scores = cg.evaluate(read_qrels(sys.argv[2]), run)
elapsed = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": elapsed, "peak": peak, "scores": scores}))
"""


def in_memory(runs: Path, qrels: Path) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", CHILD, str(runs), str(qrels)], capture_output=True, text=True)
    if done.returncode != 0:
        return {"failed": done.stderr.strip().splitlines()[-1] if done.stderr else f"exit {done.returncode}"}
    result: dict[str, object] = json.loads(done.stdout)
    return result


def on_dask(runs: Path, qrels: Path, memory_limit: str) -> dict[str, object]:
    from distributed import Client, LocalCluster

    from contextgrid.scale.dask_engine import evaluate_dask

    with (
        LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=2, threads_per_worker=1, processes=True, memory_limit=memory_limit, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,  # type: ignore[no-untyped-call]
    ):
        started = time.perf_counter()
        result = evaluate_dask(qrels, runs, ks=KS)
        elapsed = time.perf_counter() - started
        peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
    return {"seconds": elapsed, "worker_peak": max(peaks.values()), "scores": result.scores}


def gib(value: object) -> str:
    return f"{float(value) / 2**30:.2f} GiB" if isinstance(value, (int, float)) else str(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--memory-limit", default="4GiB")
    parser.add_argument("--folder", type=Path, default=Path(tempfile.gettempdir()) / "contextgrid-bench-scale")
    args = parser.parse_args()
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    sizes = sorted({max(args.depth, args.rows // 10), args.rows // 2, args.rows})
    print(f"machine: {os.cpu_count()} CPUs, {gib(memory)}; Dask: 2 workers x {args.memory_limit}")
    timings: dict[int, float] = {}
    for rows in sizes:
        started = time.perf_counter()
        runs, qrels = write_inputs(args.folder, rows, args.depth)
        print(
            f"\n{rows:,} rows ({rows // args.depth:,} questions x {args.depth}), written in "
            f"{time.perf_counter() - started:.0f} s"
        )
        dask = on_dask(runs, qrels, args.memory_limit)
        timings[rows] = float(dask["seconds"])  # type: ignore[arg-type]
        client_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        print(
            f"  dask engine : {dask['seconds']:.1f} s, worker peak {gib(dask['worker_peak'])}, "
            f"client peak {gib(client_peak)}"
        )
        # The in-memory engine holds the whole run several times over; only try it where that fits.
        if rows * 200 < memory / 2:
            memory_run = in_memory(runs, qrels)
            if "failed" in memory_run:
                print(f"  in memory   : failed ({memory_run['failed']})")
            else:
                same = memory_run["scores"] == dask["scores"]
                print(
                    f"  in memory   : {memory_run['seconds']:.1f} s, peak {gib(memory_run['peak'])}; "
                    f"scores {'identical' if same else 'DIFFERENT'}"
                )
        else:
            print("  in memory   : not tried (would not fit in half this machine's memory)")
    first, last = min(timings), max(timings)
    if first != last:
        growth = timings[last] / timings[first]
        print(f"\nfrom {first:,} to {last:,} rows ({last / first:.0f}x), the Dask engine's time grew {growth:.1f}x")


if __name__ == "__main__":
    main()
