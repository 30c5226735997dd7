"""The dashboard shows no visitor the host's files: folders open only under those the server allows, manifests
stay inside them, uploads stay with their session; and a workspace with an unreadable configuration shows the
rest on every page, the bad one named with its error."""

from __future__ import annotations

import gc
import stat
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import contextgrid as cg
from contextgrid.io import read_qrels, read_run
from contextgrid.render.markup import escape_markdown as md

ROOT = Path(__file__).resolve().parent.parent
QRELS = "q1 0 c1 2\nq1 0 c2 1\nq2 0 c3 1\n"
GOOD = "q1 Q0 c1 1 0.9 a\nq1 Q0 c9 2 0.5 a\nq2 Q0 c3 1 0.7 a\n"
OTHER = "q1 Q0 c2 1 0.9 b\nq2 Q0 c8 1 0.7 b\n"
BAD = "q1 Q0 c1 1 high x\n"


def start(**query: str) -> AppTest:
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in query.items():
        app.query_params[key] = value
    return app.run()


def server_started_with(monkeypatch: pytest.MonkeyPatch, *allowed: Path) -> None:
    options = ["--allow-folders", *map(str, allowed)] if allowed else []
    monkeypatch.setattr(sys, "argv", [sys.argv[0], *options])


def errors(app: AppTest) -> list[str]:
    return [element.value for element in app.error]


def workspace(folder: Path, runs: dict[str, str], *, shared: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "qrels.trec").write_text(QRELS)
    tables = []
    for name, text in runs.items():
        (folder / f"{name}.trec").write_text(text)
        tables.append(f'[[config]]\nname = "{name}"\nrun = "{name}.trec"\n')
    (folder / "contextgrid.toml").write_text(f'name = "w"\nqrels = "qrels.trec"\n{shared}\n' + "\n".join(tables))
    return folder


# -- folders -----------------------------------------------------------------------------------------------------


def test_without_allowed_folders_a_link_cannot_open_a_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    server_started_with(monkeypatch)
    app = start(source="folder", workspace="/etc")
    assert not app.exception
    assert app.sidebar.selectbox[0].options == ["The server's workspace", "Upload files"]
    assert app.sidebar.selectbox[0].value == "sample"  # the link's folder is not on offer
    assert not app.sidebar.text_input


def test_a_folder_outside_the_allowed_ones_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    server_started_with(monkeypatch, allowed)
    outside = workspace(tmp_path / "outside", {"good": GOOD})
    app = start(source="folder", workspace=str(outside))
    assert not app.exception
    assert errors(app) == [
        md(
            f"the workspace folder {str(outside)!r} is outside the folders this may read ({allowed.resolve()}); "
            "the server opens only folders under those it was started with (contextgrid app --allow-folders DIR)"
        )
    ]
    assert app.info[0].value == "Choose a data source in the sidebar."
    inside = workspace(allowed / "ws", {"good": GOOD})
    app = start(source="folder", workspace=str(allowed / "ws" / ".." / "ws"))
    assert not errors(app)
    assert app.dataframe[0].value.index.tolist() == ["good"]
    assert inside.is_dir()


def test_a_manifest_naming_files_outside_is_refused_on_the_page(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    server_started_with(monkeypatch, tmp_path)
    folder = workspace(tmp_path / "ws", {"good": GOOD}, shared='documents = "/etc"')
    app = start(source="folder", workspace=str(folder))
    assert not app.exception
    assert errors(app) == [
        md(
            f"{folder / 'contextgrid.toml'}, line 3: the shared documents: the documents '/etc' lies outside the "
            f"workspace folder {folder.resolve()} and the allowed folders ({tmp_path.resolve()}); here a manifest "
            "may only name files inside them (symlinks followed): 'documents = \"/etc\"'"
        )
    ]


def test_the_upload_folder_is_never_a_workspace(monkeypatch: pytest.MonkeyPatch) -> None:
    from pages import _uploads

    # Even a server that allows the whole temporary folder does not open uploads as a workspace.
    server_started_with(monkeypatch, _uploads.uploads_root().parent)
    folder = _uploads.SessionFolder()
    (folder.path / "contextgrid.toml").write_text('documents = "/etc"\n')
    app = start(source="folder", workspace=str(folder.path))
    assert errors(app) == [
        md(f"the folder {str(folder.path)!r} holds uploaded files, which are data, never a workspace")
    ]
    folder.remove()


# -- uploads -----------------------------------------------------------------------------------------------------


def test_each_session_gets_a_private_folder_removed_with_it() -> None:
    from pages import _uploads

    first, second = _uploads.SessionFolder(), _uploads.SessionFolder()
    assert first.path != second.path
    assert first.path.parent == second.path.parent == _uploads.uploads_root()
    assert _uploads.uploads_root().name.startswith("contextgrid-uploads-")
    assert stat.S_IMODE(first.path.stat().st_mode) == 0o700
    assert stat.S_IMODE(_uploads.uploads_root().stat().st_mode) == 0o700
    _uploads.uploaded_source(("q.trec", QRELS.encode()), (("a.trec", GOOD.encode()),), folder=first)
    path = first.path
    assert any(path.rglob("a.trec"))
    del first
    gc.collect()
    assert not path.exists()
    assert second.path.is_dir()
    second.remove()
    assert not second.path.exists()


@pytest.mark.parametrize("name", ["../contextgrid.toml", "..", "runs/a.trec", "..\\a.trec", ""])
def test_an_upload_whose_name_holds_a_folder_is_refused(name: str) -> None:
    from pages import _uploads

    folder = _uploads.SessionFolder()
    with pytest.raises(cg.ContextGridError) as caught:
        _uploads.uploaded_source((name, b"q1 0 c1 1\n"), (("a.trec", GOOD.encode()),), folder=folder)
    assert str(caught.value) == (f"an uploaded file's name must be a plain file name, without folders; got {name!r}")
    assert list(folder.path.iterdir()) == []
    folder.remove()


def test_a_new_set_of_uploads_replaces_the_sessions_earlier_one() -> None:
    from pages import _uploads

    folder = _uploads.SessionFolder()
    first = _uploads.uploaded_source(("q.trec", QRELS.encode()), (("a.trec", GOOD.encode()),), folder=folder)
    second = _uploads.uploaded_source(("q.trec", QRELS.encode()), (("b.trec", OTHER.encode()),), folder=folder)
    assert [path.name for path in folder.path.iterdir()] == [second.digest]
    assert first.digest != second.digest
    folder.remove()


def test_two_runs_of_the_same_name_are_refused_not_renamed() -> None:
    from pages import _data, _uploads

    folder = _uploads.SessionFolder()
    source = _uploads.uploaded_source(
        ("q.trec", QRELS.encode()), (("run_good.trec", GOOD.encode()), ("run_good.trec", OTHER.encode())), folder=folder
    )
    app = AppTest.from_file(str(ROOT / "pages" / "overview.py"), default_timeout=120)
    app.session_state["root"] = source
    app.run()
    assert not app.exception
    assert errors(app) == [
        md(
            # Said to a visitor, who called no library function: no "workspace_from_files('uploaded'): " before it.
            "The runs 'run_good.trec' and 'run_good.trec' would both be "
            "configuration 'run_good' (a configuration is named after its run file, up to the first dot); rename one"
        )
    ]
    assert _data.shown(cg.ContextGridError(source.runs[1]), source) == "run_good.trec"
    folder.remove()


# -- a partly usable workspace -------------------------------------------------------------------------------------


@pytest.mark.parametrize("page", ["overview.py", "questions.py", "compare.py"])
def test_an_unreadable_configuration_is_named_and_the_rest_are_shown(tmp_path: Path, page: str) -> None:
    folder = workspace(tmp_path / "ws", {"good": GOOD, "broken": BAD, "other": OTHER})
    app = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=120)
    app.session_state["root"] = str(folder)
    app.run()
    assert not app.exception
    assert not app.error
    error = (
        f"{folder / 'broken.trec'}, line 1: expected score to be a number such as 12.5, -3 or 1e-4, got 'high': "
        "'q1 Q0 c1 1 high x'"
    )
    assert [warning.value for warning in app.warning] == [
        f"1 configuration could not be read and is left out; the other 2 are shown.\n\n- **broken**: {md(error)}"
    ]
    if page == "overview.py":
        shown = app.dataframe[0].value
        assert shown.index.tolist() == ["good", "other"]
        alone = cg.evaluate(read_qrels(folder / "qrels.trec"), read_run(folder / "good.trec"))
        # The grid shows the metrics chosen above it (recall and precision at first), each at every k.
        assert list(shown.columns) == [label for label in alone if label.split("@")[0] in ("recall", "precision")]
        assert shown.loc["good"].to_dict() == {label: alone[label] for label in shown.columns}
    else:
        boxes = {box.label: box.options for box in app.selectbox}
        assert "broken" not in str(boxes)
        assert ["good", "other"] in boxes.values() or ["good"] in boxes.values()


def test_an_upload_whose_name_the_disk_cannot_take_is_refused_not_a_traceback() -> None:
    from pages import _uploads

    folder = _uploads.SessionFolder()
    name = "r" * 300 + ".trec"
    with pytest.raises(cg.ContextGridError) as caught:
        _uploads.uploaded_source(("q.trec", QRELS.encode()), ((name, GOOD.encode()),), folder=folder)
    assert str(caught.value) == (
        f"an uploaded file's name must be at most 255 bytes long; {'r' * 40 + '…' + 'r' * 10 + '.trec'!r} has 305: "
        "rename it"
    )
    assert str(folder.path) not in str(caught.value)
    assert list(folder.path.iterdir()) == []
    folder.remove()


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        ("\0", "the workspace folder '\\x00' is no folder name: it holds a NUL character"),
        ("ws\0/x", "the workspace folder 'ws\\x00/x' is no folder name: it holds a NUL character"),
    ],
)
def test_a_folder_name_no_system_call_takes_is_refused_on_the_page(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, asked: str, said: str
) -> None:
    server_started_with(monkeypatch, tmp_path)
    app = start(source="folder", workspace=asked)
    assert not app.exception
    assert errors(app) == [md(said)]


def test_a_folder_name_too_long_for_the_system_is_refused_on_the_page(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    server_started_with(monkeypatch, tmp_path)
    asked = str(tmp_path / ("a" * 300) / "ws")
    app = start(source="folder", workspace=asked)
    assert not app.exception
    assert errors(app) == [
        md(f"the workspace folder {asked[:80] + '…'!r} is no folder name: a part of it is longer than 255 bytes")
    ]


def test_a_session_that_has_ended_loses_its_uploads_and_their_cached_workspace() -> None:
    from pages import _loading, _uploads

    folder = _uploads.SessionFolder(session="a-session-that-ended")
    source = _uploads.uploaded_source(("q.trec", QRELS.encode()), (("a.trec", GOOD.encode()),), folder=folder)
    workspace = _loading.cached_workspace(source, source.digest)
    assert _loading.cached_workspace(source, source.digest) is workspace  # cached
    living = _uploads.SessionFolder(session="a-session-still-open")
    # Without a running server no session exists; here one is said to, as Streamlit would say of an open tab.
    # Not connected, but within the time a closed tab has to reconnect: kept.
    assert _uploads.reap(lambda session: session == "a-session-still-open") == []
    assert folder.path.is_dir()
    removed = _uploads.reap(lambda session: session == "a-session-still-open", after=0)
    assert removed == [folder.path]
    assert not folder.path.exists()
    assert living.path.is_dir()
    # The cached workspace went with it: asked again, it is built again, from files that are no longer there.
    with pytest.raises(cg.ContextGridError, match="no such file"):
        _loading.cached_workspace(source, source.digest)
    assert _uploads.reap(lambda session: session == "a-session-still-open", after=0) == []
    assert _uploads.reap(lambda session: False, after=0) == [living.path]
    assert not living.path.exists()


def test_reaping_a_session_frees_the_tables_its_uploads_were_read_into_and_their_cached_results() -> None:
    import weakref

    from pages import _data, _loading, _uploads

    folder = _uploads.SessionFolder(session="a-session-whose-tables-go")
    source = _uploads.uploaded_source(("q.trec", QRELS.encode()), (("a.trec", GOOD.encode()),), folder=folder)
    table = weakref.ref(_loading.results(source, source.digest).workspace.run("a").table)
    grid = _data.grid(source)
    assert _data.per_query(source, "recall", 10).equals(_data.per_query(source, "recall", 10))
    gc.collect()
    assert table() is not None  # the caches hold it while the session lives
    # Reaped once the session is said to be gone (not after a time): then nothing holds the run's table.
    assert _uploads.reap(lambda session: False, after=0) == [folder.path]
    gc.collect()
    assert table() is None
    # The data layer's results on the upload went too: asked again, they are computed again, from files gone.
    with pytest.raises(cg.ContextGridError, match="no such file"):
        _data.grid(source)
    with pytest.raises(cg.ContextGridError, match="no such file"):
        _data.per_query(source, "recall", 10)
    assert list(grid.index) != []


def test_without_a_server_no_session_exists_and_no_reaper_runs() -> None:
    import threading

    from pages import _uploads

    folder = _uploads.SessionFolder(session="never-a-streamlit-session")
    assert "contextgrid-upload-reaper" not in [thread.name for thread in threading.enumerate()]
    assert not _uploads.session_exists("never-a-streamlit-session")
    assert _uploads.grace() == 90  # Streamlit's server.disconnectedSessionTTL, less two rounds of the reaper
    assert _uploads.reap() == []
    # A minute and a half and a second after it was last seen: gone.
    assert _uploads.reap(now=lambda: folder.last_active + 91) == [folder.path]
    assert not folder.path.exists()


def test_a_folder_without_a_manifest_is_not_walked(tmp_path: Path) -> None:
    from pages import _loading

    (tmp_path / "deep" / "er").mkdir(parents=True)
    (tmp_path / "deep" / "er" / "file.txt").write_text("x")
    assert _loading.fingerprint(str(tmp_path)) == "no-manifest"
    workspace(tmp_path / "ws", {"good": GOOD})
    before = _loading.fingerprint(str(tmp_path / "ws"))
    assert before != "no-manifest"
    (tmp_path / "ws" / "good.trec").write_text(OTHER)
    assert _loading.fingerprint(str(tmp_path / "ws")) != before
