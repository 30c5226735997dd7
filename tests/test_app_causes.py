"""Why questions fail, on the dashboard through AppTest: the Overview's bars are the library's counts, the
Questions page filters on causes with every filter in the URL and says what happened to a question, Compare
says how causes move; a workspace without chunks says what it lacks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from contextgrid.analysis.causes import cause_counts, cause_transitions, explain_cause, transition_sentence
from contextgrid.analysis.questions import first_relevant_chunk
from contextgrid.render.cause_figures import BAR_ORDER, cause_bars
from contextgrid.render.markup import escape_markdown as md
from contextgrid.workspace.causes import failure_causes
from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.sample import SAMPLE

ROOT = Path(__file__).resolve().parent.parent
CONFIG = "bm25-recursive-200-0"


def open_page(name: str | None, **query: str) -> AppTest:
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in query.items():
        app.query_params[key] = value
    app.run()
    return app if name is None else app.switch_page(str(ROOT / "pages" / name)).run()


def no_problems(app: AppTest) -> None:
    assert not app.exception, [e.value for e in app.exception]
    assert not app.error, [e.value for e in app.error]


@pytest.fixture(scope="module")
def without_chunks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample's files, but a manifest that names no chunks: questions and documents, no chunks."""
    root = tmp_path_factory.mktemp("no-chunks")
    lines = (SAMPLE / "contextgrid.toml").read_text().splitlines()
    kept = []
    for line in lines:
        if line.startswith("chunks"):
            continue
        key, _, value = line.partition(" = ")
        # Paths made absolute, so the manifest reads the sample's files from its own folder.
        relative = key in {"documents", "questions", "run", "qrels", "answers"}
        kept.append(f'{key} = "{SAMPLE / json.loads(value)}"' if relative else line)
    (root / "contextgrid.toml").write_text("\n".join(kept) + "\n")
    return root


# -- Overview ----------------------------------------------------------------------------------------------


def test_overview_draws_the_librarys_counts_as_one_bar_per_configuration() -> None:
    app = open_page(None, view="Why questions fail", k="5")
    no_problems(app)
    _, chart = app.get("plotly_chart")  # the budget figure above the tabs first
    drawn = json.loads(chart.proto.spec)
    expected = json.loads(cause_bars(cause_counts(failure_causes(load_workspace(SAMPLE), k=5)), 5).to_json())
    assert drawn["data"] == expected["data"]
    assert [trace["name"] for trace in drawn["data"]] == list(BAR_ORDER)
    assert drawn["layout"]["template"] == expected["layout"]["template"]  # its own template, not streamlit's
    assert "on_select" not in chart.proto.spec
    assert chart.proto.selection_mode


def test_overview_says_what_a_workspace_without_chunks_lacks(without_chunks: Path) -> None:
    app = open_page(None, view="Why questions fail", source="folder", workspace=str(without_chunks))
    no_problems(app)
    assert not app.get("plotly_chart")
    [info] = [box.value for box in app.info if "Naming why questions fail" in box.value]
    assert "has no chunks \\(for bm25\\-recursive\\-200\\-0" in info


# -- Questions ---------------------------------------------------------------------------------------------


def test_questions_filter_on_a_cause_from_the_url_and_show_each_questions_text() -> None:
    app = open_page("questions.py", config=CONFIG, k="5", cause="split")
    no_problems(app)
    table = failure_causes(load_workspace(SAMPLE), k=5)
    mine = table[table["config"] == CONFIG]
    shown = app.dataframe[0].value
    assert list(shown.columns[:2]) == ["text", "cause"]
    assert sorted(shown.index) == sorted(mine.loc[mine["cause"] == "split", "question"])
    texts = {entry.id: entry.question for entry in load_workspace(SAMPLE).questions}
    assert shown["text"].to_dict() == {question: texts[question] for question in shown.index}
    picker = next(box for box in app.selectbox if box.label == "Question")
    assert picker.options[0].startswith(f"{shown.index[0]} — ")


def test_no_gold_questions_are_listed_with_their_cause() -> None:
    app = open_page("questions.py", config=CONFIG, k="5", cause="no_gold")
    no_problems(app)
    assert len(app.dataframe[0].value) == 21


def test_every_filter_is_in_the_url_and_a_link_reopens_the_same_list() -> None:
    app = open_page("questions.py", config=CONFIG, k="5")
    next(box for box in app.checkbox if box.label.startswith("Only failing")).check().run()
    next(box for box in app.multiselect if box.label == "Cause").select("ranked_low").run()
    next(box for box in app.text_input if box.label == "Question id contains").input("q0").run()
    next(box for box in app.slider if box.label.endswith("at most")).set_value(0.5).run()
    no_problems(app)
    query = {key: app.query_params[key] for key in ("config", "k", "failing", "cause", "contains", "at_most")}
    assert query == {
        "config": CONFIG, "k": "5", "failing": "true", "cause": "ranked_low", "contains": "q0", "at_most": "0.5"
    }  # fmt: skip
    listed = app.dataframe[0].value
    again = open_page("questions.py", **query)
    no_problems(again)
    assert list(again.dataframe[0].value.index) == list(listed.index)
    assert len(listed)
    assert set(listed["cause"]) == {"ranked_low"}


def test_a_link_to_what_does_not_exist_says_so_in_one_line() -> None:
    app = open_page("questions.py", config="no-such-config", cause="split,lost", question="q$9*")
    no_problems(app)
    [warning] = app.warning
    assert warning.value == (
        "The link asks for "
        + md("configuration 'no-such-config', cause 'lost', question 'q$9*'")
        + ", which this data does not have; showing the defaults instead."
    )
    assert app.query_params["config"] == load_workspace(SAMPLE).names[0]


def test_the_drill_down_says_what_happened_and_offers_the_configurations_that_get_it_right() -> None:
    workspace = load_workspace(SAMPLE)
    table = failure_causes(workspace, k=5)
    row = table[(table["config"] == CONFIG) & (table["cause"] == "ranked_low")].iloc[0]
    question = row["question"]
    app = open_page("questions.py", config=CONFIG, k="5", question=question)
    no_problems(app)
    gold = first_relevant_chunk(workspace.qrels(CONFIG)[question], workspace.run(CONFIG)[question])
    right = table[(table["question"] == question) & (table["cause"] == "hit")]["config"].tolist()
    said = explain_cause(row, k=5, gold_chunk=gold, elsewhere=right)
    assert f"**{md(said)}**" in [block.value for block in app.markdown]
    # The sentence names what would fix it: a deeper k for this configuration, and the others that get it right.
    assert f"this configuration would get it at k = {row['first_relevant_rank']}" in said
    assert right
    offer = next(box for box in app.selectbox if box.label == "Open it under")
    assert offer.options == right
    offer.set_value(right[-1]).run()
    next(button for button in app.button if button.label == "Open this question there").click().run()
    no_problems(app)
    assert app.query_params["config"] == right[-1]
    assert app.query_params["question"] == question


def test_questions_without_chunks_show_texts_and_say_there_are_no_causes(without_chunks: Path) -> None:
    app = open_page("questions.py", source="folder", workspace=str(without_chunks), config=CONFIG, k="5")
    no_problems(app)
    shown = app.dataframe[0].value
    assert "cause" not in shown.columns
    assert "text" in shown.columns
    assert any("No causes: the workspace has no chunks" in caption.value for caption in app.caption)
    assert not app.multiselect


# -- Compare -----------------------------------------------------------------------------------------------


def test_compare_says_how_causes_move_and_lists_each_moves_questions() -> None:
    a, b = "bm25-recursive-2000-0", CONFIG
    app = open_page("compare.py", a=a, b=b, k="5")
    no_problems(app)
    moves = cause_transitions(failure_causes(load_workspace(SAMPLE), k=5), b, a)
    said = f"From {md(b)} to {md(a)} at k=5: {md(transition_sentence(moves, limit=4))}"
    assert said in [block.value for block in app.markdown]
    rows = moves[["from", "to", "count"]].itertuples(index=False)
    assert [expander.label for expander in app.expander] == [md(f"{n} from {start} to {end}") for start, end, n in rows]
    # Each move's questions are listed once its panel is opened, not before.
    assert not any(expander.dataframe for expander in app.expander)
    start, end = moves.iloc[0]["from"], moves.iloc[0]["to"]
    app.session_state[f"move_{start}_{end}"] = True
    app.run()
    no_problems(app)
    first = app.expander[0]
    assert list(first.dataframe[0].value.index) == list(moves.iloc[0]["questions"])
    assert not any(expander.dataframe for expander in app.expander[1:])


def test_compare_without_chunks_says_what_is_missing(without_chunks: Path) -> None:
    app = open_page("compare.py", source="folder", workspace=str(without_chunks))
    no_problems(app)
    assert any("Naming causes needs questions, documents and chunks" in caption.value for caption in app.caption)


def test_the_questions_table_shows_the_signals_and_filters_on_them() -> None:
    workspace = load_workspace(SAMPLE)
    table = failure_causes(workspace, k=5)
    mine = table[table["config"] == CONFIG].set_index("question")
    app = open_page("questions.py", config=CONFIG, k="5", signals="deeper k finds it")
    no_problems(app)
    shown = app.dataframe[0].value
    for column in ("cause", "retrieved", "vocabulary_gap", "gold_density", "distractors", "smallest_k"):
        assert column in shown.columns
    # Only the questions this configuration would get at a deeper k: exactly those with a smallest_k.
    assert set(shown.index) == set(mine.index[mine["smallest_k"].notna()])
    assert (shown["smallest_k"] == mine.loc[shown.index, "smallest_k"]).all()


def test_the_overview_says_how_many_questions_their_best_configuration_finds() -> None:
    from contextgrid.analysis.causes import cause_oracle

    app = open_page(None, view="Why questions fail", k="5")
    no_problems(app)
    said = cause_oracle(failure_causes(load_workspace(SAMPLE), k=5)).sentence(5)
    assert md(said) in [block.value for block in app.markdown]


def test_the_overview_lists_the_gold_audit_once_its_panel_is_opened() -> None:
    from contextgrid.workspace.audit import audit_workspace

    app = open_page(None, view="Why questions fail", k="5")
    no_problems(app)
    [panel] = [block for block in app.expander if block.label.startswith("Audit of the gold")]
    assert panel.label == "Audit of the gold (contextgrid audit)"
    # Folded, it audits nothing: the tab does not wait for the audit.
    assert not panel.dataframe
    app.session_state["gold_audit"] = True
    app.run()
    no_problems(app)
    findings = audit_workspace(load_workspace(SAMPLE))
    [panel] = [block for block in app.expander if block.label.startswith("Audit of the gold")]
    assert panel.caption[0].value.startswith(f"{len(findings):,} findings.")
    shown = panel.dataframe[0].value
    assert shown["detail"].tolist() == findings["detail"].tolist()


def test_a_configuration_whose_qrels_come_from_another_chunking_is_listed_as_unreadable_on_every_page(
    tmp_path: Path,
) -> None:
    from test_alignment import mixed_workspace

    from contextgrid.evidence.alignment import MISMATCH

    mixed_workspace(tmp_path)
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    app.query_params["source"] = "folder"
    app.query_params["workspace"] = str(tmp_path)
    app.run()
    for name in ("questions.py", "compare.py", None):
        shown = app if name is None else app.switch_page(str(ROOT / "pages" / name)).run()
        assert not shown.exception, [e.value for e in shown.exception]
        told = [element.value for element in [*shown.warning, *shown.error]]
        assert any(md("'mixed'") in said and md(MISMATCH) in said for said in told), told
