"""What evaluate()'s id checks cost: every id a str (qrels keys, run keys, ranked chunk ids) and no repeated id.

Run from the repository root::

    python bench/bench_checks.py                        # 100,000 questions x 100, all metrics at k=1,3,5,10,20
    python bench/bench_checks.py --questions 10000 --repeat 1

Times, on the same seeded synthetic input (bench/synthetic.py) and in one process: contextgrid.evaluate() from
plain dicts; each check alone, on exactly what evaluate() gives it (the scored questions' rankings); the check
it replaces (each ranking's first id only); and pytrec_eval on the same input (as bench/bench_evaluate.py times
it). The ratio before is pytrec_eval's time over evaluate()'s with the added cost taken off.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

if __package__ in (None, ""):  # run as a script: make ``bench`` and the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import contextgrid as cg
from bench.bench_evaluate import pytrec_raw, timed
from bench.synthetic import scored, synthetic_run
from contextgrid.data.tables import check_qrels_ids, check_question_ids, check_ranked_ids

KS = (1, 3, 5, 10, 20)


def first_ids_only(rankings: Sequence[Sequence[str]]) -> bool:
    """The check before: each ranking's first id stands for its type."""
    return {type(ranked[0]) for ranked in rankings if len(ranked)} <= {str}


def repeats(rankings: Sequence[Sequence[str]]) -> bool:
    """The repeated-id check: one set per ranking."""
    distinct = np.fromiter(map(len, map(set, rankings)), dtype=np.int64, count=len(rankings))
    return bool((distinct != np.fromiter(map(len, rankings), dtype=np.int64, count=len(rankings))).any())


def check_keys(qrels: Any, run: Any) -> None:
    """Every qrels key and run key checked, as evaluate() checks them."""
    check_qrels_ids(qrels)
    check_question_ids(run, "the run holds")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=100_000)
    parser.add_argument("--depth", type=int, default=100, help="ranking length")
    parser.add_argument("--repeat", type=int, default=5, help="timed calls of each; the best counts")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.depth < 1 or args.questions < 1:
        parser.error("--repeat, --depth and --questions must be at least 1")

    data = synthetic_run(args.questions, depth=args.depth, seed=args.seed)
    qrels, run = data.qrels, data.run
    peer_run = scored(run, args.depth)
    scored_ids = [q for q, judgements in qrels.items() if any(grade > 0 for grade in judgements.values())]
    empty: Sequence[str] = ()
    rankings = [run.get(q, empty) for q in scored_ids]
    print(
        f"{len(qrels):,} judged questions ({len(scored_ids):,} scored), {sum(map(len, rankings)):,} ranked chunk "
        f"ids checked, {sum(map(len, qrels.values())):,} judgements; all metrics at k = {', '.join(map(str, KS))}"
    )

    ours, result = timed(lambda: cg.evaluate(qrels, run, ks=KS), args.repeat)
    pytrec, _ = timed(lambda: pytrec_raw(qrels, peer_run, KS), args.repeat)
    # evaluate() pauses the garbage collector while it checks; so must the checks timed alone.
    gc.disable()
    try:
        before, _ = timed(lambda: first_ids_only(rankings), args.repeat)
        ranked, _ = timed(lambda: check_ranked_ids(scored_ids, rankings), args.repeat)
        keys, _ = timed(lambda: check_keys(qrels, run), args.repeat)
        repeated, _ = timed(lambda: repeats(rankings), args.repeat)
    finally:
        gc.enable()
    print(f"contextgrid evaluate()                       {ours}   ({len(result)} metric@k means)")
    print(f"pytrec_eval (evaluators + recip_rank)        {pytrec}")
    print(f"before: each ranking's first id a str        {before}")
    print(f"after:  every ranked chunk id a str          {ranked}")
    print(f"after:  every qrels key and run key a str    {keys}")
    print(f"repeated ids (unchanged, one set a ranking)  {repeated}")

    # Best of each, wall and cpu: on a shared machine the cpu seconds are the steadier measure.
    clocks: tuple[tuple[str, Callable[[Any], float]], ...] = (("wall", lambda t: t.best), ("cpu", lambda t: t.best_cpu))
    for clock, of in clocks:
        added = of(ranked) + of(keys) - of(before)
        print(
            f"\n{clock}: the str checks cost {added:.3f} s more than before, {100 * added / of(ours):.1f}% of "
            f"evaluate() ({of(ours):.3f} s); the repeated-id check {of(repeated):.3f} s, "
            f"{100 * of(repeated) / of(ours):.1f}%"
        )
        print(
            f"{clock}: evaluate() is {of(pytrec) / of(ours):.1f}x faster than pytrec_eval after, "
            f"{of(pytrec) / (of(ours) - added):.1f}x before (the added cost taken off)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
