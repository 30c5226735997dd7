"""Every label the dashboard builds from user text is escaped markdown: a configuration named with an image,
LaTeX, bold and a colour directive shows as written on every page and every tab (issue #34, item 5). Streamlit
renders markdown in titles, captions, alerts, buttons, tabs, expanders and metric labels, not in the options of a
select box, which are plain text and left as they are."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import corpora
import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = "![i](http://127.0.0.1:9/leak.png)$x^{2}$**B**:red[R]"
MARKERS = ("![i](", "$x^{2}$", "**B**", ":red[R]")
"""What shows, raw, that a hostile name was handed to markdown unescaped."""

# The widgets and text whose label or value Streamlit renders as markdown.
RENDERED = ("title", "header", "subheader", "caption", "markdown", "info", "warning", "error", "success")
LABELLED = ("button", "download_button", "tab", "expander", "metric", "toggle", "checkbox")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = corpora.swept(tmp_path_factory.mktemp("hostile"), sizes=[80, 200], overlap=20)
    manifest = (root / "contextgrid.toml").read_text()
    for number, name in enumerate(("bm25-fixed_chars-80-20", "bm25-fixed_chars-200-20")):
        manifest = manifest.replace(f'name = "{name}"', f"name = {json.dumps(HOSTILE + str(number))}")
    (root / "contextgrid.toml").write_text(manifest)
    return root


def shown(app: AppTest) -> Iterator[tuple[str, str]]:
    """(kind, text) of everything drawn that Streamlit renders as markdown."""
    for kind in RENDERED:
        for element in app.get(kind):
            yield kind, str(element.value)
    for kind in LABELLED:
        for element in app.get(kind):
            yield kind, str(element.label)


VIEWS = [
    ("overview.py", {}),
    ("questions.py", {}),
    ("compare.py", {"compare_view": "A against B"}),
    ("compare.py", {"compare_view": "Is the winner real?"}),
    ("waste.py", {"waste_view": "One question"}),
    ("waste.py", {"waste_view": "Gold coverage"}),
    ("waste.py", {"waste_view": "Recall against waste"}),
    ("waste.py", {"waste_view": "Report"}),
    ("answers.py", {}),
]


NAMED = {("questions.py", ()), ("compare.py", ("A against B",)), ("waste.py", ("Report",))}
"""The views that draw a configuration's name in markdown."""


@pytest.mark.parametrize(("page", "query"), VIEWS, ids=[f"{page}-{'-'.join(q.values())}" for page, q in VIEWS])
def test_no_page_hands_a_hostile_name_to_markdown(
    monkeypatch: pytest.MonkeyPatch, hostile: Path, page: str, query: dict[str, str]
) -> None:
    monkeypatch.setattr(sys, "argv", [sys.argv[0], "--allow-folders", str(hostile.parent)])
    app = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=240)
    app.session_state["root"] = str(hostile)
    for key, value in query.items():
        app.query_params[key] = value
    app.run()
    assert not app.exception, [element.value for element in app.exception]
    assert not app.error, [element.value for element in app.error]
    drawn = list(shown(app))
    assert [(kind, text) for kind, text in drawn if any(marker in text for marker in MARKERS)] == []
    if (page, tuple(query.values())) in NAMED:
        # The names are there, escaped: the test sees the page it means to.
        assert any("red\\[R\\]" in text for _, text in drawn), drawn
