"""The slow, obvious reference of evidence at a budget: the rule read literally, characters as sets."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import contextgrid as cg

Row = dict[str, float]


def reference(
    items: Sequence[cg.EvalItem],
    run: Mapping[str, Sequence[str]],
    chunks: Sequence[cg.Chunk],
    qrels: Mapping[str, Mapping[str, int]],
    budgets: Sequence[int],
    cost: Callable[[str], int] = len,
) -> dict[tuple[int, str], Row]:
    """The rule read literally: chunks in rank order while the running cost stays within the budget, gold
    characters as sets of (document, position). One dict per (budget, question)."""
    by_id = {chunk.id: chunk for chunk in chunks}
    rows: dict[tuple[int, str], Row] = {}
    for item in items:
        gold = {
            (g.span.doc_id, position) for g in item.gold if g.grade > 0 for position in range(g.span.start, g.span.end)
        }
        if not gold:
            continue
        ranking = [by_id[c] for c in run.get(item.id, [])]
        judged = qrels.get(item.id, {})
        for budget in budgets:
            taken: list[cg.Chunk] = []
            spent = 0
            for chunk in ranking:
                if spent + cost(chunk.text) > budget:
                    break
                taken.append(chunk)
                spent += cost(chunk.text)
            held: set[tuple[str, int]] = set()
            for chunk in taken:
                held |= {(d, p) for d, p in gold if d == chunk.span.doc_id and chunk.span.start <= p < chunk.span.end}
            rows[budget, item.id] = {
                "evidence_recall": len(held) / len(gold),
                "hit": int(any(judged.get(chunk.id, 0) > 0 for chunk in taken)),
                "characters": sum(len(chunk.text) for chunk in taken),
                "chunks": len(taken),
                "spent": spent,
            }
    return rows
