"""What the user chose — data source, configuration, metric, k, the filters — kept across pages and in the URL.

Widget state is dropped by Streamlit when a page that drew the widget is left,
so each choice lives under its own session key, is restored from the query
string on the first run, and is written back to it on every run: a view can
be shared as a link. A link's value that the data does not have is reported
once (:func:`report_unknown`), not silently replaced.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping, Sequence
from typing import TypeVar

import streamlit as st

from contextgrid.render.markup import escape_markdown as md

PERSISTED = (
    "source",
    "workspace",
    "config",
    "metric",
    "k",
    "question",
    "configs",
    "a",
    "b",
    "cause",
    "signals",
    "failing",
    "at_most",
    "contains",
    "metrics",
    "answer_columns",
)

T = TypeVar("T")


def restore_from_url() -> None:
    """Seed the session from the query string, once per session."""
    if st.session_state.get("_restored"):
        return
    linked = {}
    for key in PERSISTED:
        if key in st.query_params:
            st.session_state[key] = linked[key] = st.query_params[key]
    # What the link asked for, so that a page can tell it apart from a choice made since.
    st.session_state["_linked"] = linked
    st.session_state["_restored"] = True


def report_unknown(
    known: Mapping[str, Container[str]], *, names: Mapping[str, str] | None = None, container: object = st
) -> None:
    """Say in one line which values the opening link gave that the data does not have.

    ``known`` maps a key to the values it can take (a list under a key is
    comma-separated in the link, each part checked); ``names`` words the keys
    (default: the key). Each key of the link is checked once per session, by
    the first page that asks: later runs show the choices made since.
    """
    linked: dict[str, str] = st.session_state.get("_linked", {})
    wrong = []
    for key, options in known.items():
        value = linked.pop(key, None)
        if value is None:
            continue
        unknown = [part for part in value.split(",") if part and part not in options]
        wrong += [f"{(names or {}).get(key, key)} {part!r}" for part in unknown]
    if wrong:
        container.warning(  # type: ignore[attr-defined]
            f"The link asks for {md(', '.join(wrong))}, which this data does not have; showing the defaults instead."
        )


def remember(key: str, value: object) -> None:
    """Keep ``value`` for every page and put it in the URL."""
    st.session_state[key] = value
    st.query_params[key] = ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def change(key: str, value: object) -> None:
    """Set the choice under ``key`` and the widget that shows it: for a button's ``on_click``, which runs
    before the widgets are drawn again (a widget's state cannot be set once it is drawn)."""
    remember(key, value)
    st.session_state[f"_widget_{key}"] = value


def remembered(key: str, options: Container[str]) -> list[str]:
    """The remembered choice under ``key`` if ``options`` holds it (a one-item list), else nothing.

    ``options`` is asked by membership (a pandas Index or a set answers by hash), never scanned.
    """
    wanted = str(st.session_state.get(key, ""))
    return [wanted] if wanted in options else []


QUESTIONS_OFFERED = 200
"""A select box of questions offers at most this many (and the remembered one): thousands of options are slow to
send and to draw, and no one scrolls them; the page's filters reach the others."""


def offered_questions(ids: Sequence[str], known: Container[str]) -> list[str]:
    """The first :data:`QUESTIONS_OFFERED` of ``ids`` and the remembered question if ``known`` holds it: it stays
    on offer when a filter hides it, so that a link or a switch of page keeps it."""
    return list(dict.fromkeys([*ids[:QUESTIONS_OFFERED], *remembered("question", known)]))


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


def choose_many(
    label: str, options: Sequence[str], key: str, *, default: Sequence[str], container: object = st
) -> list[str]:
    """A multiselect whose choice persists, per set of options: a switch of the data source to other
    configurations and back finds the choice made on each.

    When the options change (another source), the widget's own state is set again before it is drawn: left
    alone, Streamlit kept the old choice, dropped every value the new options lack and showed nothing chosen.
    """
    stored = st.session_state.get(key)
    remembered = stored.split(",") if isinstance(stored, str) else list(stored or [])
    # The last choice made among these very options (the same source) comes first, then the URL's (a link).
    kept: dict[tuple[str, ...], list[str]] = st.session_state.setdefault(f"_kept_{key}", {})
    offered = tuple(map(str, options))
    earlier = kept.get(offered, [])
    initial = (
        [option for option in earlier if option in options]
        or [option for option in remembered if option in options]
        or list(default)
    )
    widget = f"_widget_{key}"
    if st.session_state.get(f"_offered_{key}") != offered:
        if widget in st.session_state:
            st.session_state[widget] = initial
        st.session_state[f"_offered_{key}"] = offered
    chosen: list[str] = container.multiselect(  # type: ignore[attr-defined]
        label, options, default=None if widget in st.session_state else initial, key=widget
    )
    kept[offered] = list(chosen)
    remember(key, chosen)
    return chosen


def newest_by_name(files: Sequence[T], name: Callable[[T], str]) -> list[T]:
    """Each name's newest file, in the order the names first came: a file uploaded again under its name
    replaces the one before (a multiple-file uploader keeps both, which made two runs of one configuration).

    Examples
    --------
    >>> newest_by_name([("a", 1), ("b", 2), ("a", 3)], lambda file: file[0])
    [('a', 3), ('b', 2)]
    """
    return list({name(file): file for file in files}.values())


def checkbox(label: str, key: str, *, container: object = st, help: str | None = None) -> bool:
    """A checkbox whose choice persists (``true``/``false`` in the URL); ``help`` as for ``st.checkbox``."""
    chosen = bool(
        container.checkbox(  # type: ignore[attr-defined]
            label, value=str(st.session_state.get(key, "")).lower() == "true", key=f"_widget_{key}", help=help
        )
    )
    remember(key, "true" if chosen else "false")
    return chosen


def slider(
    label: str, key: str, *, low: float, high: float, default: float, step: float, container: object = st
) -> float:
    """A slider over [``low``, ``high``] whose choice persists; a remembered value that is no number in the
    range falls back to ``default``."""
    try:
        value = float(str(st.session_state.get(key, default)))
    except ValueError:
        value = default
    chosen = float(
        container.slider(  # type: ignore[attr-defined]
            label, low, high, value if low <= value <= high else default, step, key=f"_widget_{key}"
        )
    )
    remember(key, chosen)
    return chosen


def text_input(label: str, key: str, *, container: object = st) -> str:
    """A text box whose content persists."""
    chosen = str(
        container.text_input(label, value=str(st.session_state.get(key, "")), key=f"_widget_{key}")  # type: ignore[attr-defined]
    )
    remember(key, chosen)
    return chosen
