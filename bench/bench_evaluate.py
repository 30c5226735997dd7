"""Benchmark contextgrid.evaluate() against pytrec_eval and ranx, and check they agree per question.

Run from the repository root::

    python bench/bench_evaluate.py                      # 10,000 and 100,000 questions x 100
    python bench/bench_evaluate.py --questions 2000 --depth 50 --repeat 1

Every tool scores the same seeded synthetic input (bench/synthetic.py) in the
same process. contextgrid gets its own input format (``{question: [chunk, ...]}``),
the peers get theirs (``{question: {chunk: score}}``, score ``depth - rank``),
built beforehand and untimed. The same rows as frames are timed too: contextgrid
from Arrow-backed pandas DataFrames, ranx from its ``from_df`` (object columns, as
it requires). The floor of the dict API is one ``set()`` per ranking, built and
dropped, timed in the same run. Exits 1 when contextgrid and pytrec_eval disagree
on any question beyond 1e-12, or the frames' means differ from the dicts'.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import version
from itertools import chain
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

if __package__ in (None, ""):  # run as a script: make ``bench`` and the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import contextgrid as cg
from bench.synthetic import cut, scored, synthetic_run
from contextgrid.metrics import BUILTIN_METRICS

__all__ = [
    "PYTREC_MEASURES",
    "RANX_NAMES",
    "PerQuestion",
    "pytrec_per_question",
    "pytrec_raw",
    "ranx_per_question",
    "ranx_tables",
]

PerQuestion = dict[str, dict[str, float]]
"""``{"metric@k": {question: score}}``."""

T = TypeVar("T")

TOLERANCE = 1e-12
GIB = 1 << 30

# trec_eval measure for each contextgrid metric; mrr is recip_rank on the run cut at k (recip_rank has no cut-off).
PYTREC_MEASURES = {"recall": "recall", "precision": "P", "hit_rate": "success", "map": "map_cut", "ndcg": "ndcg_cut"}
# ranx metric for each contextgrid metric (the same names).
RANX_NAMES = {name: name for name in BUILTIN_METRICS}

# What each peer computes, read from its source and held to the numbers by the agreement check below.
CONVENTIONS = {
    "pytrec_eval": (
        "recall_k, P_k (divides by k), success_k, map_cut_k (divides by all relevant), ndcg_cut_k (gain = grade, "
        "log2(rank + 1) discount); reports only questions that are both judged and in the run (trec_eval without -c), "
        "including judged questions with no relevant chunk (scored 0), but not ones judged {}; "
        "orders each ranking by score, ties by chunk id descending (our scores have no ties)"
    ),
    "ranx": (
        "recall@k, precision@k (divides by k), hit_rate@k, mrr@k (cut at k), map@k (divides by all relevant), "
        "ndcg@k (Jarvelin: gain = grade, log2(rank + 1) discount); needs the run to hold exactly the judged "
        "questions (make_comparable adds empty rankings, drops unjudged ones); scores questions with no relevant "
        "chunk 0 and averages over them; hashes chunk ids to float64"
    ),
}


def pytrec_raw(
    qrels: Mapping[str, Mapping[str, int]],
    run: Mapping[str, Mapping[str, float]],
    ks: Sequence[int],
    *,
    reciprocal_only: bool = False,
) -> tuple[dict[str, dict[str, float]], dict[int, dict[str, dict[str, float]]]]:
    """pytrec_eval's own results: the cut measures on the whole run (unless ``reciprocal_only``),
    and recip_rank on the run cut at each k."""
    import pytrec_eval

    cutoffs = ",".join(map(str, ks))
    measures = {f"{measure}.{cutoffs}" for measure in PYTREC_MEASURES.values()}
    results: dict[str, dict[str, float]] = (
        {} if reciprocal_only else pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    )
    reciprocal = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"})
    return results, {k: reciprocal.evaluate(cut(run, k)) for k in ks}


def pytrec_per_question(
    raw: tuple[dict[str, dict[str, float]], dict[int, dict[str, dict[str, float]]]], ks: Sequence[int]
) -> PerQuestion:
    """:func:`pytrec_raw`'s results under contextgrid's ``metric@k`` names."""
    results, reciprocal = raw
    table = {
        f"{metric}@{k}": {question: row[f"{measure}_{k}"] for question, row in results.items()}
        for metric, measure in PYTREC_MEASURES.items()
        for k in ks
    }
    table.update({f"mrr@{k}": {question: row["recip_rank"] for question, row in reciprocal[k].items()} for k in ks})
    return table


def ranx_tables(qrels: Mapping[str, Mapping[str, int]], run: Mapping[str, Mapping[str, float]]) -> tuple[Any, Any]:
    """ranx's Qrels and Run, the run made comparable (the judged questions exactly)."""
    from ranx import Qrels, Run

    ranx_qrels = Qrels(dict(qrels))
    ranx_run = Run(dict(run))
    ranx_run.make_comparable(ranx_qrels)
    return ranx_qrels, ranx_run


@dataclass(frozen=True, slots=True)
class Frames:
    """The synthetic qrels and run as Arrow-backed DataFrames (contextgrid's) and object ones (ranx's)."""

    qrels: Any
    run: Any
    ranx_qrels: Any
    ranx_run: Any


def frames(qrels: Mapping[str, Mapping[str, int]], run: Mapping[str, Sequence[str]], depth: int) -> Frames:
    """The rows of ``qrels`` and ``run`` as frames, the run scored ``depth - rank`` (as the peers' dicts)."""
    import pandas as pd
    import pyarrow as pa

    def owners(groups: Mapping[str, Any]) -> tuple[Any, Any]:
        sizes = np.fromiter(map(len, groups.values()), dtype=np.int64, count=len(groups))
        rows = np.repeat(np.arange(len(groups)), sizes)
        return pa.array(list(groups), pa.string()).take(pa.array(rows)), np.arange(len(rows)) - np.repeat(
            np.cumsum(sizes) - sizes, sizes
        )

    judged, _ = owners(qrels)
    judgements = [(chunk, grade) for judgements in qrels.values() for chunk, grade in judgements.items()]
    qrels_table = pa.table(
        {
            "question_id": judged,
            "chunk_id": pa.array([chunk for chunk, _ in judgements], pa.string()),
            "grade": pa.array([grade for _, grade in judgements], pa.int64()),
        }
    )
    answered, position = owners(run)
    run_table = pa.table(
        {
            "question_id": answered,
            "chunk_id": pa.array(list(chain.from_iterable(run.values())), pa.string()),
            "score": pa.array((depth - position).astype(np.float64)),
        }
    )
    arrow = {"types_mapper": pd.ArrowDtype}
    ids = {"question_id": "q_id", "chunk_id": "doc_id"}
    return Frames(
        qrels_table.to_pandas(**arrow),
        run_table.to_pandas(**arrow),
        qrels_table.to_pandas().rename(columns={**ids, "grade": "score"}).astype({"q_id": object, "doc_id": object}),
        run_table.to_pandas().rename(columns=ids).astype({"q_id": object, "doc_id": object}),
    )


def ranx_from_frames(data: Frames, ks: Sequence[int]) -> dict[str, Any]:
    """ranx from DataFrames: ``Qrels.from_df``, ``Run.from_df`` and ``evaluate`` (made comparable)."""
    from ranx import Qrels, Run, evaluate

    result: dict[str, Any] = evaluate(
        Qrels.from_df(data.ranx_qrels),
        Run.from_df(data.ranx_run),
        _ranx_metrics(ks),
        save_results_in_run=False,
        threads=numba_threads(),
        make_comparable=True,
    )
    return result


def set_per_ranking(run: Mapping[str, Sequence[str]]) -> None:
    """The dict API's floor: one set per ranking, built and dropped (its repeated-id rule needs one)."""
    for ranked in run.values():
        set(ranked)


def _ranx_metrics(ks: Sequence[int]) -> list[str]:
    return [f"{metric}@{k}" for metric in RANX_NAMES.values() for k in ks]


def numba_threads() -> int:
    """The threads numba starts with (the CPUs it may use)."""
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]


def ranx_evaluate(ranx_qrels: Any, ranx_run: Any, ks: Sequence[int], *, return_mean: bool) -> dict[str, Any]:
    """ranx.evaluate on every metric at every k, on all the threads numba has."""
    from ranx import evaluate

    # ranx drops numba to 1 thread for inputs under 10 questions and never raises it again: say the count.
    result: dict[str, Any] = evaluate(
        ranx_qrels,
        ranx_run,
        _ranx_metrics(ks),
        return_mean=return_mean,
        save_results_in_run=False,
        threads=numba_threads(),
    )
    return result


def ranx_per_question(ranx_qrels: Any, ranx_run: Any, ks: Sequence[int]) -> PerQuestion:
    """ranx's per-question scores under contextgrid's ``metric@k`` names."""
    questions = list(ranx_qrels.get_query_ids())
    if questions != list(ranx_run.get_query_ids()):
        raise RuntimeError("ranx's Qrels and Run list their questions in different orders")
    arrays = ranx_evaluate(ranx_qrels, ranx_run, ks, return_mean=False)
    return {
        f"{metric}@{k}": dict(zip(questions, arrays[f"{name}@{k}"].tolist(), strict=True))
        for metric, name in RANX_NAMES.items()
        for k in ks
    }


@dataclass(frozen=True, slots=True)
class Timing:
    """Wall and CPU seconds (all the process's threads) of each repeat of one timed call."""

    seconds: tuple[float, ...]
    cpu: tuple[float, ...]

    @property
    def best(self) -> float:
        return min(self.seconds)

    @property
    def best_cpu(self) -> float:
        return min(self.cpu)

    def __str__(self) -> str:
        return (
            f"best {self.best:7.3f} s  median {statistics.median(self.seconds):7.3f} s  "
            f"cpu best {self.best_cpu:7.3f} s  (n={len(self.seconds)})"
        )


def timed(call: Callable[[], T], repeat: int) -> tuple[Timing, T]:
    """Time ``repeat`` calls (at least one); returns the timings and the last call's result."""
    seconds, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = call()
        seconds.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return Timing(tuple(seconds), tuple(cpu)), result


def peak_extra_memory(call: Callable[[], object]) -> int:
    """Peak bytes allocated during one call and not before it, as tracemalloc counts them
    (Python objects and numpy buffers)."""
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def import_seconds(runs: int = 3) -> list[float]:
    """Wall time of ``import contextgrid``, each in a fresh interpreter."""
    code = "import time; t = time.perf_counter(); import contextgrid; print(time.perf_counter() - t)"
    return [
        float(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout)
        for _ in range(runs)
    ]


def ours_per_question(
    qrels: Mapping[str, Mapping[str, int]], run: Mapping[str, Sequence[str]], ks: Sequence[int]
) -> PerQuestion:
    return {f"{metric}@{k}": cg.per_query(qrels, run, metric, k) for metric in BUILTIN_METRICS for k in ks}


@dataclass(frozen=True, slots=True)
class Disagreement:
    """Questions where a peer's score for one metric@k differs from contextgrid's."""

    label: str
    count: int
    total: int
    worst_question: str
    ours: float
    theirs: float


def compare(ours: PerQuestion, theirs: PerQuestion, *, missing_as: float | None) -> list[Disagreement]:
    """Every metric@k on which the peer differs from contextgrid on some question of contextgrid's set.

    A question the peer did not report scores ``missing_as``; ``None`` counts it as a disagreement.
    """
    found = []
    for label, scores in ours.items():
        peer = theirs[label]
        questions = list(scores)
        mine = np.array([scores[q] for q in questions])
        other = np.array([peer.get(q, np.nan if missing_as is None else missing_as) for q in questions])
        gap = np.abs(mine - other)
        bad = ~(gap <= TOLERANCE)
        if bad.any():
            worst = int(np.nanargmax(np.where(bad, np.nan_to_num(gap, nan=np.inf), -1.0)))
            found.append(
                Disagreement(
                    label, int(bad.sum()), len(questions), questions[worst], float(mine[worst]), float(other[worst])
                )
            )
    return found


def report_agreement(peer: str, disagreements: list[Disagreement], ours: PerQuestion) -> None:
    metrics = ", ".join(dict.fromkeys(label.split("@")[0] for label in ours))
    ks = ", ".join(dict.fromkeys(label.split("@")[1] for label in ours))
    total = len(next(iter(ours.values()))) if ours else 0
    if not disagreements:
        print(f"  {peer:<12} agrees with contextgrid to {TOLERANCE:g} on all {total:,} questions: {metrics}; k = {ks}")
        return
    for d in disagreements:
        print(
            f"  {peer:<12} {d.label}: differs on {d.count:,} of {d.total:,} questions "
            f"(e.g. {d.worst_question!r}: contextgrid {d.ours!r}, {peer} {d.theirs!r})"
        )


def bench_size(questions: int, depth: int, repeat: int, seed: int) -> tuple[dict[str, float], bool]:
    """Time and cross-check one input size; returns the timings that the targets need and
    whether contextgrid agreed with pytrec_eval everywhere."""
    ks = cg.DEFAULT_KS
    print(f"\n=== {questions:,} questions x depth {depth} (seed {seed}) ===")
    start = time.perf_counter()
    data = synthetic_run(questions, depth=depth, seed=seed)
    qrels, run = data.qrels, data.run
    peer_run = scored(run, depth)
    scored_questions = sum(1 for judgements in qrels.values() if any(grade > 0 for grade in judgements.values()))
    print(
        f"input: {len(qrels):,} judged questions, {scored_questions:,} with a relevant chunk (contextgrid's set), "
        f"{len(data.unanswered):,} judged but not in the run, {len(data.unjudged):,} in the run but not judged, "
        f"{sum(map(len, run.values())):,} ranked chunks; built in {time.perf_counter() - start:.1f} s (untimed)"
    )

    ours_time, ours_result = timed(lambda: cg.evaluate(qrels, run), repeat)
    pytrec_time, pytrec_result = timed(lambda: pytrec_raw(qrels, peer_run, ks), repeat)
    build_time, (ranx_qrels, ranx_run) = timed(lambda: ranx_tables(qrels, peer_run), repeat)
    ranx_time, _ = timed(lambda: ranx_evaluate(ranx_qrels, ranx_run, ks, return_mean=True), repeat)
    memory = peak_extra_memory(lambda: cg.evaluate(qrels, run))
    reciprocal_time, _ = timed(lambda: pytrec_raw(qrels, peer_run, ks, reciprocal_only=True), 1)
    floor_time, _ = timed(lambda: set_per_ranking(run), repeat)
    framed = frames(qrels, run, depth)
    frame_time, frame_result = timed(lambda: cg.evaluate(framed.qrels, framed.run), repeat)
    ranx_frame_time, _ = timed(lambda: ranx_from_frames(framed, ks), 1)

    print(f"contextgrid evaluate()                 {ours_time}   ({len(ours_result)} metric@k means)")
    print(f"pytrec_eval (evaluators + recip_rank)  {pytrec_time}")
    print(f"  of which recip_rank on the 5 cut runs (one more call) {reciprocal_time.best:.3f} s")
    print(f"ranx Qrels/Run + make_comparable       {build_time}")
    print(f"ranx evaluate()                        {ranx_time}")
    print(f"one set() per ranking (the dict floor) {floor_time}")
    print(f"contextgrid evaluate() from frames     {frame_time}   (Arrow-backed pandas, {len(framed.run):,} rows)")
    print(f"ranx from_df + evaluate()              {ranx_frame_time}")
    print(
        f"dicts: evaluate() is {ours_time.best / floor_time.best:.2f}x the set-per-ranking floor; frames: "
        f"{pytrec_time.best / frame_time.best:.1f}x pytrec_eval, {ranx_frame_time.best / frame_time.best:.1f}x "
        "ranx from_df + evaluate()"
    )
    frames_agree = frame_result == ours_result
    print(f"frames give the dicts' means exactly: {frames_agree}")
    print(
        f"speed (wall): contextgrid is {pytrec_time.best / ours_time.best:.1f}x pytrec_eval, "
        f"{ranx_time.best / ours_time.best:.1f}x ranx evaluate(), "
        f"{(ranx_time.best + build_time.best) / ours_time.best:.1f}x ranx construction + evaluate()"
    )
    print(
        f"speed (cpu):  contextgrid is {pytrec_time.best_cpu / ours_time.best_cpu:.1f}x pytrec_eval, "
        f"{ranx_time.best_cpu / ours_time.best_cpu:.1f}x ranx evaluate() (ranx's cpu is summed over its threads)"
    )
    print(f"peak extra memory of one contextgrid evaluate() (tracemalloc): {memory / (1 << 20):,.1f} MiB")

    print("agreement per question (contextgrid.per_query on its question set):")
    ours = ours_per_question(qrels, run, ks)
    pytrec = pytrec_per_question(pytrec_result, ks)
    reported = set(pytrec[f"recall@{ks[0]}"])
    left_out = [q for q in ours[f"recall@{ks[0]}"] if q not in reported]
    never_answered = sum(1 for q in left_out if q not in run)
    print(
        f"  pytrec_eval reports {len(reported):,} questions; it leaves out {len(left_out):,} of contextgrid's "
        f"({never_answered:,} never answered by the run), compared as 0.0, which contextgrid scores them"
    )
    pytrec_disagrees = compare(ours, pytrec, missing_as=0.0)
    report_agreement("pytrec_eval", pytrec_disagrees, ours)
    ranx_scores = ranx_per_question(ranx_qrels, ranx_run, ks)
    report_agreement("ranx", compare(ours, ranx_scores, missing_as=None), ours)

    label = "ndcg@10"
    pytrec_mean = statistics.fmean(pytrec[label].values())
    ranx_mean = statistics.fmean(ranx_scores[label].values())
    print(
        f"  means differ by question set, not by arithmetic: {label} contextgrid {ours_result[label]:.6f} over "
        f"{scored_questions:,}; pytrec_eval {pytrec_mean:.6f} over {len(pytrec[label]):,}; "
        f"ranx {ranx_mean:.6f} over {len(ranx_scores[label]):,}"
    )
    times = {
        "ours": ours_time.best,
        "ours_cpu": ours_time.best_cpu,
        "pytrec": pytrec_time.best,
        "pytrec_cpu": pytrec_time.best_cpu,
        "ranx": ranx_time.best,
        "memory": float(memory),
        "floor": floor_time.best,
        "frames": frame_time.best,
        "ranx_frames": ranx_frame_time.best,
    }
    return times, not pytrec_disagrees and frames_agree


def warm_up_ranx() -> tuple[float, float]:
    """Seconds for a first ranx Qrels/Run build and a first evaluate on a tiny input (numba JIT or cache load)."""
    tiny = synthetic_run(20, depth=20, seed=1)
    peer_run = scored(tiny.run, tiny.depth)
    start = time.perf_counter()
    ranx_qrels, ranx_run = ranx_tables(tiny.qrels, peer_run)
    built = time.perf_counter()
    ranx_evaluate(ranx_qrels, ranx_run, cg.DEFAULT_KS, return_mean=False)
    return built - start, time.perf_counter() - built


def target(passed: bool, text: str) -> None:
    print(f"{'PASS' if passed else 'MISS'}  {text}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, nargs="+", default=[10_000, 100_000], help="input sizes")
    parser.add_argument("--depth", type=int, default=100, help="ranking length")
    parser.add_argument("--repeat", type=int, default=3, help="timed calls per tool; the best counts")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.depth < 1 or min(args.questions) < 1:
        parser.error("--repeat, --depth and --questions must be at least 1")

    import numba

    print(
        f"python {sys.version.split()[0]}, numpy {np.__version__}, contextgrid {cg.__version__}, "
        f"pytrec-eval-terrier {version('pytrec-eval-terrier')}, ranx {version('ranx')}, numba {numba.__version__}"
    )
    blas = {name: os.environ[name] for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if name in os.environ}
    print(f"cpus {os.cpu_count()}, numba threads {numba_threads()}, env {blas or 'no OPENBLAS_*'}")
    print(f"load average at start {', '.join(f'{load:.1f}' for load in os.getloadavg())} (wall times suffer above ~1)")
    print("conventions (read from each peer's source; the per-question check below holds them to it):")
    for peer, text in CONVENTIONS.items():
        print(f"  {peer}: {text}")
    print(
        "timed: contextgrid from {question: [chunk, ...]}; pytrec_eval from {question: {chunk: score}} incl. "
        "evaluator construction and the 5 cut runs for recip_rank; ranx construction and evaluate() separately"
    )
    build, first = warm_up_ranx()
    print(f"ranx warm-up on 20 questions (excluded): Qrels/Run {build:.2f} s, first evaluate() {first:.2f} s")

    agreed = True
    results = {}
    for questions in args.questions:
        results[questions], ok = bench_size(questions, args.depth, args.repeat, args.seed)
        agreed &= ok

    imports = import_seconds()
    print(f"\nimport contextgrid in a fresh interpreter: {', '.join(f'{s:.3f} s' for s in imports)}")
    print("\ntargets")
    big = results.get(100_000) if args.depth == 100 else None
    if big is None:
        print("----  speed and memory targets are set at 100,000 questions x depth 100, which this run skipped")
    else:
        ratio, cpu_ratio = big["pytrec"] / big["ours"], big["pytrec_cpu"] / big["ours_cpu"]
        # Issue #35 replaced #19's 6x (aim 10x) for dicts: the dict path is held at its floor (one set() per
        # ranking), >= 5x pytrec_eval below; speed beyond that comes from frames. The cpu ratio is information.
        print(f"info  100k x 100: dicts {cpu_ratio:.1f}x less cpu than pytrec_eval")
        ranx_ratio = big["ranx"] / big["ours"]
        target(ranx_ratio > 1, f"100k x 100: {ranx_ratio:.1f}x faster than ranx evaluate(), wall (needs > 1x)")
        target(big["memory"] < GIB, f"100k x 100: peak extra memory {big['memory'] / GIB:.3f} GiB (needs < 1 GiB)")
        # Issue #35: the dict API at its floor, and frames well beyond it.
        floor_ratio = big["ours"] / big["floor"]
        target(floor_ratio <= 1.5, f"100k x 100: dicts {floor_ratio:.2f}x one set() per ranking (needs <= 1.5x)")
        target(ratio >= 5, f"100k x 100: dicts {ratio:.1f}x faster than pytrec_eval, wall (needs >= 5x)")
        frame_ratio = big["pytrec"] / big["frames"]
        target(frame_ratio >= 15, f"100k x 100: frames {frame_ratio:.1f}x faster than pytrec_eval, wall (needs >= 15x)")
        ranx_frames = big["ranx_frames"] / big["frames"]
        target(
            ranx_frames >= 10,
            f"100k x 100: frames {ranx_frames:.1f}x faster than ranx from_df + evaluate(), wall (needs >= 10x)",
        )
    target(max(imports) < 1.0, f"import contextgrid {max(imports):.3f} s at worst (needs < 1 s)")
    target(agreed, "contextgrid agrees with pytrec_eval on every question, metric and k (to 1e-12); frames = dicts")
    return 0 if agreed else 1


if __name__ == "__main__":
    sys.exit(main())
