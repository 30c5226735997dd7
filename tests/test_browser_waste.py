"""The Context waste page in a real browser (Debian's Chromium via Playwright, against
`streamlit run`): untrusted document text shows as written and runs nothing, and every chart of the sample's
page is drawn. docs/refresh_images.py takes the screenshots of docs/diagnosing-failures.md."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from browsing import ROOT, open_tab, open_waste, serving, settled
from hostile import EVIDENCE, HOSTILE, fee_query, hostile_workspace
from playwright.sync_api import Page, expect

import contextgrid as cg
from contextgrid.workspace.waste import workspace_waste


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return hostile_workspace(tmp_path_factory.mktemp("hostile"))


@pytest.fixture(scope="module")
def server(hostile: Path) -> Iterator[str]:
    with serving(hostile) as url:
        yield url


@pytest.fixture(scope="module")
def sample_server() -> Iterator[str]:
    with serving() as url:
        yield url


def test_untrusted_document_text_renders_as_literal_text_and_runs_nothing(
    server: str, page: Page, hostile: Path
) -> None:
    open_waste(page, server, fee_query(hostile))
    expect(page.locator("[data-testid='stException']")).to_have_count(0)
    drawn = page.locator(".cg-doc").first
    expect(drawn).to_be_visible(timeout=60_000)
    text = drawn.inner_text()
    for literal in [*HOSTILE, EVIDENCE]:
        assert literal in text, literal
    for frame in page.frames:
        assert frame.evaluate("typeof window.__pwned") == "undefined"
    assert page.locator(".cg-doc img, .cg-doc script, .cg-doc strong, .cg-doc a, .cg-doc .katex").count() == 0
    assert "What does a return cost? **bold** $5" in page.get_by_test_id("stText").first.inner_text()


def test_every_chart_of_the_sample_workspaces_waste_page_is_drawn(
    sample_server: str, page: Page, tmp_path: Path
) -> None:
    sample = ROOT / "sample_data" / "workspace"
    workspace = cg.load_workspace(sample)
    # Two chunkings side by side, one of them overlapping; a question both answer at least in part.
    wanted = ["bm25-recursive-200-0", "bm25-fixed_chars-500-100"]
    names = [name for name in wanted if name in workspace.names] or list(workspace.names[:2])
    table = workspace_waste(workspace, 5)
    recall = table["character_recall"].unstack("config")[names]
    repeated = table["repeated"].unstack("config")[names].sum(axis=1)
    candidates = recall[(recall > 0).all(axis=1) & (recall < 1).any(axis=1)].index
    question = str(
        max(candidates, key=lambda q: (repeated[q] > 0, -abs(recall.loc[q].iloc[0] - 0.5)), default=recall.index[0])
    )
    query = {"configs": ",".join(names), "config": names[0], "k": 5, "question": question}
    open_waste(page, sample_server, query)
    expect(page.locator("[data-testid='stException']")).to_have_count(0)
    # The sample's own choices took: the question and both configurations are the ones asked for.
    expect(page.get_by_role("combobox", name="Question")).to_have_value(re.compile(f"^{re.escape(question)}: "))
    for name in names:
        expect(page.get_by_test_id("stMultiSelect").get_by_text(name, exact=True)).to_be_visible()
    # Plotly draws after the run ends: the page is taken once every chart on it is drawn.
    charts = page.get_by_test_id("stPlotlyChart")
    for index in range(charts.count()):
        expect(charts.nth(index).locator(".main-svg").first).to_be_attached(timeout=60_000)
    page.screenshot(path=str(tmp_path / "page-waste.png"), full_page=True)
    # Charts by their place in the tab (left column first), photographed for a person to compare with the docs'
    # images (docs/refresh_images.py draws those with kaleido): the same charts as the page shows them.
    for view, place, name in [
        ("One question", 0, "waste-span-map"),
        ("One question", -1, "waste-split"),
        ("Gold coverage", 1, "waste-coverage-by-configuration"),
        ("Recall against waste", 0, "waste-precision-recall"),
        ("Recall against waste", 1, "waste-characters"),
    ]:
        if page.get_by_role("tab", name=view, exact=True).get_attribute("aria-selected") != "true":
            open_tab(page, view, timeout=180_000)
            expect(page.locator("[data-testid='stException']")).to_have_count(0)
        charts = page.get_by_test_id("stPlotlyChart")
        found = charts.nth(place if place >= 0 else charts.count() + place)
        found.scroll_into_view_if_needed()
        expect(found.locator(".main-svg").first).to_be_visible(timeout=60_000)
        found.screenshot(path=str(tmp_path / f"{name}.png"))


def test_a_document_without_gold_evidence_is_drawn_once_its_expander_is_opened(sample_server: str, page: Page) -> None:
    workspace = cg.load_workspace(ROOT / "sample_data" / "workspace")
    names = list(workspace.names[:2])
    open_waste(page, sample_server, {"configs": ",".join(names), "k": 5, "question": "q001"})
    folded = page.get_by_test_id("stExpander").filter(has_text="(no gold evidence here)")
    assert folded.count() >= 1
    first = folded.first
    label = first.locator("summary").get_by_test_id("stMarkdownContainer").inner_text()
    doc_id = label.removesuffix(" (no gold evidence here)").strip()
    first.locator("summary").click()
    settled(page, timeout=180_000)
    expect(page.locator("[data-testid='stException']")).to_have_count(0)
    opened = page.get_by_test_id("stExpander").filter(has_text=f"{doc_id} (no gold evidence here)")
    chart = opened.get_by_test_id("stPlotlyChart")
    expect(chart.locator(".main-svg").first).to_be_visible(timeout=60_000)
    expect(chart).to_contain_text(doc_id)
    expect(opened.locator(".cg-doc").first).to_be_visible()
    assert doc_id in workspace.documents
