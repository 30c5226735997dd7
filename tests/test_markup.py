from __future__ import annotations

import re
import string

from hypothesis import given
from hypothesis import strategies as st

from contextgrid.render.markup import escape_markdown


@given(st.text())
def test_escaping_keeps_the_text_and_leaves_no_bare_punctuation(text: str) -> None:
    escaped = escape_markdown(text)
    assert re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", escaped) == text
    bare = re.sub(r"\\[!-/:-@\[-`{-~]", "", escaped)
    assert not set(bare) & set(string.punctuation)


def test_dollar_signs_and_tags_are_escaped() -> None:
    assert escape_markdown("$x$ <script>") == r"\$x\$ \<script\>"
