"""A workspace is partly usable: configurations that cannot be read are set aside with their errors, the rest
score as they would alone; and a manifest can be confined to the folders a shared server may read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import contextgrid as cg
from contextgrid.io import read_qrels, read_run
from contextgrid.workspace.access import allowed_path, is_within
from contextgrid.workspace.builder import workspace_from_files
from contextgrid.workspace.manifest import load_workspace

QRELS = "q1 0 c1 2\nq1 0 c2 1\nq2 0 c3 1\n"
GOOD = "q1 Q0 c1 1 0.9 a\nq1 Q0 c9 2 0.5 a\nq2 Q0 c3 1 0.7 a\n"
OTHER = "q1 Q0 c2 1 0.9 b\nq2 Q0 c8 1 0.7 b\n"
BAD = "q1 Q0 c1 1 high x\n"


def _workspace(folder: Path, runs: dict[str, str], *, extra: str = "") -> Path:
    (folder / "qrels.trec").write_text(QRELS)
    tables = []
    for name, text in runs.items():
        (folder / f"{name}.trec").write_text(text)
        tables.append(f'[[config]]\nname = "{name}"\nrun = "{name}.trec"\n')
    (folder / "contextgrid.toml").write_text(f'name = "w"\nqrels = "qrels.trec"\n{extra}\n' + "\n".join(tables))
    return folder


def test_an_unreadable_configuration_is_set_aside_with_its_error_and_the_rest_score_as_alone(tmp_path: Path) -> None:
    workspace = load_workspace(_workspace(tmp_path, {"good": GOOD, "broken": BAD, "other": OTHER}))
    part, failed = workspace.readable()
    assert part.names == ("good", "other")
    assert list(failed) == ["broken"]
    assert isinstance(failed["broken"], cg.InputFileError)
    assert str(failed["broken"]) == (
        f"{tmp_path / 'broken.trec'}, line 1: expected score to be a number such as 12.5, -3 or 1e-4, got 'high': "
        "'q1 Q0 c1 1 high x'"
    )
    alone = cg.evaluate(read_qrels(tmp_path / "qrels.trec"), read_run(tmp_path / "good.trec"))
    assert part.evaluate()["good"].scores == alone
    assert part.per_query("recall", 1).columns.tolist() == ["good", "other"]


def test_a_readable_workspace_is_returned_as_it_is(tmp_path: Path) -> None:
    workspace = load_workspace(_workspace(tmp_path, {"good": GOOD, "other": OTHER}))
    part, failed = workspace.readable()
    assert part is workspace
    assert dict(failed) == {}


def test_the_readable_part_shares_what_was_read(tmp_path: Path) -> None:
    workspace = load_workspace(_workspace(tmp_path, {"good": GOOD, "broken": BAD}))
    part, _ = workspace.readable()
    first = workspace.run("good")
    (tmp_path / "good.trec").unlink()  # read once, kept: the part does not read it again
    assert part.run("good") is first


def test_a_workspace_none_of_whose_configurations_read_raises_the_first_error(tmp_path: Path) -> None:
    workspace = load_workspace(_workspace(tmp_path, {"broken": BAD, "worse": "q1 Q0\n"}))
    with pytest.raises(cg.InputFileError, match=r"broken\.trec, line 1: expected score to be a number"):
        workspace.readable()


def test_broken_shared_documents_are_no_configurations_fault(tmp_path: Path) -> None:
    (tmp_path / "documents.jsonl").write_text("not json\n")
    (tmp_path / "chunks.jsonl").write_text('{"chunk_id": "c1", "doc_id": "d", "start": 0, "end": 1}\n')
    folder = _workspace(tmp_path, {"good": GOOD}, extra='documents = "documents.jsonl"')
    manifest = (folder / "contextgrid.toml").read_text()
    text = manifest.replace('run = "good.trec"', 'run = "good.trec"\nchunks = "chunks.jsonl"')
    (folder / "contextgrid.toml").write_text(text)
    part, failed = load_workspace(folder).readable()
    assert part.names == ("good",)
    assert dict(failed) == {}


def test_a_broken_answers_file_sets_no_configuration_aside_and_is_said_where_answers_are_read(
    tmp_path: Path,
) -> None:
    folder = _workspace(tmp_path, {"good": GOOD, "other": OTHER})
    (folder / "answers.jsonl").write_text('{"question_id": "q1", "answer": "x", "citations": [0]}\n')
    manifest = (folder / "contextgrid.toml").read_text()
    (folder / "contextgrid.toml").write_text(
        manifest.replace('run = "good.trec"', 'run = "good.trec"\nanswers = "answers.jsonl"')
    )
    part, failed = load_workspace(folder).readable()
    # Its scores do not depend on its answers: the retrieval views keep it.
    assert part.names == ("good", "other")
    assert dict(failed) == {}
    with pytest.raises(cg.InputFileError) as caught:
        part.answers("good")
    assert str(caught.value).startswith(f"{folder / 'answers.jsonl'}, line 1: ")


def test_uploaded_runs_that_would_share_a_configuration_name_are_refused(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "qrels.trec").write_text(QRELS)
    for folder in ("a", "b"):
        (tmp_path / folder / "run_good.trec").write_text(GOOD)
    runs = [tmp_path / "a" / "run_good.trec", tmp_path / "b" / "run_good.trec"]
    with pytest.raises(cg.NameTakenError) as caught:
        workspace_from_files("up", qrels=tmp_path / "qrels.trec", runs=runs)
    assert str(caught.value) == (
        f"workspace_from_files('up'): the runs {str(tmp_path / 'a' / 'run_good.trec')!r} and "
        f"{str(tmp_path / 'b' / 'run_good.trec')!r} would both be configuration 'run_good' (a configuration is named "
        "after its run file, up to the first dot); rename one"
    )


# -- confinement -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("named", "shown"),
    [("../outside/secret.trec", "'../outside/secret.trec'"), ("/etc/passwd", "'/etc/passwd'")],
)
def test_a_confined_manifest_may_not_name_files_outside_its_folder(tmp_path: Path, named: str, shown: str) -> None:
    folder = tmp_path / "ws"
    folder.mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.trec").write_text(GOOD)
    _workspace(folder, {"good": GOOD})
    text = (folder / "contextgrid.toml").read_text().replace('run = "good.trec"', f'run = "{named}"')
    (folder / "contextgrid.toml").write_text(text)
    assert load_workspace(folder).config("good").run == folder / named  # unconfined, as on the command line
    with pytest.raises(cg.InputFileError) as caught:
        load_workspace(folder, within=[])
    assert str(caught.value) == (
        f"{folder / 'contextgrid.toml'}, line 6: configuration 'good': the run {shown} lies outside the workspace "
        f"folder {folder.resolve()}; here a manifest may only name files inside them (symlinks followed): "
        f"'run = \"{named}\"'"
    )


def test_a_confined_manifest_may_not_reach_out_through_a_symlink(tmp_path: Path) -> None:
    folder = tmp_path / "ws"
    folder.mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "run.trec").write_text(GOOD)
    _workspace(folder, {"good": GOOD})
    (folder / "good.trec").unlink()
    os.symlink(tmp_path / "outside" / "run.trec", folder / "good.trec")
    with pytest.raises(cg.InputFileError, match=r"the run 'good.trec' lies outside the workspace folder"):
        load_workspace(folder, within=[])
    # An allowed folder may hold what the manifest names.
    assert load_workspace(folder, within=[tmp_path / "outside"]).names == ("good",)


def test_a_manifest_that_links_outside_is_refused_when_confined(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    real = _workspace(tmp_path / "real", {"good": GOOD})
    linked = tmp_path / "linked"
    linked.mkdir()
    os.symlink(real / "contextgrid.toml", linked / "contextgrid.toml")
    with pytest.raises(cg.InputFileError, match=r"the manifest is a link to a file outside the allowed folders"):
        load_workspace(linked, within=[linked])


def test_allowed_paths_are_resolved_before_they_are_compared(tmp_path: Path) -> None:
    (tmp_path / "allowed").mkdir()
    os.symlink("/etc", tmp_path / "allowed" / "etc")
    assert is_within(tmp_path / "allowed" / "ws", [tmp_path / "allowed"])
    assert not is_within(tmp_path / "allowed" / "etc", [tmp_path / "allowed"])
    assert not is_within(tmp_path / "allowed-not", [tmp_path / "allowed"])
    with pytest.raises(cg.AccessDeniedError) as caught:
        allowed_path(tmp_path / "allowed" / "etc", [tmp_path / "allowed"], what="the folder", how="ask")
    assert isinstance(caught.value, PermissionError)
    assert isinstance(caught.value, ValueError)
    assert str(caught.value) == (
        f"the folder {str(tmp_path / 'allowed' / 'etc')!r} is outside the folders this may read "
        f"({(tmp_path / 'allowed').resolve()}); ask"
    )
