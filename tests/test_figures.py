"""Every figure is the same whoever draws it, and holds at 50 configurations and 10,000 questions: one mark per
configuration, no taller than a screen."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from sample_figures import every, sample

from contextgrid.analysis.budget import budget_frontier
from contextgrid.render.budget_figures import budget_pair_plot, budget_plot
from contextgrid.render.style import SCREEN
from contextgrid.workspace.sample import SAMPLE

TESTS = Path(__file__).resolve().parent


def drawn(with_streamlit: bool) -> dict[str, str]:
    """Each figure's JSON, built in a fresh process that did or did not import streamlit first."""
    command = [sys.executable, str(TESTS / "sample_figures.py"), *(["--streamlit"] if with_streamlit else [])]
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=TESTS, timeout=300)
    figures: dict[str, str] = json.loads(done.stdout)
    return figures


def test_every_figure_is_identical_with_and_without_streamlit_imported() -> None:
    plain, streamlit = drawn(False), drawn(True)
    assert list(plain) == list(streamlit)
    for name in plain:
        assert plain[name] == streamlit[name], name
    # And no placeholder colour of Streamlit's template (#000001, ...) anywhere.
    assert "#00000" not in "".join(plain.values()).replace("#000000", "")


@pytest.fixture(scope="module")
def figures() -> dict[str, Any]:
    return every()


def configuration_marks(figure: Any) -> list[tuple[str, str]]:
    """(colour, symbol) of each trace that draws a configuration (legend-only key traces left out)."""
    return [
        (trace.marker.color, trace.marker.symbol)
        for trace in figure.data
        if trace.type == "scatter" and list(trace.x) != [None]
    ]


@pytest.mark.parametrize(
    ("name", "configurations"),
    [("curves", 10), ("precision-recall", 10), ("big-curves", 50), ("big-precision-recall", 50)],
)
def test_each_configuration_gets_its_own_mark(figures: dict[str, Any], name: str, configurations: int) -> None:
    marks = configuration_marks(figures[name])
    assert len(marks) == configurations
    assert len(set(marks)) == configurations


def test_fifty_configurations_are_marked_by_their_parameters(figures: dict[str, Any]) -> None:
    figure = figures["big-curves"]
    lines = [trace for trace in figure.data if list(trace.x) != [None]]
    # Colour is the retriever: five retrievers, five colours, each the same for all of its ten configurations.
    colours = {trace.name.split("-")[0]: set() for trace in lines}
    for trace in lines:
        colours[trace.name.split("-")[0]].add(trace.marker.color)
    assert all(len(found) == 1 for found in colours.values())
    assert len({next(iter(found)) for found in colours.values()}) == 5
    # The legend names the parameters (5 retrievers, 10 chunker and size pairs), not fifty configurations.
    key = [trace.name for trace in figure.data if list(trace.x) == [None]]
    assert len(key) == 15
    assert "bm25" in key
    assert not any(trace.showlegend for trace in lines)


def test_no_figure_is_taller_than_a_screen(figures: dict[str, Any]) -> None:
    for name, figure in figures.items():
        assert figure.layout.height <= SCREEN, name


def test_many_questions_are_aggregated_not_drawn_one_by_one(figures: dict[str, Any]) -> None:
    [by_configuration] = figures["big-coverage-by-configuration"].data
    assert len(by_configuration.x) == 6  # coverage bins, whatever the number of questions
    assert sum(int(text) for row in by_configuration.text for text in row if text) == 50 * 10_000
    [by_rank] = figures["big-coverage-by-rank"].data
    assert len(by_rank.y) == 30
    assert "9,970 more not drawn" in " ".join(
        re.sub("<[^>]+>", " ", figures["big-coverage-by-rank"].layout.title.text).split()
    )


@pytest.mark.parametrize("name", ["intervals", "big-intervals"])
def test_every_interval_ends_inside_the_plot(figures: dict[str, Any], name: str) -> None:
    figure = figures[name]
    low, high = figure.layout.xaxis.range
    ends = [x for trace in figure.data if trace.mode == "lines" for x in trace.x if x is not None]
    points = [x for trace in figure.data if trace.mode == "markers" for x in trace.x]
    assert ends
    assert points
    drawn = [*ends, *points, 0.0]
    margin = 0.04 * (max(drawn) - min(drawn))
    assert low <= min(drawn) - margin
    assert max(drawn) + margin <= high


HOSTILE = '<b>x</b><a href="http://e">y</a> & co'
"""A configuration name that plotly would draw bold and as a link if it were not escaped."""
SHOWN = '&lt;b&gt;x&lt;/b&gt;&lt;a href="http://e"&gt;y&lt;/a&gt; &amp; co'
"""How it must reach plotly: ``&``, ``<`` and ``>`` escaped, quote marks as they are (plotly reads no ``&quot;``)."""
DOCUMENT = "<b>returns</b>&policy.md"
"""A document id (so chunk ids too) that plotly would draw bold."""


def strings(value: Any) -> list[str]:
    """Every string in ``value``, a figure's JSON or a part of it."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in strings(item)]
    if isinstance(value, list | tuple):
        return [text for item in value for text in strings(item)]
    return []


def drawn_strings(figure: Any) -> list[str]:
    """Every string plotly may draw as its HTML: all of the layout and the traces, a trace's ``customdata`` only
    where its templates show it (``%{customdata}``); otherwise it is data a click hands back, never drawn."""
    spec = figure.to_plotly_json()
    texts = strings(spec["layout"])
    for trace in spec["data"]:
        shows_data = any(
            "customdata" in text for key in ("hovertemplate", "texttemplate") for text in strings(trace.get(key))
        )
        texts += strings({key: value for key, value in trace.items() if key != "customdata" or shows_data})
    return texts


@pytest.fixture(scope="module")
def hostile_figures(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The sample's figures with its first configuration named :data:`HOSTILE`, its retriever too, and one
    document (with its chunks) called :data:`DOCUMENT`."""
    root = tmp_path_factory.mktemp("hostile") / "workspace"
    shutil.copytree(SAMPLE, root)
    manifest = (root / "contextgrid.toml").read_text()
    quoted = json.dumps(HOSTILE)  # a TOML basic string is written as a JSON one
    manifest = manifest.replace('name = "bm25-recursive-200-0"', f"name = {quoted}", 1)
    manifest = manifest.replace('retriever = "bm25"', f"retriever = {quoted}", 1)
    (root / "contextgrid.toml").write_text(manifest)
    for path in root.rglob("*"):
        if path.suffix in (".jsonl", ".trec"):  # no whitespace or JSON escape in it: it fits either format as it is
            path.write_text(path.read_text().replace("returns-policy.md", DOCUMENT))
    return sample(root)


def test_no_figure_draws_html_from_a_configuration_name_or_a_document_id(hostile_figures: dict[str, Any]) -> None:
    names_shown, documents_shown = [], []
    for name, figure in hostile_figures.items():
        texts = drawn_strings(figure)
        raw = [text for text in texts if "<b>x" in text or "<a href" in text or "<b>returns" in text]
        assert raw == [], f"{name} holds user text unescaped: {raw[:3]}"
        assert not any("&amp;lt;" in text or "&amp;amp;" in text for text in texts), f"{name} escapes twice"
        if any(SHOWN in text for text in texts):
            names_shown.append(name)
        if any("&lt;b&gt;returns&lt;/b&gt;&amp;policy.md" in text for text in texts):
            documents_shown.append(name)
    # Every figure names configurations, and names this one, escaped (the span map, waste split and rank heatmap
    # are drawn for the first two configurations, the first of them this one).
    assert sorted(names_shown) == sorted(hostile_figures)
    # The span map is of that document (the first gold document of its question); the rank heatmap's hover
    # names its chunks.
    assert documents_shown == ["span-map", "coverage-by-rank"]


def test_the_budget_figures_escape_names_once() -> None:
    index = pd.MultiIndex.from_product([[HOSTILE, "plain"], [100, 1000]], names=["config", "budget"])
    means = pd.DataFrame(
        {"evidence_recall": [0.1, 0.5, 0.3, 0.4], "characters": [90.0, 800, 95, 900], "chunks": [1, 2, 1, 3]},
        index=index,
    )
    for figure in (
        budget_plot(means, budget_frontier(means)),
        budget_pair_plot(means, HOSTILE, "plain", parting=100),
    ):
        texts = drawn_strings(figure)
        assert not any("<b>x" in text or "<a href" in text or "&amp;lt;" in text for text in texts)
        assert any(SHOWN in text for text in texts)
