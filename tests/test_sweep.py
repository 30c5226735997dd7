from __future__ import annotations

import filecmp
from pathlib import Path

import pandas as pd
import pytest
from corpora import DOCUMENTS
from corpora import ITEMS as TINY_ITEMS

import contextgrid as cg
from contextgrid.cli.main import main
from contextgrid.core.errors import OutputExistsError
from contextgrid.index import build_index, retrieve
from contextgrid.io import (
    read_chunks,
    read_qrels,
    read_run,
    write_documents,
    write_questions,
)
from contextgrid.workspace.sweep import SweepConfig, sweep, sweep_grid

ITEMS = (
    *TINY_ITEMS,
    cg.EvalItem(id="q3", question="Do you ship to Mars?"),
)
GRID = sweep_grid(chunkers=["fixed_chars", "recursive"], sizes=[120, 300], overlaps=[0], retrievers=["bm25", "dense"])


def test_grid_is_every_combination_with_overlap_below_size() -> None:
    grid = sweep_grid(chunkers=["fixed_chars"], sizes=[100, 200], overlaps=[0, 150], retrievers=["bm25", "hybrid"])
    assert [(c.size, c.overlap, c.retriever) for c in grid] == [
        (100, 0, "bm25"),
        (100, 0, "hybrid"),
        (200, 0, "bm25"),
        (200, 0, "hybrid"),
        (200, 150, "bm25"),
        (200, 150, "hybrid"),
    ]


def test_sweep_writes_a_workspace_the_library_reads(tmp_path: Path) -> None:
    report = sweep(DOCUMENTS, ITEMS, GRID, tmp_path, name="tiny")
    assert report.written == tuple(config.name for config in GRID)
    assert report.failed == {}
    workspace = cg.load_workspace(tmp_path)
    assert workspace.name == "tiny"
    assert workspace.names == report.written
    resolver = cg.SpanResolver(DOCUMENTS)
    resolved = resolver.resolve(ITEMS)
    for config in GRID:
        chunks = cg.get_chunker(config.chunker, size=config.size, overlap=config.overlap)
        expected_chunks = tuple(c for doc_id, text in DOCUMENTS.items() for c in chunks.chunk(doc_id, text))
        assert read_chunks(tmp_path / f"chunks/{config.chunking}.jsonl") == expected_chunks
        expected_qrels = {q: j for q, j in resolver.qrels(resolved, expected_chunks).items() if j}
        assert read_qrels(tmp_path / f"qrels/{config.chunking}.trec").to_dict() == expected_qrels
        questions = {item.id: item.question for item in ITEMS}
        expected_run = retrieve(build_index(config.retriever, expected_chunks), questions, config.depth)
        assert read_run(tmp_path / f"runs/{config.name}.trec").to_dict() == {q: r for q, r in expected_run.items() if r}
        assert dict(workspace.config(config.name).params) == {
            "chunker": config.chunker,
            "size": config.size,
            "overlap": config.overlap,
            "retriever": config.retriever,
            "depth": config.depth,
        }
    assert dict(workspace.documents) == DOCUMENTS
    assert workspace.questions == ITEMS


def test_sweep_is_deterministic(tmp_path: Path) -> None:
    sweep(DOCUMENTS, ITEMS, GRID, tmp_path / "a")
    sweep(DOCUMENTS, ITEMS, GRID, tmp_path / "b")
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert files
    _same, mismatch, errors = filecmp.cmpfiles(tmp_path / "a", tmp_path / "b", [str(f) for f in files], shallow=False)
    assert (mismatch, errors) == ([], [])


def test_a_failing_configuration_is_reported_and_the_others_written(tmp_path: Path) -> None:
    log = cg.WarningLog()
    configs = (SweepConfig("recursive", 300, 0, "bm25"), SweepConfig("recursive", 300, 0, "no-such-retriever"))
    report = sweep(DOCUMENTS, ITEMS, configs, tmp_path, warnings=log)
    assert report.written == ("bm25-recursive-300-0",)
    assert "no retriever named 'no-such-retriever'" in report.failed["no-such-retriever-recursive-300-0"]
    assert cg.load_workspace(tmp_path).names == ("bm25-recursive-300-0",)
    assert any(entry.subject == "no-such-retriever-recursive-300-0" for entry in log)


def test_rerunning_keeps_what_the_user_put_there(tmp_path: Path) -> None:
    sweep(DOCUMENTS, ITEMS, GRID[:2], tmp_path)
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    report = sweep(DOCUMENTS, ITEMS, GRID[:1], tmp_path)
    assert report.written == (GRID[0].name,)
    assert notes.read_text() == "mine"
    assert (tmp_path / f"runs/{GRID[1].name}.trec").is_file()


def test_a_user_file_in_the_way_is_refused_not_overwritten(tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    theirs = tmp_path / "runs" / f"{GRID[0].name}.trec"
    theirs.write_text("q1 Q0 mine 1 1.0 hand-made\n")
    with pytest.raises(OutputExistsError, match="not written by a sweep"):
        sweep(DOCUMENTS, ITEMS, GRID[:1], tmp_path)
    assert theirs.read_text() == "q1 Q0 mine 1 1.0 hand-made\n"


def test_the_command_line_sweeps_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_documents(DOCUMENTS, tmp_path / "documents.jsonl")
    write_questions(ITEMS, tmp_path / "questions.jsonl")
    status = main(
        [
            "sweep",
            str(tmp_path / "documents.jsonl"),
            str(tmp_path / "questions.jsonl"),
            "-o",
            str(tmp_path / "out"),
            "--sizes",
            "120,300",
            "--retrievers",
            "bm25",
        ]
    )
    assert status == 0
    assert capsys.readouterr().out == f"wrote 2 configurations to {tmp_path / 'out'}\n"
    assert cg.load_workspace(tmp_path / "out").names == ("bm25-recursive-120-0", "bm25-recursive-300-0")


def renamed(
    documents: dict[str, str], items: tuple[cg.EvalItem, ...], old: str, new: str
) -> tuple[dict[str, str], tuple[cg.EvalItem, ...]]:
    """The corpus and questions with document ``old`` called ``new``."""

    def moved(doc_id: str) -> str:
        return new if doc_id == old else doc_id

    return {moved(doc_id): text for doc_id, text in documents.items()}, tuple(
        cg.EvalItem(id=i.id, question=i.question, anchors=tuple(cg.Anchor(moved(a.doc_id), a.quote) for a in i.anchors))
        for i in items
    )


def test_a_document_id_with_a_space_sweeps_into_json_lines_and_scores_as_any_other(tmp_path: Path) -> None:
    spaced_documents, spaced_items = renamed(DOCUMENTS, ITEMS, "refunds.md", "my doc.md")
    plain_documents, plain_items = renamed(DOCUMENTS, ITEMS, "refunds.md", "my_doc.md")
    spaced = sweep(spaced_documents, spaced_items, GRID, tmp_path / "spaced")
    plain = sweep(plain_documents, plain_items, GRID, tmp_path / "plain")
    assert spaced.failed == {}
    assert spaced.written == plain.written == tuple(config.name for config in GRID)
    # TREC's columns are split on whitespace, so chunk ids such as 'my doc.md#0' go to JSON Lines instead.
    for config in GRID:
        assert (tmp_path / "spaced" / f"runs/{config.name}.jsonl").is_file()
        assert (tmp_path / "spaced" / f"qrels/{config.chunking}.jsonl").is_file()
        assert (tmp_path / "plain" / f"runs/{config.name}.trec").is_file()
    assert not list((tmp_path / "spaced").glob("*/*.trec"))
    qrels = read_qrels(tmp_path / "spaced" / f"qrels/{GRID[0].chunking}.jsonl").to_dict()
    assert any(chunk.startswith("my doc.md#") for judgements in qrels.values() for chunk in judgements)
    workspace = cg.load_workspace(tmp_path / "spaced")
    assert dict(workspace.documents) == spaced_documents
    results = workspace.evaluate(ks=[1, 5], metrics=["recall", "mrr"]).to_dataframe()
    expected = cg.load_workspace(tmp_path / "plain").evaluate(ks=[1, 5], metrics=["recall", "mrr"]).to_dataframe()
    pd.testing.assert_frame_equal(results, expected)
    assert results["recall@5"].gt(0).all()


def test_the_command_line_sweeps_a_folder_holding_a_file_name_with_a_space(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "docs").mkdir()
    spaced_documents, spaced_items = renamed(DOCUMENTS, ITEMS, "refunds.md", "my doc.md")
    for doc_id, text in spaced_documents.items():
        (tmp_path / "docs" / doc_id).write_text(text)
    write_questions(spaced_items, tmp_path / "questions.jsonl")
    argv = ["sweep", str(tmp_path / "docs"), str(tmp_path / "questions.jsonl"), "-o", str(tmp_path / "out")]
    assert main([*argv, "--sizes", "120", "--retrievers", "bm25"]) == 0
    assert capsys.readouterr() == (f"wrote 1 configurations to {tmp_path / 'out'}\n", "")
    workspace = cg.load_workspace(tmp_path / "out")
    assert "my doc.md" in workspace.documents
    grid = sweep_grid(chunkers=["recursive"], sizes=[120], overlaps=[0], retrievers=["bm25"])
    in_python = cg.load_workspace(sweep(spaced_documents, spaced_items, grid, tmp_path / "python").root)
    scored = workspace.evaluate(ks=[5], metrics=["recall"]).to_dataframe()
    pd.testing.assert_frame_equal(scored, in_python.evaluate(ks=[5], metrics=["recall"]).to_dataframe())


def counting_embedder(texts: list[str]) -> list[list[float]]:
    """A deterministic stand-in for a real model: how often each of a few words occurs."""
    words = ("refund", "ship", "return", "days", "free", "order", "mars")
    return [[float(text.lower().count(word)) for word in words] for text in texts]


def test_any_embedder_drives_the_retrievers_that_embed(tmp_path: Path) -> None:
    grid = sweep_grid(chunkers=["recursive"], sizes=[120], overlaps=[0], retrievers=["bm25", "dense", "hybrid"])
    report = sweep(DOCUMENTS, ITEMS, grid, tmp_path, embedder=counting_embedder)
    workspace = cg.load_workspace(tmp_path)
    params = {name: dict(workspace.config(name).params) for name in report.written}
    assert "embedder" not in params["bm25-recursive-120-0"]
    assert params["dense-recursive-120-0"]["embedder"] == f"{__name__}:counting_embedder"
    assert params["hybrid-recursive-120-0"]["embedder"] == f"{__name__}:counting_embedder"
    # The dense run is the one that embedder gives, not the default's.
    chunks = read_chunks(tmp_path / "chunks" / "recursive-120-0.jsonl")
    expected = retrieve(build_index("dense", chunks, embedder=counting_embedder), {i.id: i.question for i in ITEMS}, 20)
    written = read_run(tmp_path / "runs" / "dense-recursive-120-0.trec")
    assert {q: list(written.get(q, ())) for q in expected} == expected
    default = retrieve(build_index("dense", chunks), {i.id: i.question for i in ITEMS}, 20)
    assert default != expected


def test_an_embedder_without_a_retriever_that_embeds_is_refused(tmp_path: Path) -> None:
    grid = sweep_grid(chunkers=["recursive"], sizes=[120], overlaps=[0], retrievers=["bm25"])
    with pytest.raises(cg.ContextGridError, match="none of the retrievers \\['bm25'\\] embeds"):
        sweep(DOCUMENTS, ITEMS, grid, tmp_path, embedder=counting_embedder)
    assert not (tmp_path / "contextgrid.toml").exists()


def test_the_command_line_takes_an_embedder_from_the_current_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my_models.py").write_text(
        "def encode(texts):\n    return [[float(len(text)), float(text.count('e'))] for text in texts]\n"
    )
    write_documents(DOCUMENTS, tmp_path / "documents.jsonl")
    write_questions(ITEMS, tmp_path / "questions.jsonl")
    argv = ["sweep", "documents.jsonl", "questions.jsonl", "-o", "out", "--sizes", "120", "--retrievers", "dense"]
    assert main([*argv, "--embedder", "my_models:encode"]) == 0
    assert cg.load_workspace(tmp_path / "out").config("dense-recursive-120-0").params["embedder"] == "my_models:encode"
    capsys.readouterr()
    assert main([*argv, "--embedder", "my_models:nope"]) == 2
    assert capsys.readouterr().err == "contextgrid: error: --embedder my_models:nope: 'my_models' has no 'nope'\n"
    assert main([*argv, "--embedder", "no_such_module:encode"]) == 2
    assert "cannot import 'no_such_module'" in capsys.readouterr().err
