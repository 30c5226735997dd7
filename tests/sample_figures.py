"""Every figure contextgrid draws, built the way the dashboard and the report build them: on the bundled sample
workspace, and on a made-up grid of 50 configurations with long names and 10,000 questions (the scale the
figures must hold). Run as a script, it prints each figure's JSON by name, one JSON object: what the identity
test compares between a process that imported streamlit and one that did not."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from contextgrid.analysis.causes import CAUSES, cause_counts
from contextgrid.analysis.grid import best_per_column, metric_curves, pivot_counts, pivot_grid, score_columns
from contextgrid.analysis.questions import question_changes
from contextgrid.data.records import Span
from contextgrid.evidence.run_waste import character_boxes, coverage_by_configuration, retrieved_table
from contextgrid.evidence.waste import measure_waste
from contextgrid.render.cause_figures import cause_bars
from contextgrid.render.document import question_layers
from contextgrid.render.grid_charts import curves_plot, grid_heatmap, pair_scatter, pivot_heatmap
from contextgrid.render.intervals import interval_plot
from contextgrid.render.waste_figures import (
    characters_plot,
    configuration_heatmap,
    precision_recall_plot,
    rank_heatmap,
    span_map,
    waste_split_plot,
)
from contextgrid.significance import compare_configurations
from contextgrid.workspace.causes import failure_causes
from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.sample import SAMPLE
from contextgrid.workspace.waste import configuration_waste, workspace_waste

K = 5


def sample(root: Path = SAMPLE) -> dict[str, Any]:
    """Each view of the dashboard on the sample workspace (or another at ``root``), by name (the name its PNG
    gets)."""
    workspace = load_workspace(root)
    names = list(workspace.names)
    params = {name: dict(workspace.config(name).params) for name in names}
    grid = workspace.evaluate().to_dataframe()
    scores = grid[score_columns(grid)]
    label = f"ndcg@{K}"
    waste = workspace_waste(workspace, K)
    summary = configuration_waste(workspace, K, table=waste)
    items, _ = workspace.resolved
    resolved = [item for item in items if item.is_resolved]
    chosen = names[:2]
    by_id = {name: {chunk.id: chunk for chunk in workspace.chunks(name)} for name in chosen}

    def retrieved_for(entry: Any) -> dict[str, list[Any]]:
        return {name: [by_id[name][c] for c in workspace.run(name).get(entry.id, ())[:K]] for name in chosen}

    def drawable(entry: Any) -> bool:
        """Both configurations brought back a chunk of the first gold document: a span map worth a look."""
        layers = question_layers(entry, retrieved_for(entry))
        return all(any(span.doc_id == layers.documents[0] for _, span in layers.bands[n]) for n in chosen)

    item = next((entry for entry in resolved if drawable(entry)), resolved[0])
    retrieved = retrieved_for(item)
    layers = question_layers(item, retrieved)
    documents = workspace.documents
    doc_id = layers.documents[0]
    per_query = workspace.per_query("ndcg", K)
    table = compare_configurations(per_query[names].dropna(), baseline=names[0], metric=label, n_resamples=999, seed=0)
    return {
        "grid-heatmap": grid_heatmap(scores, best_per_column(grid)),
        "pivot": pivot_heatmap(
            pivot_grid(grid, label, rows="size", columns="retriever"),
            label,
            pivot_counts(grid, rows="size", columns="retriever"),
        ),
        "curves": curves_plot(metric_curves(grid, "recall"), "recall", params),
        "causes": cause_bars(cause_counts(failure_causes(workspace, k=K)), K),
        "pair-scatter": pair_scatter(question_changes(per_query, names[1], names[0]), names[1], names[0], label),
        "intervals": interval_plot(table),
        "span-map": span_map(doc_id, len(documents[doc_id]), gold=layers.gold, bands=layers.bands),
        "waste-split": waste_split_plot({name: measure_waste(item, retrieved[name]) for name in chosen}),
        "coverage-by-rank": rank_heatmap(
            retrieved_table(items, workspace.run(names[0]), workspace.chunks(names[0]), K),
            K,
            questions=[entry.id for entry in resolved],
            config=names[0],
        ),
        "coverage-by-configuration": configuration_heatmap(
            coverage_by_configuration(waste),
            K,
            best_chunk=coverage_by_configuration(waste, value="best_chunk_coverage"),
        ),
        "precision-recall": precision_recall_plot(summary, K, params),
        "characters": characters_plot(character_boxes(waste), points=waste),
    }


RETRIEVERS = ("bm25", "dense-e5-large", "hybrid-rrf", "int8-quantized", "splade")
CHUNKERS = ("fixed-characters", "recursive-separators")
SIZES = (128, 256, 512, 1024, 2048)


def long_span_map() -> Any:
    """A 60,000-character document, three gold spans and two long-named configurations of ten chunks each spread
    over it: many folded stretches and many offsets to label."""
    rng = np.random.default_rng(3)
    gold = [Span("long.md", 12_000, 12_400), Span("long.md", 31_000, 31_250), Span("long.md", 52_000, 52_600)]
    bands = {}
    for name, size in (("bm25-fixed_chars-500-100", 500), ("dense-e5-large-recursive-separators-1024", 1024)):
        starts = [11_900, 31_000, *(int(start) for start in rng.integers(0, 60_000 - size, 8))]
        bands[name] = [(rank, Span("long.md", start, start + size)) for rank, start in enumerate(starts, 1)]
    return span_map("long.md", 60_000, gold=gold, bands=bands)


def big() -> dict[str, Any]:
    """The views that grow with the configurations or the questions, at 50 long-named configurations and
    10,000 questions."""
    rng = np.random.default_rng(7)
    configs = [
        (
            f"{retriever}-{chunker}-{size}-overlap-{size // 8}",
            {"retriever": retriever, "chunker": chunker, "size": size},
        )
        for retriever in RETRIEVERS
        for chunker in CHUNKERS
        for size in SIZES
    ]
    names = [name for name, _ in configs]
    params = dict(configs)
    ks = [1, 3, 5, 10, 20]
    curves = pd.DataFrame(np.sort(rng.random((50, len(ks))), axis=1), index=names, columns=ks)
    scores = pd.DataFrame(
        rng.random((50, 24)),
        index=names,
        columns=[f"{m}@{k}" for m in ("recall", "ndcg", "mrr", "precision") for k in (1, 3, 5, 10, 20, 50)],
    )
    questions = [f"question-{i:05}" for i in range(10_000)]
    coverage = pd.DataFrame(rng.choice([0.0, 0.3, 0.6, 1.0], size=(50, 10_000)), index=names, columns=questions)
    retrieved = pd.DataFrame(
        {
            "question": np.repeat(questions, K),
            "rank": np.tile(np.arange(1, K + 1), 10_000),
            "chunk_id": "c",
            "excerpt": "",
            "coverage": rng.random(10_000 * K) / K,
        }
    )
    summary = pd.DataFrame(
        {
            f"recall@{K}": rng.random(50),
            "character_precision": rng.random(50) / 3,
            "share_gold": rng.random(50) / 3,
            "retrieved_total": rng.integers(500, 5000, 50).astype(float),
        },
        index=pd.Index(names, name="config"),
    )
    # The per-question characters of 50 configurations x 10,000 questions, drawn as boxes from their quartiles.
    big_waste = pd.DataFrame(
        {
            "retrieved_total": rng.integers(500, 15_000, 50 * 10_000).astype(float),
            "gold_characters": rng.integers(20, 600, 50 * 10_000).astype(float),
        },
        index=pd.MultiIndex.from_product([names, questions], names=["config", "question"]),
    )
    counts = pd.DataFrame(rng.integers(0, 100, (50, len(CAUSES))), index=names, columns=list(CAUSES))
    base = rng.random(300)
    per_question = {
        name: dict(zip([f"q{i}" for i in range(300)], np.clip(base + rng.normal(0, 0.2, 300), 0, 1), strict=True))
        for name in names
    }
    return {
        "big-span-map": long_span_map(),
        "big-grid-heatmap": grid_heatmap(scores, best_per_column(scores)),
        "big-curves": curves_plot(curves, "recall", params),
        "big-causes": cause_bars(counts, K),
        "big-intervals": interval_plot(
            compare_configurations(per_question, baseline=names[0], metric="recall@5", n_resamples=199, seed=0)
        ),
        "big-coverage-by-rank": rank_heatmap(retrieved, K),
        "big-coverage-by-configuration": configuration_heatmap(coverage, K),
        "big-precision-recall": precision_recall_plot(summary, K, params),
        "big-characters": characters_plot(character_boxes(big_waste)),
    }


def every() -> dict[str, Any]:
    """:func:`sample` and :func:`big` together."""
    return {**sample(), **big()}


if __name__ == "__main__":
    if "--streamlit" in sys.argv:
        import streamlit  # noqa: F401  (what the dashboard's process has imported: plotly's default changes)
    print(json.dumps({name: figure.to_json() for name, figure in every().items()}))
