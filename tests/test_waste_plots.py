"""The waste figures hold the numbers of the tables they draw, escape user text, and export
as self-contained HTML and as real PNGs."""

from __future__ import annotations

import itertools
import re
import struct
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sample_figures import long_span_map
from waste_cases import BANDS, CHUNKS, GOLD, ITEMS, RUN, SUMMARY, waste_frame

import contextgrid as cg
from contextgrid.evidence.run_waste import (
    BOX_COLUMNS,
    box_statistics,
    character_boxes,
    coverage_by_configuration,
    retrieved_table,
)
from contextgrid.evidence.waste import measure_waste
from contextgrid.render.export import figure_html, figure_png
from contextgrid.render.span_bars import NARROWEST
from contextgrid.render.style import SCREEN
from contextgrid.render.waste_figures import (
    COVERAGE_BINS,
    LEGEND,
    WORST_SHOWN,
    characters_plot,
    configuration_heatmap,
    precision_recall_plot,
    rank_heatmap,
    span_map,
    waste_split_plot,
)


def bars(figure: Any, kind: str) -> list[tuple[str, float, float]]:
    trace = next(t for t in figure.data if t.name == LEGEND[kind])
    return sorted(
        (str(row), float(base), float(base + width))
        for row, base, width in zip(trace.y, trace.base, trace.x, strict=True)
    )


def test_span_map_draws_one_band_per_rank_with_found_waste_repeat_and_missed() -> None:
    figure = span_map("d", 1000, gold=GOLD, bands=BANDS, expanded=True)
    # Rank 1 (120-300) brings gold 120-200 and other text 200-300; rank 2 (0-150) brings gold 100-120,
    # other text 0-100, and 120-150 again; the other document's chunk is not drawn.
    assert bars(figure, "found") == [("#1", 120, 200), ("#2", 100, 120), ("gold", 100, 200)]
    assert bars(figure, "waste") == [("#1", 200, 300), ("#2", 0, 100)]
    assert bars(figure, "repeat") == [("#2", 120, 150)]
    assert bars(figure, "missed") == []
    assert list(figure.layout.yaxis.categoryarray) == ["#2", "#1", "gold"]
    only_first = span_map("d", 1000, gold=GOLD, bands={"cfg": BANDS["cfg"][:1]}, expanded=True)
    assert bars(only_first, "missed") == [("gold", 100, 120)]


def test_span_map_collapses_long_documents_and_labels_real_offsets() -> None:
    gold = [cg.Span("d", 50_000, 50_100)]
    figure = span_map("d", 100_000, gold=gold, bands={"a": [(1, cg.Span("d", 49_900, 50_400))]}, margin=100)
    # Shown: 49,800-50,500 (700 characters); the gaps either side shrink to 3% of that each.
    assert figure.layout.xaxis.range[1] == pytest.approx(700 + 2 * 21)
    assert {"49,800", "50,500"} <= set(figure.layout.xaxis.ticktext)
    assert [a.text for a in figure.layout.annotations] == ["⋯ 49,800 characters ⋯", "⋯ 49,500 characters ⋯"]
    # Gold 50,000-50,100 sits 200 characters into the shown region, after the first shrunk gap.
    assert bars(figure, "found") == [("#1", 221, 321), ("gold", 221, 321)]
    expanded = span_map("d", 100_000, gold=gold, bands={"a": [(1, cg.Span("d", 49_900, 50_400))]}, expanded=True)
    assert expanded.layout.xaxis.range[1] == 100_000


@pytest.mark.parametrize(
    ("build", "length"),
    [(long_span_map, 60_000), (lambda: span_map("d", 4370, gold=GOLD, bands=BANDS, margin=50), 4370)],
)
def test_span_map_labels_never_overlap_at_the_narrowest_width_drawn(build: Any, length: int) -> None:
    figure = build()
    # The plot's width at most: the narrowest figure less its right margin and a left margin as wide as the
    # longest row label (about 0.5 of 13 pixels a character at least; the figure assumes more).
    rows = list(figure.layout.yaxis.categoryarray)
    plot = NARROWEST - figure.layout.margin.r - max(0.5 * 13 * len(row) for row in rows)
    scale = plot / figure.layout.xaxis.range[1]
    axis = figure.layout.xaxis
    ticks = sorted(zip(axis.tickvals, axis.ticktext, strict=True))
    # Where the drawn regions start and end, as far as there is room.
    assert len(ticks) >= 2
    assert {text for _, text in ticks} <= {f"{offset:,}" for offset in range(length + 1)}
    for (x0, text0), (x1, text1) in itertools.pairwise(ticks):
        # Each label at most 0.6 of the font a character wide, centred on its tick.
        assert (x1 - x0) * scale >= 0.3 * axis.tickfont.size * (len(text0) + len(text1)), (text0, text1)
    gaps = sorted((a.x, a.text) for a in figure.layout.annotations)
    for (x0, text0), (x1, text1) in itertools.pairwise(gaps):
        assert (x1 - x0) * scale >= 0.3 * 9 * (len(text0) + len(text1)), (text0, text1)
    # The rows fill the plot, paper y 0 to 1: a gap label sits above it, on no row.
    for annotation in figure.layout.annotations:
        assert annotation.yref == "paper"
        assert annotation.y >= 1
        assert annotation.yanchor == "bottom"


def test_span_map_names_configurations_and_escapes_them() -> None:
    figure = span_map(
        "<d>", 500, gold=[cg.Span("<d>", 0, 10)], bands={"<b>x</b>": [(1, cg.Span("<d>", 0, 5))], "y": []}
    )
    assert "&lt;b&gt;x&lt;/b&gt; · #1" in figure.layout.yaxis.categoryarray
    assert "&lt;d&gt;" in figure.layout.title.text
    assert "<d>" not in figure.layout.title.text


def test_waste_split_plot_stacks_the_waste_counts() -> None:
    item = cg.EvalItem(id="q", question="?", gold=(cg.GoldSpan(GOLD[0]),))
    chunks = [cg.Chunk("c1", cg.Span("d", 0, 150), ""), cg.Chunk("c2", cg.Span("d", 120, 300), "")]
    figure = waste_split_plot({"a": measure_waste(item, chunks), "b": measure_waste(item, chunks[:1])})
    values = {trace.name: list(trace.x) for trace in figure.data}
    assert values == {
        "gold, retrieved": [100, 50],
        "not gold": [200, 100],
        "retrieved again": [30, 0],
        "gold, missed": [0, 50],
    }


def test_rank_heatmap_holds_the_coverage_and_escaped_excerpts() -> None:
    table = retrieved_table(ITEMS, RUN, CHUNKS, 3)
    figure = rank_heatmap(table, 3, config="<i>a</i>")
    z = np.asarray(figure.data[0].z, dtype=float)
    # q1: c2 holds 80 of 100 gold characters, c1 holds 50; q2: c1 none, c3 all 50. The worst first: q2's
    # top 3 hold 1.0 in all, q1's 1.3.
    assert list(figure.data[0].y) == ["q2", "q1"]
    assert z[:, :2].tolist() == [[0.0, 1.0], [0.8, 0.5]]
    assert np.isnan(z[:, 2]).all()
    assert figure.data[0].customdata[1][1] == "c1: &lt;script&gt;alert(1)&lt;/script&gt;"
    assert figure.data[0].customdata[1][2] == "nothing retrieved"
    assert "&lt;i&gt;a&lt;/i&gt;" in figure.layout.title.text


def test_rank_heatmap_draws_the_worst_questions_and_counts_the_rest() -> None:
    questions = [f"q{i:03}" for i in range(500)]
    table = pd.DataFrame(
        {
            "question": questions,
            "rank": 1,
            "chunk_id": "c",
            "excerpt": "",
            # q000 holds the least gold, q499 the most.
            "coverage": [i / 500 for i in range(500)],
        }
    )
    figure = rank_heatmap(table, 2)
    # q000 holds none: its row would read 0 only, so it is counted, not drawn.
    assert list(figure.data[0].y) == questions[1 : WORST_SHOWN + 1]
    title = " ".join(re.sub("<[^>]+>", " ", figure.layout.title.text).split())  # the subtitle's lines joined
    assert f"the {WORST_SHOWN} of 500 questions" in title
    assert f"{499 - WORST_SHOWN} more not drawn" in title
    assert "1 hold none of it (not drawn)" in title
    assert figure.layout.height <= SCREEN
    nothing = rank_heatmap(table.assign(coverage=0.0), 2)
    assert list(nothing.data[0].y) == questions[:WORST_SHOWN]
    assert f"no question's top 2 holds any of its gold; the first {WORST_SHOWN} of 500 drawn" in (
        " ".join(re.sub("<[^>]+>", " ", nothing.layout.title.text).split())
    )


def test_rank_heatmap_breaks_ties_in_gold_held_by_question_id() -> None:
    # Listed out of order; q2 and q10 hold the same, q7 the least but some, q0 none.
    table = pd.DataFrame(
        {
            "question": ["q2", "q7", "q10", "q0", "q10"],
            "rank": [1, 1, 1, 1, 2],
            "chunk_id": ["a", "b", "c", "d", "e"],
            "excerpt": ["two", "seven", "ten", "zero", "ten again"],
            "coverage": [0.5, 0.25, 0.25, 0.0, 0.25],
        }
    )
    figure = rank_heatmap(table, 2)
    # By gold held (q7 0.25, then q10 and q2 at 0.5 each: "q10" < "q2" as text), q0 holding none left out.
    assert list(figure.data[0].y) == ["q7", "q10", "q2"]
    assert [list(row) for row in figure.data[0].customdata] == [
        ["b: seven", "nothing retrieved"],
        ["c: ten", "e: ten again"],
        ["a: two", "nothing retrieved"],
    ]


def test_configuration_heatmap_and_characters_plot_hold_the_table() -> None:
    table = waste_frame()
    figure = configuration_heatmap(
        coverage_by_configuration(table), 2, best_chunk=coverage_by_configuration(table, value="best_chunk_coverage")
    )
    # a: q1 gets 0-300 (all 100 gold), q2 gets c3 (all of it). b: q1 gets c1 (50 of 100), q2 nothing.
    assert list(figure.data[0].x) == [label for label, _, _ in COVERAGE_BINS]
    assert [list(row) for row in figure.data[0].text] == [["", "", "", "", "", "2"], ["1", "", "", "1", "", ""]]
    assert np.asarray(figure.data[0].z).tolist() == [[0, 0, 0, 0, 0, 1.0], [0.5, 0, 0, 0.5, 0, 0]]
    # The best single chunk held 80% of q1's gold and all of q2's under a: 90% on average.
    assert figure.data[0].customdata[0][5] == "2 of 2 questions<br>best single chunk: 90% on average"
    # Every question a point: plotly draws the boxes from them.
    boxes = characters_plot(character_boxes(table), points=table)
    assert list(boxes.data[0].y) == [180 + 150, 150 + 100, 150, 0]
    assert list(boxes.data[1].y) == [100, 50, 100, 50]
    assert boxes.data[0].boxpoints == "all"
    # From the numbers alone: two values a box, so q1 is the lesser, the median their mean and q3 the greater.
    drawn = characters_plot(character_boxes(table))
    assert [list(drawn.data[0].x), list(drawn.data[1].x)] == [["a", "b"], ["a", "b"]]
    retrieved, gold = drawn.data
    assert (list(retrieved.q1), list(retrieved.median), list(retrieved.q3)) == ([250, 0], [290, 75], [330, 150])
    assert (list(retrieved.lowerfence), list(retrieved.upperfence), list(retrieved.mean)) == (
        [250, 0],
        [330, 150],
        [290, 75],
    )
    assert (list(gold.q1), list(gold.median), list(gold.q3)) == ([50, 50], [75, 75], [100, 100])
    assert retrieved.y is None
    assert retrieved.boxpoints is False


def reference_box(values: list[float]) -> list[float]:
    """One box as plotly.js computes it from its points (``Lib.interp`` and its fences), written out slowly."""
    ordered = sorted(v for v in values if v == v)
    n = len(ordered)

    def interp(q: float) -> float:
        at = q * n - 0.5
        if at < 0:
            return ordered[0]
        if at > n - 1:
            return ordered[-1]
        low, frac = int(at // 1), at % 1
        return ordered[low] + frac * (ordered[min(low + 1, n - 1)] - ordered[low])

    q1, median, q3 = interp(0.25), interp(0.5), interp(0.75)
    low = min(q1, next(v for v in ordered if v >= q1 - 1.5 * (q3 - q1)))
    high = max(q3, next(v for v in reversed(ordered) if v <= q3 + 1.5 * (q3 - q1)))
    return [n, ordered[0], low, q1, median, q3, high, ordered[-1], sum(ordered) / n]


def test_box_statistics_are_plotly_s_boxes() -> None:
    rng = np.random.default_rng(3)
    # Sizes 1 to 40, repeated values, a far outlier and missing values; configurations in a shuffled order.
    rows = []
    for number, size in enumerate([1, 2, 3, 4, 5, 7, 12, 40]):
        values = rng.choice([0.0, 10.0, 11.0, 250.0, 251.5, 3000.0, np.nan], size=size).tolist()
        rows += [(f"c{(number * 5) % 8}", f"q{i}", value) for i, value in enumerate(values)]
    # Outliers on both sides: the fences stop at 250 and 251, inside the least and the most.
    rows += [("tight", f"q{i}", value) for i, value in enumerate([0.0, 250.0, 250.0, 250.5, 251.0, 251.0, 3000.0])]
    rows.append(("empty", "q0", np.nan))
    table = pd.DataFrame(rows, columns=["config", "question", "chars"]).set_index(["config", "question"])
    boxes = box_statistics(table, value="chars")
    assert list(boxes.columns) == list(BOX_COLUMNS)
    expected = {
        str(config): reference_box(list(group["chars"]))
        for config, group in table.groupby(level="config", sort=False)
        if group["chars"].notna().any()
    }
    assert list(boxes.index) == list(expected)
    for config, row in expected.items():
        assert list(boxes.loc[config]) == pytest.approx(row, rel=1e-12, abs=1e-12)
    assert list(boxes.loc["tight", ["min", "lowerfence", "upperfence", "max"]]) == [0, 250, 251, 3000]
    assert box_statistics(table.iloc[:0], value="chars").empty
    with pytest.raises(cg.ContextGridError, match="no column 'nope'"):
        box_statistics(table, value="nope")


def test_box_statistics_of_interleaved_rows_are_each_configuration_s() -> None:
    rng = np.random.default_rng(5)
    configs = rng.choice(["a", "b", "c"], size=300)
    table = pd.DataFrame(
        {"config": configs, "question": [f"q{i}" for i in range(300)], "chars": rng.integers(0, 9, 300) * 1.5}
    ).set_index(["config", "question"])
    boxes = box_statistics(table, value="chars")
    assert list(boxes.index) == list(dict.fromkeys(configs))
    for config in boxes.index:
        assert list(boxes.loc[config]) == pytest.approx(
            reference_box(table.loc[config, "chars"].tolist()), rel=1e-12, abs=1e-12
        )


def test_precision_recall_plot_places_each_configuration() -> None:
    summary = SUMMARY
    figure = precision_recall_plot(summary, 5)
    assert [(trace.name, trace.x, trace.y) for trace in figure.data] == [
        ("big&lt;chunks&gt;", (1.0,), (0.08,)),
        ("small", (0.5,), (0.6,)),
    ]
    with pytest.raises(cg.ContextGridError, match="recall@3"):
        precision_recall_plot(summary, 3)


def all_figures() -> list[Any]:
    table = waste_frame()
    item = ITEMS[0]
    summary = pd.DataFrame(
        {"recall@2": [1.0], "character_precision": [0.3], "share_gold": [0.2], "retrieved_total": [430.0]},
        index=pd.Index(["a"], name="config"),
    )
    return [
        span_map("d", 1000, gold=GOLD, bands=BANDS),
        waste_split_plot({"a": measure_waste(item, CHUNKS[:2])}),
        rank_heatmap(retrieved_table(ITEMS, RUN, CHUNKS, 2), 2),
        configuration_heatmap(coverage_by_configuration(table), 2),
        precision_recall_plot(summary, 2),
        characters_plot(character_boxes(table), points=table),
        characters_plot(character_boxes(table)),
    ]


@pytest.fixture(scope="module")
def kaleido_server() -> Iterator[None]:
    """One Chromium for every PNG of this module (kaleido otherwise starts one per image)."""
    import kaleido  # type: ignore[import-untyped]

    kaleido.start_sync_server(silence_warnings=True)
    yield
    kaleido.stop_sync_server(silence_warnings=True)


@pytest.mark.filterwarnings("ignore:The kopts argument is ignored")
def test_every_figure_exports_as_a_png(kaleido_server: None) -> None:
    for figure in all_figures():
        data = figure_png(figure, width=640, height=360)
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        assert data[12:16] == b"IHDR"
        width, height = struct.unpack(">II", data[16:24])
        assert (width, height) == (640, 360)


def test_every_figure_exports_as_self_contained_html() -> None:
    for figure in all_figures():
        page = figure_html(figure)
        assert page.lstrip().lower().startswith("<!doctype html>")
        assert "Plotly.newPlot" in page
        assert 'src="http' not in page
        assert len(page) > 1_000_000  # plotly.js itself is inline
