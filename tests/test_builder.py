"""workspace_from_files(): a workspace from files named in code scores as the same files named in a manifest."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpora import DOCUMENTS, ITEMS

from contextgrid.core.errors import ContextGridError, InputFileError
from contextgrid.workspace.builder import workspace_from_files
from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.sweep import sweep, sweep_grid

HANDMADE = Path(__file__).resolve().parent.parent / "sample_data" / "handmade"
HALF = ("bm25-fixed-512", "dense-fixed-512")
"""The handmade configurations scored against the shared qrels."""


def handmade_runs() -> list[Path]:
    return [HANDMADE / "runs" / f"{name}.trec" for name in HALF]


def test_the_runs_of_a_manifest_score_as_the_manifest_does() -> None:
    built = workspace_from_files("handmade", qrels=HANDMADE / "qrels.trec", runs=handmade_runs())
    loaded = load_workspace(HANDMADE)
    assert built.names == HALF
    expected = loaded.evaluate().to_dataframe().loc[list(HALF)]
    scores = built.evaluate().to_dataframe()
    assert scores.to_dict() == expected[list(scores.columns)].to_dict()
    assert built.per_query("ndcg", 5).to_dict() == loaded.per_query("ndcg", 5)[list(HALF)].to_dict()
    assert built.root == HANDMADE.resolve()


def test_documents_chunks_and_questions_load_as_the_manifests_do(tmp_path: Path) -> None:
    root = tmp_path / "swept"
    sweep(DOCUMENTS, ITEMS, sweep_grid(chunkers=["fixed_chars"], sizes=[60], overlaps=[20], retrievers=["bm25"]), root)
    loaded = load_workspace(root)
    [config] = loaded.configs
    assert loaded.documents_path is not None
    assert loaded.questions_path is not None
    assert config.chunks is not None
    built = workspace_from_files(
        "swept",
        qrels=config.qrels,
        runs=[config.run],
        documents=loaded.documents_path,
        chunks=config.chunks,
        questions=loaded.questions_path,
    )
    name = built.names[0]
    assert built.evaluate()[name].scores == loaded.evaluate()[config.name].scores
    assert built.chunks(name) == loaded.chunks(config.name)
    assert built.resolved == loaded.resolved
    assert dict(built.documents) == dict(loaded.documents)


def test_configurations_are_named_after_their_run_files(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    for path in (tmp_path / "q.trec", tmp_path / "bm25.trec", tmp_path / "a" / "dense.v2.trec.gz"):
        path.write_text("")
    built = workspace_from_files(
        "w", qrels=tmp_path / "q.trec", runs=[tmp_path / "bm25.trec", tmp_path / "a" / "dense.v2.trec.gz"]
    )
    assert built.names == ("bm25", "dense")
    assert [dict(config.params) for config in built.configs] == [{}, {}]
    assert built.root == tmp_path.resolve()


def test_answers_belong_to_the_configuration_they_name(tmp_path: Path) -> None:
    qrels, run, answers = tmp_path / "q.trec", tmp_path / "bm25.trec", tmp_path / "bm25.jsonl"
    qrels.write_text("q1 0 c1 1\n")
    run.write_text("q1 Q0 c1 1 0.9 x\n")
    answers.write_text('{"question_id": "q1", "answer": "Yes."}\n')
    built = workspace_from_files("w", qrels=qrels, runs=[run], answers={"bm25": answers})
    assert built.config("bm25").answers == answers
    assert built.answers("bm25")[0].source is not None
    with pytest.raises(ContextGridError, match=r"bm25\.jsonl'? are of configuration 'dense', but the runs make 'bm25'"):
        workspace_from_files("w", qrels=qrels, runs=[run], answers={"dense": answers})


@pytest.mark.parametrize("missing", ["qrels", "runs", "documents", "chunks", "questions"])
def test_a_missing_file_is_refused_by_its_name(tmp_path: Path, missing: str) -> None:
    present = tmp_path / "present.trec"
    present.write_text("")
    gone = tmp_path / f"gone-{missing}.jsonl"
    given: dict[str, object] = {"qrels": present, "runs": [present]}
    given[missing] = [gone] if missing == "runs" else gone
    with pytest.raises(
        InputFileError, match=rf"^{tmp_path}/gone-{missing}\.jsonl: expected the \w+ (file|file or folder) to read"
    ):
        workspace_from_files("w", **given)  # type: ignore[arg-type]


def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    present = tmp_path / "present.trec"
    present.write_text("")
    with pytest.raises(ContextGridError, match="name must be a non-empty str"):
        workspace_from_files(" ", qrels=present, runs=[present])
    with pytest.raises(ContextGridError, match="runs must be a sequence of paths"):
        workspace_from_files("w", qrels=present, runs=present)  # type: ignore[arg-type]
    with pytest.raises(ContextGridError, match="at least one run file"):
        workspace_from_files("w", qrels=present, runs=())
