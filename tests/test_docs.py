"""Every docs page's examples (and the README's) run, and print exactly what the page shows.

Convention: in ``docs/*.md`` and ``README.md``, each fenced ``python`` block runs, in order, in one
namespace per page, in a fresh temporary working directory. A fenced ``output``
block right after it holds the exact text the block prints.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
FENCE = re.compile(r"^```(\w[\w-]*)?[^\n]*\n(.*?)^```\s*$", re.DOTALL | re.MULTILINE)


def examples(page: Path) -> list[tuple[str, str | None, int]]:
    """(code, expected output or None, line) for each python block of the page."""
    blocks = [
        (match.group(1) or "", match.group(2), page.read_text()[: match.start()].count("\n") + 1)
        for match in FENCE.finditer(page.read_text())
    ]
    found = []
    for position, (language, body, line) in enumerate(blocks):
        if language != "python":
            continue
        following = blocks[position + 1] if position + 1 < len(blocks) else None
        expected = following[1] if following is not None and following[0] == "output" else None
        found.append((body, expected, line))
    return found


PAGES = [*sorted(DOCS.glob("*.md")), DOCS.parent / "README.md"]


@pytest.mark.parametrize("page", PAGES, ids=[page.name for page in PAGES])
def test_docs_page_examples_print_what_the_page_shows(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    found = examples(page)
    assert found, f"{page.name} has no python example"
    namespace: dict[str, object] = {"__name__": f"docs_{page.stem}"}
    for code, expected, line in found:
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            exec(compile(code, f"{page.name}:{line}", "exec"), namespace)
        if expected is not None:
            assert buffer.getvalue() == expected, f"{page.name}, example at line {line}"
