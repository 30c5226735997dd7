"""What the user chose — data source, configuration, metric, k — kept across pages and in the URL.

Widget state is dropped by Streamlit when a page that drew the widget is left,
so each choice lives under its own session key, is restored from the query
string on the first run, and is written back to it on every run: a view can
be shared as a link.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from typing import TypeVar

import streamlit as st

PERSISTED = ("source", "workspace", "config", "metric", "k", "question", "configs", "a", "b")

T = TypeVar("T")


def restore_from_url() -> None:
    """Seed the session from the query string, once per session."""
    if st.session_state.get("_restored"):
        return
    for key in PERSISTED:
        if key in st.query_params:
            st.session_state[key] = st.query_params[key]
    st.session_state["_restored"] = True


def remember(key: str, value: object) -> None:
    """Keep ``value`` for every page and put it in the URL."""
    st.session_state[key] = value
    st.query_params[key] = ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def remembered(key: str, options: Container[str]) -> list[str]:
    """The remembered choice under ``key`` if ``options`` holds it (a one-item list), else nothing.

    ``options`` is asked by membership (a pandas Index or a set answers by hash), never scanned.
    """
    wanted = str(st.session_state.get(key, ""))
    return [wanted] if wanted in options else []


def choose(
    label: str,
    options: Sequence[T],
    key: str,
    *,
    default: int = 0,
    container: object = st,
    format_func: Callable[[T], str] = str,
) -> T:
    """A selectbox whose choice persists; a remembered value no longer on offer falls back to ``default``."""
    labels = [str(option) for option in options]
    remembered = str(st.session_state.get(key, ""))
    index = labels.index(remembered) if remembered in labels else min(default, len(options) - 1)
    chosen: T = container.selectbox(  # type: ignore[attr-defined]
        label, options, index=index, key=f"_widget_{key}", format_func=format_func
    )
    remember(key, chosen)
    return chosen


def choose_many(label: str, options: Sequence[str], key: str, *, default: Sequence[str]) -> list[str]:
    """A multiselect whose choice persists."""
    stored = st.session_state.get(key)
    remembered = stored.split(",") if isinstance(stored, str) else list(stored or [])
    initial = [option for option in remembered if option in options] or list(default)
    chosen = st.multiselect(label, options, default=initial, key=f"_widget_{key}")
    remember(key, chosen)
    return chosen
