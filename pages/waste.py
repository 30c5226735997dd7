"""Context waste: what came back for a question, drawn over its documents against the gold
evidence; gold-coverage heatmaps; recall against waste per configuration; exports and a report."""

from __future__ import annotations

from typing import Any

import streamlit as st

from contextgrid.io.files import utf8
from contextgrid.metrics import DEFAULT_K, DEFAULT_KS
from contextgrid.render.document import configuration_picker, document_html, legend_html, question_layers
from contextgrid.render.export import figure_html, image_config
from contextgrid.render.markup import escape_markdown as md
from contextgrid.render.waste_figures import (
    COLOURS,
    span_map,
    waste_split_plot,
)
from pages import _data, _loading, _state
from pages._columns import headed_columns

CHARACTER_COLUMNS: dict[str, tuple[str, str, str | None]] = {
    "character_recall": ("recall", "The share of the gold evidence's characters that came back", "%.3f"),
    "character_precision": ("precision", "The share of the characters that came back that are gold evidence", "%.3f"),
    "character_f1": ("F1", "The harmonic mean of character recall and precision", "%.3f"),
    "retrieved_characters": ("retrieved", "Distinct characters retrieved", "%d"),
    "gold_characters": ("gold", "Characters of gold evidence", "%d"),
    "not_gold": ("not gold", "Distinct retrieved characters that are not gold evidence: the waste", "%d"),
    "repeated": ("repeated", "Characters retrieved more than once, counted once per extra copy", "%d"),
    "missed": ("missed", "Gold characters that never came back", "%d"),
}
"""Each column of the character scores table: its heading, what it holds and how its numbers are written."""


def exports(figure: Any, name: str) -> None:
    """The figure, and its HTML download (the same figure, plotly.js inline); its PNG is the chart's own camera
    button, drawn by the reader's browser, so the dashboard needs no browser of its own."""
    st.plotly_chart(figure, theme=None, config=image_config(name), key=f"chart_{name}")
    st.download_button(
        "Download as HTML",
        lambda: figure_html(figure, name=name),
        file_name=f"{name}.html",
        mime="text/html",
        key=f"html_{name}",
        on_click="ignore",
    )


st.title("Context waste")
source = _data.chosen_source(__file__)
# One version of the source's content for the whole run: each fingerprint walks every file of a folder.
at = _data.guard(lambda: _loading.snapshot(source), source=source)
workspace = _data.usable_workspace(at)
missing = _data.guard(lambda: _data.missing_evidence(at), source=source)
if missing:
    st.info(
        f"This view needs documents, questions and chunks in the workspace; {md(workspace.name)} has no "
        f"{md(', no '.join(missing))}. A sweep (`contextgrid sweep`) writes all three."
    )
    st.stop()
items = _data.guard(lambda: _data.resolved_items(at), source=source)
if not items:
    st.info("No question's gold evidence was found in the documents, so there is nothing to measure.")
    st.stop()

names = list(workspace.names)
notice = st.empty()
configs = _state.choose_many("Configurations", names, "configs", default=names[:2])
if not configs:
    st.info("Choose at least one configuration.")
    st.stop()
k = _state.choose("k", list(DEFAULT_KS), "k", default=DEFAULT_KS.index(DEFAULT_K))
_state.report_unknown(
    {"configs": names, "config": names, "k": {str(value) for value in DEFAULT_KS}, "question": items},
    names={"configs": "configuration", "config": "configuration"},
    container=notice,
)

# Each view runs only when its tab is open (its name is in the URL as ``waste_view``): the page draws one view's
# charts, not all seven.
one, coverage, against, report = st.tabs(
    ["One question", "Gold coverage", "Recall against waste", "Report"], key="waste_view", bind="query-params"
)
if one.open:
    with one:
        search = _state.text_input("Question id contains", "contains")
        matching = _data.guard(lambda: _data.resolved_containing(at, search), source=source)
        offered = _state.offered_questions(matching, items)
        if not offered:
            st.info(f"No question id contains {md(repr(search))}.")
            st.stop()
        if len(matching) > _state.QUESTIONS_OFFERED:
            st.caption(
                f"The list below offers the first {_state.QUESTIONS_OFFERED} of {len(matching):,} questions; type "
                "part of an id above to reach the others."
            )
        question = _state.choose(
            "Question", offered, "question", format_func=lambda q: f"{q}: {items[q].question[:90]}"
        )
        item = items[question]
        st.text(item.question)
        measured = _data.guard(lambda: _data.question_waste(at, question, tuple(configs), k), source=source)
        wastes, numbers = measured.wastes, measured.numbers
        # Across the page, not in a side column: there, long configuration names and the headers were cut. Short
        # headings, so that every column fits without scrolling; each one's help gives the library's name.
        columns = headed_columns(CHARACTER_COLUMNS, index=numbers.index)
        st.dataframe(numbers, width="stretch", column_config=columns, placeholder="")
        drawing, figures = st.columns([3, 2])
        with figures:
            split_title = f"Where the characters of the top {k} chunks went"
            exports(waste_split_plot(wastes, title=split_title), f"waste-split-{question}")
        with drawing:
            st.html(legend_html(COLOURS))
            expanded = st.toggle(
                "Show whole documents", help="Otherwise only the text near the evidence and the chunks"
            )
            documents = _data.guard(lambda: _data.documents(at), source=source) or {}
            layers = question_layers(item, measured.retrieved)
            # Tabs while a few short names fit side by side; else one list, opened at the chosen configuration.
            picker = configuration_picker(configs, next(iter(_state.remembered("config", configs)), None))
            drawn_over = (
                None
                if picker.tabs
                else st.selectbox(
                    "Chunks drawn over the documents", picker.configs, index=picker.default, key="waste_drawn"
                )
            )
            for doc_id in layers.documents:
                text = documents.get(doc_id, "")
                if doc_id in layers.gold_documents:
                    box: Any = st.container()
                else:
                    # Drawn only once opened: each closed expander's chart would cost the page as much as one shown.
                    box = st.expander(
                        f"{md(doc_id)} (no gold evidence here)", key=f"waste_doc_{question}_{doc_id}", on_change="rerun"
                    )
                    if not box.open:
                        continue
                with box:
                    drawn: dict[str, Any] = {"gold": layers.gold, "bands": layers.bands, "expanded": expanded}
                    exports(span_map(doc_id, len(text), **drawn), f"span-map-{question}-{doc_id}")
                    shown = [drawn_over] if drawn_over is not None else list(picker.configs)
                    places = st.tabs([md(config) for config in shown]) if picker.tabs else [st.container()]
                    for place, config in zip(places, shown, strict=True):
                        with place:
                            st.html(
                                document_html(
                                    doc_id, text, gold=layers.gold, chunks=layers.bands[config], expanded=expanded
                                )
                            )
if coverage.open:
    with coverage:
        config = _state.choose("Configuration for question × rank", names, "config")
        left, right = st.columns(2)
        with left:
            ranks = _data.guard(lambda: _data.rank_figure(at, config, k), source=source)
            exports(ranks, f"coverage-by-rank-{config}")
        with right:
            chosen = tuple(configs)
            shares = _data.guard(lambda: _data.coverage_figure(at, k, chosen), source=source)
            exports(shares, f"coverage-by-configuration-at-{k}")
if against.open:
    with against:
        drawn = _data.guard(lambda: _data.characters_figure(at, k), source=source)
        summary = _data.guard(lambda: _data.waste_summary(at, k), source=source)
        left, right = st.columns(2)
        with left:
            exports(_data.precision_recall_figure(at, k), f"precision-against-recall-at-{k}")
        with right:
            exports(drawn, f"characters-per-question-at-{k}")
        st.dataframe(summary.style.format("{:.3f}"), width="stretch", placeholder="")
if report.open:
    with report:
        left, right = st.columns(2)
        config = _state.choose("Configuration to report on", names, "config", container=left)
        baseline = _state.choose("Baseline", names, "b", container=right)
        first_screen = _data.guard(lambda: _data.summary(at, config, k, baseline), source=source)
        st.caption(
            f"One HTML file about {md(config)}. It opens with this "
            f"summary, then the failing questions at k = {k}, one of each cause in turn; the waste views, the "
            "metric@k grid and three failing questions drawn over their documents are folded below."
        )
        for sentence in (first_screen.budget(), first_screen.verdict(), first_screen.waste(), first_screen.failures()):
            if sentence:
                st.markdown(md(sentence))
        # Built as the tab opens, not as the button is clicked: a report that cannot be built says why here (a
        # download built on the click fails with nothing shown but the server's log).
        with st.spinner("Building the report…"):
            page = _data.guard(lambda: _data.report(at, config, k, baseline), source=source)
        st.download_button(
            f"Download the report of {md(config)}",
            utf8(page),
            file_name=f"{config}-report.html",
            mime="text/html",
            key="report",
            on_click="ignore",
        )
