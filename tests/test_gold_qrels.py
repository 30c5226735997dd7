"""A configuration with chunks but no qrels is judged on the questions' gold spans: with a sweep's own numbers,
for every command and page, by the default GradeRule or the manifest's [grade_rule]."""

from __future__ import annotations

import json
import re
import shutil
import threading
from pathlib import Path

import pandas as pd
import pytest
from corpora import DOCUMENTS
from corpora import ITEMS as TINY_ITEMS

import contextgrid as cg
from contextgrid.cli.main import main
from contextgrid.core.errors import ContextGridError, InputFileError, MissingWorkspaceInputError
from contextgrid.io import read_qrels
from contextgrid.workspace.builder import workspace_from_files
from contextgrid.workspace.configuration import Configuration
from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.model import Workspace
from contextgrid.workspace.sweep import sweep, sweep_grid

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_data" / "workspace"

ITEMS = (
    *TINY_ITEMS,
    cg.EvalItem(id="q3", question="Do you ship to Mars?"),
    cg.EvalItem(id="q4", question="Is there a warranty?", anchors=(cg.Anchor("stove.md", "a lifetime warranty"),)),
)
GRID = sweep_grid(chunkers=["fixed_chars", "recursive"], sizes=[120, 300], overlaps=[0, 40], retrievers=["bm25"])


def without_qrels(source: Path, target: Path) -> Path:
    """A copy of the workspace ``source`` whose manifest names no qrels, and whose qrels files are gone."""
    shutil.copytree(source, target)
    manifest = target / "contextgrid.toml"
    text = manifest.read_text()
    stripped = re.sub(r"(?m)^qrels = .*\n", "", text)
    assert stripped != text
    manifest.write_text(stripped)
    shutil.rmtree(target / "qrels")
    return target


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A sweep's workspace, and its copy without qrels."""
    folder = tmp_path_factory.mktemp("gold")
    report = sweep(DOCUMENTS, ITEMS, GRID, folder / "swept")
    assert report.failed == {}
    return folder / "swept", without_qrels(folder / "swept", folder / "judged")


def test_the_grids_equal_a_sweeps_own_qrels(swept: tuple[Path, Path]) -> None:
    written, judged = (load_workspace(folder) for folder in swept)
    assert all(config.qrels is not None for config in written.configs)
    assert all(config.qrels is None for config in judged.configs)
    pd.testing.assert_frame_equal(written.evaluate().to_dataframe(), judged.evaluate().to_dataframe(), check_exact=True)
    for metric in ("recall", "ndcg", "mrr", "precision", "map", "hit_rate"):
        pd.testing.assert_frame_equal(written.per_query(metric, 5), judged.per_query(metric, 5), check_exact=True)
    for name in written.names:
        assert judged.qrels(name).to_dict() == written.qrels(name).to_dict()
        assert judged.gold_qrels(name)[0] is judged.qrels(name)


def test_the_command_line_prints_a_sweeps_numbers(swept: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    printed = []
    for folder in swept:
        assert main(["evaluate", "--workspace", str(folder), "--format", "json"]) == 0
        printed.append(json.loads(capsys.readouterr().out))
    assert printed[0] == printed[1]
    assert set(printed[0]) == {config.name for config in GRID}


def test_what_judging_reported_comes_with_the_scores(swept: tuple[Path, Path]) -> None:
    written, judged = (load_workspace(folder) for folder in swept)
    log = cg.WarningLog()
    judged.evaluate(warnings=log)
    messages = [str(entry) for entry in log]
    # The quote that is nowhere, once, however many configurations are judged on the gold.
    assert sum("(q4): questions.jsonl, line 4: not resolved" in message for message in messages) == 1
    assert sum("a lifetime warranty" in message for message in messages) == 1
    assert judged.gold_warnings()[: len(judged.resolved[1])] == judged.resolved[1]
    quiet = cg.WarningLog()
    written.evaluate(warnings=quiet)
    assert written.gold_warnings() == ()
    assert not any("q4" in str(entry) for entry in quiet)


def test_each_chunking_is_judged_once_and_shared(swept: tuple[Path, Path], tmp_path: Path) -> None:
    folder = shutil.copytree(swept[1], tmp_path / "twins")
    first = load_workspace(folder).configs[0]
    # A second configuration on the first one's chunks, with the first one's run.
    twin = f'\n[[config]]\nname = "twin"\nrun = "{first.run.relative_to(folder)}"\n'
    twin += f'chunks = "{Path(str(first.chunks)).relative_to(folder)}"\n'
    with (folder / "contextgrid.toml").open("a") as manifest:
        manifest.write(twin)
    workspace = load_workspace(folder)
    barrier = threading.Barrier(6)
    tables: list[object] = []

    def judge(name: str) -> None:
        barrier.wait()
        tables.append(workspace.qrels(name))

    threads = [threading.Thread(target=judge, args=(name,)) for name in [first.name, "twin"] * 3]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(tables) == 6
    assert all(table is tables[0] for table in tables)
    assert workspace.gold_qrels(first.name) is workspace.gold_qrels("twin")
    assert workspace.evaluate()["twin"].scores == workspace.evaluate()[first.name].scores


def test_files_without_qrels_are_judged_like_the_manifest(swept: tuple[Path, Path]) -> None:
    written = load_workspace(swept[0])
    config = written.configs[0]
    shared = {"questions": written.questions_path, "documents": written.documents_path}
    judged = workspace_from_files("files", runs=[config.run], chunks=config.chunks, **shared)
    assert judged.qrels(judged.names[0]).to_dict() == written.qrels(config.name).to_dict()
    with pytest.raises(ContextGridError, match="needs questions too"):
        workspace_from_files("files", runs=[config.run], chunks=config.chunks, documents=written.documents_path)
    with pytest.raises(ContextGridError, match="grade_rule grades chunks on the gold spans, without qrels"):
        workspace_from_files("files", qrels=config.qrels, runs=[config.run], grade_rule=cg.GradeRule())


def test_a_configuration_without_qrels_needs_chunks_and_a_workspace_with_questions_and_documents() -> None:
    with pytest.raises(ContextGridError, match="so it needs chunks"):
        Configuration("a", {}, run=Path("a.trec"))
    config = Configuration("a", {}, run=Path("a.trec"), chunks=Path("chunks.jsonl"))
    with pytest.raises(MissingWorkspaceInputError, match="names no questions and no documents"):
        Workspace("w", Path("."), (config,))
    with pytest.raises(MissingWorkspaceInputError, match="names no documents"):
        Workspace("w", Path("."), (config,), questions_path=Path("questions.jsonl"))


# -- a small case, checked by hand ----------------------------------------------------------------

QUOTE = "Refunds take thirty days or so"  # 30 characters, at 35-65 of a 100-character document
TEXT = "a" * 35 + QUOTE + "b" * 35
CHUNKS = [("c0", 0, 40), ("c1", 30, 70), ("c2", 60, 100)]


def small(folder: Path, manifest_tail: str = "") -> Path:
    """A workspace of one configuration judged on the gold: q1's evidence is 35-65 of d.md, which c1 (30-70) holds
    whole and c0 (0-40) and c2 (60-100) hold 5 of 30 characters of; q2's quote is not in d.md."""
    (folder / "docs").mkdir(parents=True)
    (folder / "docs" / "d.md").write_text(TEXT)
    questions = [
        {"id": "q1", "question": "How long do refunds take?", "gold": [{"doc_id": "d.md", "quote": QUOTE}]},
        {"id": "q2", "question": "Is there a fee?", "gold": [{"doc_id": "d.md", "quote": "a restocking fee"}]},
    ]
    (folder / "questions.jsonl").write_text("".join(json.dumps(question) + "\n" for question in questions))
    chunks = [{"id": i, "doc_id": "d.md", "start": s, "end": e, "text": TEXT[s:e]} for i, s, e in CHUNKS]
    (folder / "chunks.jsonl").write_text("".join(json.dumps(chunk) + "\n" for chunk in chunks))
    (folder / "run.trec").write_text("q1 Q0 c0 1 2.0 r\nq1 Q0 c1 2 1.0 r\nq2 Q0 c2 1 1.0 r\n")
    (folder / "contextgrid.toml").write_text(
        'name = "small"\nquestions = "questions.jsonl"\ndocuments = "docs"\n'
        + manifest_tail
        + '\n[[config]]\nname = "retriever"\nrun = "run.trec"\nchunks = "chunks.jsonl"\n'
    )
    return folder


def scores(folder: Path, capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, float], str]:
    assert (
        main(["evaluate", "--workspace", str(folder), "--k", "1,2", "--metrics", "recall,mrr", "--format", "json"]) == 0
    )
    captured = capsys.readouterr()
    return json.loads(captured.out)["retriever"], captured.err


def test_the_default_rule_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = small(tmp_path)
    assert load_workspace(folder).qrels("retriever").to_dict() == {"q1": {"c0": 1, "c1": 2, "c2": 1}}
    # Relevant: c0, c1, c2; the run finds c0 first, then c1. q2 has no gold, so it is in no mean.
    got, err = scores(folder, capsys)
    assert got == {"recall@1": 1 / 3, "recall@2": 2 / 3, "mrr@1": 1.0, "mrr@2": 1.0}
    assert "(q2): questions.jsonl, line 2: not resolved" in err
    assert "'a restocking fee' not found in doc 'd.md'" in err


def test_the_manifests_grade_rule_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # c0 and c2 hold 1/6 of the span, below min_fraction: only c1 is judged.
    folder = small(tmp_path, "[grade_rule]\nmin_fraction = 0.2\n")
    workspace = load_workspace(folder)
    assert workspace.grade_rule == cg.GradeRule(min_fraction=0.2)
    assert workspace.qrels("retriever").to_dict() == {"q1": {"c1": 2}}
    got, _ = scores(folder, capsys)
    assert got == {"recall@1": 0.0, "recall@2": 1.0, "mrr@1": 0.0, "mrr@2": 0.5}
    # Holding a tenth of the span is enough for the span's own grade: 2 for all three.
    again = small(tmp_path / "again", "[grade_rule]\nfull_fraction = 0.1\npartial_grade = 0\n")
    assert load_workspace(again).qrels("retriever").to_dict() == {"q1": {"c0": 2, "c1": 2, "c2": 2}}


def test_a_chunk_outside_the_documents_is_that_configurations_error(tmp_path: Path) -> None:
    folder = small(tmp_path)
    (folder / "bad.jsonl").write_text('{"id": "c9", "doc_id": "d.md", "start": 90, "end": 120}\n')
    with (folder / "contextgrid.toml").open("a") as manifest:
        manifest.write('\n[[config]]\nname = "bad"\nrun = "run.trec"\nchunks = "bad.jsonl"\n')
    part, failed = load_workspace(folder).readable()
    assert part.names == ("retriever",)
    assert "bad.jsonl" in str(failed["bad"])


# -- the manifest ---------------------------------------------------------------------------------

BAD_MANIFESTS = [
    (
        'questions = "questions.jsonl"\ndocuments = "docs"\n[[config]]\nname = "a"\nrun = "run.trec"\n',
        3,
        "configuration 'a' has no qrels: give it qrels = \"...\", name shared qrels at the top of the manifest, or "
        "have its chunks judged on the questions' gold spans, which needs chunks = ... in it",
    ),
    (
        'documents = "docs"\n[[config]]\nname = "a"\nrun = "run.trec"\nchunks = "chunks.jsonl"\n',
        2,
        "which needs questions = ... at the top",
    ),
    (
        '[[config]]\nname = "a"\nrun = "run.trec"\n',
        1,
        "which needs chunks = ... in it and questions = ... at the top and documents = ... at the top",
    ),
    (
        'questions = "questions.jsonl"\ndocuments = "docs"\n[grade_rule]\nfull_fraction = 1.0\nmin_share = 0.2\n',
        5,
        "unknown key 'min_share' in [grade_rule]; the keys allowed there are full_fraction, partial_grade, "
        "min_fraction",
    ),
    (
        'questions = "questions.jsonl"\ndocuments = "docs"\n[grade_rule]\nfull_fraction = 0\n',
        4,
        "[grade_rule] full_fraction: The 'full_fraction' parameter of GradeRule must be a float in (0, 1]. Got 0",
    ),
    (
        'questions = "questions.jsonl"\ndocuments = "docs"\n[grade_rule]\nmin_fraction = 0.6\nfull_fraction = 0.5\n',
        4,
        "[grade_rule] min_fraction: The 'min_fraction' parameter of GradeRule must be a float in "
        "[0, full_fraction=0.5]. Got 0.6",
    ),
    (
        'questions = "questions.jsonl"\ndocuments = "docs"\n[grade_rule]\npartial_grade = "half"\n',
        4,
        "[grade_rule] partial_grade:",
    ),
    (
        'questions = "questions.jsonl"\ndocuments = "docs"\ngrade_rule = "strict"\n',
        3,
        "grade_rule must be a table ([grade_rule]) of full_fraction, partial_grade, min_fraction, got 'strict'",
    ),
]


@pytest.mark.parametrize(("head", "line", "expected"), BAD_MANIFESTS)
def test_a_manifest_that_cannot_be_judged_says_where(tmp_path: Path, head: str, line: int, expected: str) -> None:
    folder = small(tmp_path)
    manifest = folder / "contextgrid.toml"
    if "[[config]]" not in head:
        head += '\n[[config]]\nname = "a"\nrun = "run.trec"\nchunks = "chunks.jsonl"\n'
    manifest.write_text(head)
    with pytest.raises(InputFileError) as raised:
        load_workspace(folder)
    assert raised.value.path == str(manifest)
    assert raised.value.line == line
    assert expected in str(raised.value)


def test_a_grade_rule_no_configuration_is_judged_by_is_refused(tmp_path: Path) -> None:
    folder = small(tmp_path)
    (folder / "qrels.trec").write_text("q1 0 c1 2\n")
    (folder / "contextgrid.toml").write_text(
        'qrels = "qrels.trec"\nquestions = "questions.jsonl"\ndocuments = "docs"\n'
        '[grade_rule]\nmin_fraction = 0.2\n[[config]]\nname = "a"\nrun = "run.trec"\nchunks = "chunks.jsonl"\n'
    )
    with pytest.raises(InputFileError, match="every configuration here has a qrels file") as raised:
        load_workspace(folder)
    assert raised.value.line == 4


def test_qrels_given_win_over_the_gold(tmp_path: Path) -> None:
    folder = small(tmp_path)
    (folder / "qrels.trec").write_text("q1 0 c1 2\n")
    text = (folder / "contextgrid.toml").read_text()
    (folder / "contextgrid.toml").write_text(
        text.replace('chunks = "chunks.jsonl"', 'chunks = "chunks.jsonl"\nqrels = "qrels.trec"')
    )
    assert load_workspace(folder).qrels("retriever").to_dict() == read_qrels(folder / "qrels.trec").to_dict()


# -- every command and page, on the sample without its qrels ---------------------------------------


@pytest.fixture(scope="module")
def sample_without_qrels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return without_qrels(SAMPLE, tmp_path_factory.mktemp("sample") / "workspace")


def command_output(arguments: list[str], folder: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main([*arguments, str(folder)]) == 0
    return capsys.readouterr().out.replace(str(folder), "WORKSPACE")


@pytest.mark.parametrize(
    "arguments",
    [
        ["evaluate", "--per-query", "--metrics", "ndcg@10", "--format", "csv", "--workspace"],
        ["compare", "--metric", "ndcg@10", "--format", "csv"],
        ["diagnose", "--format", "csv"],
        ["answers", "--format", "csv"],
    ],
    ids=lambda arguments: arguments[0],
)
def test_every_command_prints_the_samples_numbers(
    arguments: list[str], sample_without_qrels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert command_output(arguments, sample_without_qrels, capsys) == command_output(arguments, SAMPLE, capsys)


def test_the_report_is_the_samples(sample_without_qrels: Path, tmp_path: Path) -> None:
    config = load_workspace(SAMPLE).names[0]
    pages = []
    for folder in (SAMPLE, sample_without_qrels):
        out = tmp_path / f"{folder.parent.name}.html"
        assert main(["report", str(folder), "--config", config, "-o", str(out)]) == 0
        pages.append(out.read_text().replace(str(folder), "WORKSPACE"))
    assert pages[0] == pages[1]


def test_every_page_shows_the_samples_numbers(sample_without_qrels: Path) -> None:
    from streamlit.testing.v1 import AppTest

    def opened(name: str) -> AppTest:
        app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        app.query_params["source"] = "folder"
        app.query_params["workspace"] = str(sample_without_qrels)
        app.run()
        if name != "overview.py":
            app.switch_page(str(ROOT / "pages" / name)).run()
        assert not app.exception, [e.value for e in app.exception]
        assert not app.error, [e.value for e in app.error]
        return app

    shown = opened("overview.py").dataframe[0].value
    expected = load_workspace(SAMPLE).evaluate().to_dataframe()
    pd.testing.assert_frame_equal(shown, expected[list(shown.columns)], check_exact=True)
    for name in ("questions.py", "compare.py", "waste.py", "answers.py"):
        assert opened(name).dataframe
