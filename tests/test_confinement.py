"""Every file a confined workspace reads lies inside its folder or an allowed one once its links are followed,
documents inside a folder included, checked as each file is opened (issue #34, item 1)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import contextgrid as cg
from contextgrid.io import read_answers, read_chunks, read_documents, read_qrels, read_questions, read_run
from contextgrid.render.markup import escape_markdown as md
from contextgrid.workspace.manifest import load_workspace

ROOT = Path(__file__).resolve().parent.parent
QRELS = "q1 0 c1 2\n"
RUN = "q1 Q0 c1 1 0.9 a\n"
REFUSED = "expected a file inside the folders this may read (links followed), got one that lies outside them"
OUTSIDE_TEXT = "the secret of a file outside\n"


def confined_workspace(tmp_path: Path, link: str | None) -> tuple[Path, Path]:
    """A workspace under ``tmp_path / "allowed"`` whose documents folder holds ``a.txt`` and, with ``link``, a
    ``leak.txt`` linked to it; the workspace folder and the file outside."""
    outside = tmp_path / "outside.txt"
    outside.write_text(OUTSIDE_TEXT)
    folder = tmp_path / "allowed" / "ws"
    (folder / "docs").mkdir(parents=True)
    (folder / "docs" / "a.txt").write_text("Refunds within 30 days.")
    if link is not None:
        os.symlink(str(outside) if link == "outside" else link, folder / "docs" / "leak.txt")
    (folder / "qrels.trec").write_text(QRELS)
    (folder / "run.trec").write_text(RUN)
    (folder / "questions.jsonl").write_text(
        '{"id": "q1", "question": "Refunds?", "gold": [{"doc_id": "a.txt", "start": 0, "end": 7}]}\n'
    )
    (folder / "chunks.jsonl").write_text('{"id": "c1", "doc_id": "a.txt", "start": 0, "end": 7}\n')
    (folder / "contextgrid.toml").write_text(
        'qrels = "qrels.trec"\nquestions = "questions.jsonl"\ndocuments = "docs"\n'
        '[[config]]\nname = "a"\nrun = "run.trec"\nchunks = "chunks.jsonl"\n'
    )
    return folder, outside


LINKS = ["/etc/passwd", "/proc/self/environ", "outside"]


@pytest.mark.parametrize("link", LINKS)
def test_a_link_in_a_documents_folder_leading_out_is_refused_with_the_file_named(tmp_path: Path, link: str) -> None:
    folder, _ = confined_workspace(tmp_path, link)
    workspace = load_workspace(folder, within=[tmp_path / "allowed"])
    with pytest.raises(cg.InputFileError) as caught:
        workspace.documents  # noqa: B018 (the property reads the folder)
    assert str(caught.value) == f"{folder / 'docs' / 'leak.txt'}: {REFUSED}"
    # On the command line (no confinement) the same folder reads, links and all.
    assert "leak.txt" in load_workspace(folder).documents


def test_a_link_inside_the_allowed_folders_is_followed(tmp_path: Path) -> None:
    folder, _ = confined_workspace(tmp_path, None)
    shared = tmp_path / "allowed" / "shared.txt"
    shared.write_text("Shared text.")
    os.symlink(shared, folder / "docs" / "shared.txt")
    documents = load_workspace(folder, within=[tmp_path / "allowed"]).documents
    assert dict(documents) == {"a.txt": "Refunds within 30 days.", "shared.txt": "Shared text."}


def test_a_file_swapped_for_a_link_after_the_manifest_was_read_is_refused(tmp_path: Path) -> None:
    folder, outside = confined_workspace(tmp_path, None)
    workspace = load_workspace(folder, within=[tmp_path / "allowed"])
    (folder / "run.trec").unlink()
    os.symlink(outside, folder / "run.trec")
    with pytest.raises(cg.InputFileError) as caught:
        workspace.run("a")
    assert str(caught.value) == f"{folder / 'run.trec'}: {REFUSED}"


READERS: list[Callable[..., object]] = [read_run, read_qrels, read_questions, read_answers, read_chunks, read_documents]


@pytest.mark.parametrize("read", READERS, ids=lambda read: read.__name__)
@pytest.mark.parametrize("link", LINKS)
def test_every_reader_refuses_a_link_out_of_its_folders(tmp_path: Path, read: Callable[..., object], link: str) -> None:
    inside = tmp_path / "inside"
    inside.mkdir()
    (tmp_path / "outside.txt").write_text(OUTSIDE_TEXT)
    path = inside / "file.jsonl"
    os.symlink(str(tmp_path / "outside.txt") if link == "outside" else link, path)
    options = {"format": "jsonl"} if read in (read_run, read_qrels) else {}
    with pytest.raises(cg.InputFileError) as caught:
        read(path, within=[inside], **options)
    assert str(caught.value) == f"{path}: {REFUSED}"


def test_a_path_of_dots_out_of_the_folder_is_refused_before_it_is_looked_for(tmp_path: Path) -> None:
    inside = tmp_path / "inside"
    inside.mkdir()
    path = inside / ".." / "no-such-file.trec"
    with pytest.raises(cg.InputFileError) as caught:
        read_run(path, within=[inside])
    assert str(caught.value) == f"{path}: {REFUSED}"  # not "no such file": nothing is told about outside


@pytest.mark.parametrize("page", ["questions.py", "waste.py"])
@pytest.mark.parametrize("link", LINKS)
def test_the_dashboard_never_shows_a_linked_host_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, page: str, link: str
) -> None:
    import sys

    folder, _ = confined_workspace(tmp_path, link)
    monkeypatch.setattr(sys, "argv", [sys.argv[0], "--allow-folders", str(tmp_path / "allowed")])
    app = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=120)
    app.session_state["root"] = str(folder)
    app.run()
    assert not app.exception
    drawn = "\n".join(f"{getattr(element, 'label', '')} {getattr(element, 'value', '')}" for element in app.main)
    for secret in ("root:x:0:0", "secret of a file outside", "PATH="):
        assert secret not in drawn
    assert [element.value for element in app.error] == [md(f"{folder / 'docs' / 'leak.txt'}: {REFUSED}")]


def test_a_loop_of_links_is_refused_not_a_traceback(tmp_path: Path) -> None:
    folder, _ = confined_workspace(tmp_path, None)
    os.symlink("loop-b.txt", folder / "docs" / "loop-a.txt")
    os.symlink("loop-a.txt", folder / "docs" / "loop-b.txt")
    with pytest.raises(cg.InputFileError) as caught:
        read_run(folder / "docs" / "loop-a.txt", within=[folder])
    assert str(caught.value) == f"{folder / 'docs' / 'loop-a.txt'}: {REFUSED}"
    # In a documents folder a loop is no file: the folder reads without it.
    assert set(load_workspace(folder, within=[tmp_path / "allowed"]).documents) == {"a.txt"}
