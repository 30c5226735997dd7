from __future__ import annotations

import filecmp
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from corpora import DOCUMENTS
from corpora import ITEMS as TINY_ITEMS
from hypothesis import given, settings
from hypothesis import strategies as st

import contextgrid as cg
from contextgrid.chunking.merging import merge_small
from contextgrid.cli.main import main
from contextgrid.core.errors import OutputExistsError
from contextgrid.index import build_index, retrieve_scored
from contextgrid.io import (
    read_chunks,
    read_qrels,
    read_run,
    write_documents,
    write_questions,
)
from contextgrid.workspace.sweep import LEDGER, MIN_CHUNK, SweepConfig, sweep, sweep_grid

ITEMS = (
    *TINY_ITEMS,
    cg.EvalItem(id="q3", question="Do you ship to Mars?"),
)
GRID = sweep_grid(chunkers=["fixed_chars", "recursive"], sizes=[120, 300], overlaps=[0], retrievers=["bm25", "lsa"])


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
        cut = tuple(c for doc_id, text in DOCUMENTS.items() for c in chunks.chunk(doc_id, text))
        expected_chunks = merge_small(cut, DOCUMENTS, minimum=min(MIN_CHUNK, config.size // 4))
        assert read_chunks(tmp_path / f"chunks/{config.chunking}.jsonl") == expected_chunks
        expected_qrels = {q: j for q, j in resolver.qrels(resolved, expected_chunks).items() if j}
        assert read_qrels(tmp_path / f"qrels/{config.chunking}.trec").to_dict() == expected_qrels
        questions = {item.id: item.question for item in ITEMS}
        # The run file holds the retriever's own scores, not made-up ones.
        expected_run = retrieve_scored(build_index(config.retriever, expected_chunks), questions, config.depth)
        assert scores_of(tmp_path / f"runs/{config.name}.trec") == {q: r for q, r in expected_run.items() if r}
        assert dict(workspace.config(config.name).params) == {
            "chunker": config.chunker,
            "size": config.size,
            "overlap": config.overlap,
            "min_chunk": min(50, config.size // 4),
            "retriever": config.retriever,
            "depth": config.depth,
            **({"stemmer": "english", "stopwords": "en"} if config.retriever == "bm25" else {}),
        }
    assert dict(workspace.documents) == DOCUMENTS
    assert workspace.questions == ITEMS


def scores_of(path: Path) -> dict[str, dict[str, float]]:
    """``{question: {chunk: score}}`` as the run file holds them."""
    scored: dict[str, dict[str, float]] = {}
    for row in read_run(path).table.to_pylist():
        scored.setdefault(row["question_id"], {})[row["chunk_id"]] = row["score"]
    return scored


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
    assert report.summary().splitlines()[:2] == [
        f"wrote 1 configuration to {tmp_path}",
        "1 failed and left out: no-such-retriever-recursive-300-0",
    ]


def test_rerunning_removes_its_own_stale_files_and_keeps_what_the_user_put_there(tmp_path: Path) -> None:
    sweep(DOCUMENTS, ITEMS, GRID, tmp_path)
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    (tmp_path / "runs" / "by-hand.trec").write_text("q1 Q0 x 1 1.0 mine\n")
    report = sweep(DOCUMENTS, ITEMS, GRID[:1], tmp_path)
    assert report.written == (GRID[0].name,)
    assert notes.read_text() == "mine"
    assert (tmp_path / "runs" / "by-hand.trec").is_file()
    # Every file of the first sweep that the new manifest does not name is gone; nothing else went.
    left = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert left == [
        ".contextgrid-sweep.json",
        f"chunks/{GRID[0].chunking}.jsonl",
        "contextgrid.toml",
        "documents.jsonl",
        "notes.txt",
        f"qrels/{GRID[0].chunking}.trec",
        "questions.jsonl",
        f"runs/{GRID[0].name}.trec",
        "runs/by-hand.trec",
    ]
    others = {config.chunking for config in GRID[1:]} - {GRID[0].chunking}
    assert set(report.removed) == {f"runs/{config.name}.trec" for config in GRID[1:]} | {
        f"{kind}/{chunking}.{suffix}"
        for chunking in others
        for kind, suffix in (("chunks", "jsonl"), ("qrels", "trec"))
    }
    assert len(report.removed) == 7 + 3 + 3
    assert cg.load_workspace(tmp_path).names == (GRID[0].name,)


def test_a_folder_a_sweep_did_not_write_is_refused_without_force(tmp_path: Path) -> None:
    (tmp_path / "report.html").write_text("theirs")
    with pytest.raises(OutputExistsError) as raised:
        sweep(DOCUMENTS, ITEMS, GRID[:1], tmp_path)
    assert str(raised.value) == (
        f"{tmp_path} is not empty and was not written by contextgrid sweep (it has no .contextgrid-sweep.json); "
        "pass --force (force=True) to write into it"
    )
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]
    report = sweep(DOCUMENTS, ITEMS, GRID[:1], tmp_path, force=True)
    assert report.written == (GRID[0].name,)
    assert (tmp_path / "report.html").read_text() == "theirs"
    # An empty folder is no one's: it is written without --force.
    (tmp_path / "empty").mkdir()
    assert sweep(DOCUMENTS, ITEMS, GRID[:1], tmp_path / "empty").written == (GRID[0].name,)


def test_a_user_file_in_the_way_is_refused_not_overwritten(tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    theirs = tmp_path / "runs" / f"{GRID[0].name}.trec"
    theirs.write_text("q1 Q0 mine 1 1.0 hand-made\n")
    (tmp_path / LEDGER).write_text("[]\n")  # a sweep's folder, but not its file
    with pytest.raises(OutputExistsError, match="exists and was not written by a sweep, so it is left alone; pass"):
        sweep(DOCUMENTS, ITEMS, GRID[:1], tmp_path)
    assert theirs.read_text() == "q1 Q0 mine 1 1.0 hand-made\n"
    sweep(DOCUMENTS, ITEMS, GRID[:1], tmp_path, force=True)
    assert theirs.read_text() != "q1 Q0 mine 1 1.0 hand-made\n"


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
    assert capsys.readouterr().out == (
        f"wrote 2 configurations to {tmp_path / 'out'}\nquestions: 2 resolved, 0 unresolved\n"
    )
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
    assert capsys.readouterr() == (
        f"wrote 1 configuration to {tmp_path / 'out'}\nquestions: 2 resolved, 0 unresolved\n",
        "",
    )
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
    questions = {i.id: i.question for i in ITEMS}
    expected = retrieve_scored(build_index("dense", chunks, embedder=counting_embedder), questions, 20)
    assert scores_of(tmp_path / "runs" / "dense-recursive-120-0.trec") == {q: r for q, r in expected.items() if r}
    assert retrieve_scored(build_index("lsa", chunks), questions, 20) != expected


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


HEADED = {
    "guide.md": "backoff\n=======\n\nRetries wait twice as long each time, up to a minute, then give up.\n\n"
    "jitter\n======\n\nEach wait is moved by up to a tenth at random.\n\nEnd.\n",
    "short.md": "Tiny.",
}


@settings(max_examples=60, deadline=None)
@given(
    text=st.text(alphabet="ab \n.=", max_size=300),
    size=st.integers(5, 80),
    minimum=st.integers(0, 60),
    chunker=st.sampled_from(["fixed_chars", "recursive", "sentences"]),
)
def test_merged_chunks_keep_exact_offsets_and_none_is_under_the_minimum(
    text: str, size: int, minimum: int, chunker: str
) -> None:
    cut = cg.get_chunker(chunker, size=size, overlap=0).chunk("d", text)
    merged = merge_small(cut, {"d": text}, minimum=minimum)
    for number, chunk in enumerate(merged):
        assert chunk.id == f"d#{number}"
        assert chunk.text == text[chunk.span.start : chunk.span.end]
        assert len(chunk.text) >= minimum or len(merged) == 1
    # Nothing of the document is lost or added: the merged chunks cover what the cut ones covered.
    covered = {at for c in cut for at in range(c.span.start, c.span.end)}
    assert {at for c in merged for at in range(c.span.start, c.span.end)} == covered
    if minimum == 0 or all(len(c.text) >= minimum for c in cut):
        assert merged == cut


def test_a_lone_heading_joins_the_text_it_heads(tmp_path: Path) -> None:
    grid = sweep_grid(chunkers=["recursive"], sizes=[80], overlaps=[0], retrievers=["bm25"])
    items = [cg.EvalItem("q1", "How long do retries wait?", anchors=(cg.Anchor("guide.md", "up to a minute"),))]
    unmerged = sweep(HEADED, items, grid, tmp_path / "cut", min_chunk=0)
    merged = sweep(HEADED, items, grid, tmp_path / "merged", min_chunk=20)
    before = read_chunks(unmerged.root / "chunks/recursive-80-0.jsonl")
    after = read_chunks(merged.root / "chunks/recursive-80-0.jsonl")
    assert [c.text for c in before if c.span.doc_id == "guide.md"][:2] == [
        "backoff\n=======\n\n",
        "Retries wait twice as long each time, up to a minute, then give up.\n\n",
    ]
    assert [c.text for c in after] == [
        "backoff\n=======\n\nRetries wait twice as long each time, up to a minute, then give up.\n\n",
        "jitter\n======\n\nEach wait is moved by up to a tenth at random.\n\nEnd.\n",
        "Tiny.",  # a document shorter than the minimum keeps its one chunk
    ]
    assert cg.load_workspace(merged.root).config("bm25-recursive-80-0").params["min_chunk"] == 20
    # The default minimum is 50 characters, or a quarter of the size if that is less.
    assert SweepConfig("recursive", 80, 0, "bm25").min_chunk(MIN_CHUNK) == 20
    assert SweepConfig("recursive", 300, 0, "bm25").min_chunk(MIN_CHUNK) == 50


def test_the_summary_names_the_unresolved_questions_and_why(tmp_path: Path) -> None:
    lost = [
        cg.EvalItem(f"lost{i}", "Where?", anchors=(cg.Anchor("refunds.md", f"a quote that is not there {i}"),))
        for i in range(5)
    ]
    report = sweep(DOCUMENTS, [*ITEMS, *lost], GRID[:1], tmp_path)
    assert report.resolved == ("q1", "q2")
    assert list(report.unresolved) == [f"lost{i}" for i in range(5)]
    assert all(reason.startswith("not resolved") for reason in report.unresolved.values())
    lines = report.summary().splitlines()
    assert lines[:2] == [f"wrote 1 configuration to {tmp_path}", "questions: 2 resolved, 5 unresolved"]
    assert [line.split(":")[0] for line in lines[2:5]] == ["  lost0", "  lost1", "  lost2"]
    assert lines[5] == "  ... and 2 more (the warnings list every one)"
    assert len(lines) == 6


def test_dense_without_an_embedder_is_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    grid = sweep_grid(chunkers=["recursive"], sizes=[120], overlaps=[0], retrievers=["bm25", "dense"])
    with pytest.raises(cg.InvalidParameterError, match=r"the dense retriever needs an embedder: pass embedder="):
        sweep(DOCUMENTS, ITEMS, grid, tmp_path / "out")
    assert not (tmp_path / "out" / "documents.jsonl").exists()
    write_documents(DOCUMENTS, tmp_path / "documents.jsonl")
    write_questions(ITEMS, tmp_path / "questions.jsonl")
    argv = ["sweep", str(tmp_path / "documents.jsonl"), str(tmp_path / "questions.jsonl"), "-o", str(tmp_path / "o")]
    assert main([*argv, "--retrievers", "dense"]) == 2
    error = capsys.readouterr().err
    assert "the dense retriever needs an embedder" in error
    assert "--embedder MODULE:CALLABLE" in error
    assert "use the 'lsa' retriever" in error


def test_the_bm25_stemmer_is_recorded_and_can_be_turned_off(tmp_path: Path) -> None:
    write_documents(DOCUMENTS, tmp_path / "documents.jsonl")
    write_questions(ITEMS, tmp_path / "questions.jsonl")
    argv = ["sweep", str(tmp_path / "documents.jsonl"), str(tmp_path / "questions.jsonl"), "--sizes", "120"]
    assert main([*argv, "-o", str(tmp_path / "stem"), "--retrievers", "bm25,hybrid"]) == 0
    assert main([*argv, "-o", str(tmp_path / "plain"), "--retrievers", "bm25", "--bm25-stemmer", "none"]) == 0
    stem, plain = cg.load_workspace(tmp_path / "stem"), cg.load_workspace(tmp_path / "plain")
    for name in ("bm25-recursive-120-0", "hybrid-recursive-120-0"):
        assert (stem.config(name).params["stemmer"], stem.config(name).params["stopwords"]) == ("english", "en")
    assert (
        plain.config("bm25-recursive-120-0").params["stemmer"],
        plain.config("bm25-recursive-120-0").params["stopwords"],
    ) == ("none", "en")
    chunks = read_chunks(tmp_path / "plain" / "chunks" / "recursive-120-0.jsonl")
    questions = {item.id: item.question for item in ITEMS}
    expected = retrieve_scored(build_index("bm25", chunks, stemmer=None), questions, 20)
    assert scores_of(tmp_path / "plain" / "runs" / "bm25-recursive-120-0.trec") == {
        q: r for q, r in expected.items() if r
    }
    assert scores_of(tmp_path / "stem" / "runs" / "bm25-recursive-120-0.trec") != scores_of(
        tmp_path / "plain" / "runs" / "bm25-recursive-120-0.trec"
    )


def test_the_help_lists_the_chunkers_and_retrievers_and_the_unit_of_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert f"from: {', '.join(cg.available_chunkers())}" in text
    assert "from: bm25, dense, dense_int8, hybrid, lsa" in text
    assert "chunk sizes in characters" in text
    assert "--bm25-stemmer" in text
    assert "--force" in text
    assert "--min-chunk" in text


def test_the_command_line_asks_for_force_before_writing_into_a_folder_it_did_not_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_documents(DOCUMENTS, tmp_path / "documents.jsonl")
    write_questions(ITEMS, tmp_path / "questions.jsonl")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "mine.txt").write_text("mine")
    argv = ["sweep", str(tmp_path / "documents.jsonl"), str(tmp_path / "questions.jsonl"), "-o", str(tmp_path / "out")]
    assert main([*argv, "--sizes", "120", "--retrievers", "bm25"]) != 0
    assert "was not written by contextgrid sweep" in capsys.readouterr().err
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["mine.txt"]
    assert main([*argv, "--sizes", "120", "--retrievers", "bm25", "--force"]) == 0
    assert (tmp_path / "out" / "mine.txt").read_text() == "mine"
    assert cg.load_workspace(tmp_path / "out").names == ("bm25-recursive-120-0",)


def letters(texts: list[str]) -> list[list[float]]:
    """A toy embedder that embeds any text: how often each letter a-z occurs."""
    return [[float(text.lower().count(chr(97 + i))) for i in range(26)] for text in texts]


def test_a_run_that_retrieved_nothing_fails_its_configuration_and_the_workspace_reads(tmp_path: Path) -> None:
    # No word of the question is in the documents: BM25 retrieves nothing; the letters still place it.
    items = [cg.EvalItem("q1", "Zyzzyva qwxj?", anchors=ITEMS[0].anchors)]
    grid = sweep_grid(chunkers=["recursive"], sizes=[120], overlaps=[0], retrievers=["bm25", "dense"])
    log = cg.WarningLog()
    report = sweep(DOCUMENTS, items, grid, tmp_path, embedder=letters, warnings=log)
    assert report.written == ("dense-recursive-120-0",)
    assert report.failed["bm25-recursive-120-0"].startswith(
        "ContextGridError: it retrieved no chunk for any question (do the questions share no word with the documents?)"
    )
    assert any(entry.subject == "bm25-recursive-120-0" for entry in log)
    assert not (tmp_path / "runs" / "bm25-recursive-120-0.trec").exists()
    workspace = cg.load_workspace(tmp_path)
    assert workspace.names == ("dense-recursive-120-0",)
    chunks = read_chunks(tmp_path / "chunks" / "recursive-120-0.jsonl")
    assert len(chunks) <= 20  # so depth 20 retrieves every chunk, the gold ones among them
    results = workspace.evaluate(ks=[20], metrics=["recall"])
    assert results["dense-recursive-120-0"].scores["recall@20"] == 1.0


def test_a_sweep_of_runs_that_retrieved_nothing_is_refused_and_says_why(tmp_path: Path) -> None:
    items = [cg.EvalItem("q1", "Zyzzyva qwxj?", anchors=ITEMS[0].anchors)]
    grid = sweep_grid(chunkers=["recursive"], sizes=[120], overlaps=[0], retrievers=["bm25"])
    with pytest.raises(cg.ContextGridError, match=r"every configuration failed.*retrieved no chunk for any question"):
        sweep(DOCUMENTS, items, grid, tmp_path)
    assert not (tmp_path / "contextgrid.toml").exists()


STALLING = """\
import pathlib, time

def encode(texts):
    pathlib.Path("embedding").touch()  # the test's cue to send its signal
    time.sleep(120)  # a signal ends this early; 120 s bounds the wait if none comes
    raise AssertionError("no signal came")
"""


# The command line as a terminal starts it, SIGINT raising KeyboardInterrupt: a process started from a shell's
# background job (``cmd &`` without job control, as a CI script may start the suite) inherits SIGINT ignored, and
# Python then leaves it ignored, so the signal would stop nothing.
INTERRUPTIBLE = (
    "import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "runpy.run_module('contextgrid.cli.main', run_name='__main__')"
)


@pytest.mark.parametrize(
    ("signum", "name", "status"), [(signal.SIGINT, "SIGINT", 130), (signal.SIGTERM, "SIGTERM", 143)]
)
def test_a_signal_stops_a_sweep_with_a_line_and_its_status_and_the_rerun_takes_the_folder_up(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    signum: int,
    name: str,
    status: int,
) -> None:
    (tmp_path / "stalling.py").write_text(STALLING)
    write_documents(DOCUMENTS, tmp_path / "documents.jsonl")
    write_questions(ITEMS, tmp_path / "questions.jsonl")
    argv = ["sweep", "documents.jsonl", "questions.jsonl", "-o", "out", "--sizes", "120"]
    process = subprocess.Popen(
        [sys.executable, "-c", INTERRUPTIBLE, *argv, "--retrievers", "dense", "--embedder", "stalling:encode"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "embedding").exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert (tmp_path / "embedding").exists(), f"the sweep never embedded; exit status {process.poll()}"
        process.send_signal(signum)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert (process.returncode, out) == (status, "")
    assert err == (
        f"contextgrid: sweep stopped by {name} before it finished; run it again into out "
        "(it replaces the files it wrote there)\n"
    )
    # Every file it left is on its list, the list included nothing half-written.
    listed = set(json.loads((tmp_path / "out" / LEDGER).read_text()))
    left = {str(path.relative_to(tmp_path / "out")) for path in (tmp_path / "out").rglob("*") if path.is_file()}
    assert left - {LEDGER} == {
        "documents.jsonl",
        "questions.jsonl",
        "chunks/recursive-120-0.jsonl",
        "qrels/recursive-120-0.trec",
    }
    assert left - {LEDGER} <= listed
    monkeypatch.chdir(tmp_path)
    assert main([*argv, "--retrievers", "bm25"]) == 0
    assert capsys.readouterr().out.startswith("wrote 1 configuration to out\n")
    assert cg.load_workspace(tmp_path / "out").names == ("bm25-recursive-120-0",)


def test_gold_past_a_documents_end_or_in_an_unknown_one_is_unresolved_and_named_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_documents(DOCUMENTS, tmp_path / "documents.jsonl")
    write_questions(ITEMS, tmp_path / "questions.jsonl")  # q1, q2, q3 (no gold) on lines 1 to 3
    end = len(DOCUMENTS["stove.md"])
    with (tmp_path / "questions.jsonl").open("a") as questions:
        questions.write(
            f'{{"id": "past", "question": "?", "gold": [{{"doc_id": "stove.md", "start": 10, "end": {end + 1}}}]}}\n'
        )
        questions.write('{"id": "lost", "question": "?", "gold": [{"doc_id": "oven.md", "start": 0, "end": 5}]}\n')
    argv = ["sweep", "documents.jsonl", "questions.jsonl", "-o", "out", "--sizes", "120", "--retrievers", "bm25"]
    assert main(argv) == 0
    assert capsys.readouterr().out == (
        "wrote 1 configuration to out\n"
        "questions: 2 resolved, 2 unresolved\n"
        "  past: questions.jsonl, line 4: not resolved, so it has no gold evidence in this parse: gold span 1: "
        f"offsets 10-{end + 1} of doc 'stove.md' run past its end ({end} characters)\n"
        "  lost: questions.jsonl, line 5: not resolved, so it has no gold evidence in this parse: gold span 1: "
        "unknown document 'oven.md'\n"
    )
