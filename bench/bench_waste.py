"""How long drawing one question's context waste takes on a large document.

Run from the repository root::

    python bench/bench_waste.py                     # 1 MB document, 50 chunks, 10 gold spans
    python bench/bench_waste.py --megabytes 5 --chunks 200

Times, for one question and one configuration, what the Context waste page
builds: the span map (one band per rank, collapsed and expanded), the document
as escaped HTML (collapsed and expanded), the waste counts and the split
figure. Each is timed cold (plotly imported in the first) and the total must
stay under 2 s: PASS or MISS, exit status 1 on a miss.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable

from contextgrid.data.records import Chunk, EvalItem, GoldSpan, Span
from contextgrid.evidence.waste import measure_waste
from contextgrid.render.document import document_html
from contextgrid.render.waste_figures import span_map, waste_split_plot

LIMIT = 2.0
"""Seconds the whole drawing may take."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--megabytes", type=float, default=1.0)
    parser.add_argument("--chunks", type=int, default=50)
    parser.add_argument("--gold", type=int, default=10)
    parser.add_argument("--chunk-size", type=int, default=1200)
    args = parser.parse_args(argv)

    rng = random.Random(0)
    length = int(args.megabytes * 1_000_000)
    words = ["refund", "<b>window</b>", "$5", "**bold**", "days", "purchase", "the", "within"]
    text = " ".join(rng.choice(words) for _ in range(length // 5))[:length]
    gold = [Span("big.md", start, start + 300) for start in rng.sample(range(length - 300), args.gold)]
    starts = rng.sample(range(length - args.chunk_size), args.chunks)
    chunks = [Chunk(f"c{i}", Span("big.md", s, s + args.chunk_size), "") for i, s in enumerate(starts)]
    bands = {"config": [(rank, chunk.span) for rank, chunk in enumerate(chunks, 1)]}
    item = EvalItem(id="q", question="?", gold=tuple(GoldSpan(span) for span in gold))

    steps: list[tuple[str, Callable[[], object]]] = [
        ("span map, collapsed", lambda: span_map("big.md", len(text), gold=gold, bands=bands).to_json()),
        ("span map, expanded", lambda: span_map("big.md", len(text), gold=gold, bands=bands, expanded=True).to_json()),
        ("document html, collapsed", lambda: document_html("big.md", text, gold=gold, chunks=bands["config"])),
        (
            "document html, expanded",
            lambda: document_html("big.md", text, gold=gold, chunks=bands["config"], expanded=True),
        ),
        ("waste counts and split figure", lambda: waste_split_plot({"config": measure_waste(item, chunks)}).to_json()),
    ]
    print(f"document {len(text):,} characters, {args.chunks} chunks of {args.chunk_size}, {args.gold} gold spans")
    total = 0.0
    for name, step in steps:
        began = time.perf_counter()
        step()
        took = time.perf_counter() - began
        total += took
        print(f"  {name:<32} {took:7.3f} s")
    verdict = "PASS" if total < LIMIT else "MISS"
    print(f"total {total:.3f} s against {LIMIT:.0f} s: {verdict}")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
