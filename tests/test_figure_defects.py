"""Each defect seen in the figures, pinned by what the figure holds (tests/test_browser_lint.py checks how each
is laid out in Chromium): quote marks drawn as written, ticks of small percentages, configurations on one point,
a span map's first gold row and its folded stretches, the pivot's averages, the camera button's PNG."""

from __future__ import annotations

import math
import re

import pandas as pd
import plotly.graph_objects as go
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextgrid.data.records import Span
from contextgrid.render.export import image_config
from contextgrid.render.grid_charts import grid_heatmap, pivot_heatmap
from contextgrid.render.style import log_ticks, plot_text
from contextgrid.render.waste_figures import precision_recall_plot, span_map


def _summary(recall: list[float], precision: list[float]) -> pd.DataFrame:
    names = [f"c{i}" for i in range(len(recall))]
    return pd.DataFrame(
        {
            "recall@5": recall,
            "character_precision": precision,
            "share_gold": precision,
            "retrieved_total": [1000.0] * len(recall),
        },
        index=pd.Index(names, name="config"),
    )


def test_a_quote_mark_is_not_escaped_for_plotly_which_would_show_the_entity() -> None:
    assert plot_text('say "hi" & <b>') == 'say "hi" &amp; &lt;b&gt;'
    figure = grid_heatmap(pd.DataFrame({"recall@5": [0.5]}, index=['the "best"']))
    assert figure.data[0].y == ('the "best"',)
    assert "&quot;" not in figure.to_json()


def test_small_precisions_get_ticks_that_say_their_decimals() -> None:
    """ ".0%" wrote the ticks of 0–3% as 0%, 1%, 1%, 2%, 2%, 3%; the format now keeps up to two decimals."""
    figure = precision_recall_plot(_summary([0.2, 0.5, 0.7], [0.001, 0.012, 0.031]), 5)
    assert figure.layout.yaxis.tickformat == ".2~%"
    # How plotly draws them at the page's width is tests/test_browser_lint.py's "precision-recall-narrow".


def test_configurations_on_one_point_are_drawn_as_rings_one_inside_the_other() -> None:
    figure = precision_recall_plot(_summary([0.5, 0.5, 0.5, 0.5, 0.9], [0.02, 0.02, 0.02, 0.02, 0.2]), 5)
    sizes = {trace.name: trace.marker.size for trace in figure.data}
    on_one = [sizes[f"c{i}"] for i in range(4)]
    assert len(set(on_one)) == 4  # each mark of its own size
    drawn = [trace.marker.size for trace in figure.data if trace.name in {"c0", "c1", "c2", "c3"}]
    assert drawn == sorted(drawn, reverse=True)  # the smaller drawn over the bigger
    assert sizes["c4"] == max(on_one)  # a point alone keeps the full size
    # The legend keeps the configurations' order, whatever the drawing order.
    assert [trace.legendrank for trace in sorted(figure.data, key=lambda t: t.name)] == [0, 1, 2, 3, 4]


def test_the_legend_of_recall_against_waste_sits_below_the_plot() -> None:
    figure = precision_recall_plot(_summary([0.1 * i for i in range(10)], [0.01 * i for i in range(10)]), 5)
    assert figure.layout.legend.orientation == "h"


def test_a_span_map_holds_every_row_even_an_empty_first_gold_row() -> None:
    bands = {name: [(1, Span("d", 100, 300))] for name in ("first", "second")}
    figure = span_map("d", 5_000, gold=[Span("other", 0, 10)], bands=bands)
    rows = list(figure.layout.yaxis.categoryarray)
    assert "first · gold" in rows
    low, high = figure.layout.yaxis.range
    assert low <= -0.5
    assert high >= len(rows) - 0.5


def test_a_folded_stretch_is_labelled_with_its_unit_not_a_bare_number() -> None:
    figure = span_map("d", 60_000, gold=[Span("d", 30_000, 30_100)], bands={"a": [(1, Span("d", 30_000, 30_500))]})
    labels = [annotation.text for annotation in figure.layout.annotations]
    assert labels
    assert all(re.fullmatch(r"⋯( [\d,]+ characters)? ⋯|⋯", label) for label in labels), labels
    ticks = set(figure.layout.xaxis.ticktext)
    assert not {label.strip("⋯ ") for label in labels} & ticks


def test_the_pivot_marks_each_averaged_cell_and_says_what_was_averaged() -> None:
    pivot = pd.DataFrame(
        [[0.25, 0.5]], index=pd.Index([500], name="size"), columns=pd.Index(["bm25", "lsa"], name="retriever")
    )
    counts = pd.DataFrame([[2, 1]], index=pivot.index, columns=pivot.columns)
    figure = pivot_heatmap(pivot, "ndcg@5", counts, averaged_over=["chunker", "overlap"])
    assert figure.data[0].text == (["0.250<br>mean of 2", "0.500"],)
    assert "differ in chunker, overlap" in figure.layout.title.text


def test_the_camera_button_saves_a_slide_wide_png() -> None:
    options = image_config("name")["toImageButtonOptions"]
    assert options["width"] >= 1000
    assert options["scale"] >= 2
    assert options["filename"] == "name"


@given(st.floats(1, 1e6), st.floats(1.5, 1e4))
def test_log_ticks_are_distinct_inside_the_range_and_written_in_full(low: float, ratio: float) -> None:
    high = low * ratio
    ticks = log_ticks(low, high)
    values, texts = ticks["tickvals"], ticks["ticktext"]
    assert len(set(texts)) == len(texts) == len(values)
    assert values == sorted(values)
    assert all(float(text.replace(",", "")) == value for text, value in zip(texts, values, strict=True))
    inside = [value for value in values if low <= value <= high]
    assert inside == values or len(values) == 1


def test_log_ticks_by_hand() -> None:
    assert log_ticks(90, 2_500)["ticktext"] == ["100", "200", "500", "1,000", "2,000"]
    assert log_ticks(10, 10_000_000)["ticktext"] == [
        "10",
        "100",
        "1,000",
        "10,000",
        "100,000",
        "1,000,000",
        "10,000,000",
    ]


def test_plot_text_keeps_plotly_markup_out() -> None:
    figure = go.Figure(go.Bar(y=[plot_text("<b>x</b>")], x=[1]))
    assert figure.data[0].y == ("&lt;b&gt;x&lt;/b&gt;",)


def test_the_budget_at_which_two_configurations_part_is_annotated_in_log_units() -> None:
    """On a log axis plotly places an annotation at the log10 of its x: given the budget itself, the label
    stretched the axis to 10^150 and squeezed both curves into its left edge."""
    from contextgrid.render.budget_figures import budget_pair_plot

    index = pd.MultiIndex.from_product([["a", "b"], [150, 1_000, 10_000]], names=["config", "budget"])
    means = pd.DataFrame(
        {"evidence_recall": [0.1, 0.5, 0.9, 0.2, 0.4, 0.8], "characters": [100.0] * 6, "chunks": [1] * 6}, index=index
    )
    figure = budget_pair_plot(means, "a", "b", parting=150)
    [note] = figure.layout.annotations
    assert note.x == pytest.approx(math.log10(150))
    assert "150" in note.text
    assert figure.layout.shapes[0].x0 == 150  # a shape is in the axis's own units


def test_the_interval_plot_says_one_comparison_in_the_singular() -> None:
    from contextgrid.render.intervals import interval_plot
    from contextgrid.significance import compare_configurations

    scores = {"a": {"q1": 0.0, "q2": 1.0, "q3": 0.5}, "b": {"q1": 1.0, "q2": 1.0, "q3": 0.5}}
    one = interval_plot(compare_configurations(scores, baseline="a", metric="recall@5", correction="holm"))
    assert "holm-corrected for 1 comparison," in one.layout.title.text
