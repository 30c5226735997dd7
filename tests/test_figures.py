"""Every figure is the same whoever draws it, and holds at 50 configurations and 10,000 questions: one mark per
configuration, no taller than a screen."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sample_figures import every

from contextgrid.render.style import SCREEN

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
