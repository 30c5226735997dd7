"""The Answers page through Streamlit's AppTest, on a workspace written by sweep and the simulated generator:
the numbers shown are the library's, and the widgets drive the views."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

# The workspace the library's answer tests use (tests/ is on sys.path under pytest).
from test_answer_scores import DOCUMENTS, SWEEP_GRID, SWEEP_ITEMS, build_workspace  # type: ignore[import-not-found]

import contextgrid as cg
from contextgrid.answering.batch import (
    SUMMARY_COLUMNS,
    abstention_matrix,
    answers_frame,
    invalid_citations,
    passages_frame,
    worst_first,
)
from contextgrid.render.markup import escape_markdown as md
from contextgrid.workspace.answers import workspace_answers, workspace_summary
from contextgrid.workspace.sweep import sweep

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(build_workspace(tmp_path_factory.mktemp("app-answers") / "ws"))


def answers_page(folder: Path, **query: str) -> AppTest:
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    app.query_params["source"] = "folder"
    app.query_params["workspace"] = str(folder)
    for key, value in query.items():
        app.query_params[key] = value
    app.run()
    app = app.switch_page(str(ROOT / "pages" / "answers.py")).run()
    assert not app.exception, [e.value for e in app.exception]
    assert not app.error, [e.value for e in app.error]
    return app


def select(app: AppTest, label: str) -> object:
    return next(box for box in app.selectbox if box.label == label)


def scored(folder: Path, config: str) -> pd.DataFrame:
    return worst_first(answers_frame(workspace_answers(cg.load_workspace(folder), config)))


def test_the_per_configuration_table_is_the_librarys(root: Path) -> None:
    app = answers_page(root)
    shown = app.dataframe[0].value
    expected = workspace_summary(cg.load_workspace(root))
    pd.testing.assert_frame_equal(shown, expected, check_exact=True)


HIDDEN = ["answers", "should_have_abstained", "correct_refusals"]
"""The per-configuration table's columns shown only on request (they follow from the others)."""


def test_the_per_configuration_table_shows_fewer_columns_and_the_others_one_tick_away(root: Path) -> None:
    app = answers_page(root)
    table = app.dataframe[0]
    assert list(table.proto.column_order) == [name for name in SUMMARY_COLUMNS if name not in HIDDEN]
    assert any(
        '"answers", "should have abstained" and "right refusals" are hidden' in caption.value for caption in app.caption
    )
    # Every column keeps a heading of its own and says in its help which library column it is.
    headings = json.loads(table.proto.columns)
    assert sorted(headings) == sorted([*SUMMARY_COLUMNS, "_index"])
    assert all(f"(`{name}`)" in headings[name]["help"] for name in SUMMARY_COLUMNS)

    box = next(box for box in app.checkbox if box.label == "Every column")
    box.check().run()
    assert app.query_params["answer_columns"] == "true"
    table = app.dataframe[0]
    assert list(table.proto.column_order) == list(SUMMARY_COLUMNS)
    pd.testing.assert_frame_equal(table.value, workspace_summary(cg.load_workspace(root)), check_exact=True)
    assert not any("are hidden" in caption.value for caption in app.caption)

    linked = answers_page(root, answer_columns="true")
    assert list(linked.dataframe[0].proto.column_order) == list(SUMMARY_COLUMNS)


def test_matrix_and_worst_answers_follow_the_chosen_configuration(root: Path) -> None:
    app = answers_page(root, config="bm25-fixed_chars-120-0")
    for config in ("bm25-fixed_chars-120-0", "lsa-fixed_chars-400-0"):
        select(app, "Configuration").set_value(config)  # type: ignore[attr-defined]
        app.run()
        assert app.query_params["config"] == config
        frame = scored(root, config)
        pd.testing.assert_frame_equal(app.dataframe[1].value, abstention_matrix(frame))
        worst = app.dataframe[2].value
        assert list(worst.index) == list(frame.index)
        assert worst["groundedness"].tolist() == frame["groundedness"].tolist()
        wrong = int((~frame["abstention_correct"]).sum())
        assert app.metric[0].label == "Abstention mistakes"
        assert app.metric[0].value == f"{wrong} of {len(frame)}"
        # The mistakes are the summary's wrong refusals and unwarranted answers: the matrix's two off-diagonal cells.
        summary = app.dataframe[0].value.loc[config]
        assert wrong == summary["wrong_refusals"] + summary["unwarranted_answers"]


def test_one_answer_is_drawn_word_by_word_with_its_passages(root: Path) -> None:
    config = "bm25-fixed_chars-120-0"
    entries = workspace_answers(cg.load_workspace(root), config)
    bad = next(entry for entry in entries if invalid_citations(entry.record.answer, entry.context))
    app = answers_page(root, config=config, question=bad.record.question_id)
    assert select(app, "Question").value == bad.record.question_id  # type: ignore[attr-defined]
    assert app.text[0].value == bad.item.question
    drawn = app.get("html")[0].proto.body
    assert 'class="bad-cite"' in drawn
    numbers = ", ".join(map(str, invalid_citations(bad.record.answer, bad.context)))
    assert any(f"Cites passage(s) {numbers}," in warning.value for warning in app.warning)
    pd.testing.assert_frame_equal(app.dataframe[3].value, passages_frame(bad))

    good = next(entry for entry in entries if not entry.score.abstained and entry.gold_chunk_ids)
    select(app, "Question").set_value(good.record.question_id)  # type: ignore[attr-defined]
    app.run()
    passages = app.dataframe[3].value
    assert list(passages.loc[passages["gold"], "chunk_id"]) == [
        chunk.id for chunk in good.context.chunks if chunk.id in good.gold_chunk_ids
    ]
    assert 'class="held"' in app.get("html")[0].proto.body


def test_a_workspace_without_answers_says_how_to_add_them(tmp_path: Path) -> None:
    sweep(DOCUMENTS, SWEEP_ITEMS, SWEEP_GRID[:1], tmp_path)
    app = answers_page(tmp_path)
    assert "No configuration of this workspace has answers" in app.info[0].value
    assert not app.dataframe


def test_a_configuration_whose_answers_cannot_be_read_is_named_with_its_error_and_the_rest_are_shown(
    root: Path, tmp_path: Path
) -> None:
    copy = Path(shutil.copytree(root, tmp_path / "ws"))
    workspace = cg.load_workspace(copy)
    answered = [config for config in workspace.configs if config.answers is not None]
    assert len(answered) >= 2
    broken, kept = answered[0], answered[1:]
    assert broken.answers is not None
    broken.answers.write_text('{"question_id": "q1", "answer": "x", "citations": [0]}\n')
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    app.query_params["source"] = "folder"
    app.query_params["workspace"] = str(copy)
    app.run()
    app = app.switch_page(str(ROOT / "pages" / "answers.py")).run()
    assert not app.exception, [e.value for e in app.exception]
    [warning] = [block for block in app.warning if block.value.startswith("The answers of")]
    assert warning.value.startswith("The answers of 1 configuration could not be read and is left out of this page")
    assert md(broken.name) in warning.value
    assert md(f"{broken.answers}, line 1: expected 'citations' to be a list of passage numbers, 1 or more") in (
        warning.value
    )
    assert list(app.dataframe[0].value.index) == [config.name for config in kept]
    assert broken.name not in select(app, "Configuration").options  # type: ignore[attr-defined]


def test_each_heading_says_what_its_column_holds_and_the_index_fits_the_longest_name() -> None:
    from pages._columns import headed_columns

    columns = headed_columns(
        {"abstained": ("abstained", "Answers that abstained", "%d"), "flag": ("flag", "Ticked when so", None)},
        index=["bm25-200", "a"],
    )
    assert columns["abstained"]["label"] == "abstained"
    assert columns["abstained"]["help"] == "Answers that abstained (`abstained`)"
    assert columns["abstained"]["type_config"]["format"] == "%d"
    assert columns["flag"]["type_config"]["type"] == "checkbox"
    assert columns["_index"]["width"] == 7 * len("bm25-200") + 16
    assert "_index" not in headed_columns({})
