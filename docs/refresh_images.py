"""Draw the pictures of docs/images/ again, after a change to a figure or to the Context waste page.

Run from the repository root (it needs Debian's Chromium, /usr/bin/chromium, as the browser tests do)::

    python3 docs/refresh_images.py

The figures are the sample workspace's, drawn to PNG by kaleido as a download draws them (the ones
tests/test_browser_figures.py checks); ``waste-document.png`` is the hostile document of
tests/test_browser_waste.py as the Context waste page draws it, photographed in Chromium. The tests never write
here: they draw the same pictures into a temporary folder.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]  # the tests' figures and browser helpers, drawn the same way

from browsing import chromium, new_page, open_waste, serving  # noqa: E402
from hostile import fee_query, hostile_workspace  # noqa: E402
from sample_figures import sample  # noqa: E402

from contextgrid.render.export import figure_png  # noqa: E402

IMAGES = ROOT / "docs" / "images"
WIDTH = 1000

# The docs' pictures of the Context waste page (docs/diagnosing-failures.md), by the name of the figure each shows.
FIGURES = {
    "span-map": "waste-span-map",
    "waste-split": "waste-split",
    "coverage-by-configuration": "waste-coverage-by-configuration",
    "precision-recall": "waste-precision-recall",
    "characters": "waste-characters",
}


def draw_figures() -> None:
    import kaleido  # type: ignore[import-untyped]

    figures = sample()
    kaleido.start_sync_server(silence_warnings=True)
    try:
        for name, image in FIGURES.items():
            (IMAGES / f"{image}.png").write_bytes(figure_png(figures[name], width=WIDTH))
            print(f"wrote docs/images/{image}.png")
    finally:
        kaleido.stop_sync_server(silence_warnings=True)


def photograph_the_document() -> None:
    with tempfile.TemporaryDirectory() as folder:
        workspace = hostile_workspace(Path(folder))
        with serving(workspace) as url, chromium() as browser, new_page(browser) as page:
            open_waste(page, url, fee_query(workspace))
            drawn = page.locator(".cg-doc").first
            drawn.wait_for(state="visible", timeout=60_000)
            drawn.scroll_into_view_if_needed()
            drawn.screenshot(path=str(IMAGES / "waste-document.png"))
    print("wrote docs/images/waste-document.png")


if __name__ == "__main__":
    IMAGES.mkdir(parents=True, exist_ok=True)
    draw_figures()
    photograph_the_document()
