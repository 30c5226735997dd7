"""Choices that survive: the Context waste page's configurations across a switch of the data source to
uploaded files and back, as Compare's choices do."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.sample import SAMPLE

ROOT = Path(__file__).resolve().parent.parent


def _upload(names: list[str], folder: object) -> object:
    from pages import _uploads

    sample = load_workspace(SAMPLE)
    return _uploads.uploaded_source(
        ("qrels.trec", sample.config(names[0]).qrels.read_bytes()),
        tuple((f"{name}.trec", sample.config(name).run.read_bytes()) for name in names),
        chunks=("chunks.jsonl", Path(str(sample.config(names[0]).chunks)).read_bytes()),
        documents=("documents.jsonl", (SAMPLE / "documents.jsonl").read_bytes()),
        questions=("questions.jsonl", (SAMPLE / "questions.jsonl").read_bytes()),
        folder=folder,
    )


def test_the_waste_pages_configurations_survive_a_switch_to_uploads_and_back() -> None:
    names = list(load_workspace(SAMPLE).names)
    chosen = [names[2], names[3]]
    app = AppTest.from_file(str(ROOT / "pages" / "waste.py"), default_timeout=120)
    app.session_state["root"] = str(SAMPLE)
    app.run()
    app.multiselect(key="_widget_configs").set_value(chosen).run()
    assert app.multiselect(key="_widget_configs").value == chosen
    # Uploaded runs of other configurations: the page shows some of them, never "Choose at least one".
    uploaded = [names[0], names[1]]
    from pages import _uploads

    folder = _uploads.SessionFolder()
    app.session_state["root"] = _upload(uploaded, folder)
    app.run()
    assert not app.exception
    assert [info.value for info in app.info if "Choose at least one" in info.value] == []
    shown = app.multiselect(key="_widget_configs").value
    assert shown
    assert set(shown) <= set(uploaded)
    assert app.query_params["configs"] == ",".join(shown)
    # Back to the sample: the configurations chosen on it before.
    app.session_state["root"] = str(SAMPLE)
    app.run()
    assert app.multiselect(key="_widget_configs").value == chosen
    assert app.query_params["configs"] == ",".join(chosen)
    folder.remove()  # type: ignore[attr-defined]


def test_a_run_uploaded_again_under_its_name_replaces_the_one_before() -> None:
    from pages._state import newest_by_name

    uploads = [("a.trec", b"old"), ("b.trec", b"b"), ("a.trec", b"new")]
    assert newest_by_name(uploads, lambda upload: upload[0]) == [("a.trec", b"new"), ("b.trec", b"b")]


def test_no_message_a_visitor_sees_names_a_library_function(tmp_path: Path) -> None:
    """Two runs that would be one configuration: the library's error starts with the call that raised it, which a
    visitor never made."""
    import pytest

    from contextgrid.core.errors import ContextGridError
    from contextgrid.workspace.builder import workspace_from_files
    from pages._data import shown

    (tmp_path / "qrels.trec").write_text("q1 0 c1 1\n")
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "a.trec").write_text("q1 Q0 c1 1 1.0 x\n")
    with pytest.raises(ContextGridError) as caught:
        workspace_from_files(
            "uploaded", qrels=tmp_path / "qrels.trec", runs=[tmp_path / "one" / "a.trec", tmp_path / "two" / "a.trec"]
        )
    assert str(caught.value).startswith("workspace_from_files('uploaded'): ")
    message = shown(caught.value, None)
    assert "workspace_from_files" not in message
    assert message[0].isupper()
    assert message[1:] == str(caught.value).removeprefix("workspace_from_files('uploaded'): ")[1:]


def test_the_configurations_left_beside_unreadable_ones_are_counted_in_words_that_agree() -> None:
    from pages._data import _shown_rest

    assert _shown_rest(1) == "the other one is shown"
    assert _shown_rest(3) == "the other 3 are shown"


def test_an_unjudged_chunk_reads_not_judged_not_none() -> None:
    from pages import _data

    workspace = load_workspace(SAMPLE)
    config = workspace.names[0]
    judged, run = workspace.qrels(config), workspace.run(config)
    question = next(q for q, ranked in run.items() if any(chunk not in judged.get(q, {}) for chunk in ranked[:20]))
    table = _data.ranking(str(SAMPLE), config, question, 20)
    expected = [
        str(judged[question][chunk]) if chunk in judged.get(question, {}) else "not judged"
        for chunk in run[question][:20]
    ]
    assert list(table["grade"]) == expected
    assert "not judged" in expected
