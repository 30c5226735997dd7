"""Benchmark SpanResolver.qrels(): 10,000 gold spans onto 100,000 chunks, target under 2 s.

Run from the repository root::

    python bench/bench_resolve.py                       # 10,000 gold spans, 100,000 chunks
    python bench/bench_resolve.py --spans 2000 --chunks 20000 --repeat 1

The documents are seeded random text, chunked by ``fixed_chars`` (untimed). The
gold spans are given as offsets, two per question, 20 to 600 characters long,
so many fall across chunk boundaries. The timed call is ``qrels()`` alone,
checks of its input included; ``resolve()`` of the same items is timed and
printed too, for information. A sample of questions is then checked against a
direct computation (every gold span against every chunk of its document, with
``contextgrid.data.spans.overlap_length``); the script exits 1 if any disagrees.
Prints PASS or MISS against the 2 s target.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a script: make the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import contextgrid as cg
from contextgrid.chunking import FixedCharChunker, chunk_documents
from contextgrid.data.spans import overlap_length
from contextgrid.evidence.resolver import GradeRule, SpanResolver

TARGET_SECONDS = 2.0
CHUNK_SIZE = 200
CHUNK_OVERLAP = 40
CHUNKS_PER_DOC = 50
SAMPLE = 200


def documents(count: int, rng: np.random.Generator) -> dict[str, str]:
    """``count`` documents whose fixed_chars chunking gives exactly CHUNKS_PER_DOC chunks each."""
    length = CHUNK_SIZE + (CHUNKS_PER_DOC - 1) * (CHUNK_SIZE - CHUNK_OVERLAP)
    letters = np.frombuffer(b"abcdefghij klmnopqrstuvwxyz. ", dtype=np.uint8)
    raw = rng.choice(letters, size=(count, length))
    return {f"doc{n:05d}": row.tobytes().decode("ascii") for n, row in enumerate(raw)}


def items(docs: dict[str, str], spans: int, rng: np.random.Generator) -> list[cg.EvalItem]:
    """Two offsets-only gold spans per question, graded 1 or 2, anywhere in the corpus."""
    ids = list(docs)
    doc = rng.integers(0, len(ids), size=spans)
    length = rng.integers(20, 601, size=spans)
    start = rng.integers(0, [len(docs[ids[d]]) - n for d, n in zip(doc, length, strict=True)])
    grade = rng.integers(1, 3, size=spans)
    gold = [
        cg.GoldSpan(cg.Span(ids[d], int(s), int(s + n)), grade=int(g))
        for d, s, n, g in zip(doc, start, length, grade, strict=True)
    ]
    return [cg.EvalItem(id=f"q{n}", question="?", gold=tuple(gold[n : n + 2])) for n in range(0, len(gold), 2)]


def direct(item: cg.EvalItem, chunks_of: dict[str, list[cg.Chunk]], rule: GradeRule) -> dict[str, int]:
    """The same qrels row, computed the obvious way."""
    judged: dict[str, int] = {}
    for gold in item.gold:
        for chunk in chunks_of[gold.span.doc_id]:
            held = overlap_length([gold.span], [chunk.span]) / len(gold.span)
            if held == 0 or held < rule.min_fraction:
                continue
            grade = gold.grade if held >= rule.full_fraction else min(rule.partial_grade, gold.grade)
            judged[chunk.id] = max(grade, judged.get(chunk.id, -1))
    return judged


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, default=10_000, help="gold spans (two per question)")
    parser.add_argument("--chunks", type=int, default=100_000, help="chunks (a multiple of 50)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs; the best is reported")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    docs = documents(max(1, args.chunks // CHUNKS_PER_DOC), rng)
    chunks = chunk_documents(docs, FixedCharChunker(size=CHUNK_SIZE, overlap=CHUNK_OVERLAP))
    questions = items(docs, args.spans, rng)
    resolver = SpanResolver(docs)
    print(f"{len(docs):,} documents, {len(chunks):,} chunks, {sum(len(q.gold) for q in questions):,} gold spans")

    started = time.perf_counter()
    resolved = resolver.resolve(questions)
    print(f"resolve(): {time.perf_counter() - started:.2f} s (not part of the target)")

    timings = []
    qrels: dict[str, dict[str, int]] = {}
    for _ in range(max(1, args.repeat)):
        started = time.perf_counter()
        qrels = resolver.qrels(resolved, chunks)
        timings.append(time.perf_counter() - started)
    best = min(timings)
    pairs = sum(len(row) for row in qrels.values())
    print(f"qrels(): {', '.join(f'{t:.2f}' for t in timings)} s; {pairs:,} graded (question, chunk) pairs")

    chunks_of: defaultdict[str, list[cg.Chunk]] = defaultdict(list)
    for chunk in chunks:
        chunks_of[chunk.span.doc_id].append(chunk)
    sample = rng.choice(len(resolved), size=min(SAMPLE, len(resolved)), replace=False)
    wrong = [
        resolved[n].id
        for n in sample.tolist()
        if qrels[resolved[n].id] != direct(resolved[n], chunks_of, resolver.grade_rule)
    ]
    if wrong:
        print(f"DISAGREE with the direct computation on {len(wrong)} of {len(sample)} questions, e.g. {wrong[:5]}")
        return 1
    print(f"agrees with the direct computation on all {len(sample)} sampled questions")

    verdict = "PASS" if best < TARGET_SECONDS else "MISS"
    print(f"{verdict}: {args.spans:,} gold spans onto {len(chunks):,} chunks in {best:.2f} s", end="")
    print(f" (target < {TARGET_SECONDS} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
