"""How long the curves at an equal context budget take: every configuration, every question, every budget.

Run from the repository root::

    python bench/bench_budget.py                                 # 50 configurations x 10,000 questions x 20 deep
    python bench/bench_budget.py --configs 10 --questions 2000   # smaller

Builds, seeded and in memory, documents, ten chunkings of them (fixed-size chunks of 150 to 3,000
characters), questions whose gold is one or two spans of the documents, qrels (the chunks that hold gold), and
one run per configuration (five retrievers per chunking: each ranks a chunk holding the gold at a random rank,
or misses it, among random others). Then times what :func:`contextgrid.workspace.budget.budget_curves` does
after reading the files: each configuration's rows aligned with the gold and the qrels
(:func:`~contextgrid.analysis.budget.budget_rows`), cut at the default grid of budgets, the means and the
frontier, and the verdict (a paired test per budget, corrected over the grid). Prints each step's time.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import pandas as pd

from contextgrid.analysis.budget import (
    BudgetRows,
    budget_frame,
    budget_frontier,
    budget_grid,
    budget_means,
    budget_rows,
)
from contextgrid.analysis.budget_verdict import budget_verdict
from contextgrid.data.records import Chunk, EvalItem, GoldSpan, Span
from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.evidence.run_waste import chunking_gold, gold_columns

SIZES = (150, 200, 300, 500, 700, 1000, 1400, 2000, 2500, 3000)
"""Chunk sizes of the ten chunkings, in characters."""

RETRIEVERS = 5
"""Configurations per chunking."""


def corpus(documents: int, length: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    letters = np.frombuffer(b"abcdefghij klmnopqrst uvwxyz ", dtype=np.uint8)
    return [rng.choice(letters, size=length).tobytes().decode() for _ in range(documents)]


def questions(count: int, documents: int, length: int, seed: int) -> list[EvalItem]:
    rng = np.random.default_rng(seed)
    doc = rng.integers(0, documents, size=(count, 2))
    start = rng.integers(0, length - 400, size=(count, 2))
    width = rng.integers(80, 400, size=(count, 2))
    two = rng.random(count) < 0.3
    items = []
    for q in range(count):
        spans = [Span(f"d{doc[q, 0]}", int(start[q, 0]), int(start[q, 0] + width[q, 0]))]
        if two[q]:
            spans.append(Span(f"d{doc[q, 1]}", int(start[q, 1]), int(start[q, 1] + width[q, 1])))
        items.append(EvalItem(id=f"q{q}", question="?", gold=tuple(GoldSpan(span) for span in spans)))
    return items


def chunking(texts: list[str], size: int) -> list[Chunk]:
    return [
        Chunk(f"d{d}-{i}", Span(f"d{d}", start, min(start + size, len(text))), text[start : start + size])
        for d, text in enumerate(texts)
        for i, start in enumerate(range(0, len(text), size))
    ]


def run_and_qrels(
    items: list[EvalItem], size: int, per_doc: int, documents: int, depth: int, seed: int
) -> tuple[RunTable, QrelsTable]:
    """A run ``depth`` deep per question, the gold's first chunk at a random rank (or missed), as columns."""
    rng = np.random.default_rng(seed)
    n = len(items)
    first = [item.gold[0].span for item in items]
    gold_doc = np.array([int(span.doc_id[1:]) for span in first])
    gold_chunk = np.array([span.start // size for span in first])
    rank = rng.integers(0, depth * 2, size=n)  # past ``depth``: missed
    other_doc = rng.integers(0, documents, size=(n, depth))
    other_chunk = rng.integers(0, per_doc, size=(n, depth))
    hit = rank < depth
    other_doc[hit, rank[hit]] = gold_doc[hit]
    other_chunk[hit, rank[hit]] = gold_chunk[hit]
    ids = np.char.add(np.char.add(np.char.add("d", other_doc.astype(str)), "-"), other_chunk.astype(str))
    # Distinct chunks per question: a repeated id keeps its best rank.
    frame = pd.DataFrame({"q": np.repeat([item.id for item in items], depth), "c": ids.ravel()})
    frame = frame.drop_duplicates()
    run = RunTable.from_columns(frame["q"].to_numpy(), frame["c"].to_numpy())
    judged = np.char.add(np.char.add(np.char.add("d", gold_doc.astype(str)), "-"), gold_chunk.astype(str))
    qrels = QrelsTable.from_columns([item.id for item in items], judged, np.ones(n, dtype=np.int64))
    return run, qrels


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", type=int, default=50, help="configurations (five per chunking; default 50)")
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=20)
    parser.add_argument("--documents", type=int, default=500)
    parser.add_argument("--length", type=int, default=8_000, help="characters per document")
    parser.add_argument("--resamples", type=int, default=10_000, help="of each paired test (default 10,000)")
    args = parser.parse_args(argv)

    began = time.perf_counter()
    texts = corpus(args.documents, args.length, 0)
    items = questions(args.questions, args.documents, args.length, 1)
    per_size = {size: chunking(texts, size) for size in SIZES[: max(1, -(-args.configs // RETRIEVERS))]}
    configs = []
    for number in range(args.configs):
        size = SIZES[number // RETRIEVERS]
        per_doc = -(-args.length // size)
        run, qrels = run_and_qrels(items, size, per_doc, args.documents, args.depth, seed=100 + number)
        configs.append((f"r{number % RETRIEVERS}-fixed-{size}", per_size[size], run, qrels))
    rows_total = sum(run.num_rows for _, _, run, _ in configs)
    print(
        f"{args.configs} configurations x {args.questions:,} questions x {args.depth} deep ({rows_total:,} rows), "
        f"{args.documents} documents of {args.length:,} characters; built in {time.perf_counter() - began:.1f} s"
    )

    timings: dict[str, float] = {}
    start = time.perf_counter()
    gold = gold_columns(items)
    # As budget_curves does: each chunking laid out against the gold once, for its five retrievers.
    laid_out = {id(chunks): chunking_gold(gold, chunks) for chunks in {id(c): c for _, c, _, _ in configs}.values()}
    aligned: dict[str, BudgetRows] = {
        name: budget_rows(gold, run, laid_out[id(chunks)], qrels=qrels) for name, chunks, run, qrels in configs
    }
    timings["rows: gold and qrels aligned, per configuration"] = time.perf_counter() - start

    start = time.perf_counter()
    budgets = budget_grid(
        min(rows.typical_chunk for rows in aligned.values()), max(rows.longest_context for rows in aligned.values())
    )
    per_question = budget_frame(aligned, budgets)
    timings[f"cut at {len(budgets)} budgets"] = time.perf_counter() - start

    start = time.perf_counter()
    budget_frontier(budget_means(per_question))
    timings["means and frontier"] = time.perf_counter() - start

    start = time.perf_counter()
    verdict = budget_verdict(per_question, n_resamples=args.resamples)
    timings[f"verdict: {len(budgets)} paired tests, Holm"] = time.perf_counter() - start

    for label, seconds in timings.items():
        print(f"  {label:<50} {seconds:7.2f} s")
    curves = sum(value for label, value in timings.items() if not label.startswith("verdict"))
    print(f"curves {curves:.2f} s; with the verdict {sum(timings.values()):.2f} s")
    print(verdict.sentence())
    return 0


if __name__ == "__main__":
    sys.exit(main())
