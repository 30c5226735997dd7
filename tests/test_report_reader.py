"""The sample's report, read as someone who is not an engineer reads it: a legend for every mark, tables in
words with a cause column, failures of different causes, waste as a ratio, short and light, plurals right."""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextgrid.metrics.base import DEFAULT_K
from contextgrid.render.document import SPAN_CLASSES
from contextgrid.render.report import CAUSE_WORDS, DRAWN, WORST, _plural, build_report, plotly_js
from contextgrid.workspace.causes import failure_causes
from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.sample import SAMPLE
from contextgrid.workspace.waste import workspace_waste


@pytest.fixture(scope="module")
def sample() -> tuple[object, str, str]:
    workspace = load_workspace(SAMPLE)
    config = workspace.names[0]
    return workspace, config, build_report(workspace, config)


def _table_after(page: str, heading: str) -> tuple[list[str], list[list[str]]]:
    table = page.split(heading, 1)[1].split("</table>", 1)[0]
    headers = [html.unescape(cell) for cell in re.findall(r"<th[^>]*>([^<]*)</th>", table)]
    rows = [
        [html.unescape(cell) for cell in re.findall(r"<td[^>]*>([^<]*)</td>", row)]
        for row in table.split("</tr>")[1:]
        if "<td" in row
    ]
    return headers, rows


def test_the_report_is_under_two_megabytes_and_folds_its_detail(sample: tuple[object, str, str]) -> None:
    _, _, page = sample
    assert len(page.encode("utf-8")) < 2_000_000
    folded = page.split("<details>", 1)[1]
    # The waste views, the grid and the drawn documents are all folded; the first screen and the table are not.
    for part in ('id="figure-precision-recall"', "<td>ndcg</td>", 'class="cg-doc"'):
        assert part in folded
        assert part not in page.split("<details>", 1)[0]
    assert page.count("<details>") == page.count("</details>") == 3


def test_every_mark_of_the_documents_has_its_line_in_the_legend(sample: tuple[object, str, str]) -> None:
    _, _, page = sample
    legend = page.split('<dl class="legend">', 1)[1].split("</dl>", 1)[0]
    for name, meaning in SPAN_CLASSES.items():
        assert f'<span class="{name}">' in legend
        assert html.escape(meaning) in legend
    # The rank markers: a start "[2" and an end "2]", drawn as the documents draw them, and what they mean.
    assert 'data-edge="[2"' in legend
    assert 'data-edge="2]"' in legend
    assert "starts and ends" in legend
    assert 'class="gap"' in legend
    # Every class the drawn documents use is one the legend explains.
    drawn = page.split("</dl>", 1)[1]
    used = {name for classes in re.findall(r'<span class="([a-z ]+)" title=', drawn) for name in classes.split()}
    assert used
    assert used <= set(SPAN_CLASSES)


def test_the_failing_questions_table_speaks_words_and_names_each_cause(sample: tuple[object, str, str]) -> None:
    workspace, config, page = sample
    headers, rows = _table_after(page, "<h2>Questions that fail, one of each cause in turn</h2>")
    assert headers == [
        "question",
        "asked",
        "why it fails",
        "share of its evidence retrieved",
        "characters sent to the model",
        "characters of evidence",
        f"recall@{DEFAULT_K}",
    ]
    assert not [header for header in headers if "_" in header]  # no column's code name
    causes = failure_causes(workspace, k=DEFAULT_K, configs=[config]).set_index("question")["cause"].astype(str)
    texts = {item.id: item.question for item in workspace.questions}
    assert len(rows) == WORST
    for question, asked, why, *_ in rows:
        assert asked == texts[question]
        assert causes[question] != "hit"
        assert why == CAUSE_WORDS[causes[question]]
    # Failures of different causes, in turn: the first rows cover as many causes as there are failing causes.
    # (Questions with no gold, or gold not found in the documents, have no evidence to measure: not listed here.)
    failing = {cause for cause in causes if cause not in ("hit", "no_gold", "unresolved")}
    first = [row[2] for row in rows[: len(failing)]]
    assert len(set(first)) == min(len(failing), WORST)


def test_the_headline_says_waste_as_characters_read_per_character_of_evidence(
    sample: tuple[object, str, str],
) -> None:
    workspace, config, page = sample
    waste = workspace_waste(workspace, DEFAULT_K).loc[config]
    ratio = waste["retrieved_total"].sum() / waste["gold_retrieved"].sum()
    share = waste["gold_retrieved"].sum() / waste["retrieved_total"].sum()
    assert f"the model reads {ratio:,.1f} characters for every character of evidence" in page
    assert "of what reaches the model is waste" not in page
    headers, rows = _table_after(page, "</p>\n<table>")
    assert "characters read per character of evidence" in headers
    row = next(row for row in rows if row[0] == config)
    assert row[headers.index("characters read per character of evidence")] == f"{ratio:,.1f}"
    assert row[headers.index("evidence's share of what is sent")] == f"{share:.1%}"


def test_plurals() -> None:
    assert _plural(1, "more document") == "1 more document"
    assert _plural(2, "more document") == "2 more documents"
    assert _plural(1_000, "configuration") == "1,000 configurations"


def test_the_drawn_questions_are_the_first_failing_ones_and_say_why(sample: tuple[object, str, str]) -> None:
    _, _, page = sample
    _, rows = _table_after(page, "<h2>Questions that fail, one of each cause in turn</h2>")
    drawn = re.findall(r"<h3>([^<:]+): ", page)
    assert drawn == [row[0] for row in rows[:DRAWN]]
    assert "1 more documents" not in page


def test_the_report_carries_the_cartesian_plotly_js_of_the_plotly_package() -> None:
    from plotly.offline import get_plotlyjs_version

    banner = plotly_js()[:200]
    assert f"plotly.js (cartesian - minified) v{get_plotlyjs_version()}" in banner


def test_every_cause_the_bars_name_is_said_in_words_beside_its_colour(sample: tuple[object, str, str]) -> None:
    from contextgrid.render.cause_figures import BAR_ORDER, CAUSE_COLOURS

    _, _, page = sample
    legend = page.split('id="figure-causes"', 1)[1].split('<dl class="legend causes">', 1)[1].split("</dl>", 1)[0]
    for cause in BAR_ORDER:
        assert f"background:{CAUSE_COLOURS[cause]};" in legend
        assert f"{cause}</dt><dd>{html.escape(CAUSE_WORDS[cause])}</dd>" in legend


@given(st.lists(st.sampled_from(["hit", "partial", "split", "ranked_low", "not_retrieved", "no_gold"]), max_size=40))
def test_failing_questions_are_taken_one_of_each_cause_in_turn(causes: list[str]) -> None:
    """Against a plain round robin over the causes in their order, each cause's questions in the order given."""
    import pandas as pd

    from contextgrid.render.report import _FAILURE_ORDER, _interleaved

    order = pd.Index([f"q{i}" for i in range(len(causes))])
    queues = {cause: [q for q, c in zip(order, causes, strict=True) if c == cause] for cause in _FAILURE_ORDER}
    expected: list[str] = []
    while any(queues.values()) and len(expected) < WORST:
        for cause in _FAILURE_ORDER:
            if queues[cause] and len(expected) < WORST:
                expected.append(queues[cause].pop(0))
    assert _interleaved(pd.Series(causes, index=order), order) == expected
