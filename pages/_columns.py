"""How the pages' tables head their columns: a short heading each, so that a table fits a 1440-px window without
scrolling sideways, with what the column holds and the library's name for it in the heading's help."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import streamlit as st

INDEX_CHARACTER_PX = 7
"""About how wide one character of an index label is at the tables' font, in pixels."""


def headed_columns(
    headings: Mapping[str, tuple[str, str, str | None]], *, index: Iterable[str] | None = None
) -> dict[str, Any]:
    """``st.dataframe``'s ``column_config`` for ``headings``: each column (by the library's name) its heading, what
    it holds and how its numbers are written, ``None`` for a tick (a bool column). With ``index``, the index is
    made as wide as its longest label.

    Examples
    --------
    >>> columns = headed_columns({"abstained": ("abstained", "Answers that abstained", "%d")}, index=["bm25-200"])
    >>> columns["abstained"]["label"], columns["abstained"]["help"], columns["_index"]["width"]
    ('abstained', 'Answers that abstained (`abstained`)', 72)
    """
    columns: dict[str, Any] = {
        name: st.column_config.CheckboxColumn(label, help=f"{meaning} (`{name}`)")
        if written is None
        else st.column_config.NumberColumn(label, help=f"{meaning} (`{name}`)", format=written)
        for name, (label, meaning, written) in headings.items()
    }
    if index is not None:
        columns["_index"] = st.column_config.Column(width=INDEX_CHARACTER_PX * max(map(len, index), default=0) + 16)
    return columns
