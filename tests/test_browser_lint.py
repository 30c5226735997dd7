"""The visual lint: every figure the pages, the downloads and the report draw, on the sample and on 50 made-up
configurations, laid out by plotly.js in Chromium at the width it gets on a 1440-pixel screen and at the size of
its camera button's PNG. In each figure's SVG no two texts overlap (titles, subtitles, ticks, legend entries,
annotations, colour-bar labels), an axis's tick labels are distinct, no text is cut by the figure's edge, and a
legend beside the plot takes at most a third of the width. A failure names the figure and the texts.

One browser and one tab for every figure; plotly.js is written once beside the pages (the copy the plotly
package ships, nothing from a network).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from browsing import chromium
from playwright.sync_api import Page
from sample_figures import RETRIEVERS, big, sample

from contextgrid.analysis.budget import budget_frontier
from contextgrid.data.records import Span
from contextgrid.evidence.run_waste import coverage_by_configuration
from contextgrid.render.budget_figures import budget_pair_plot, budget_plot
from contextgrid.render.export import image_config
from contextgrid.render.report import build_report
from contextgrid.render.style import escaped
from contextgrid.render.waste_figures import configuration_heatmap, precision_recall_plot, span_map
from contextgrid.workspace.budget import budget_curves
from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.sample import SAMPLE
from contextgrid.workspace.waste import configuration_waste, workspace_waste

# The width each figure gets on a 1440-pixel screen (the dashboard's wide layout beside its sidebar): the
# Overview's and Compare's figures span the page, the waste page sets its figures in two columns (the span
# map in three fifths, the split of the characters in two).
FULL, HALF, THREE_FIFTHS, TWO_FIFTHS = 1050, 510, 620, 400
WIDTHS = {
    "span-map": THREE_FIFTHS,
    "waste-split": TWO_FIFTHS,
    "coverage-by-rank": HALF,
    "coverage-by-configuration": HALF,
    "precision-recall": HALF,
    "characters": HALF,
}


def page_width(name: str) -> int:
    """The width of figure ``name`` (``big-`` and a ``-case`` suffix aside) on the page."""
    base = name.removeprefix("big-")
    return next((width for key, width in WIDTHS.items() if base.startswith(key)), FULL)


def _budget_figures() -> dict[str, Any]:
    """The budget curves of the Overview, the Compare page and the report: the sample's, and 50 made-up
    configurations' with long names."""
    workspace = load_workspace(SAMPLE)
    means = budget_curves(workspace).means()
    params = workspace.params_by_config()
    a, b = workspace.names[:2]
    rng = np.random.default_rng(11)
    names = [
        f"{retriever}-recursive-separators-{size}-overlap-{size // 8}"
        for retriever in RETRIEVERS
        for size in (128, 256, 512, 1024, 2048, 96, 192, 384, 768, 1536)
    ]
    budgets = [250, 500, 1000, 2000, 4000, 8000]
    index = pd.MultiIndex.from_product([names, budgets], names=["config", "budget"])
    recall = np.sort(rng.random((len(names), len(budgets))), axis=1).ravel()
    characters = (np.array(budgets, dtype=float)[None, :] * rng.uniform(0.6, 1.0, (len(names), 1))).ravel()
    big_means = pd.DataFrame(
        {"evidence_recall": recall, "characters": characters, "chunks": characters / 300}, index=index
    )
    big_params = {name: {"retriever": name.split("-recursive")[0], "size": int(name.split("-")[-3])} for name in names}
    return {
        "budget": budget_plot(means, budget_frontier(means), params),
        "budget-pair": budget_pair_plot(means, a, b, parting=1000, params=params),
        "big-budget": budget_plot(big_means, budget_frontier(big_means), big_params),
        "big-budget-pair": budget_pair_plot(big_means, names[0], names[-1], parting=2000, params=big_params),
    }


def all_figures() -> dict[str, Any]:
    """Every figure the lint draws, by name."""
    return {**sample(), **big(), **_budget_figures(), **_edge_cases()}


@pytest.fixture(scope="module")
def figures() -> dict[str, Any]:
    return all_figures()


# Every text plotly drew that shows something (hover labels aside), grouped by where it sits, with its box.
_LINT = r"""(plot) => {
  const edge = plot.querySelector('.main-svg').getBoundingClientRect();
  const shown = (t) => {
    if (!t.textContent.trim() || t.closest('.hoverlayer')) return false;
    const b = t.getBoundingClientRect();
    for (let e = t; e && e !== plot; e = e.parentElement) {
      const s = getComputedStyle(e);
      const hidden = s.display === 'none' || s.visibility === 'hidden' || s.opacity === '0';
      if (hidden || e.getAttribute('opacity') === '0') return false;
    }
    return b.width > 0 && b.height > 0;
  };
  const texts = [...plot.querySelectorAll('text')].filter(shown);
  // Each text's own box turned as it is drawn (column labels at 45 degrees): its four corners on the screen.
  const corners = texts.map((t) => {
    const b = t.getBBox(), m = t.getScreenCTM();
    return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]].map(
      ([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
  });
  // Two convex boxes overlap by the least depth along their edges' normals (the separating axis theorem).
  const depth = (p, q) => {
    let least = Infinity;
    for (const poly of [p, q]) for (let i = 0; i < 4; i++) {
      const [x0, y0] = poly[i], [x1, y1] = poly[(i + 1) % 4];
      const len = Math.hypot(x1 - x0, y1 - y0) || 1, nx = (y0 - y1) / len, ny = (x1 - x0) / len;
      const on = (r) => r.map(([x, y]) => x * nx + y * ny);
      const a = on(p), b = on(q);
      least = Math.min(least, Math.min(Math.max(...a), Math.max(...b)) - Math.max(Math.min(...a), Math.min(...b)));
    }
    return least;
  };
  const problems = [];
  texts.forEach((t, i) => {
    const xs = corners[i].map((c) => c[0]), ys = corners[i].map((c) => c[1]);
    if (Math.min(...xs) < edge.left - 1 || Math.max(...xs) > edge.right + 1 ||
        Math.min(...ys) < edge.top - 1 || Math.max(...ys) > edge.bottom + 1)
      problems.push(['cut by the edge', t.textContent]);
    for (let j = i + 1; j < texts.length; j++)
      if (depth(corners[i], corners[j]) > 1) problems.push(['overlap', t.textContent, texts[j].textContent]);
  });
  plot.querySelectorAll('.xaxislayer-above, .yaxislayer-above, .colorbar .cbaxis').forEach((axis) => {
    const labels = [...axis.querySelectorAll('text')].filter(shown).map((t) => t.textContent);
    labels.filter((l, i) => labels.indexOf(l) !== i).forEach((l) => problems.push(['repeated tick', l]));
  });
  // Points of a scatter squeezed into a sliver of the x axis: something else (an annotation placed in the wrong
  // units) stretched the axis.
  const xs = (plot._fullData || []).filter((t) => t.type === 'scatter' && t.xaxis === 'x' && t.visible === true)
    .flatMap((t) => [...(t.x || [])]).filter((x) => typeof x === 'number' && isFinite(x));
  const axis = plot._fullLayout && plot._fullLayout.xaxis;
  if (xs.length > 1 && axis && axis.type !== 'category') {
    const at = (x) => (axis.type === 'log' ? Math.log10(x) : x);
    const drawn = xs.filter((x) => axis.type !== 'log' || x > 0).map(at);
    const span = Math.max(...drawn) - Math.min(...drawn), range = axis.range[1] - axis.range[0];
    if (span > 0 && span < 0.2 * Math.abs(range)) problems.push(['points squeezed', `x axis ${axis.range}`]);
  }
  const legend = plot.querySelector('.legend');
  const area = plot.querySelector('.nsewdrag');
  if (legend && area) {
    const l = legend.getBoundingClientRect(), p = area.getBoundingClientRect();
    const beside = l.left >= p.right - 2 && l.top < p.bottom && l.bottom > p.top;
    if (beside && l.width > edge.width / 3 + 1)
      problems.push(['legend beside the plot too wide', `${Math.round(l.width)} of ${Math.round(edge.width)} px`]);
  }
  return {texts: texts.length, problems: problems};
}"""


def _edge_cases() -> dict[str, Any]:
    """Figures of the cases the issue saw go wrong: a Gold coverage of the page's default two configurations,
    precisions of a few percent, four configurations on one point, a document with no gold drawn."""
    workspace = load_workspace(SAMPLE)
    names = list(workspace.names)
    waste = workspace_waste(workspace, 5)
    two = coverage_by_configuration(waste).loc[names[:2]]
    summary = configuration_waste(workspace, 5, table=waste)
    narrow = summary.assign(character_precision=np.linspace(0.001, 0.031, len(summary)))
    same = summary.iloc[:4].assign(character_precision=0.02, **{"recall@5": 0.5})
    params = workspace.params_by_config()
    spans = {name: [(1, Span("elsewhere.md", 0, 500)), (2, Span("elsewhere.md", 20_000, 20_500))] for name in names[:2]}
    return {
        "coverage-by-configuration-two": configuration_heatmap(two, 5),
        "precision-recall-narrow": precision_recall_plot(narrow, 5, params),
        "precision-recall-same-point": precision_recall_plot(same, 5, params),
        "span-map-no-gold": span_map("elsewhere.md", 40_000, gold=[Span("gold.md", 0, 10)], bands=spans),
    }


@pytest.fixture(scope="module")
def page() -> Iterator[Page]:
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        opened = context.new_page()
        opened.set_default_timeout(60_000)
        yield opened
        context.close()


def _draw(page: Page, folder: Path, name: str, figure: Any, width: int, height: int | None = None) -> dict[str, Any]:
    """``figure`` laid out by plotly.js at ``width`` (and ``height``) pixels; the lint's findings."""
    sized = figure.to_dict()
    sized["layout"]["width"] = width
    if height is not None:
        sized["layout"]["height"] = height
    file = folder / f"{name}-{width}.html"
    file.write_text(type(figure)(sized).to_html(include_plotlyjs="plotly.min.js", full_html=True), encoding="utf-8")
    page.set_viewport_size({"width": width + 40, "height": 1000})
    page.goto(file.as_uri())
    page.wait_for_selector(".hoverlayer", state="attached")  # the last layer plotly adds
    found: dict[str, Any] = page.locator(".js-plotly-plot").evaluate(_LINT)
    return found


def lint(page: Page, folder: Path, name: str, figure: Any, width: int, height: int | None = None) -> list[str]:
    """What the lint finds in ``figure`` drawn at ``width`` (and ``height``), each problem once."""
    found = _draw(page, folder, name, figure, width, height)
    assert found["texts"] > 0, name
    return list(dict.fromkeys(json.dumps(problem, ensure_ascii=False) for problem in found["problems"]))


def _lint(page: Page, tmp_path: Path, figures: dict[str, Any], sizes: Any) -> None:
    from plotly.offline import get_plotlyjs

    (tmp_path / "plotly.min.js").write_text(get_plotlyjs(), encoding="utf-8")
    failures = []
    for name, figure in figures.items():
        for width, height in sizes(name, figure):
            problems = lint(page, tmp_path, name, figure, width, height)
            if problems:
                failures.append(f"{name} at {width} px: " + "; ".join(problems[:6]))
    assert not failures, "\n".join(failures)


def test_every_figure_at_its_width_on_the_page(page: Page, tmp_path: Path, figures: dict[str, Any]) -> None:
    _lint(page, tmp_path, figures, lambda name, figure: [(page_width(name), None)])


def test_every_figure_as_its_camera_button_saves_it(page: Page, tmp_path: Path, figures: dict[str, Any]) -> None:
    """The PNG a user saves for a manager: the size :func:`image_config` gives the camera button."""
    options = image_config("figure")["toImageButtonOptions"]
    assert options["width"] >= 1000, options  # a slide's width, not a column's

    def sizes(name: str, figure: Any) -> list[tuple[int, int | None]]:
        return [(options["width"], options.get("height"))]

    _lint(page, tmp_path, figures, sizes)


def test_a_quote_in_a_name_shows_as_a_quote_in_the_hover(page: Page, tmp_path: Path) -> None:
    """Plotly reads only a few entities (``&amp;``, ``&lt;``, ``&gt;``): a ``&quot;`` shows as itself."""
    import plotly.graph_objects as go
    from plotly.offline import get_plotlyjs

    (tmp_path / "plotly.min.js").write_text(get_plotlyjs(), encoding="utf-8")
    name = 'the "best" <one> & more'
    figure = go.Figure(go.Bar(x=[1], y=escaped([name]), orientation="h", hovertemplate="%{y}<extra></extra>"))
    _draw(page, tmp_path, "quote", figure, 600)
    page.evaluate(
        "() => Plotly.Fx.hover(document.querySelector('.js-plotly-plot'), [{curveNumber: 0, pointNumber: 0}])"
    )
    page.wait_for_selector(".hoverlayer .hovertext")
    assert page.locator(".hoverlayer .hovertext text").first.text_content() == name
    assert page.locator(".ytick text").first.text_content() == name


def test_the_report_draws_every_figure_and_each_passes_the_lint(page: Page, tmp_path: Path) -> None:
    """The sample's report, its folded sections opened, at 1440 pixels: plotly.js's cartesian bundle draws every
    figure (no script error), and each passes the lint."""
    workspace = load_workspace(SAMPLE)
    file = tmp_path / "report.html"
    file.write_text(build_report(workspace, workspace.names[0]), encoding="utf-8")
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(file.as_uri())
    page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    figures = page.locator("div[id^='figure-']")
    assert figures.count() == 5
    for index in range(figures.count()):
        figures.nth(index).locator(".hoverlayer").wait_for(state="attached")
    assert not errors
    failures = []
    plots = page.locator(".js-plotly-plot")
    for index in range(plots.count()):
        plots.nth(index).scroll_into_view_if_needed()
        found = plots.nth(index).evaluate(_LINT)
        if found["problems"]:
            failures.append(f"{plots.nth(index).get_attribute('id')}: {found['problems'][:6]}")
    assert not failures, "\n".join(failures)
