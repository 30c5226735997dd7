"""Benchmark contextgrid.significance.compare_all_pairs() against ranx.compare, and
check the A/A rejection rate of every paired test.

Run from the repository root::

    python bench/bench_compare.py                        # 20 configs x 10,000 questions, 10,000 permutations
    python bench/bench_compare.py --ranx-configs 20      # ranx on all 190 pairs too (about 15 minutes)
    python bench/bench_compare.py --configs 5 --questions 2000 --permutations 2000
    python bench/bench_compare.py --skip-ranx --aa-repeats 2000

ranx tests pair by pair, so at full size it runs for about a quarter of an hour.
By default it gets only the first 4 configurations (6 pairs) and its time is
scaled by the number of pairs (its cost is linear in pairs, to within its
per-run ndcg computation, which this slightly overstates); the output says so.
``--ranx-configs N`` changes that.

Both tools test every pair of configurations on ndcg@10 with a paired
randomization test (ranx: ``stat_test="fisher"``) and the same number of
permutations. ranx computes ndcg@10 inside ``compare``, so contextgrid is timed
both ways: the test alone on per_query() dicts, and per_query() plus the test.
contextgrid also computes a bootstrap interval per pair in the same call; ranx
does not. Building each tool's input format is untimed, and ranx's numba code is
compiled on a tiny input first. The p-values of the two are compared: they are
independent Monte Carlo estimates of the same quantity (ranx counts ``b / m``,
contextgrid ``(b + 1) / (m + 1)``), so they agree within Monte Carlo error.

Exits 1 when the timed contextgrid run of the full-size default takes 10 s or
more, when a p-value disagrees with ranx's beyond five Monte Carlo standard
errors, or when an A/A rejection rate is outside 3.5 binomial standard errors
of alpha.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

if __package__ in (None, ""):  # run as a script: make the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import contextgrid as cg
from contextgrid.significance import PairwiseComparisons, compare_all_pairs, compare_pair

T = TypeVar("T")

METRIC, K = "ndcg", 10
DEPTH = 20
ALPHA = 0.05
TIME_LIMIT = 10.0

Qrels = dict[str, dict[str, int]]
Runs = dict[str, dict[str, list[str]]]


def synthetic(configs: int, questions: int, seed: int) -> tuple[Qrels, Runs]:
    """Shared qrels, and one run per configuration whose quality drifts from config to config.

    Question ``q`` has 1 to 4 relevant chunks of grade 1 or 2. A configuration
    retrieves each of them with probability ``skill`` at a random rank among
    ``DEPTH``, padding the rest with irrelevant chunks.
    """
    rng = np.random.default_rng(seed)
    ids = [f"q{i}" for i in range(questions)]
    relevant_counts = rng.integers(1, 5, size=questions)
    grades = rng.integers(1, 3, size=(questions, 4))
    qrels = {q: {f"{q}-r{j}": int(grades[i, j]) for j in range(relevant_counts[i])} for i, q in enumerate(ids)}
    runs: Runs = {}
    for c in range(configs):
        skill = 0.55 + 0.01 * c
        found = rng.random((questions, 4)) < skill
        ranks = np.argsort(rng.random((questions, DEPTH)), axis=1)[:, :4]
        run: dict[str, list[str]] = {}
        for i, q in enumerate(ids):
            ranking = [f"{q}-x{r}" for r in range(DEPTH)]
            for j in range(relevant_counts[i]):
                if found[i, j]:
                    ranking[ranks[i, j]] = f"{q}-r{j}"
            run[q] = ranking
        runs[f"config{c:02d}"] = run
    return qrels, runs


def timed(function: Callable[[], T]) -> tuple[T, float]:
    start = time.perf_counter()
    result = function()
    return result, time.perf_counter() - start


def ranx_compare(qrels: Qrels, runs: Runs, permutations: int) -> tuple[Any, float]:
    """ranx.compare on the same data: ndcg@10, Fisher's randomization test, every pair."""
    from ranx import Qrels as RanxQrels
    from ranx import Run as RanxRun
    from ranx import compare

    def scored(run: dict[str, list[str]]) -> dict[str, dict[str, float]]:
        return {q: {chunk: float(DEPTH - rank) for rank, chunk in enumerate(ranking)} for q, ranking in run.items()}

    ranx_qrels = RanxQrels.from_dict(qrels)
    ranx_runs = [RanxRun.from_dict(scored(run), name=name) for name, run in runs.items()]
    # Compile numba's code outside the timing.
    tiny = dict(list(qrels.items())[:20])
    tiny_runs = [RanxRun.from_dict(scored({q: run[q] for q in tiny}), name=name) for name, run in runs.items()][:2]
    compare(RanxQrels.from_dict(tiny), tiny_runs, metrics=f"{METRIC}@{K}", stat_test="fisher", n_permutations=10)
    return timed(
        lambda: compare(
            ranx_qrels,
            ranx_runs,
            metrics=f"{METRIC}@{K}",
            stat_test="fisher",
            n_permutations=permutations,
            max_p=ALPHA,
        )
    )


def agreement(ours: PairwiseComparisons, report: Any, permutations: int) -> tuple[int, int, float]:
    """Pairs compared, pairs whose p-values differ beyond Monte Carlo error, and the largest difference."""
    bad, compared, worst = 0, 0, 0.0
    for comparison in ours:
        if {comparison.a, comparison.b} - set(report.model_names):
            continue
        compared += 1
        theirs = float(report.comparisons[(comparison.a, comparison.b)][f"{METRIC}@{K}"]["p_value"])
        p = max(comparison.p_value, theirs)
        bound = 5 * math.sqrt(2 * max(p * (1 - p), 1 / permutations) / permutations) + 2 / permutations
        gap = abs(comparison.p_value - theirs)
        worst = max(worst, gap)
        bad += gap > bound
    return compared, bad, worst


def aa_rejection_rates(repeats: int, questions: int, permutations: int, seed: int) -> dict[str, float]:
    """Share of A/A comparisons each test calls significant at ALPHA; both sides share each question's difficulty."""
    rng = np.random.default_rng(seed)
    ids = [f"q{i}" for i in range(questions)]
    rejected = dict.fromkeys(("permutation", "ttest", "wilcoxon"), 0)
    for repeat in range(repeats):
        difficulty = rng.random(questions)
        a, b = (
            dict(zip(ids, np.clip(difficulty + rng.normal(0, 0.15, questions), 0, 1).tolist(), strict=True))
            for _ in range(2)
        )
        for test in rejected:
            result = compare_pair(a, b, test=test, alpha=ALPHA, n_resamples=permutations, seed=repeat)
            rejected[test] += result.significant
    return {test: count / repeats for test, count in rejected.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", type=int, default=20)
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--permutations", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-ranx", action="store_true", help="time contextgrid only")
    parser.add_argument("--ranx-configs", type=int, default=4, help="give ranx only the first N configurations")
    parser.add_argument("--aa-repeats", type=int, default=1000, help="A/A comparisons per test (0 to skip)")
    args = parser.parse_args(argv)
    failures = 0

    qrels, runs = synthetic(args.configs, args.questions, args.seed)
    pairs = args.configs * (args.configs - 1) // 2
    print(
        f"{args.configs} configurations x {args.questions:,} questions, {pairs} pairs, "
        f"{args.permutations:,} permutations each, {METRIC}@{K}"
    )
    print(f"numpy {np.__version__}, contextgrid {cg.__version__}")

    per_config, scoring = timed(lambda: {name: cg.per_query(qrels, run, METRIC, K) for name, run in runs.items()})
    ours, testing = timed(
        lambda: compare_all_pairs(per_config, test="permutation", n_resamples=args.permutations, seed=args.seed)
    )
    significant = sum(c.significant for c in ours)
    print(f"contextgrid per_query (all configs)     {scoring:8.2f} s")
    print(f"contextgrid compare_all_pairs           {testing:8.2f} s  ({significant} of {pairs} significant, holm)")
    print(f"contextgrid per_query + compare         {scoring + testing:8.2f} s")
    full_size = (args.configs, args.questions, args.permutations) == (20, 10_000, 10_000)
    if full_size and testing >= TIME_LIMIT:
        print(f"FAIL: compare_all_pairs took {testing:.2f} s, the limit is {TIME_LIMIT:.0f} s")
        failures += 1

    if not args.skip_ranx:
        given = max(2, min(args.ranx_configs, args.configs))
        ranx_pairs = given * (given - 1) // 2
        report, measured = ranx_compare(qrels, dict(list(runs.items())[:given]), args.permutations)
        ranx_time = measured * pairs / ranx_pairs
        note = "" if given == args.configs else f"  (measured {measured:.2f} s on {ranx_pairs} pairs, scaled)"
        print(f"ranx {version('ranx')} compare (fisher)            {ranx_time:8.2f} s{note}")
        print(f"ranx / contextgrid (test only)          {ranx_time / testing:8.1f} x")
        print(f"ranx / contextgrid (per_query + test)   {ranx_time / (scoring + testing):8.1f} x")
        compared, bad, worst = agreement(ours, report, args.permutations)
        print(f"p-values vs ranx: largest difference {worst:.4f}; {bad} of {compared} beyond Monte Carlo error")
        failures += bad > 0

    if args.aa_repeats > 0:
        rates, aa_time = timed(lambda: aa_rejection_rates(args.aa_repeats, 100, 999, args.seed))
        slack = 3.5 * math.sqrt(ALPHA * (1 - ALPHA) / args.aa_repeats)
        print(f"A/A rejection rate at alpha {ALPHA} ({args.aa_repeats} comparisons of 100 questions, {aa_time:.1f} s):")
        for test, rate in rates.items():
            ok = abs(rate - ALPHA) <= slack
            print(f"  {test:<12} {rate:.3f}  {'ok' if ok else 'OUT OF RANGE'} (expected {ALPHA} +/- {slack:.3f})")
            failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
