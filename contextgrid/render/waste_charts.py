"""The figures of :mod:`contextgrid.render.waste_figures` as Vega-Lite specifications, for the dashboard to draw.

Each takes what its plotly namesake takes and shows the same numbers: the
plotly figures stay the downloads (HTML, PNG) and the report's, these are what
a page draws (see :mod:`contextgrid.render.vega` for why). Draw one with
``st.vega_lite_chart(spec=...)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from contextgrid.core.errors import UnknownScoreError
from contextgrid.data.records import Span
from contextgrid.render.document import SPAN_CLASSES
from contextgrid.render.span_bars import span_bars
from contextgrid.render.vega import Spec, chart, number
from contextgrid.render.waste_figures import COLOURS, LEGEND

if TYPE_CHECKING:
    import pandas as pd

    from contextgrid.evidence.waste import Waste

__all__ = [
    "characters_chart",
    "configuration_chart",
    "precision_recall_chart",
    "rank_chart",
    "span_chart",
    "waste_split_chart",
]

_SHARE = {"scheme": "viridis", "domain": [0, 1]}
# A fixed height is the plot's own: title, axes and legend come on top, not out of it (Streamlit's default
# autosize, "fit", would squeeze the plot into what they leave).
_FIT_WIDTH = {"type": "fit-x", "contains": "padding"}
_NAMED_COLUMNS = 40
_LEGEND_BELOW = {"orient": "bottom", "title": None}
# Every label in full: a heatmap with every other row named cannot be read.
_AXIS = {"labelOverlap": False, "labelLimit": 300}


def _rows(names: Sequence[object]) -> dict[str, Any]:
    """A y channel of configuration names, in the given order, each in full."""
    return {"field": "config", "type": "nominal", "sort": [str(name) for name in names], "title": None, "axis": _AXIS}


def _classes(kinds: Sequence[str] = tuple(SPAN_CLASSES)) -> dict[str, Any]:
    """The colour channel of the waste classes, in the legend's words and the shared colours."""
    return {
        "field": "kind",
        "type": "nominal",
        "scale": {"domain": [LEGEND[kind] for kind in kinds], "range": [COLOURS[kind] for kind in kinds]},
        # Two to a row: four in one would run out of a narrow column.
        "legend": {**_LEGEND_BELOW, "columns": 2},
    }


def span_chart(
    doc_id: str,
    length: int,
    *,
    gold: Sequence[Span],
    bands: Mapping[str, Sequence[tuple[int, Span]]],
    margin: int = 300,
    expanded: bool = False,
) -> Spec:
    """:func:`contextgrid.render.waste_figures.span_map` as Vega-Lite: the same bars, rows and shrunk stretches.

    Examples
    --------
    >>> from contextgrid.data.records import Span
    >>> from contextgrid.render.waste_charts import span_chart
    >>> spec = span_chart("d", 100, gold=[Span("d", 10, 30)], bands={"bm25": [(1, Span("d", 20, 60))]})
    >>> for bar in spec["data"]["values"]:
    ...     print(bar["row"], bar["kind"], bar["start"], bar["end"])
    gold gold, retrieved 20 30
    #1 gold, retrieved 20 30
    gold gold, missed 10 20
    #1 not gold 30 60
    """
    drawn = span_bars(doc_id, length, gold, bands, margin, expanded, str)
    axis = drawn.axis
    bars = [
        {
            "row": row,
            "kind": LEGEND[kind],
            "x": axis(span.start),
            "x2": axis(span.end),
            "start": span.start,
            "end": span.end,
            "what": what,
        }
        for kind, row, span, what in drawn.bars
    ]
    ticks = [axis(offset) for offset in drawn.ticks]
    # Vega-Lite labels an axis with its own values: name each tick by the real offset it stands for.
    labels = [f"{offset:,}" for offset in drawn.ticks]
    step = 26
    x_axis = {
        "values": ticks,
        "labelExpr": f"{labels}[indexof({ticks}, datum.value)]",
        "labelAngle": -45,
        "labelFontSize": 9,
        "labelOverlap": False,
        "title": drawn.axis_title,
    }
    layers: list[Spec] = [
        {
            "mark": {"type": "bar"},
            "encoding": {
                "y": {"field": "row", "type": "nominal", "sort": drawn.rows, "title": None, "axis": _AXIS},
                "x": {
                    "field": "x",
                    "type": "quantitative",
                    "scale": {"domain": [0, float(axis.shown[-1])], "nice": False},
                    "axis": x_axis,
                },
                "x2": {"field": "x2"},
                "color": _classes(),
                "tooltip": [
                    {"field": "what", "type": "nominal", "title": "what"},
                    {"field": "start", "type": "quantitative", "format": ",", "title": "from character"},
                    {"field": "end", "type": "quantitative", "format": ",", "title": "to character"},
                ],
            },
        }
    ]
    if drawn.gaps:
        layers.append(
            {
                # Inside the plot: a hidden stretch holds no span, so its label covers no bar.
                "data": {"values": [{"x": x, "label": f"⋯ {hidden:,} ⋯"} for x, hidden in drawn.gaps]},
                "mark": {"type": "text", "fontSize": 9, "color": "#888", "angle": 270},
                "encoding": {
                    "x": {"field": "x", "type": "quantitative"},
                    "y": {"value": step * len(drawn.rows) / 2},
                    "text": {"field": "label"},
                },
            }
        )
    return chart(
        {"text": doc_id, "subtitle": f"what came back, over the document ({length:,} characters)"},
        bars,
        width="container",
        height={"step": step},
        layer=layers,
    )


def waste_split_chart(wastes: Mapping[str, Waste], *, title: str = "Where the retrieved characters went") -> Spec:
    """:func:`contextgrid.render.waste_figures.waste_split_plot` as Vega-Lite: per configuration one stacked bar.

    Examples
    --------
    >>> from contextgrid.data.records import Chunk, EvalItem, GoldSpan, Span
    >>> from contextgrid.evidence.waste import measure_waste
    >>> from contextgrid.render.waste_charts import waste_split_chart
    >>> item = EvalItem("q1", "?", gold=(GoldSpan(Span("d", 0, 10)),))
    >>> waste = measure_waste(item, [Chunk("c1", Span("d", 5, 25), "x" * 20)])
    >>> for bar in waste_split_chart({"bm25": waste})["data"]["values"]:
    ...     print(bar["config"], bar["kind"], bar["characters"])
    bm25 gold, retrieved 5
    bm25 not gold 15
    bm25 retrieved again 0
    bm25 gold, missed 5
    """
    parts = (("found", "gold_retrieved"), ("waste", "not_gold"), ("repeat", "repeated"), ("missed", "missed"))
    bars = [
        {"config": str(name), "kind": LEGEND[kind], "characters": int(getattr(waste, attribute)), "order": order}
        for name, waste in wastes.items()
        for order, (kind, attribute) in enumerate(parts)
    ]
    return chart(
        title,
        bars,
        width="container",
        height={"step": 40},
        mark={"type": "bar"},
        encoding={
            "y": _rows(list(wastes)),
            "x": {"field": "characters", "type": "quantitative", "stack": "zero", "title": "characters"},
            "color": _classes([kind for kind, _ in parts]),
            "order": {"field": "order"},
            "tooltip": [
                {"field": "config", "type": "nominal"},
                {"field": "kind", "type": "nominal", "title": "part"},
                {"field": "characters", "type": "quantitative", "format": ","},
            ],
        },
    )


def rank_chart(retrieved: pd.DataFrame, k: int, *, questions: Sequence[str] | None = None, config: str = "") -> Spec:
    """:func:`contextgrid.render.waste_figures.rank_heatmap` as Vega-Lite: question x rank, the share of the gold each
    chunk holds; the tooltip names the chunk and shows an excerpt."""
    from contextgrid.evidence.run_waste import coverage_by_rank

    matrix = coverage_by_rank(retrieved, k, questions=questions)
    lookup = {(row.question, row.rank): row for row in retrieved.itertuples(index=False)}
    values = matrix.to_numpy(dtype=float)
    cells = [
        {
            "question": str(question),
            "rank": f"#{rank}",
            "share": number(values[i, j]),
            "chunk": (
                f"{lookup[(question, rank)].chunk_id}: {lookup[(question, rank)].excerpt}"
                if (question, rank) in lookup
                else "nothing retrieved"
            ),
        }
        for i, question in enumerate(matrix.index)
        for j, rank in enumerate(matrix.columns)
    ]
    suffix = f" ({config})" if config else ""
    return chart(
        # Short titles: Vega cuts a title wider than its chart, and these share a row with another.
        {"text": f"Gold held at each rank{suffix}", "subtitle": "share of each question's gold evidence per chunk"},
        cells,
        width="container",
        height={"step": 18},
        mark={"type": "rect"},
        encoding={
            "x": {"field": "rank", "type": "ordinal", "sort": [f"#{rank}" for rank in matrix.columns], "title": "rank"},
            "y": {"field": "question", "type": "nominal", "sort": [str(q) for q in matrix.index], "axis": _AXIS},
            "color": {"field": "share", "type": "quantitative", "scale": _SHARE, "title": "share of gold"},
            "tooltip": [
                {"field": "question", "type": "nominal"},
                {"field": "rank", "type": "ordinal"},
                {"field": "share", "type": "quantitative", "format": ".0%", "title": "share of the gold"},
                {"field": "chunk", "type": "nominal"},
            ],
        },
    )


def configuration_chart(matrix: pd.DataFrame, k: int, *, best_chunk: pd.DataFrame | None = None) -> Spec:
    """:func:`contextgrid.render.waste_figures.configuration_heatmap` as Vega-Lite: configuration x question, the share
    of the gold the top ``k`` held together (and, in the tooltip, the best single chunk's share)."""
    values = matrix.to_numpy(dtype=float)
    best = (
        best_chunk.reindex_like(matrix).to_numpy(dtype=float)
        if best_chunk is not None
        else np.full_like(values, np.nan)
    )
    cells = [
        {
            "config": str(config),
            "question": str(question),
            "share": number(values[i, j]),
            "best": number(best[i, j]),
        }
        for i, config in enumerate(matrix.index)
        for j, question in enumerate(matrix.columns)
    ]
    return chart(
        {
            "text": f"Gold in the top {k}, by configuration",
            "subtitle": f"share of each question's gold evidence the top {k} hold together",
        },
        cells,
        width="container",
        height={"step": 30},
        mark={"type": "rect"},
        encoding={
            "x": {
                "field": "question",
                "type": "nominal",
                "sort": [str(q) for q in matrix.columns],
                # Past a few dozen, question ids cannot be read side by side: the tooltip names each cell's.
                "axis": {**_AXIS, "labels": len(matrix.columns) <= _NAMED_COLUMNS},
                "title": f"question ({len(matrix.columns)})",
            },
            "y": _rows(list(matrix.index)),
            "color": {"field": "share", "type": "quantitative", "scale": _SHARE, "title": "share of gold"},
            "tooltip": [
                {"field": "config", "type": "nominal"},
                {"field": "question", "type": "nominal"},
                {"field": "share", "type": "quantitative", "format": ".0%", "title": f"top {k} hold"},
                {"field": "best", "type": "quantitative", "format": ".0%", "title": "best single chunk"},
            ],
        },
    )


def precision_recall_chart(summary: pd.DataFrame, k: int) -> Spec:
    """:func:`contextgrid.render.waste_figures.precision_recall_plot` as Vega-Lite: per configuration, mean character
    precision (y) against chunk-level ``recall@k`` (x)."""
    label = f"recall@{k}"
    if label not in summary.columns:
        raise UnknownScoreError(f"precision_recall_chart: the summary has no {label!r} column (is it at k={k}?)")
    points = [
        {
            "config": str(config),
            "recall": number(row[label]),
            "precision": number(row["character_precision"]),
            "share_gold": number(row["share_gold"]),
            "characters": number(row["retrieved_total"]),
        }
        for config, row in summary.iterrows()
    ]
    configs = [point["config"] for point in points]
    return chart(
        {"text": f"{label} against character precision", "subtitle": "how much of what came back is the answer"},
        points,
        width="container",
        height=360,
        autosize=_FIT_WIDTH,
        mark={"type": "circle", "size": 160},
        encoding={
            "x": {
                "field": "recall",
                "type": "quantitative",
                "scale": {"domain": [0, 1]},
                "title": f"{label} (chunk level)",
            },
            "y": {
                "field": "precision",
                "type": "quantitative",
                "scale": {"zero": True},
                "axis": {"format": ".0%"},
                "title": "mean character precision",
            },
            "color": {
                "field": "config",
                "type": "nominal",
                "sort": configs,
                "legend": {**_LEGEND_BELOW, "columns": 2, "labelLimit": 220},
            },
            "tooltip": [
                {"field": "config", "type": "nominal"},
                {"field": "recall", "type": "quantitative", "format": ".3f", "title": label},
                {"field": "precision", "type": "quantitative", "format": ".1%", "title": "mean character precision"},
                {"field": "share_gold", "type": "quantitative", "format": ".1%", "title": "gold share of all sent"},
                {"field": "characters", "type": "quantitative", "format": ",.0f", "title": "characters per question"},
            ],
        },
    )


def characters_chart(table: pd.DataFrame) -> Spec:
    """:func:`contextgrid.render.waste_figures.characters_plot` as Vega-Lite: characters retrieved per question, one
    box per configuration beside the gold's characters, every question a point."""
    measures = (
        ("retrieved_total", "characters retrieved (repeats included)", COLOURS["waste"]),
        ("gold_characters", "gold evidence characters", COLOURS["found"]),
    )
    configs = [str(config) for config in dict.fromkeys(table.index.get_level_values("config"))]
    configs_of_rows = [str(config) for config in table.index.get_level_values("config")]
    questions = [str(question) for question in table.index.get_level_values("question")]
    values = [
        {"config": config, "question": question, "measure": name, "characters": int(characters)}
        for column, name, _ in measures
        for config, question, characters in zip(configs_of_rows, questions, table[column].tolist(), strict=True)
    ]
    encoding = {
        "x": {"field": "config", "type": "nominal", "sort": configs, "title": None, "axis": _AXIS},
        "xOffset": {"field": "measure", "type": "nominal", "sort": [name for _, name, _ in measures]},
        "y": {"field": "characters", "type": "quantitative", "title": "characters"},
        "color": {
            "field": "measure",
            "type": "nominal",
            "scale": {"domain": [name for _, name, _ in measures], "range": [colour for _, _, colour in measures]},
            "legend": _LEGEND_BELOW,
        },
    }
    return chart(
        "Characters retrieved per question, by configuration",
        values,
        width="container",
        height=360,
        autosize=_FIT_WIDTH,
        layer=[
            {"mark": {"type": "boxplot", "extent": "min-max", "opacity": 0.5}, "encoding": encoding},
            {
                "mark": {"type": "point", "filled": True, "size": 25},
                "encoding": {
                    **encoding,
                    "tooltip": [
                        {"field": "config", "type": "nominal"},
                        {"field": "question", "type": "nominal"},
                        {"field": "measure", "type": "nominal"},
                        {"field": "characters", "type": "quantitative", "format": ","},
                    ],
                },
            },
        ],
    )
