"""The dashboard, page by page, through Streamlit's AppTest: no exception, the numbers
shown are the library's, and widgets drive the views."""

from __future__ import annotations

import ast
from pathlib import Path

import pandas as pd
import pytest
from charts import figures, title
from streamlit.testing.v1 import AppTest

import contextgrid as cg
from contextgrid.analysis.grid import best_per_column, metric_curves, pivot_counts, pivot_grid
from contextgrid.analysis.questions import question_changes, question_label
from contextgrid.io import read_qrels, read_run
from contextgrid.metrics import BUILTIN_METRICS
from contextgrid.render.markup import escape_markdown as md
from contextgrid.workspace.manifest import load_workspace

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
    # Two metrics fit the width; every metric is one choice away.
    [metrics] = app.multiselect
    assert metrics.value == ["recall", "precision"]
    metrics.set_value(list(BUILTIN_METRICS)).run()
    no_problems(app)
    assert app.query_params["metrics"] == ",".join(BUILTIN_METRICS)
    shown = app.dataframe[0].value
    for config in load_workspace(SAMPLE).names:
        expected = sample_scores(config)
        assert list(shown.columns) == list(expected)
        assert shown.loc[config].to_dict() == pytest.approx(expected, abs=0, rel=0)


def test_overview_marks_the_best_of_each_column() -> None:
    from pages import _data

    grid = load_workspace(SAMPLE).evaluate().to_dataframe()
    styled = _data.grid_styler(str(SAMPLE))
    styled._compute()
    bold = {
        (str(grid.index[row]), str(styled.data.columns[column]))
        for (row, column), css in styled.ctx.items()
        if ("font-weight", "bold") in css
    }
    assert bold == {(config, label) for label, configs in best_per_column(grid).items() for config in configs}


def test_overview_opens_on_the_table_and_draws_no_chart_until_asked() -> None:
    app = start()
    no_problems(app)
    assert [tab.label for tab in app.tabs] == [
        "metric@k grid",
        "Heatmap",
        "Two parameters at once",
        "Metric against k",
        "Why questions fail",
    ]
    # The only chart before a tab is asked for is the budget figure above the grid.
    assert [title(figure) for figure in figures(app)] == ["Evidence recall against characters sent, at equal budgets"]
    assert app.get("download_button")


def test_overview_heatmap_shows_every_score_and_stars_the_best() -> None:
    app = start(view="Heatmap")
    no_problems(app)
    grid = load_workspace(SAMPLE).evaluate().to_dataframe()
    best = best_per_column(grid)
    _, figure = figures(app)  # the budget figure first
    [heatmap] = figure["data"]
    assert len(heatmap["y"]) * len(heatmap["x"]) == len(grid) * len(best)
    for row, config in enumerate(heatmap["y"]):
        for column, label in enumerate(heatmap["x"]):
            assert heatmap["z"][row][column] == grid.loc[config, label]
            assert heatmap["text"][row][column] == ("★" if config in best[label] else "")


def test_overview_pivot_follows_metric_and_k() -> None:
    app = start(view="Two parameters at once")
    select(app, "Metric").set_value("recall")
    select(app, "k").set_value(5)
    app.run()
    no_problems(app)
    assert app.query_params["metric"] == "recall"
    assert app.query_params["k"] == "5"
    _, figure = figures(app)  # the budget figure first
    assert title(figure) == "recall@5 by size × retriever"
    grid = load_workspace(SAMPLE).evaluate().to_dataframe()
    expected = pivot_grid(grid, "recall@5", rows="size", columns="retriever")
    counts = pivot_counts(grid, rows="size", columns="retriever")
    [heatmap] = figure["data"]
    for i, row in enumerate(heatmap["y"]):
        for j, column in enumerate(heatmap["x"]):
            value = expected.loc[int(row), column]
            drawn = heatmap["z"][i][j]
            assert (pd.isna(drawn) and pd.isna(value)) or drawn == value
            # Each cell that averages configurations says how many.
            assert heatmap["customdata"][i][j] == counts.loc[int(row), column]
            if not pd.isna(value) and counts.loc[int(row), column] > 1:
                assert heatmap["text"][i][j].endswith(f"mean of {counts.loc[int(row), column]}")


def test_overview_curves_follow_the_chosen_metric() -> None:
    app = start(view="Metric against k")
    select(app, "Metric to follow over k").set_value("mrr").run()
    no_problems(app)
    _, figure = figures(app)  # the budget figure first
    curves = metric_curves(load_workspace(SAMPLE).evaluate().to_dataframe(), "mrr")
    lines = [trace for trace in figure["data"] if trace["x"] != [None]]
    assert {(trace["name"], k): value for trace in lines for k, value in zip(trace["x"], trace["y"], strict=True)} == {
        (config, k): curves.loc[config, k] for config in curves.index for k in curves.columns
    }
    # k on a numeric axis: the cut-offs as far apart as their ratios, each ticked.
    assert figure["layout"]["xaxis"]["type"] == "log"
    assert figure["layout"]["xaxis"]["tickvals"] == list(curves.columns)
    # Each configuration its own colour and symbol.
    assert len({(trace["marker"]["color"], trace["marker"]["symbol"]) for trace in lines}) == len(curves)


def test_choices_come_back_from_the_url() -> None:
    app = start(metric="mrr", k="10", config="lsa-recursive-200-0")
    app = page(app, "questions.py")
    no_problems(app)
    assert select(app, "Metric").value == "mrr"
    assert select(app, "k").value == 10
    assert select(app, "Configuration").value == "lsa-recursive-200-0"


def test_questions_page_lists_per_question_scores_worst_first() -> None:
    app = page(start(config="bm25-recursive-500-0", k="5", metric="ndcg"), "questions.py")
    no_problems(app)
    table = app.dataframe[0].value
    settings = load_workspace(SAMPLE).config("bm25-recursive-500-0")
    qrels, run = read_qrels(settings.qrels), read_run(settings.run)
    expected = cg.per_query(qrels, run, "ndcg", 5)
    scored = table.dropna(subset=["ndcg@5"])
    assert set(scored.index) == set(expected)
    assert {q: table.loc[q, "ndcg@5"] for q in expected} == expected
    # The questions without gold evidence have no score: listed last, as not failing, with their cause.
    assert set(table.index.difference(scored.index)) == set(table.index[table["cause"] == "no_gold"])
    assert not table.loc[table["cause"] == "no_gold", "failing"].any()
    hits = cg.per_query(qrels, run, "hit_rate", 5)
    failing = [q for q, hit in hits.items() if hit == 0.0]
    assert set(table.index[: len(failing)]) == set(failing)


def test_questions_without_gold_show_a_blank_gold_recall_never_the_text_none() -> None:
    app = page(start(config="bm25-recursive-500-0", k="5"), "questions.py")
    no_problems(app)
    [element] = [frame for frame in app.dataframe if "gold_recall_at_k" in frame.value.columns]
    column = element.value["gold_recall_at_k"]
    assert pd.api.types.is_float_dtype(column.dtype)
    assert not column.map(lambda value: isinstance(value, str)).any()
    # Missing where nothing was judged (no gold, or the gold not in the top k), numbers elsewhere.
    unjudged = element.value["cause"].isin(["no_gold", "not_retrieved", "ranked_low"])
    assert column[unjudged].isna().all()
    assert column[element.value["cause"] == "hit"].notna().all()
    # Streamlit writes a missing value as "None" unless the table names another placeholder: a blank here.
    assert element.proto.HasField("placeholder")
    assert element.proto.placeholder == ""


def test_questions_filters_drive_the_table() -> None:
    app = page(start(config="bm25-recursive-500-0", k="1"), "questions.py")
    everything = len(app.dataframe[0].value)
    app.checkbox[0].check().run()
    no_problems(app)
    failing = app.dataframe[0].value
    assert failing["failing"].all()
    assert 0 < len(failing) < everything


def test_question_drill_down_shows_the_ranking_and_first_relevant_rank() -> None:
    app = page(start(config="lsa-recursive-500-0", k="5"), "questions.py")
    question = str(select(app, "Question").value)
    settings = load_workspace(SAMPLE).config("lsa-recursive-500-0")
    run = read_run(settings.run)
    ranking = app.dataframe[1].value
    assert list(ranking["chunk_id"]) == list(run[question][:20])
    rank = cg.first_relevant_ranks(read_qrels(settings.qrels), run)[question]
    assert app.metric[0].value == ("none retrieved" if rank is None else str(rank))


def test_compare_counts_wins_ties_and_losses_like_the_library() -> None:
    app = page(start(metric="recall", k="3", a="lsa-recursive-500-0", b="bm25-recursive-500-0"), "compare.py")
    no_problems(app)
    assert not app.warning, [warning.value for warning in app.warning]
    table = load_workspace(SAMPLE).per_query("recall", 3)
    outcomes = question_changes(table, "lsa-recursive-500-0", "bm25-recursive-500-0")["outcome"].value_counts()
    shown = [metric.value for metric in app.metric[:3]]
    assert shown == [str(outcomes.get(name, 0)) for name in ("win", "tie", "loss")]
    scored = table[["lsa-recursive-500-0", "bm25-recursive-500-0"]].dropna()
    drawn = figures(app)[0]["data"][1:]
    points = [
        {"a": a, "b": b, "questions": data[0], "examples": data[1], "outcome": trace["name"]}
        for trace in drawn
        for a, b, data in zip(trace["y"], trace["x"], trace.get("customdata", []), strict=True)
    ]
    # One point per distinct pair of scores, standing for every question that has it.
    pairs = scored.value_counts()
    assert {(point["a"], point["b"]): point["questions"] for point in points} == pairs.to_dict()
    for point in points:
        for question in point["examples"].removesuffix(" …").split(", "):
            assert tuple(scored.loc[question]) == (point["a"], point["b"])
        assert point["outcome"].split()[0] in ("win", "tie", "loss")


def test_compare_opens_a_changed_question_in_the_drill_down() -> None:
    app = page(start(metric="recall", k="3", a="lsa-recursive-500-0", b="bm25-recursive-500-0"), "compare.py")
    chosen = select(app, "Open a changed question in the drill-down").value
    app.button[0].click().run()
    no_problems(app)
    assert select(app, "Question").value == chosen
    assert select(app, "Configuration").value == "lsa-recursive-500-0"


def broken_workspace(folder: Path) -> None:
    """A workspace whose one run has a score that is not a number, on line 2 of runs/bad.trec."""
    (folder / "runs").mkdir()
    (folder / "qrels.txt").write_text("q1 0 c1 2\n")
    (folder / "runs" / "bad.trec").write_text("q1 Q0 c1 1 0.9 tag\nq1 Q0 c2 2 high tag\n")
    (folder / "contextgrid.toml").write_text(
        'name = "broken"\nqrels = "qrels.txt"\n[[config]]\nname = "bad"\nrun = "runs/bad.trec"\n'
    )


def test_a_malformed_workspace_shows_a_readable_error(tmp_path: Path) -> None:
    broken_workspace(tmp_path)
    app = start(source="folder", workspace=str(tmp_path))
    assert not app.exception
    message = app.error[0].value
    assert md("bad.trec") in message
    assert md("line 2") in message
    assert app.sidebar.selectbox[0].value == "folder"


def test_a_failed_scoring_is_tried_again_on_the_next_visit(tmp_path: Path) -> None:
    from pages import _loading

    broken_workspace(tmp_path)
    root = str(tmp_path)
    version = _loading.fingerprint(root)
    first = _loading.scoring(root, version)
    assert _loading.scoring(root, version) is first
    with pytest.raises(cg.ContextGridError, match="line 2"):
        _loading.results(root, version)
    assert first.done()
    assert _loading.scoring(root, version) is not first


def test_every_page_renders_with_every_choice_of_k() -> None:
    app = start()
    for name in ("overview.py", "questions.py", "compare.py"):
        for k in ("1", "20"):
            app.query_params["k"] = k
            app = page(app, name)
            no_problems(app)
            assert isinstance(app.dataframe[0].value, pd.DataFrame)


def test_uploads_become_a_workspace_keyed_by_their_content() -> None:
    from pages import _data, _loading, _uploads

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
    folder = _uploads.SessionFolder()
    source = _uploads.uploaded_source(files["qrels"], files["runs"], folder=folder, **extras)
    assert _uploads.uploaded_source(files["qrels"], files["runs"], folder=folder, **extras) == source
    assert _loading.version(source) == source.digest
    # Built from the files themselves: no manifest is written to be read back.
    assert not list((folder.path / source.digest).rglob("contextgrid.toml"))
    uploaded = _loading.workspace(source)
    assert uploaded.names == (first, second)
    assert uploaded.chunks(first) == sample.chunks(first)
    assert uploaded.questions == sample.questions
    assert uploaded.evaluate().to_dataframe().loc[first].to_dict() == sample_scores(first)
    assert _data.grid(source).loc[first, list(sample_scores(first))].to_dict() == sample_scores(first)
    other = _uploads.uploaded_source(files["qrels"], files["runs"][:1], folder=folder)
    assert other.digest != source.digest
    assert _loading.workspace(other).names == (first,)


def test_every_page_renders_on_uploaded_files() -> None:
    from pages import _uploads

    sample = load_workspace(SAMPLE)
    first, second = sample.names[:2]
    source = _uploads.uploaded_source(
        ("qrels.trec", sample.config(first).qrels.read_bytes()),
        tuple((f"{name}.trec", sample.config(name).run.read_bytes()) for name in (first, second)),
        chunks=("chunks.jsonl", Path(str(sample.config(first).chunks)).read_bytes()),
        documents=("documents.jsonl", (SAMPLE / "documents.jsonl").read_bytes()),
        questions=("questions.jsonl", (SAMPLE / "questions.jsonl").read_bytes()),
        folder=(folder := _uploads.SessionFolder()),
    )
    for name in ("overview.py", "questions.py", "compare.py", "waste.py"):
        # The page alone, with the source app.py would have put in the session.
        app = AppTest.from_file(str(ROOT / "pages" / name), default_timeout=120)
        app.session_state["root"] = source
        no_problems(app.run())
        assert app.dataframe
    overview = AppTest.from_file(str(ROOT / "pages" / "overview.py"), default_timeout=120)
    overview.session_state["root"] = source
    shown = overview.run().dataframe[0].value
    expected = sample_scores(first)
    # The grid's first two metrics, as at first on any source.
    assert list(shown.columns) == [label for label in expected if label.split("@")[0] in BUILTIN_METRICS[:2]]
    assert shown.loc[first].to_dict() == pytest.approx(
        {label: expected[label] for label in shown.columns}, abs=0, rel=0
    )
    folder.remove()


def test_the_data_layer_computes_again_when_a_file_changes_and_keeps_computations_apart(tmp_path: Path) -> None:
    from pages import _data

    (tmp_path / "qrels.txt").write_text("q1 0 c1 1\n")
    run = tmp_path / "a.trec"
    run.write_text("q1 Q0 c1 1 0.9 x\n")
    (tmp_path / "contextgrid.toml").write_text('qrels = "qrels.txt"\n[[config]]\nname = "a"\nrun = "a.trec"\n')
    root = str(tmp_path)
    assert _data.per_query(root, "recall", 1).loc["q1", "a"] == 1.0
    assert list(_data.question_table(root, "a", 1).index) == ["q1"]
    run.write_text("q1 Q0 c22 1 0.9 x\n")
    assert _data.per_query(root, "recall", 1).loc["q1", "a"] == 0.0
    assert _data.grid(root).loc["a", "recall@1"] == 0.0


def test_the_data_layers_question_records_and_documents_are_the_workspaces(tmp_path: Path) -> None:
    from pages import _data

    ws = load_workspace(SAMPLE)
    resolved = ws.resolved[0]
    # The slow obvious reference: a scan of the resolved questions in file order.
    for question in [entry.id for entry in ws.questions] + ["no such question"]:
        assert _data.item(str(SAMPLE), question) == next((e for e in resolved if e.id == question), None)
    documents = _data.documents(str(SAMPLE))
    assert documents is not None
    assert dict(documents) == dict(ws.documents)
    with pytest.raises(TypeError):
        documents["d"] = "x"  # type: ignore[index]  # read only: the workspace's own mapping, given without a copy
    assert _data.documents(str(SAMPLE)) is documents

    # Questions without documents: the records as read; neither questions nor documents: none.
    (tmp_path / "questions.jsonl").write_text((SAMPLE / "questions.jsonl").read_text())
    (tmp_path / "qrels.txt").write_text("q1 0 c1 1\n")
    (tmp_path / "a.trec").write_text("q1 Q0 c1 1 0.9 x\n")
    manifest = '[[config]]\nname = "a"\nrun = "a.trec"\n'
    (tmp_path / "contextgrid.toml").write_text(f'qrels = "qrels.txt"\nquestions = "questions.jsonl"\n{manifest}')
    first = ws.questions[0]
    assert _data.item(str(tmp_path), first.id) == first
    assert _data.documents(str(tmp_path)) is None
    (tmp_path / "contextgrid.toml").write_text(f'qrels = "qrels.txt"\n{manifest}')
    assert _data.item(str(tmp_path), first.id) is None


def test_an_upload_error_names_the_file_as_uploaded(monkeypatch: pytest.MonkeyPatch) -> None:
    import streamlit as st

    from pages import _data, _uploads

    shown: list[str] = []
    monkeypatch.setattr(st, "error", lambda message, **_: shown.append(message))
    monkeypatch.setattr(st, "stop", lambda: None)
    source = _uploads.uploaded_source(
        ("qrels.txt", b"q1 0 c1 2\n"),
        (("broken.trec", b"q1 Q0 c1 1 0.9 mine\nq1 Q0 c2 2 0.8\n"),),
        folder=(folder := _uploads.SessionFolder()),
    )
    _data.guard(lambda: _data.grid(source), source=source)
    assert len(shown) == 1
    assert shown[0].startswith(md("broken.trec, line 2: expected 6 whitespace-separated columns"))
    folder.remove()


def test_the_question_list_offers_the_first_rows_and_the_remembered_question() -> None:
    app = page(start(config="bm25-recursive-500-0", k="5"), "questions.py")
    table = app.dataframe[0].value
    assert len(table) > 200
    labels = [question_label(str(question), text) for question, text in table["text"][:200].items()]
    assert select(app, "Question").options == labels
    far = str(table.index[-1])
    app = page(start(config="bm25-recursive-500-0", k="5", question=far), "questions.py")
    no_problems(app)
    assert select(app, "Question").value == far
    assert select(app, "Question").options[-1] == question_label(far, table.loc[far, "text"])


def test_compare_tests_the_chosen_pair_by_default() -> None:
    pair = {"metric": "recall", "k": "3", "a": "lsa-recursive-500-0", "b": "bm25-recursive-500-0"}
    app = page(start(**pair), "compare.py")
    no_problems(app)
    assert [tab.label for tab in app.tabs] == ["A against B", "Is the winner real?"]
    assert not app.multiselect
    app = page(start(**pair, compare_view="Is the winner real?"), "compare.py")
    no_problems(app)
    assert app.multiselect[0].value == ["bm25-recursive-500-0", "lsa-recursive-500-0"]
    assert select(app, "Baseline").value == "bm25-recursive-500-0"
    table = app.dataframe[-1].value.set_index("Configuration")
    assert list(table.index) == ["bm25-recursive-500-0", "lsa-recursive-500-0"]
    assert table.loc["bm25-recursive-500-0", "Verdict"] == "baseline"
    [point] = [trace for trace in figures(app)[0]["data"] if trace["mode"] == "markers"]
    [row] = point["y"]
    assert row.endswith(" lsa-recursive-500-0")  # after the marker of its verdict
    assert (f"{point['x'][0]:+.4f}", point["name"]) == tuple(
        table.loc["lsa-recursive-500-0", ["Difference", "Verdict"]]
    )


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


def test_a_compare_link_to_what_does_not_exist_says_so_in_one_line() -> None:
    app = page(
        start(a="no-such-config", b="bm25-recursive-500-0", k="7", configs="bm25-recursive-500-0,gone"), "compare.py"
    )
    no_problems(app)
    [warning] = app.warning
    assert warning.value == (
        "The link asks for "
        + md("configuration A 'no-such-config', k '7', configuration 'gone'")
        + ", which this data does not have; showing the defaults instead."
    )
    assert app.query_params["a"] == load_workspace(SAMPLE).names[1]
    assert app.query_params["b"] == "bm25-recursive-500-0"


def test_a_context_waste_link_to_what_does_not_exist_says_so_in_one_line() -> None:
    app = page(start(question="q-none", configs="gone,bm25-recursive-500-0"), "waste.py")
    no_problems(app)
    [warning] = app.warning
    assert warning.value == (
        "The link asks for "
        + md("configuration 'gone', question 'q-none'")
        + ", which this data does not have; showing the defaults instead."
    )
    assert app.query_params["configs"] == "bm25-recursive-500-0"


def test_overview_leads_with_the_budget_verdict_and_the_librarys_curves() -> None:
    from contextgrid.workspace.budget import budget_curves

    app = start()
    no_problems(app)
    curves = budget_curves(load_workspace(SAMPLE))
    sentence = curves.verdict().sentence()
    assert f"**{md(sentence)}**" in [element.value for element in app.markdown]
    [figure] = figures(app)
    means, frontier = curves.means(), curves.frontier()
    lines = {trace["name"]: trace for trace in figure["data"] if not trace["name"].startswith("frontier")}
    assert list(lines) == list(curves.configs)
    for name, trace in lines.items():
        part = means.xs(name, level="config")
        sent = part["characters"].tolist()
        # A budget that sends nothing has no place on a log axis.
        assert trace["x"] == [x if x > 0 else None for x in sent]
        assert trace["y"] == [y if x > 0 else None for x, y in zip(sent, part["evidence_recall"], strict=True)]
        # The hover names the configuration, the budget and the mean number of chunks taken.
        assert name in trace["hovertemplate"]
        assert [row[0] for row in trace["customdata"]] == list(curves.budgets)
        assert [row[1] for row in trace["customdata"]] == part["chunks"].tolist()
    [line] = [trace for trace in figure["data"] if trace["name"].startswith("frontier")]
    assert line["x"] == frontier["characters"].tolist()
    assert line["y"] == frontier["evidence_recall"].tolist()
    assert figure["layout"]["xaxis"]["type"] == "log"
    # Each configuration its own colour and symbol.
    assert len({(trace["marker"]["color"], trace["marker"]["symbol"]) for trace in lines.values()}) == len(lines)


def test_compare_shows_both_curves_at_an_equal_budget_and_where_they_part() -> None:
    from contextgrid.analysis.budget_verdict import parting_sentence
    from contextgrid.workspace.budget import budget_curves

    workspace = load_workspace(SAMPLE)
    a, b = workspace.names[0], workspace.names[-1]
    app = page(start(metric="recall", k="3", a=a, b=b), "compare.py")
    no_problems(app)
    curves = budget_curves(workspace)
    parted, ahead = curves.parting(a, b)
    assert md(parting_sentence(a, b, parted, ahead, curves.budgets)) in [element.value for element in app.markdown]
    [figure] = [figure for figure in figures(app) if title(figure).startswith("Evidence recall at equal budgets")]
    means = curves.means()
    for trace, name in zip(figure["data"], (a, b), strict=True):
        assert trace["name"] == name
        assert trace["x"] == list(curves.budgets)
        assert trace["y"] == means.xs(name, level="config")["evidence_recall"].tolist()
    assert [shape["x0"] for shape in figure["layout"].get("shapes", [])] == ([] if parted is None else [parted])


def mismatched_workspace(root: Path) -> None:
    """The sample's files under a manifest in ``root`` that gives the first configuration another chunking's
    chunks: readable, but its run returns chunks its chunking does not have."""
    import json

    workspace = load_workspace(SAMPLE)
    first = workspace.config(workspace.names[0])
    # The chunking with the fewest chunks: the run of the first (the smallest chunks) names chunks it lacks.
    others = {Path(str(workspace.config(name).chunks)) for name in workspace.names} - {Path(str(first.chunks))}
    other = min(others, key=lambda path: len(path.read_text().splitlines()))
    kept, swapped = [], False
    for line in (SAMPLE / "contextgrid.toml").read_text().splitlines():
        key, _, value = line.partition(" = ")
        if key in {"documents", "questions", "run", "qrels", "answers", "chunks"}:
            path = SAMPLE / json.loads(value)
            if key == "chunks" and not swapped:
                path, swapped = other, True
            line = f'{key} = "{path}"'
        kept.append(line)
    (root / "contextgrid.toml").write_text("\n".join(kept) + "\n")


def test_a_configuration_whose_run_and_chunks_disagree_is_left_out_of_the_budget_too(tmp_path: Path) -> None:
    from contextgrid.workspace.budget import budget_curves

    mismatched_workspace(tmp_path)
    names = load_workspace(SAMPLE).names
    app = start(source="folder", workspace=str(tmp_path))
    assert not app.exception
    assert not app.error
    [warning] = [element.value for element in app.warning]
    assert md(names[0]) in warning
    assert "must come from the same chunking" in warning
    # The rest are measured, on the same questions, and the grid is still drawn.
    rest = load_workspace(tmp_path).readable()[0]
    assert rest.names == names[1:]
    [figure] = figures(app)
    drawn = [trace["name"] for trace in figure["data"] if not trace["name"].startswith("frontier")]
    assert drawn == list(rest.names)
    verdict = budget_curves(rest).verdict().sentence()
    assert f"**{md(verdict)}**" in [element.value for element in app.markdown]
    assert list(app.dataframe[0].value.index) == list(rest.names)


def test_prepare_fills_the_budget_caches_of_what_can_be_read(tmp_path: Path) -> None:
    from pages import _data

    _data.prepare(str(SAMPLE))  # the sample: the grid, the curves and the verdict, without a page
    mismatched_workspace(tmp_path)
    _data.prepare(str(tmp_path))  # a configuration it cannot read is the page's to report, not the server's
    means = _data.budget_means(str(tmp_path))
    assert list(dict.fromkeys(means.index.get_level_values("config"))) == list(load_workspace(SAMPLE).names[1:])


def test_overview_grid_follows_the_chosen_metrics() -> None:
    app = start(metrics="hit_rate,ndcg")
    no_problems(app)
    assert app.multiselect[0].value == ["hit_rate", "ndcg"]
    assert [label.split("@")[0] for label in app.dataframe[0].value.columns] == ["hit_rate"] * 5 + ["ndcg"] * 5
    app.multiselect[0].set_value([]).run()
    no_problems(app)
    assert not app.dataframe
    assert any("Choose at least one metric" in box.value for box in app.info)


def test_every_table_of_every_page_shows_a_missing_value_as_a_blank() -> None:
    """Streamlit writes a missing value as "None" unless the table names another placeholder; every
    ``st.dataframe`` of every page names a blank."""
    calls = [
        (page.name, node.lineno, {keyword.arg for keyword in node.keywords})
        for page in sorted((ROOT / "pages").glob("*.py"))
        for node in ast.walk(ast.parse(page.read_text()))
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "st.dataframe"
    ]
    assert len(calls) >= 10
    assert [(name, line) for name, line, keywords in calls if "placeholder" not in keywords] == []
