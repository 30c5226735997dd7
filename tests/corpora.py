"""A tiny two-document corpus that sweeps, waste and page tests build their workspaces from."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import contextgrid as cg
from contextgrid.workspace.sweep import sweep, sweep_grid

DOCUMENTS = {
    "refunds.md": "Refunds are available within 30 days of purchase. Items must be unused.\n\n"
    + "Store credit is offered after 30 days and up to 90 days. " * 6,
    "stove.md": "The Ember stove burns for 90 minutes on one 230 g canister.\n\n"
    + "Always light the stove outdoors, away from the tent. " * 8,
}
ITEMS = (
    cg.EvalItem(
        id="q1",
        question="How long do I have to return something for a refund?",
        anchors=(cg.Anchor("refunds.md", "Refunds are available within 30 days of purchase."),),
    ),
    cg.EvalItem(
        id="q2",
        question="How long does one canister last?",
        anchors=(cg.Anchor("stove.md", "burns for 90 minutes on one 230 g canister"),),
    ),
)


def swept(
    root: Path,
    *,
    sizes: list[int],
    overlap: int,
    documents: Mapping[str, str] = DOCUMENTS,
    items: Sequence[cg.EvalItem] = ITEMS,
) -> Path:
    """``root`` as the workspace a BM25 sweep over fixed-size chunks writes for ``documents`` and ``items``."""
    grid = sweep_grid(chunkers=["fixed_chars"], sizes=sizes, overlaps=[overlap], retrievers=["bm25"])
    sweep(documents, items, grid, root)
    return root
