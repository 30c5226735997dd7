"""Small hand-checked cases the waste figure tests share: one document, its gold evidence, three chunks."""

from __future__ import annotations

import pandas as pd

import contextgrid as cg
from contextgrid.evidence.run_waste import question_waste

GOLD = [cg.Span("d", 100, 200)]
BANDS = {"cfg": [(1, cg.Span("d", 120, 300)), (2, cg.Span("d", 0, 150)), (3, cg.Span("other", 0, 50))]}

ITEMS = [
    cg.EvalItem(id="q1", question="?", gold=(cg.GoldSpan(cg.Span("d", 100, 200)),)),
    cg.EvalItem(id="q2", question="?", gold=(cg.GoldSpan(cg.Span("d", 400, 450)),)),
]
CHUNKS = [
    cg.Chunk("c1", cg.Span("d", 0, 150), "<script>alert(1)</script>"),
    cg.Chunk("c2", cg.Span("d", 120, 300), "second"),
    cg.Chunk("c3", cg.Span("d", 400, 500), "third"),
]
RUN = {"q1": ["c2", "c1"], "q2": ["c1", "c3"]}


def waste_frame() -> pd.DataFrame:
    """Two configurations' question waste at k=2, as the dashboard's waste table lays it out."""
    frames = {name: question_waste(ITEMS, run, CHUNKS, 2) for name, run in {"a": RUN, "b": {"q1": ["c1"]}}.items()}
    return pd.concat(frames, names=["config", "question"])


SUMMARY = pd.DataFrame(
    {
        "recall@5": [1.0, 0.5],
        "character_precision": [0.08, 0.6],
        "share_gold": [0.05, 0.5],
        "retrieved_total": [9e3, 4e2],
    },
    index=pd.Index(["big<chunks>", "small"], name="config"),
)
"""A configuration summary at k=5: one configuration high on recall and low on precision, one the reverse."""
