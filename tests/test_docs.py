"""Every docs page's examples (and the README's) run, and print exactly what the page shows.

Convention: in ``docs/*.md`` and ``README.md``, each fenced ``python`` block runs, in order, in one
namespace per page, in a fresh temporary working directory. A fenced ``output``
block right after it holds the exact text the block prints.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
import types
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
    # A real, registered module: dataclasses and pickling look the example's classes up in sys.modules.
    module = types.ModuleType(f"docs_{page.stem.replace('-', '_')}")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    for code, expected, line in found:
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            # dont_inherit: this file's own __future__ imports must not leak into the example.
            exec(compile(code, f"{page.name}:{line}", "exec", dont_inherit=True), module.__dict__)
        if expected is not None:
            assert buffer.getvalue() == expected, f"{page.name}, example at line {line}"
