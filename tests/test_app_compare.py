"""The Compare page's "Is the winner real?" view through Streamlit's AppTest: the verdict table is the library's,
in words people read, its columns are explained on the page, and each verdict says what it rests on."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from charts import figures
from streamlit.testing.v1 import AppTest

from contextgrid.analysis.questions import shared_scores
from contextgrid.render.markup import escape_markdown as md
from contextgrid.render.verdicts import VERDICT_COLUMNS, verdict_table
from contextgrid.significance import compare_configurations
from contextgrid.significance.wording import describe
from contextgrid.workspace.manifest import load_workspace

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_data" / "workspace"
MACHINE_NAMES = ("ci_low", "ci_high", "p_adjusted", "marker", "effect_size", "None", "nan", "NaN", "<NA>")


def open_winner_view(**query: str) -> AppTest:
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    for key, value in {**query, "compare_view": "Is the winner real?"}.items():
        app.query_params[key] = value
    app.run()
    return app.switch_page(str(ROOT / "pages" / "compare.py")).run()


def test_the_verdict_table_is_the_librarys_in_words_and_each_column_is_explained() -> None:
    workspace = load_workspace(SAMPLE)
    # The sample's own names, whatever they are today: the first configuration against the second.
    baseline, other = workspace.names[0], workspace.names[1]
    app = open_winner_view(metric="recall", k="5", a=other, b=baseline)
    assert not app.exception, [e.value for e in app.exception]
    assert not app.error, [e.value for e in app.error]

    expected = compare_configurations(
        shared_scores(workspace.per_query("recall", 5), [baseline, other]),
        baseline=baseline,
        metric="recall@5",
        correction="holm",
        seed=0,
    )
    shown = app.dataframe[-1].value
    assert list(shown.columns) == list(VERDICT_COLUMNS)
    pd.testing.assert_frame_equal(shown.reset_index(drop=True), verdict_table(expected))
    cells = " ".join(map(str, shown.to_numpy().ravel())) + " ".join(shown.columns)
    assert not [name for name in MACHINE_NAMES if name in cells]
    assert shown.iloc[0]["Verdict"] == "baseline"

    captions = " ".join(caption.value for caption in app.caption)
    for explained in ("**Won / tied / lost**", "**Effect size**", "Cohen's d", "**Interval**", "**Level**"):
        assert explained in captions
    # What each verdict rests on, in the library's one wording.
    (comparison,) = expected.comparisons
    assert md(describe(comparison)) in [block.value for block in app.markdown]

    # The figure draws the same interval and point as the table.
    [lines] = [trace for trace in figures(app)[0]["data"] if trace["mode"] == "lines"]
    [point] = [trace for trace in figures(app)[0]["data"] if trace["mode"] == "markers"]
    assert point["x"][0] == comparison.estimate
    assert point["name"] == comparison.verdict
    inside = lines["x"][0] <= 0.0 <= lines["x"][1]
    assert inside == (not comparison.significant)


def test_a_correction_changes_the_levels_and_the_table_says_so() -> None:
    workspace = load_workspace(SAMPLE)
    chosen = list(workspace.names[:3])
    app = open_winner_view(metric="recall", k="5", a=chosen[1], b=chosen[0], configs=",".join(chosen))
    assert not app.exception, [e.value for e in app.exception]
    [correction] = [box for box in app.selectbox if box.label == "Correction for many comparisons"]
    correction.set_value("bonferroni").run()
    assert not app.exception, [e.value for e in app.exception]
    shown = app.dataframe[-1].value
    # Two comparisons with the baseline: each interval at 1 - 0.05 / 2.
    assert shown["Level"].tolist()[1:] == ["97.5%", "97.5%"]


def test_every_test_draws_its_own_interval_without_an_error() -> None:
    workspace = load_workspace(SAMPLE)
    chosen = list(workspace.names[:3])
    app = open_winner_view(metric="mrr", k="3", a=chosen[1], b=chosen[0], configs=",".join(chosen))
    [test] = [box for box in app.selectbox if box.label == "Paired test"]
    for name, interval in (("ttest", "t"), ("wilcoxon", "Hodges-Lehmann"), ("permutation", "sign-flip")):
        test.set_value(name).run()
        assert not app.exception, [e.value for e in app.exception]
        assert not app.error, [e.value for e in app.error]
        shown = app.dataframe[-1].value
        assert list(shown.columns) == list(VERDICT_COLUMNS)
        captions = " ".join(caption.value for caption in app.caption)
        assert f"the {md(interval)} interval" in captions
        assert ("Hodges-Lehmann estimate" in captions) == (name == "wilcoxon")
        [test] = [box for box in app.selectbox if box.label == "Paired test"]


def test_the_questions_a_gained_and_lost_on_are_labelled_in_words() -> None:
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    app.query_params["compare_view"] = "A against B"
    app.run()
    app = app.switch_page(str(ROOT / "pages" / "compare.py")).run()
    assert not app.exception
    a, b = app.selectbox(key="_widget_a").value, app.selectbox(key="_widget_b").value
    gained, lost = app.dataframe[0], app.dataframe[1]
    for table, outcome in ((gained, "win"), (lost, "loss")):
        # The library's frame, every score as computed; the page names its columns in words.
        changes = table.value
        assert list(changes.columns) == [a, b, "delta", "outcome"]
        assert set(changes["outcome"]) <= {outcome}
        assert (changes["delta"] == changes[a] - changes[b]).all()
        shown = json.loads(table.proto.columns)
        assert shown == {
            "delta": {"label": "A minus B", "type_config": {"type": "number", "format": "%+.4f"}},
            "outcome": {"hidden": True},
            "_index": {"label": "question", "type_config": {"type": "text"}},
        }
