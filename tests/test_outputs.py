"""Outputs are written whole or not at all (one helper, io.files.atomic_output), a lone surrogate in a document
does not break the report, and the commands' messages about their outputs name their own options (issue #34,
items 4 and 10)."""

from __future__ import annotations

import json
from pathlib import Path

import corpora
import pytest
from streamlit.testing.v1 import AppTest

import contextgrid as cg
from contextgrid.cli.main import main
from contextgrid.io import write_run
from contextgrid.io.files import atomic_output, write_output
from contextgrid.render.markup import escape_markdown as md
from contextgrid.workspace.sweep import sweep, sweep_grid

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def surrogate_workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A swept workspace whose documents file holds the JSON escape ``\\ud800`` (half a character) on line 1."""
    root = tmp_path_factory.mktemp("surrogate")
    grid = sweep_grid(chunkers=["fixed_chars"], sizes=[80], overlaps=[20], retrievers=["bm25"])
    sweep(corpora.DOCUMENTS, corpora.ITEMS, grid, root)
    lines = (root / "documents.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    # ensure_ascii writes it as the escape, as a JSON Lines file from elsewhere would give it.
    lines[0] = json.dumps(first | {"text": first["text"][:-1] + "\ud800"})
    (root / "documents.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def surrogate_error(root: Path) -> str:
    line = (root / "documents.jsonl").read_text(encoding="utf-8").splitlines()[0]
    return str(
        cg.InputFileError(
            root / "documents.jsonl",
            1,
            line,
            'expected a JSON object {"doc_id", "text"} per line, got the escape of half a character, \\ud800 (a lone '
            "surrogate), which no text can hold",
        )
    )


def test_a_failing_write_leaves_the_old_file_and_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "run.trec"
    target.write_text("the old run\n")

    def write_half() -> None:
        with atomic_output(target, overwrite=True) as out:
            out.write(b"q1 Q0 c1 1 1 new\n")
            raise RuntimeError("half way")

    with pytest.raises(RuntimeError, match="half way"):
        write_half()
    assert target.read_text() == "the old run\n"
    assert [path.name for path in tmp_path.iterdir()] == ["run.trec"]


def test_a_write_into_a_file_as_a_folder_is_an_output_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(cg.OutputFileError) as caught:
        write_run({"q1": ["c1"]}, tmp_path / "file" / "run.trec")
    assert str(caught.value).startswith(f"cannot write {tmp_path / 'file' / 'run.trec'}: ")
    assert isinstance(caught.value, cg.ContextGridError)


def test_a_folder_is_no_output_file(tmp_path: Path) -> None:
    with pytest.raises(cg.OutputFileError) as caught:
        write_output(tmp_path, "text", overwrite=True)
    assert str(caught.value) == f"{tmp_path} is a folder; expected the path of a file to write"


def test_text_with_a_lone_surrogate_is_written_with_its_escape(tmp_path: Path) -> None:
    target = tmp_path / "page.html"
    assert write_output(target, "a \ud800 b", overwrite=False) == len(b"a \\ud800 b")
    assert target.read_bytes() == b"a \\ud800 b"


def test_the_report_of_a_document_holding_a_lone_surrogate_is_refused_and_the_old_one_kept(
    surrogate_workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "report.html"
    output.write_text("the old report")
    config = cg.load_workspace(surrogate_workspace).names[0]
    assert main(["report", str(surrogate_workspace), "--config", config, "-o", str(output), "--force"]) == 2
    assert capsys.readouterr().err == f"contextgrid: error: {surrogate_error(surrogate_workspace)}\n"
    assert output.read_text() == "the old report"
    assert [path.name for path in tmp_path.iterdir()] == ["report.html"]


def test_report_into_a_folder_says_so(
    surrogate_workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = cg.load_workspace(surrogate_workspace).names[0]
    assert main(["report", str(surrogate_workspace), "--config", config, "-o", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        f"contextgrid: error: {tmp_path} is a folder; expected the path of a file to write (-o FILE)\n"
    )


def test_import_over_an_existing_chunks_file_names_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    documents = tmp_path / "docs"
    documents.mkdir()
    (documents / "a.md").write_text("Refunds within 30 days.")
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps([{"page_content": "Refunds", "metadata": {"source": "a.md", "start_index": 0}}]))
    out = tmp_path / "out"
    out.mkdir()
    (out / "chunks.jsonl").write_text("the old chunks\n")
    assert main(["import", "langchain", str(dump), "--documents", str(documents), "-o", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"contextgrid: error: {out / 'chunks.jsonl'} already exists; pass --force to replace it\n"
    )
    assert (out / "chunks.jsonl").read_text() == "the old chunks\n"


def test_import_of_a_dump_nested_a_thousand_deep_names_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    documents = tmp_path / "docs"
    documents.mkdir()
    (documents / "a.md").write_text("Refunds within 30 days.")
    dump = tmp_path / "dump.json"
    dump.write_text("[\n" + "[" * 1000 + "]" * 1000 + "\n]")
    assert main(["import", "langchain", str(dump), "--documents", str(documents), "-o", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == (
        f"contextgrid: error: {dump}, line 2: expected a JSON list of chunks, got JSON nested too deeply to read "
        "(past 100 levels)\n"
    )


def test_the_dashboard_says_why_there_is_no_report(surrogate_workspace: Path) -> None:
    app = AppTest.from_file(str(ROOT / "pages" / "waste.py"), default_timeout=240)
    app.session_state["root"] = str(surrogate_workspace)
    app.query_params["waste_view"] = "Report"
    app.run()
    assert not app.exception, [element.value for element in app.exception]
    assert [element.value for element in app.error] == [md(surrogate_error(surrogate_workspace))]
