"""The Vega-Lite waste charts the dashboard draws show what the plotly figures (the downloads) show:
the same bars, cells and points, from the same tables; and user text stays text."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from waste_cases import BANDS, CHUNKS, GOLD, ITEMS, RUN, SUMMARY, waste_frame

import contextgrid as cg
from contextgrid.evidence.run_waste import coverage_by_configuration, retrieved_table
from contextgrid.evidence.waste import measure_waste
from contextgrid.render.waste_charts import (
    characters_chart,
    configuration_chart,
    precision_recall_chart,
    rank_chart,
    span_chart,
    waste_split_chart,
)
from contextgrid.render.waste_figures import (
    LEGEND,
    characters_plot,
    configuration_heatmap,
    precision_recall_plot,
    rank_heatmap,
    span_map,
    waste_split_plot,
)


def chart_bars(spec: dict[str, Any]) -> list[tuple[str, str, float, float, int, int]]:
    return sorted(
        (bar["kind"], bar["row"], round(bar["x"], 6), round(bar["x2"], 6), bar["start"], bar["end"])
        for bar in spec["data"]["values"]
    )


def figure_bars(figure: Any) -> list[tuple[str, str, float, float, int, int]]:
    return sorted(
        # base + width, not the end itself: plotly is given the width, so the sum may differ in the last bit.
        (trace.name, str(row), round(float(base), 6), round(float(base + width), 6), int(data[0]), int(data[1]))
        for trace in figure.data
        for row, base, width, data in zip(trace.y, trace.base, trace.x, trace.customdata, strict=True)
    )


def test_span_chart_draws_the_bars_of_the_hand_checked_example() -> None:
    spec = span_chart("d", 1000, gold=GOLD, bands=BANDS, expanded=True)
    # As span_map's test: rank 1 (120-300) brings gold 120-200 and waste 200-300; rank 2 (0-150) brings gold
    # 100-120, waste 0-100 and 120-150 again; the other document's chunk is not drawn.
    assert [(kind, row, start, end) for kind, row, _, _, start, end in chart_bars(spec)] == [
        (LEGEND["found"], "#1", 120, 200),
        (LEGEND["found"], "#2", 100, 120),
        (LEGEND["found"], "gold", 100, 200),
        (LEGEND["waste"], "#1", 200, 300),
        (LEGEND["waste"], "#2", 0, 100),
        (LEGEND["repeat"], "#2", 120, 150),
    ]
    bars_layer = spec["layer"][0]["encoding"]
    assert bars_layer["y"]["sort"] == ["gold", "#1", "#2"]
    assert bars_layer["x"]["scale"]["domain"] == [0, 1000.0]


spans = st.builds(lambda start, size: cg.Span("d", start, start + size), st.integers(0, 5000), st.integers(1, 800))


@settings(max_examples=60, deadline=None)
@given(
    gold=st.lists(spans, max_size=3),
    chunks=st.lists(st.lists(spans, max_size=4), min_size=1, max_size=3),
    expanded=st.booleans(),
)
def test_span_chart_and_span_map_draw_the_same_bars(
    gold: list[cg.Span], chunks: list[list[cg.Span]], expanded: bool
) -> None:
    bands = {f"config{i}": list(enumerate(ranked, 1)) for i, ranked in enumerate(chunks)}
    spec = span_chart("d", 6000, gold=gold, bands=bands, margin=200, expanded=expanded)
    figure = span_map("d", 6000, gold=gold, bands=bands, margin=200, expanded=expanded)
    assert chart_bars(spec) == figure_bars(figure)
    x_axis = spec["layer"][0]["encoding"]["x"]["axis"]
    assert x_axis["values"] == pytest.approx(list(figure.layout.xaxis.tickvals))
    assert f"{list(figure.layout.xaxis.ticktext)}[indexof(" in x_axis["labelExpr"]
    gaps = spec["layer"][1]["data"]["values"] if len(spec["layer"]) > 1 else []
    assert [(gap["x"], gap["label"]) for gap in gaps] == [
        (note.x, note.text.replace("<br>", " ")) for note in figure.layout.annotations
    ]


def test_span_chart_keeps_user_text_as_text() -> None:
    bands: dict[str, list[tuple[int, cg.Span]]] = {"<b>x</b>": [(1, cg.Span("<d>", 0, 5))], "y": []}
    spec = span_chart("<d>", 500, gold=[cg.Span("<d>", 0, 10)], bands=bands)
    assert spec["title"]["text"] == "<d>"
    assert "<b>x</b> · #1" in spec["layer"][0]["encoding"]["y"]["sort"]
    # Vega reads a field name with "." or "[" as a path: user text is never a field name.
    fields = {channel.get("field") for channel in spec["layer"][0]["encoding"].values() if isinstance(channel, dict)}
    assert fields == {"row", "x", "x2", "kind"}


def test_waste_split_chart_holds_the_counts_of_waste_split_plot() -> None:
    item = cg.EvalItem(id="q", question="?", gold=(cg.GoldSpan(GOLD[0]),))
    chunks = [cg.Chunk("c1", cg.Span("d", 0, 150), ""), cg.Chunk("c2", cg.Span("d", 120, 300), "")]
    wastes = {"a": measure_waste(item, chunks), "b": measure_waste(item, chunks[:1])}
    bars = waste_split_chart(wastes)["data"]["values"]
    figure = waste_split_plot(wastes)
    assert {(bar["config"], bar["kind"]): bar["characters"] for bar in bars} == {
        (config, trace.name): value for trace in figure.data for config, value in zip("ab", trace.x, strict=True)
    }
    assert {(bar["config"], bar["kind"]): bar["characters"] for bar in bars if bar["config"] == "b"} == {
        ("b", "gold, retrieved"): 50,
        ("b", "not gold"): 100,
        ("b", "retrieved again"): 0,
        ("b", "gold, missed"): 50,
    }


def cells(spec: dict[str, Any], row: str, column: str, value: str) -> dict[tuple[str, str], Any]:
    return {(cell[row], cell[column]): cell[value] for cell in spec["data"]["values"]}


def test_rank_chart_holds_the_coverage_of_rank_heatmap() -> None:
    table = retrieved_table(ITEMS, RUN, CHUNKS, 3)
    spec = rank_chart(table, 3, config="<i>a</i>")
    figure = rank_heatmap(table, 3)
    z = np.asarray(figure.data[0].z, dtype=float)
    expected = {
        (question, f"#{rank}"): None if np.isnan(z[i, j]) else z[i, j]
        for i, question in enumerate(["q1", "q2"])
        for j, rank in enumerate([1, 2, 3])
    }
    assert cells(spec, "question", "rank", "share") == expected
    # q1: c2 holds 80 of 100 gold characters, c1 holds 50.
    assert cells(spec, "question", "rank", "share")[("q1", "#1")] == 0.8
    assert cells(spec, "question", "rank", "chunk")[("q1", "#2")] == "c1: <script>alert(1)</script>"
    assert cells(spec, "question", "rank", "chunk")[("q1", "#3")] == "nothing retrieved"
    assert spec["title"]["text"].endswith("(<i>a</i>)")


def test_configuration_and_characters_charts_hold_the_table() -> None:
    table = waste_frame()
    shares = coverage_by_configuration(table)
    best = coverage_by_configuration(table, value="best_chunk_coverage")
    spec = configuration_chart(shares, 2, best_chunk=best)
    figure = configuration_heatmap(shares, 2, best_chunk=best)
    assert cells(spec, "config", "question", "share") == {
        (config, question): np.asarray(figure.data[0].z)[i][j]
        for i, config in enumerate(["a", "b"])
        for j, question in enumerate(["q1", "q2"])
    }
    assert cells(spec, "config", "question", "best")[("a", "q1")] == 0.8
    boxes = characters_chart(table)["data"]["values"]
    plotted = characters_plot(table)
    for trace in plotted.data:
        assert [point["characters"] for point in boxes if point["measure"] == trace.name] == list(trace.y)
    assert [(point["config"], point["question"]) for point in boxes[:4]] == [
        ("a", "q1"),
        ("a", "q2"),
        ("b", "q1"),
        ("b", "q2"),
    ]


def test_precision_recall_chart_places_each_configuration() -> None:
    summary = SUMMARY
    points = precision_recall_chart(summary, 5)["data"]["values"]
    figure = precision_recall_plot(summary, 5)
    assert [(p["recall"], p["precision"]) for p in points] == [(t.x[0], t.y[0]) for t in figure.data]
    assert [p["config"] for p in points] == ["big<chunks>", "small"]
    with pytest.raises(cg.ContextGridError, match="recall@3"):
        precision_recall_chart(summary, 3)


def test_every_chart_is_json() -> None:
    table = waste_frame()
    specs = [
        span_chart("d", 1000, gold=GOLD, bands=BANDS),
        waste_split_chart({"a": measure_waste(ITEMS[0], CHUNKS[:2])}),
        rank_chart(retrieved_table(ITEMS, RUN, CHUNKS, 2), 2),
        configuration_chart(coverage_by_configuration(table), 2),
        characters_chart(table),
    ]
    for spec in specs:
        assert json.loads(json.dumps(spec, allow_nan=False)) == spec
