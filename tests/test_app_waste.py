"""The Context waste page through AppTest: on a swept workspace it shows the library's numbers
for the chosen question and configurations; without documents it says what it needs."""

from __future__ import annotations

import json
from pathlib import Path

import corpora
import pytest
from charts import _decoded, figures, title
from streamlit.testing.v1 import AppTest

import contextgrid as cg
from contextgrid.evidence.run_waste import character_boxes, coverage_by_configuration
from contextgrid.evidence.waste import COMPARED_COLUMNS, measure_waste
from contextgrid.render.markup import escape_markdown as md
from contextgrid.render.report import build_report
from contextgrid.render.waste_figures import characters_plot, configuration_heatmap, precision_recall_plot
from contextgrid.workspace.summary import configuration_summary
from contextgrid.workspace.waste import configuration_waste, workspace_waste

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return corpora.swept(tmp_path_factory.mktemp("waste-ws"), sizes=[60, 200], overlap=20)


def open_waste(**query: str) -> AppTest:
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in query.items():
        app.query_params[key] = value
    app.run()
    return app.switch_page(str(ROOT / "pages" / "waste.py")).run()


def test_the_page_shows_the_librarys_waste_for_the_chosen_question(swept: Path) -> None:
    workspace = cg.load_workspace(swept)
    configs = list(workspace.names)
    app = open_waste(source="folder", workspace=str(swept), configs=",".join(configs), k="3", question="q2")
    assert not app.exception, [e.value for e in app.exception]
    assert not app.error, [e.value for e in app.error]
    shown = app.dataframe[0].value
    items, _ = workspace.resolved
    item = next(entry for entry in items if entry.id == "q2")
    for config in configs:
        chunks = {chunk.id: chunk for chunk in workspace.chunks(config)}
        top = [chunks[c] for c in workspace.run(config)["q2"][:3]]
        waste = measure_waste(item, top)
        row = shown.loc[config]
        assert row["character_recall"] == waste.character_recall
        assert row["character_precision"] == waste.character_precision
        assert row["retrieved_characters"] == cg.retrieved_character_count(
            [chunks[c] for c in workspace.run(config)["q2"][:3]]
        )
        assert row["gold_characters"] == waste.gold_characters
        assert row["repeated"] == waste.repeated
    titles = chart_titles(app)
    assert "Where the characters of the top 3 chunks went" in titles
    assert "stove.md" in titles
    assert len(app.get("download_button")) == len(titles)
    split = figures(app)[titles.index("Where the characters of the top 3 chunks went")]["data"]
    drawn = {(config, bar["name"]): value for bar in split for config, value in zip(bar["y"], bar["x"], strict=True)}
    for config in configs:
        row = shown.loc[config]
        assert drawn[(config, "gold, missed")] == row["missed"]
        assert drawn[(config, "not gold")] == row["not_gold"]
        assert drawn[(config, "retrieved again")] == row["repeated"]


def chart_titles(app: AppTest) -> list[str]:
    return [title(figure) for figure in figures(app)]


def test_each_view_runs_only_when_its_tab_is_open(swept: Path) -> None:
    query = {"source": "folder", "workspace": str(swept), "k": "3", "question": "q2"}
    app = open_waste(**query, waste_view="Gold coverage")
    assert not app.exception, [e.value for e in app.exception]
    assert [tab.label for tab in app.tabs] == ["One question", "Gold coverage", "Recall against waste", "Report"]
    first = cg.load_workspace(swept).names[0]
    assert chart_titles(app) == [f"Gold held at each rank ({first})", "Gold in the top 3, by configuration"]
    app = open_waste(**query, waste_view="Recall against waste")
    assert not app.exception, [e.value for e in app.exception]
    assert len(chart_titles(app)) == 2
    # The figures kept for the view are the library's, built from every configuration's waste.
    workspace = cg.load_workspace(swept)
    table = workspace_waste(workspace, 3)
    built = [
        precision_recall_plot(configuration_waste(workspace, 3, table=table), 3, workspace.params_by_config()),
        characters_plot(character_boxes(table), points=table),
    ]
    for drawn, expected in zip(figures(app), built, strict=True):
        assert drawn["data"] == _decoded(json.loads(expected.to_json()))["data"]
    assert app.dataframe[0].value.index.tolist() == list(cg.load_workspace(swept).names)
    app = open_waste(**query, waste_view="Report")
    assert not app.exception, [e.value for e in app.exception]
    assert chart_titles(app) == []
    assert [button.label for button in app.get("download_button")] == [
        f"Download the report of {md(cg.load_workspace(swept).names[0])}"
    ]
    # The report's first screen, as the report words it.
    summary = configuration_summary(cg.load_workspace(swept), first, k=3)
    shown = [block.value for block in app.markdown]
    assert md(summary.verdict()) in shown
    assert md(summary.failures() or "") in shown


def test_a_workspace_without_documents_says_what_the_view_needs(tmp_path: Path) -> None:
    (tmp_path / "qrels.trec").write_text("q1 0 c1 2\n")
    (tmp_path / "run.trec").write_text("q1 Q0 c1 1 0.9 x\n")
    (tmp_path / "contextgrid.toml").write_text('qrels = "qrels.trec"\n[[config]]\nname = "only"\nrun = "run.trec"\n')
    app = open_waste(source="folder", workspace=str(tmp_path))
    assert not app.exception, [e.value for e in app.exception]
    assert not app.error
    assert "This view needs documents, questions and chunks in the workspace" in app.info[0].value


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return corpora.swept(tmp_path_factory.mktemp("waste-many"), sizes=[40, 60, 80, 120, 200], overlap=20)


def test_gold_coverage_measures_the_chosen_configurations_alone_and_draws_what_the_whole_table_gives(
    many: Path,
) -> None:
    # Measured for the chosen configurations only (not all of them), the heatmap is the one drawn from every
    # configuration's table cut to the chosen, in the chosen order.
    workspace = cg.load_workspace(many)
    names = list(workspace.names)
    chosen = [names[3], names[1]]
    query = {"source": "folder", "k": "3", "configs": ",".join(chosen), "waste_view": "Gold coverage"}
    app = open_waste(workspace=str(many), **query)
    assert not app.exception, [e.value for e in app.exception]
    whole = workspace_waste(workspace, 3).loc[chosen]
    expected = configuration_heatmap(
        coverage_by_configuration(whole, value="character_recall"),
        3,
        best_chunk=coverage_by_configuration(whole, value="best_chunk_coverage"),
    )
    [drawn] = [figure for figure in figures(app) if title(figure) == "Gold in the top 3, by configuration"]
    reference = _decoded(json.loads(expected.to_json()))
    for field in ("z", "y", "text", "customdata"):
        assert drawn["data"][0][field] == reference["data"][0][field], field


def test_many_configurations_are_picked_from_a_list_of_full_names_not_tabs(many: Path, swept: Path) -> None:
    names = list(cg.load_workspace(many).names)
    query = {"source": "folder", "k": "3", "question": "q2", "configs": ",".join(names), "config": names[3]}
    app = open_waste(workspace=str(many), **query)
    assert not app.exception, [e.value for e in app.exception]
    # The page's own four views are tabs; the configurations are not.
    assert [tab.label for tab in app.tabs] == ["One question", "Gold coverage", "Recall against waste", "Report"]
    [picker] = [box for box in app.selectbox if box.label == "Chunks drawn over the documents"]
    assert list(picker.options) == names
    assert picker.value == names[3]
    drawn = [element.proto.body for element in app.get("html") if "cg-doc" in element.proto.body]
    assert drawn
    # One drawing per document, of the chosen configuration's chunks alone.
    picker.set_value(names[0]).run()
    assert not app.exception, [e.value for e in app.exception]
    again = [element.proto.body for element in app.get("html") if "cg-doc" in element.proto.body]
    assert len(again) == len(drawn)
    assert again != drawn
    # A few configurations of short names stay tabs, one each.
    few = list(cg.load_workspace(swept).names)
    app = open_waste(workspace=str(swept), **{**query, "configs": ",".join(few), "config": few[0]})
    assert not app.exception, [e.value for e in app.exception]
    assert {md(name) for name in few} <= {tab.label for tab in app.tabs}
    assert not [box for box in app.selectbox if box.label == "Chunks drawn over the documents"]


def test_a_document_without_gold_evidence_is_drawn_only_once_its_expander_is_opened() -> None:
    sample = cg.load_workspace(ROOT / "sample_data" / "workspace")
    app = open_waste(configs=",".join(sample.names[:2]), k="5", question="q001")
    assert not app.exception, [e.value for e in app.exception]
    labels = {f"{md(doc_id)} (no gold evidence here)": doc_id for doc_id in sample.documents}
    folded = [labels[e.label] for e in app.expander if e.label in labels]
    assert folded
    gold = {anchor.doc_id for anchor in next(q for q in sample.questions if q.id == "q001").anchors}
    titles = chart_titles(app)
    assert sorted(titles) == sorted(["Where the characters of the top 5 chunks went", *gold])
    app.session_state[f"waste_doc_q001_{folded[0]}"] = True
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    assert sorted(chart_titles(app)) == sorted([*titles, folded[0]])


def test_every_character_score_column_has_a_short_heading_and_says_its_library_name() -> None:
    app = open_waste(k="5", question="q001")
    assert not app.exception, [e.value for e in app.exception]
    table = app.dataframe[0]
    assert list(table.value.columns) == list(COMPARED_COLUMNS)
    config = json.loads(table.proto.columns)
    headings = [config[name]["label"] for name in COMPARED_COLUMNS]
    assert headings == ["recall", "precision", "F1", "retrieved", "gold", "not gold", "repeated", "missed"]
    for name in COMPARED_COLUMNS:
        assert f"(`{name}`)" in config[name]["help"]


def question_options(app: AppTest) -> list[str]:
    return next(box for box in app.selectbox if box.label == "Question").options


def test_the_question_list_offers_the_first_questions_and_the_remembered_one_and_a_filter_reaches_the_rest() -> None:
    from contextgrid.workspace.sample import SAMPLE
    from pages._state import QUESTIONS_OFFERED

    resolved = [entry.id for entry in cg.load_workspace(SAMPLE).resolved[0] if entry.is_resolved]
    assert len(resolved) > QUESTIONS_OFFERED
    last = resolved[-1]
    app = open_waste()
    assert not app.exception, [e.value for e in app.exception]
    offered = question_options(app)
    assert [option.partition(":")[0] for option in offered] == resolved[:QUESTIONS_OFFERED]
    assert any(f"first {QUESTIONS_OFFERED} of {len(resolved):,} questions" in caption.value for caption in app.caption)
    # A remembered question past the first ones stays on offer, chosen.
    app = open_waste(question=last)
    offered = [option.partition(":")[0] for option in question_options(app)]
    assert offered == [*resolved[:QUESTIONS_OFFERED], last]
    assert app.text[0].value == next(e for e in cg.load_workspace(SAMPLE).resolved[0] if e.id == last).question
    # The filter reaches any question; one no id holds says so.
    app = open_waste(contains=last)
    assert [option.partition(":")[0] for option in question_options(app)] == [q for q in resolved if last in q]
    app = open_waste(contains="no such id")
    assert any("No question id contains" in info.value for info in app.info)


@pytest.mark.parametrize("graded_zero", [0, 3])
def test_the_report_drawn_from_the_views_figures_is_the_librarys(graded_zero: int) -> None:
    from pages import _data, _loading, _uploads

    sample_root = ROOT / "sample_data" / "workspace"
    sample = cg.load_workspace(sample_root)
    first, second = sample.names[:2]
    rows = [json.loads(line) for line in (sample_root / "questions.jsonl").read_text().splitlines()]
    # Questions whose only gold is graded 0 are resolved, so the rank view draws them, but hold no evidence, so the
    # report's own rank view leaves them out: the report draws its own then.
    for row in rows[:graded_zero]:
        row["gold"] = [{**gold, "grade": 0} for gold in row["gold"]]
    folder = _uploads.SessionFolder()  # kept: the folder goes when the object does
    source = _uploads.uploaded_source(
        (f"{first}.trec", sample.config(first).qrels.read_bytes()),
        tuple((f"{name}.trec", sample.config(name).run.read_bytes()) for name in (first, second)),
        folder=folder,
        chunks=("chunks.jsonl", Path(str(sample.config(first).chunks)).read_bytes()),
        documents=("documents.jsonl", (sample_root / "documents.jsonl").read_bytes()),
        questions=("questions.jsonl", "".join(json.dumps(row) + "\n" for row in rows).encode()),
    )
    # The views the tour opens before the report, which keep the figures and causes it is drawn from.
    _data.prepare(source)
    _data.configuration_causes(source, first, 5)
    _data.rank_figure(source, first, 5)
    _data.characters_figure(source, 5)
    _data.precision_recall_figure(source, 5)
    workspace = _loading.workspace(source)
    for config, baseline in ((first, first), (second, first)):
        assert _data.report(source, config, 5, baseline) == build_report(workspace, config, k=5, baseline=baseline)
