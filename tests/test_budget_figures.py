"""The budget figures: what they draw is the library's means, names are escaped, 50 configurations stay apart."""

from __future__ import annotations

import itertools

import pandas as pd

from contextgrid.analysis.budget import budget_frontier
from contextgrid.render.budget_figures import budget_pair_plot, budget_plot

HOSTILE = '<img src=x onerror="alert(1)">$x$'


def means_of(names: list[str], budgets: list[int]) -> pd.DataFrame:
    rows = []
    for place, name in enumerate(names):
        for step, budget in enumerate(budgets):
            recall = min(1.0, (step + 1) / len(budgets) * (0.5 + place / (2 * len(names))))
            rows.append((name, budget, recall, budget * 0.9, step + 1.0))
    frame = pd.DataFrame(rows, columns=["config", "budget", "evidence_recall", "characters", "chunks"])
    return frame.set_index(["config", "budget"])


def test_names_are_escaped_in_legend_and_hover() -> None:
    means = means_of([HOSTILE, "plain"], [100, 1000])
    figure = budget_plot(means, budget_frontier(means))
    text = figure.to_json()
    assert "<img" not in text
    assert "&lt;img src=x onerror=" in text  # drawn as written, never as markup
    pair = budget_pair_plot(means, HOSTILE, "plain", parting=1000).to_json()
    assert "<img" not in pair


def test_fifty_configurations_each_get_their_own_mark_and_the_legend_names_parameters() -> None:
    grid = list(
        itertools.product(["bm25", "dense", "hybrid", "splade", "rerank"], [128, 256, 512, 1024, 2048], [0, 64])
    )
    names = [f"{retriever}-{size}-{overlap}" for retriever, size, overlap in grid]
    params = {
        name: {"retriever": retriever, "size": size, "overlap": overlap}
        for name, (retriever, size, overlap) in zip(names, grid, strict=True)
    }
    means = means_of(names, [100, 300, 1000, 3000])
    figure = budget_plot(means, budget_frontier(means), params)
    curves = [trace for trace in figure.data if trace.customdata is not None and trace.hovertemplate.startswith("<b>")]
    curves = [trace for trace in curves if not trace.name.startswith("frontier")]
    assert len(curves) == 50
    assert len({(trace.marker.color, trace.marker.symbol, trace.line.dash) for trace in curves}) == 50
    assert not any(trace.showlegend for trace in curves)  # the legend names the parameters instead
    keys = [trace for trace in figure.data if trace.hoverinfo == "skip"]
    assert {trace.legendgrouptitle.text for trace in keys} >= {"retriever"}
    assert figure.layout.height <= 900


def test_the_pair_figure_marks_where_they_part() -> None:
    means = means_of(["a", "b"], [100, 1000, 10000])
    figure = budget_pair_plot(means, "a", "b", parting=1000)
    assert [trace.name for trace in figure.data] == ["a", "b"]
    assert figure.layout.shapes[0].x0 == 1000
    assert "they part at 1,000 characters" in figure.layout.annotations[0].text
    assert not budget_pair_plot(means, "a", "b").layout.shapes
