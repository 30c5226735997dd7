"""Nothing leaves the machine: a tour of every page and every tab of the dashboard on the sample, in Debian's
Chromium, asks nothing of any host but the dashboard's own server (no usage statistics, no web font, no icon
from a CDN), and a visitor's menu has no Deploy button and no "Clear cache" (which clears every session's)."""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator

import pytest
from browsing import open_tab, serving, settled
from playwright.sync_api import Page, expect

# Every page of app.py's navigation, by its title in the sidebar.
PAGES = ["Overview", "Questions", "Compare", "Context waste", "Answers"]


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serving() as url:
        yield url


def _offsite(url: str, server: str) -> bool:
    """Whether the browser asked ``url`` of a host other than the dashboard's server (``data:`` and ``blob:``
    URLs are made in the page and go nowhere)."""
    asked = urllib.parse.urlsplit(url)
    if asked.scheme in {"data", "blob"}:
        return False
    port = urllib.parse.urlsplit(server).port
    return asked.hostname not in {"127.0.0.1", "localhost"} or asked.port != port


def _every_tab(page: Page) -> list[str]:
    """Click each tab of the page, the tabs inside a tab too, waiting for each run; the tabs' names, in the order
    clicked.

    The last tab not yet clicked comes next: a tab's own tabs follow it on the page, so they are clicked while
    it is open, before a tab earlier on the page closes it.
    """
    clicked: list[str] = []
    while True:
        tabs = page.get_by_role("tab")
        shown = [tabs.nth(index).inner_text() for index in range(tabs.count()) if tabs.nth(index).is_visible()]
        left = [name for name in shown if name not in clicked]
        if not left:
            return clicked
        open_tab(page, left[-1])
        clicked.append(left[-1])


def test_a_tour_of_every_page_and_tab_asks_nothing_of_another_host(server: str, page: Page) -> None:
    asked: list[str] = []
    page.context.on("request", lambda request: asked.append(request.url))
    page.on("websocket", lambda socket: asked.append(socket.url))
    page.goto(server)
    settled(page)
    toured = {}
    for title in PAGES:
        link = page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True)
        link.click()
        expect(page.get_by_role("heading", name=title, exact=True)).to_be_visible()
        settled(page)
        toured[title] = _every_tab(page)
        failures = page.get_by_test_id("stException").all_inner_texts()
        assert not failures, (title, failures)
    # The tour saw the tabs it was meant to (a page that drew nothing would ask nothing of anyone).
    assert {"Heatmap", "Metric against k"} <= set(toured["Overview"]), toured
    assert {"One question", "Gold coverage"} <= set(toured["Context waste"]), toured
    own = [url for url in asked if not _offsite(url, server)]
    assert any("/_stcore/stream" in url for url in own), asked  # the page's own connection was seen
    offenders = sorted({url for url in asked if _offsite(url, server)})
    assert not offenders, f"requests to other hosts: {offenders}"
    # The favicon, which Chromium may fetch outside the page's requests, is drawn in the page too.
    icon = page.locator("link[rel='shortcut icon']").get_attribute("href") or ""
    assert not _offsite(urllib.parse.urljoin(server, icon), server), icon


def test_a_visitor_has_no_deploy_button_and_no_clear_cache(server: str, page: Page) -> None:
    page.goto(server)
    settled(page)
    expect(page.get_by_test_id("stAppDeployButton")).to_have_count(0)
    menu = page.get_by_test_id("stMainMenuButton")
    if menu.count():  # "viewer" may hide the whole menu when it has nothing left to offer
        menu.click()
        popover = page.get_by_test_id("stMainMenuPopover")
        expect(popover).to_be_visible()
        items = popover.inner_text()
        for developers_only in ("Clear cache", "Deploy", "Rerun"):
            assert developers_only not in items, items
