"""The dashboard, page by page, through Streamlit's AppTest: no exception, the numbers
shown are the library's, and widgets drive the views."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import contextgrid as cg
from contextgrid.diagnose import question_changes
from contextgrid.io import read_qrels, read_run
from contextgrid.workspace import load_workspace

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_data" / "workspace"


def start(**query: str) -> AppTest:
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in query.items():
        app.query_params[key] = value
    return app.run()


def page(app: AppTest, name: str) -> AppTest:
    return app.switch_page(str(ROOT / "pages" / name)).run()


def no_problems(app: AppTest) -> None:
    assert not app.exception, [e.value for e in app.exception]
    assert not app.error, [e.value for e in app.error]


def select(app: AppTest, label: str) -> object:
    return next(box for box in app.selectbox if box.label == label)


def sample_scores(config: str) -> dict[str, float]:
    """What contextgrid.evaluate gives for one sample configuration, read straight from its files."""
    workspace = load_workspace(SAMPLE)
    settings = workspace.config(config)
    return cg.evaluate(read_qrels(settings.qrels), read_run(settings.run))


def test_overview_shows_the_librarys_grid() -> None:
    app = start()
    no_problems(app)
    shown = app.dataframe[0].value
    for config in load_workspace(SAMPLE).names:
        expected = sample_scores(config)
        assert list(shown.columns) == list(expected)
        assert shown.loc[config].to_dict() == pytest.approx(expected, abs=0, rel=0)


def test_overview_pivot_follows_metric_and_k() -> None:
    app = start()
    select(app, "Metric").set_value("recall")
    select(app, "k").set_value(5)
    app.run()
    no_problems(app)
    assert app.query_params["metric"] == "recall"
    assert app.query_params["k"] == "5"
    titles = [json.loads(chart.proto.spec)["layout"]["title"]["text"] for chart in app.get("plotly_chart")]
    assert "recall@5 by size × retriever" in titles


def test_choices_come_back_from_the_url() -> None:
    app = start(metric="mrr", k="10", config="dense-recursive-200-0")
    app = page(app, "questions.py")
    no_problems(app)
    assert select(app, "Metric").value == "mrr"
    assert select(app, "k").value == 10
    assert select(app, "Configuration").value == "dense-recursive-200-0"


def test_questions_page_lists_per_question_scores_worst_first() -> None:
    app = page(start(config="bm25-recursive-500-0", k="5", metric="ndcg"), "questions.py")
    no_problems(app)
    table = app.dataframe[0].value
    settings = load_workspace(SAMPLE).config("bm25-recursive-500-0")
    qrels, run = read_qrels(settings.qrels), read_run(settings.run)
    expected = cg.per_query(qrels, run, "ndcg", 5)
    assert set(table.index) == set(expected)
    assert {q: table.loc[q, "ndcg@5"] for q in expected} == expected
    hits = cg.per_query(qrels, run, "hit_rate", 5)
    failing = [q for q, hit in hits.items() if hit == 0.0]
    assert set(table.index[: len(failing)]) == set(failing)


def test_questions_filters_drive_the_table() -> None:
    app = page(start(config="bm25-recursive-500-0", k="1"), "questions.py")
    everything = len(app.dataframe[0].value)
    app.checkbox[0].check().run()
    no_problems(app)
    failing = app.dataframe[0].value
    assert failing["failing"].all()
    assert 0 < len(failing) < everything


def test_question_drill_down_shows_the_ranking_and_first_relevant_rank() -> None:
    app = page(start(config="dense-recursive-500-0", k="5"), "questions.py")
    question = str(select(app, "Question").value)
    settings = load_workspace(SAMPLE).config("dense-recursive-500-0")
    run = read_run(settings.run)
    ranking = app.dataframe[1].value
    assert list(ranking["chunk_id"]) == list(run[question][:20])
    rank = cg.first_relevant_ranks(read_qrels(settings.qrels), run)[question]
    assert app.metric[0].value == ("none retrieved" if rank is None else str(rank))


def test_compare_counts_wins_ties_and_losses_like_the_library() -> None:
    app = page(start(metric="recall", k="3", a="dense-recursive-500-0", b="bm25-recursive-500-0"), "compare.py")
    no_problems(app)
    table = load_workspace(SAMPLE).per_query("recall", 3)
    outcomes = question_changes(table, "dense-recursive-500-0", "bm25-recursive-500-0")["outcome"].value_counts()
    shown = [metric.value for metric in app.metric[:3]]
    assert shown == [str(outcomes.get(name, 0)) for name in ("win", "tie", "loss")]


def test_compare_opens_a_changed_question_in_the_drill_down() -> None:
    app = page(start(metric="recall", k="3", a="dense-recursive-500-0", b="bm25-recursive-500-0"), "compare.py")
    chosen = select(app, "Open a changed question in the drill-down").value
    app.button[0].click().run()
    no_problems(app)
    assert select(app, "Question").value == chosen
    assert select(app, "Configuration").value == "dense-recursive-500-0"


def test_a_malformed_workspace_shows_a_readable_error(tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    (tmp_path / "qrels.txt").write_text("q1 0 c1 2\n")
    (tmp_path / "runs" / "bad.trec").write_text("q1 Q0 c1 1 0.9 tag\nq1 Q0 c2 2 high tag\n")
    (tmp_path / "contextgrid.toml").write_text(
        'name = "broken"\nqrels = "qrels.txt"\n[[config]]\nname = "bad"\nrun = "runs/bad.trec"\n'
    )
    app = start(source="folder", workspace=str(tmp_path))
    assert not app.exception
    message = app.error[0].value
    assert "bad.trec" in message
    assert "line 2" in message
    assert app.sidebar.selectbox[0].value == "folder"


def test_every_page_renders_with_every_choice_of_k() -> None:
    app = start()
    for name in ("overview.py", "questions.py", "compare.py"):
        for k in ("1", "20"):
            app.query_params["k"] = k
            app = page(app, name)
            no_problems(app)
            assert isinstance(app.dataframe[0].value, pd.DataFrame)


def test_uploads_become_a_workspace_keyed_by_their_content() -> None:
    from pages import _data

    sample = load_workspace(SAMPLE)
    first, second = sample.names[:2]
    files = {
        "qrels": (f"{first}.trec", sample.config(first).qrels.read_bytes()),
        "runs": tuple((f"{name}.trec", sample.config(name).run.read_bytes()) for name in (first, second)),
        "chunks": ("chunks.jsonl", Path(str(sample.config(first).chunks)).read_bytes()),
        "documents": ("documents.jsonl", (SAMPLE / "documents.jsonl").read_bytes()),
        "questions": ("questions.jsonl", (SAMPLE / "questions.jsonl").read_bytes()),
    }
    extras = {key: files[key] for key in ("chunks", "documents", "questions")}
    root = _data.uploaded_workspace(files["qrels"], files["runs"], **extras)
    assert _data.uploaded_workspace(files["qrels"], files["runs"], **extras) == root
    uploaded = load_workspace(root)
    assert uploaded.names == (first, second)
    assert uploaded.chunks(first) == sample.chunks(first)
    assert uploaded.questions == sample.questions
    assert uploaded.evaluate().to_dataframe().loc[first].to_dict() == sample_scores(first)


def test_question_drill_down_shows_the_gold_passage_from_the_document() -> None:
    workspace = load_workspace(SAMPLE)
    items, _ = workspace.resolved
    entry = next(item for item in items if item.gold)
    app = page(start(config="bm25-recursive-500-0", k="5", question=entry.id), "questions.py")
    no_problems(app)
    assert select(app, "Question").value == entry.id
    texts = [element.value for element in app.text]
    assert entry.question in texts
    gold = entry.gold[0].span
    assert workspace.documents[gold.doc_id][gold.start : gold.end] in texts
