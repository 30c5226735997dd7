"""Every figure drawn as a person sees it: as a PNG by kaleido on Debian's Chromium (written to the test's
temporary folder; docs/refresh_images.py draws the docs' images the same way), and as its HTML page in Chromium,
where every piece of text (tick and row labels, legend, title) must lie inside the figure, uncut.
"""

from __future__ import annotations

import itertools
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browsing import CHROMIUM
from playwright.sync_api import Page, expect
from sample_figures import every

from contextgrid.render.export import figure_html, figure_png

WIDTH = 1000


@pytest.fixture(scope="module")
def figures() -> dict[str, Any]:
    return every()


@pytest.fixture(scope="module")
def kaleido_server() -> Iterator[None]:
    """One Chromium (Debian's, found on the PATH) for every PNG of this module."""
    import kaleido  # type: ignore[import-untyped]

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: tests/run.sh installs Debian's chromium package when run as root")
    kaleido.start_sync_server(silence_warnings=True)
    yield
    kaleido.stop_sync_server(silence_warnings=True)


@pytest.mark.filterwarnings("ignore:The kopts argument is ignored")
def test_every_figure_renders_to_a_png_of_its_own_height(
    figures: dict[str, Any], kaleido_server: None, tmp_path: Path
) -> None:
    for name, figure in figures.items():
        data = figure_png(figure, width=WIDTH)
        assert data[:8] == b"\x89PNG\r\n\x1a\n", name
        assert struct.unpack(">II", data[16:24]) == (WIDTH, figure.layout.height), name
        (tmp_path / f"{name}.png").write_bytes(data)  # for a person to look at


# Every text of the figure's SVG that shows something, with its box and the figure's; a label that automargins
# failed to make room for sticks out of the figure (or is hidden under the plot, left of x = 0).
_TEXT_BOXES = """() => {
    const figure = document.querySelector('.plot-container .svg-container').getBoundingClientRect();
    const texts = [...document.querySelectorAll('.main-svg text')].filter(
        (t) => t.textContent.trim() && getComputedStyle(t).display !== 'none' && t.getAttribute('opacity') !== '0'
    );
    return {
        figure: [figure.left, figure.top, figure.right, figure.bottom],
        texts: texts.map((t) => {
            const box = t.getBoundingClientRect();
            return [t.textContent, box.left, box.top, box.right, box.bottom];
        }),
    };
}"""


def test_no_label_of_any_figure_is_cut(figures: dict[str, Any], page: Page, tmp_path: Path) -> None:
    page.set_viewport_size({"width": WIDTH + 40, "height": 1000})
    for name, figure in figures.items():
        sized = figure.to_dict()
        sized["layout"]["width"] = WIDTH
        file = tmp_path / f"{name}.html"
        file.write_text(figure_html(type(figure)(sized), name=name), encoding="utf-8")
        page.goto(file.as_uri())
        expect(page.locator(".main-svg").first).to_be_visible()
        # Drawn once plotly has laid out every axis: the last layer it adds is the hover layer.
        expect(page.locator(".hoverlayer")).to_have_count(1)
        boxes = page.evaluate(_TEXT_BOXES)
        left, top, right, bottom = boxes["figure"]
        cut = [
            text
            for text, x0, y0, x1, y1 in boxes["texts"]
            if x0 < left - 1 or y0 < top - 1 or x1 > right + 1 or y1 > bottom + 1
        ]
        assert not cut, (name, cut[:5])
        # Every configuration name in full on the axes that list them.
        rows = [text for text, *_ in boxes["texts"]]
        for trace in figure.data:
            labels = [label for label in (trace.y if trace.y is not None else ()) if isinstance(label, str)]
            shown = {label.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&") for label in labels}
            assert shown <= set(rows), (name, sorted(shown - set(rows))[:3])


# The span map's offsets under the axis, its folded stretches' labels and the plot they must stay off.
_SPAN_LABELS = """() => {
    const box = (element) => { const b = element.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
    return {
        plot: box(document.querySelector('.nsewdrag')),
        ticks: [...document.querySelectorAll('.xtick text')].map((t) => [t.textContent, ...box(t)]),
        gaps: [...document.querySelectorAll('.annotation-text')].map((t) => [t.textContent, ...box(t)]),
    };
}"""


def _meet(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("width", [WIDTH, 600])
@pytest.mark.parametrize("name", ["span-map", "big-span-map"])
def test_span_map_labels_overlap_nothing(
    figures: dict[str, Any], page: Page, tmp_path: Path, name: str, width: int
) -> None:
    page.set_viewport_size({"width": width + 40, "height": 1000})
    sized = figures[name].to_dict()
    sized["layout"]["width"] = width
    file = tmp_path / f"{name}.html"
    file.write_text(figure_html(type(figures[name])(sized), name=name), encoding="utf-8")
    page.goto(file.as_uri())
    expect(page.locator(".hoverlayer")).to_have_count(1)
    found = page.evaluate(_SPAN_LABELS)
    ticks = [box for _, *box in found["ticks"]]
    assert len(ticks) >= 2
    for first, second in itertools.combinations(ticks, 2):
        assert not _meet(first, second), found["ticks"]
    gaps = [box for _, *box in found["gaps"]]
    assert gaps
    for box in gaps:
        assert box[3] <= found["plot"][1] + 1, (found["gaps"], found["plot"])
    for first, second in itertools.combinations(gaps, 2):
        assert not _meet(first, second), found["gaps"]


# Each legend marker's box: a marker sized by a count in the plot must not be drawn as small in the legend.
_LEGEND_MARKERS = """() => [...document.querySelectorAll('.legend .legendpoints path.scatterpts')].map((p) => {
    const box = p.getBoundingClientRect();
    return [p.closest('.traces').textContent, box.width, box.height];
})"""


def test_every_legend_marker_is_big_enough_to_see(figures: dict[str, Any], page: Page, tmp_path: Path) -> None:
    page.set_viewport_size({"width": WIDTH + 40, "height": 1000})
    seen = 0
    for name, figure in figures.items():
        file = tmp_path / f"{name}.html"
        file.write_text(figure_html(figure, name=name), encoding="utf-8")
        page.goto(file.as_uri())
        expect(page.locator(".hoverlayer")).to_have_count(1)
        markers = page.evaluate(_LEGEND_MARKERS)
        small = [(entry, width, height) for entry, width, height in markers if min(width, height) < 6]
        assert not small, (name, small)
        seen += len(markers)
    assert seen
