"""load_workspace(): the manifest, lazy and cached loading, and scores that are contextgrid.evaluate's own."""

from __future__ import annotations

import dataclasses
import math
import pickle
import re
import runpy
import string
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from plugins import BrokenMetric

import contextgrid as cg
import contextgrid.io
from contextgrid.core.errors import ContextGridError, InputFileError
from contextgrid.data.records import AnswerRecord
from contextgrid.engine.columns import ranked_grades_from_tables
from contextgrid.workspace.configuration import Configuration
from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.model import Workspace
from contextgrid.workspace.results import WorkspaceResults

REPO = Path(__file__).resolve().parent.parent
HANDMADE = REPO / "sample_data" / "handmade"

QRELS = {"q1": {"c1": 2, "c2": 1, "c3": 0}, "q2": {"c4": 2}, "q3": {"c5": 0}}
RUN_A = {"q1": ["c3", "c1", "c5", "c2"], "q2": ["c9", "c4", "c1"], "q3": ["c5"]}
RUN_B = {"q1": ["c1", "c2"]}  # never answers q2
QRELS_B = {"q1": {"c1": 1}, "q9": {"c7": 2}}


def trec_qrels(qrels: dict[str, dict[str, int]]) -> str:
    return "".join(f"{q} 0 {c} {g}\n" for q, judged in qrels.items() for c, g in judged.items())


def trec_run(run: dict[str, list[str]], tag: str = "test") -> str:
    return "".join(
        f"{q} Q0 {c} {rank} {100 - rank}.5 {tag}\n" for q, ranked in run.items() for rank, c in enumerate(ranked, 1)
    )


def parse_trec(text: str, columns: int) -> list[list[str]]:
    """An independent reader for the tests: whitespace-separated columns, one row a line."""
    rows = [line.split() for line in text.splitlines() if line.strip()]
    assert all(len(row) == columns for row in rows)
    return rows


MANIFEST = """\
name = "tiny"
qrels = "qrels.trec"

[[config]]
name = "a"
run = "runs/a.trec"
[config.params]
retriever = "bm25"
size = 512

[[config]]
name = "b"
run = "runs/b.trec"
qrels = "qrels-b.trec"
[config.params]
retriever = "dense"
size = 256
normalize = true
"""


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return write(
        tmp_path,
        {
            "contextgrid.toml": MANIFEST,
            "qrels.trec": trec_qrels(QRELS),
            "qrels-b.trec": trec_qrels(QRELS_B),
            "runs/a.trec": trec_run(RUN_A),
            "runs/b.trec": trec_run(RUN_B),
        },
    )


def test_the_manifest_names_configurations_with_their_params_and_files(tiny: Path) -> None:
    workspace = load_workspace(tiny)
    assert workspace.name == "tiny"
    assert workspace.root == tiny.resolve()
    assert workspace.names == ("a", "b")
    a, b = workspace.configs
    assert dict(a.params) == {"retriever": "bm25", "size": 512}
    assert dict(b.params) == {"retriever": "dense", "size": 256, "normalize": True}
    assert a.run == tiny.resolve() / "runs" / "a.trec"
    assert a.qrels == tiny.resolve() / "qrels.trec"  # the shared qrels
    assert b.qrels == tiny.resolve() / "qrels-b.trec"  # its own override
    assert a.chunks is None
    assert a.answers is None
    assert workspace.config("b") is b
    assert load_workspace(tiny / "contextgrid.toml").names == ("a", "b")  # the manifest itself works too


def test_the_name_defaults_to_the_folder_name(tmp_path: Path) -> None:
    root = write(
        tmp_path / "my-sweep",
        {
            "contextgrid.toml": 'qrels = "q.trec"\n[[config]]\nname = "a"\nrun = "a.trec"\n',
            "q.trec": trec_qrels(QRELS),
            "a.trec": trec_run(RUN_A),
        },
    )
    assert load_workspace(root).name == "my-sweep"


def test_files_load_lazily_once_and_read_as_given(tiny: Path) -> None:
    workspace = load_workspace(tiny)
    (tiny / "runs" / "b.trec").write_text("this is no run\n")  # not read yet, so not an error yet
    run = workspace.run("a")
    assert workspace.run("a") is run
    assert workspace.qrels("a") is workspace.qrels("a")
    assert {q: list(run[q]) for q in run} == RUN_A
    assert {q: dict(judged) for q, judged in workspace.qrels("a").items()} == QRELS
    assert {q: dict(judged) for q, judged in workspace.qrels("b").items()} == QRELS_B
    with pytest.raises(InputFileError, match=r"b\.trec"):
        workspace.run("b")


def test_two_configurations_sharing_qrels_share_one_table(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "contextgrid.toml": 'qrels = "q.trec"\n[[config]]\nname = "a"\nrun = "a.trec"\n'
            '[[config]]\nname = "b"\nrun = "b.trec"\n',
            "q.trec": trec_qrels(QRELS),
            "a.trec": trec_run(RUN_A),
            "b.trec": trec_run(RUN_B),
        },
    )
    workspace = load_workspace(root)
    assert workspace.qrels("a") is workspace.qrels("b")


def test_the_workspace_and_its_records_are_immutable(tiny: Path) -> None:
    workspace = load_workspace(tiny)
    with pytest.raises(dataclasses.FrozenInstanceError):
        workspace.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        workspace.configs[0].params["size"] = 1  # type: ignore[index]
    params = {"size": 512}
    config = Configuration("x", params, run=Path("r"), qrels=Path("q"))
    params["size"] = 1
    assert config.params["size"] == 512


def test_a_configuration_pickles_and_keeps_its_own_params(tiny: Path) -> None:
    params = {"chunker": "fixed", "size": 512}
    config = Configuration("x", params, run=Path("r"), qrels=Path("q"), chunks=Path("c"))
    copy = pickle.loads(pickle.dumps(config))
    assert copy == config
    assert dict(copy.params) == params
    params["size"] = 1
    assert config.params["size"] == copy.params["size"] == 512
    workspace = load_workspace(tiny)
    assert pickle.loads(pickle.dumps(workspace.configs)) == workspace.configs


def test_evaluate_is_contextgrid_evaluate_per_configuration(tiny: Path) -> None:
    results = load_workspace(tiny).evaluate(ks=[1, 3], metrics=["recall", "ndcg", "mrr"])
    assert dict(results["a"].scores) == cg.evaluate(QRELS, RUN_A, ks=[1, 3], metrics=["recall", "ndcg", "mrr"])
    assert dict(results["b"].scores) == cg.evaluate(QRELS_B, RUN_B, ks=[1, 3], metrics=["recall", "ndcg", "mrr"])
    # By hand: run b finds q1's only relevant chunk first and never answers q9.
    assert results["b"]["recall@1"] == 0.5
    assert results["b"]["mrr@3"] == 0.5
    assert results.labels == ("recall@1", "recall@3", "ndcg@1", "ndcg@3", "mrr@1", "mrr@3")


def test_to_dataframe_has_a_row_per_configuration_scores_then_params(tiny: Path) -> None:
    frame = load_workspace(tiny).evaluate(ks=[1, 3], metrics=["recall", "ndcg"]).to_dataframe()
    assert frame.index.name == "config"
    assert list(frame.index) == ["a", "b"]
    assert list(frame.columns) == ["recall@1", "recall@3", "ndcg@1", "ndcg@3", "retriever", "size", "normalize"]
    expected = cg.evaluate(QRELS, RUN_A, ks=[1, 3], metrics=["recall", "ndcg"])
    assert frame.loc["a", list(expected)].tolist() == list(expected.values())
    assert frame.loc["a", "recall@3"] == 0.75  # the spec's hand-checked value
    assert frame["size"].tolist() == [512, 256]
    assert frame["normalize"].tolist() == [None, True]  # a parameter only b has
    assert all(frame[label].dtype == "float64" for label in ["recall@1", "recall@3", "ndcg@1", "ndcg@3"])


def test_per_query_is_question_by_configuration(tiny: Path) -> None:
    frame = load_workspace(tiny).per_query("recall", 3)
    assert frame.index.name == "question"
    assert frame.columns.name == "config"
    assert list(frame.columns) == ["a", "b"]
    assert list(frame.index) == ["q1", "q2", "q9"]
    for name, qrels, run in (("a", QRELS, RUN_A), ("b", QRELS_B, RUN_B)):
        expected = cg.per_query(qrels, run, "recall", 3)
        assert frame[name].dropna().to_dict() == expected
    assert math.isnan(frame.loc["q9", "a"])  # a's qrels never judged q9
    assert math.isnan(frame.loc["q2", "b"])


def test_a_metric_that_raises_is_absent_and_logged_for_each_configuration(tiny: Path) -> None:

    cg.METRICS.register("broken")(BrokenMetric)
    log = cg.WarningLog()
    results = load_workspace(tiny).evaluate(ks=[1], metrics=["recall", "broken"], warnings=log)
    assert not results["a"].has("broken@1")
    assert len(results["a"].warnings) == 1
    assert [entry.subject for entry in log] == ["broken", "broken"]
    assert list(results.to_dataframe().columns[:1]) == ["recall@1"]
    assert "broken@1" not in results.to_dataframe().columns


def test_unknown_metric_and_bad_k_fail_before_reading_files(tiny: Path) -> None:
    (tiny / "runs" / "a.trec").write_text("garbage\n")
    workspace = load_workspace(tiny)
    with pytest.raises(cg.UnknownPluginError, match="recall@5"):
        workspace.evaluate(metrics=["recall@5"])
    with pytest.raises(ContextGridError, match="at least 1"):
        workspace.evaluate(ks=[0])
    with pytest.raises(cg.InvalidParameterError, match=r"'metrics' parameter of Workspace\.evaluate"):
        workspace.evaluate(metrics="recall")  # type: ignore[arg-type]  # a str is not a list of names
    with pytest.raises(ContextGridError, match="no configuration named 'zz'"):
        workspace.run("zz")


def test_optional_files_not_named_are_a_clear_error(tiny: Path) -> None:
    workspace = load_workspace(tiny)
    with pytest.raises(ContextGridError, match="names no chunks file"):
        workspace.chunks("a")
    with pytest.raises(ContextGridError, match="names no answers file"):
        workspace.answers("a")
    with pytest.raises(ContextGridError, match="names no documents"):
        _ = workspace.documents
    with pytest.raises(ContextGridError, match="names no questions"):
        _ = workspace.questions


def test_documents_and_chunks_load_once_and_chunks_get_their_text_from_the_documents(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "contextgrid.toml": 'qrels = "q.trec"\ndocuments = "docs"\n'
            '[[config]]\nname = "a"\nrun = "a.trec"\nchunks = "chunks.jsonl"\n',
            "q.trec": trec_qrels(QRELS),
            "a.trec": trec_run(RUN_A),
            "docs/refund.md": "Refunds within 30 days.",
            "chunks.jsonl": '{"id": "c1", "doc_id": "refund.md", "start": 0, "end": 7}\n'
            '{"id": "c2", "doc_id": "refund.md", "start": 8, "end": 23}\n',
        },
    )
    workspace = load_workspace(tmp_path)
    assert dict(workspace.documents) == {"refund.md": "Refunds within 30 days."}
    assert workspace.documents is workspace.documents
    with pytest.raises(TypeError):
        workspace.documents["other.md"] = "x"  # type: ignore[index]
    chunks = workspace.chunks("a")
    assert chunks == (
        cg.Chunk("c1", cg.Span("refund.md", 0, 7), "Refunds"),
        cg.Chunk("c2", cg.Span("refund.md", 8, 23), "within 30 days."),
    )
    assert workspace.chunks("a") is chunks


def test_questions_and_answers_load_from_the_files_the_manifest_names(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "contextgrid.toml": 'qrels = "q.trec"\nquestions = "questions.jsonl"\n'
            '[[config]]\nname = "a"\nrun = "a.trec"\nanswers = "answers/a.jsonl"\n',
            "q.trec": trec_qrels(QRELS),
            "a.trec": trec_run(RUN_A),
            "questions.jsonl": '{"id": "q1", "question": "How long?", '
            '"gold": [{"doc_id": "refund.md", "start": 8, "end": 23}]}\n',
            "answers/a.jsonl": '{"question_id": "q1", "answer": "30 days [1].", "citations": [1], '
            '"context_chunk_ids": ["c2"]}\n',
        },
    )
    workspace = load_workspace(tmp_path)
    assert workspace.questions == (cg.EvalItem("q1", "How long?", gold=(cg.GoldSpan(cg.Span("refund.md", 8, 23)),)),)
    assert workspace.answers("a") == (
        AnswerRecord("q1", cg.Answer("30 days [1].", citations=(1,)), context_chunk_ids=("c2",)),
    )
    assert workspace.answers("a") is workspace.answers("a")


CONFIG_A = '[[config]]\nname = "a"\nrun = "a.trec"\n'


@pytest.mark.parametrize(
    ("manifest", "line", "expected"),
    [
        ('qrels = "q.trec"\nname = \n', 2, "not valid TOML"),
        ('qrels = "q.trec"\ncolour = "red"\n' + CONFIG_A, 2, "unknown key 'colour' at the top level"),
        ('qrels = "q.trec"\n' + CONFIG_A + 'runs = "a.trec"\n', 5, "unknown key 'runs' in a [[config]]"),
        ('qrels = "q.trec"\n' + CONFIG_A + CONFIG_A, 6, "configuration name 'a' is used twice"),
        (CONFIG_A, 1, "configuration 'a' has no qrels"),
        ('qrels = "q.trec"\n[[config]]\nname = "a"\nrun = "missing.trec"\n', 4, "'a': the run file 'missing.trec'"),
        ('qrels = "missing.trec"\n' + CONFIG_A, 1, "the qrels file 'missing.trec' does not exist"),
        ('qrels = "q.trec"\n' + CONFIG_A + 'chunks = "nope.jsonl"\n', 5, "'a': the chunks file 'nope.jsonl'"),
        ('qrels = "q.trec"\n[[config]]\nname = "a"\n', 2, "configuration 'a' names no run file"),
        ('qrels = "q.trec"\n[[config]]\nrun = "a.trec"\n', 2, "configuration 1 needs a name"),
        ('qrels = "q.trec"\n' + CONFIG_A + "[config.params]\nsizes = [1, 2]\n", 6, "parameter 'sizes' must be a"),
        ('qrels = "q.trec"\n' + CONFIG_A + '[config.params]\n"recall@5" = 1\n', 6, "parameter 'recall@5'"),
        ('qrels = "q.trec"\n', None, "at least one configuration"),
        ('name = 3\nqrels = "q.trec"\n' + CONFIG_A, 1, "name must be a non-empty string"),
    ],
    ids=[
        "toml-syntax",
        "unknown-top-key",
        "unknown-config-key",
        "duplicate-name",
        "no-qrels",
        "missing-run",
        "missing-shared-qrels",
        "missing-chunks",
        "no-run",
        "no-name",
        "param-not-scalar",
        "param-with-at",
        "no-config",
        "name-not-str",
    ],
)
def test_manifest_errors_name_the_manifest_line_and_configuration(
    tmp_path: Path, manifest: str, line: int | None, expected: str
) -> None:
    write(tmp_path, {"contextgrid.toml": manifest, "q.trec": trec_qrels(QRELS), "a.trec": trec_run(RUN_A)})
    with pytest.raises(InputFileError) as caught:
        load_workspace(tmp_path)
    message = str(caught.value)
    assert expected in message
    assert message.startswith(str(tmp_path / "contextgrid.toml"))
    assert caught.value.line == line
    if line is not None:
        assert f"contextgrid.toml, line {line}:" in message
        assert manifest.splitlines()[line - 1].strip() in message


def test_no_manifest_or_no_folder_is_an_input_file_error(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match=r"no contextgrid\.toml here"):
        load_workspace(tmp_path)
    with pytest.raises(InputFileError, match="no such workspace folder"):
        load_workspace(tmp_path / "absent")


def test_a_workspace_needs_distinct_configuration_names_when_built_directly() -> None:
    config = Configuration("a", {}, run=Path("r"), qrels=Path("q"))
    with pytest.raises(cg.InvalidParameterError) as caught:
        Workspace("w", Path("."), (config, config))
    assert (
        str(caught.value)
        == "Workspace('w'): configuration names must be distinct, repeated: 'a' (configs[0] and configs[1])"
    )
    with pytest.raises(ContextGridError, match="at least one configuration"):
        Workspace("w", Path("."), ())


names = st.text(string.ascii_lowercase + string.digits, min_size=1, max_size=3)


@st.composite
def qrels_and_runs(draw: st.DrawFn) -> tuple[dict[str, dict[str, int]], list[dict[str, list[str]]]]:
    chunks = draw(st.lists(names, min_size=1, max_size=8, unique=True))
    questions = draw(st.lists(names, min_size=1, max_size=6, unique=True))
    qrels = {
        q: draw(st.dictionaries(st.sampled_from(chunks), st.integers(0, 3), min_size=1, max_size=4)) for q in questions
    }
    runs = [
        {
            q: draw(st.lists(st.sampled_from(chunks), min_size=1, max_size=6, unique=True))
            for q in draw(st.lists(st.sampled_from(questions), min_size=1, unique=True))  # an empty run file is refused
        }
        for _ in range(draw(st.integers(1, 3)))
    ]
    return qrels, runs


@settings(max_examples=40, deadline=None)
@given(data=qrels_and_runs())
def test_law_a_workspace_scores_what_evaluate_scores_on_the_same_dicts(
    tmp_path_factory: pytest.TempPathFactory, data: tuple[dict[str, dict[str, int]], list[dict[str, list[str]]]]
) -> None:
    qrels, runs = data
    root = tmp_path_factory.mktemp("ws")
    manifest = 'qrels = "q.trec"\n' + "".join(
        f'[[config]]\nname = "r{i}"\nrun = "r{i}.trec"\n' for i in range(len(runs))
    )
    write(root, {"contextgrid.toml": manifest, "q.trec": trec_qrels(qrels)})
    for i, run in enumerate(runs):
        write(root, {f"r{i}.trec": trec_run(run)})
    results = load_workspace(root).evaluate(ks=[1, 2, 5])
    for i, run in enumerate(runs):
        assert dict(results[f"r{i}"].scores) == cg.evaluate(qrels, run, ks=[1, 2, 5])


def test_make_handmade_reproduces_the_committed_workspace_byte_for_byte(tmp_path: Path) -> None:
    script = runpy.run_path(str(REPO / "sample_data" / "make_handmade.py"))
    script["main"](tmp_path)
    made = sorted(path.relative_to(tmp_path) for path in tmp_path.rglob("*") if path.is_file())
    committed = sorted(path.relative_to(HANDMADE) for path in HANDMADE.rglob("*") if path.is_file())
    assert made == committed
    for relative in made:
        assert (tmp_path / relative).read_bytes() == (HANDMADE / relative).read_bytes(), relative


def test_the_handmade_workspace_is_four_configurations_of_forty_questions() -> None:
    workspace = load_workspace(HANDMADE)
    assert workspace.names == ("bm25-fixed-512", "dense-fixed-512", "bm25-fixed-256", "dense-fixed-256")
    assert {(c.params["size"], c.params["retriever"]) for c in workspace.configs} == {
        (512, "bm25"),
        (512, "dense"),
        (256, "bm25"),
        (256, "dense"),
    }
    results = workspace.evaluate()
    for config in workspace.configs:
        qrels: dict[str, dict[str, int]] = {}
        for q, _, c, grade in parse_trec(config.qrels.read_text(), 4):
            qrels.setdefault(q, {})[c] = int(grade)
        run: dict[str, list[str]] = {}
        for q, _, c, rank, _, _ in parse_trec(config.run.read_text(), 6):
            run.setdefault(q, []).append(c)
            assert int(rank) == len(run[q])
        assert len(qrels) == 40
        unanswerable = [q for q, judged in qrels.items() if not any(judged.values())]
        assert 1 <= len(unanswerable) <= 5  # a few questions with no relevant chunk
        assert 0 < len(set(qrels) - set(run)) <= 5  # a few the run never answered
        assert all(len(ranked) == 20 for ranked in run.values())
        assert dict(results[config.name].scores) == cg.evaluate(qrels, run)
    recalls = [results[name]["recall@5"] for name in workspace.names]
    assert len(set(recalls)) == 4  # the configurations really differ
    assert all(0.3 < recall < 0.95 for recall in recalls)


def test_handmade_manifest_mentions_every_file_it_ships() -> None:
    manifest = (HANDMADE / "contextgrid.toml").read_text()
    shipped = {str(path.relative_to(HANDMADE)) for path in HANDMADE.rglob("*") if path.is_file()} - {"contextgrid.toml"}
    assert shipped == set(re.findall(r'= "([^"]+\.(?:trec))"', manifest))


# Concurrency and the kept ranked-grade matrix.

SAMPLES = [REPO / "sample_data" / "workspace", HANDMADE]


def plain(workspace: Workspace, name: str) -> tuple[dict[str, dict[str, int]], dict[str, list[str]]]:
    """A configuration's qrels and run as plain dicts, which contextgrid scores on its dict path."""
    return workspace.qrels(name).to_dict(), workspace.run(name).to_dict()


def in_threads(count: int, work: Callable[[], object]) -> list[object]:
    """``work()`` on ``count`` threads released at the same moment, in thread order."""
    barrier = threading.Barrier(count)

    def start() -> object:
        barrier.wait()
        return work()

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(lambda _: start(), range(count)))


@pytest.mark.parametrize("root", SAMPLES, ids=["workspace", "handmade"])
@pytest.mark.parametrize("k", [1, 3, 5, 20, 25])
def test_per_query_is_contextgrid_per_query_on_dicts_for_every_configuration(root: Path, k: int) -> None:
    workspace = load_workspace(root)
    workspace.evaluate()  # per_query then reads the matrices evaluate() kept, up to 20 ranks deep
    for metric in cg.available_metrics():
        columns = {name: cg.per_query(*plain(workspace, name), metric, k) for name in workspace.names}
        # Questions in order of first appearance, configuration by configuration; NaN where one is not scored.
        questions = list(dict.fromkeys(question for scores in columns.values() for question in scores))
        expected = pd.DataFrame(
            {name: [scores.get(q, math.nan) for q in questions] for name, scores in columns.items()},
            index=pd.Index(questions, name="question"),
            dtype="float64",
        )
        expected.columns.name = "config"
        pd.testing.assert_frame_equal(workspace.per_query(metric, k), expected, check_exact=True)


@pytest.mark.parametrize("root", SAMPLES, ids=["workspace", "handmade"])
@pytest.mark.parametrize("ks", [cg.DEFAULT_KS, (3,), (2, 30)])
def test_evaluate_is_contextgrid_evaluate_on_dicts_for_every_configuration(root: Path, ks: tuple[int, ...]) -> None:
    results = load_workspace(root).evaluate(ks=ks)
    workspace = load_workspace(root)
    for name in workspace.names:
        assert dict(results[name].scores) == cg.evaluate(*plain(workspace, name), ks=ks)


def test_a_metric_without_a_kernel_is_scored_question_by_question(tiny: Path) -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class FirstHitMetric:
        name = "first_hit_test"
        version = "1"

        def evaluate(self, judgements: Mapping[str, int], ranked: Sequence[str], k: int) -> float:
            return 1.0 if any(judgements.get(chunk, 0) > 0 for chunk in ranked[:1]) else 0.0

    cg.METRICS.register("first_hit_test")(FirstHitMetric)
    workspace = load_workspace(tiny)
    results = workspace.evaluate(ks=[1, 3], metrics=["first_hit_test", "hit_rate"])
    frame = workspace.per_query("first_hit_test", 3)
    for name, qrels, run in (("a", QRELS, RUN_A), ("b", QRELS_B, RUN_B)):
        assert dict(results[name].scores) == cg.evaluate(qrels, run, ks=[1, 3], metrics=["first_hit_test", "hit_rate"])
        assert frame[name].dropna().to_dict() == cg.per_query(qrels, run, "first_hit_test", 3)


def test_threads_asking_for_one_file_at_once_get_the_one_table_read_once() -> None:
    workspace = load_workspace(HANDMADE)
    name = workspace.names[0]
    tables = in_threads(8, lambda: workspace.run(name))
    assert all(table is tables[0] for table in tables)
    assert workspace.run(name).to_dict() == contextgrid.io.read_run(workspace.config(name).run).to_dict()


def test_different_files_load_at_once_and_one_file_is_built_once() -> None:
    workspace = load_workspace(HANDMADE)
    started, release = threading.Event(), threading.Event()
    builds: list[str] = []

    def slow() -> str:
        builds.append("slow")
        started.set()
        assert release.wait(10)
        return "slow"

    with ThreadPoolExecutor(3) as pool:
        first = pool.submit(workspace._load, ("test", "slow"), slow)
        assert started.wait(10)
        waiting = pool.submit(workspace._load, ("test", "slow"), slow)  # the same key: waits for the first build
        other = pool.submit(workspace._load, ("test", "quick"), lambda: "quick")
        assert other.result(timeout=10) == "quick"  # not held up by the slow build of another key
        assert not waiting.done()
        release.set()
        assert first.result(timeout=10) == waiting.result(timeout=10) == "slow"
    assert builds == ["slow"]


def test_a_loader_may_load_other_files_while_it_loads() -> None:
    workspace = load_workspace(REPO / "sample_data" / "workspace")
    # The resolved questions load the documents and questions inside their own load, on any thread.
    resolved, documents = in_threads(2, lambda: workspace.resolved)[0], workspace.documents
    assert workspace.resolved is resolved
    assert workspace.documents is documents
    assert len(resolved[0]) == len(workspace.questions)


def test_workspaces_evaluated_from_several_threads_agree_with_one_evaluated_alone() -> None:
    alone = load_workspace(HANDMADE).evaluate()
    shared = load_workspace(HANDMADE)
    for results in in_threads(3, shared.evaluate):
        assert isinstance(results, WorkspaceResults)
        assert results.results == alone.results


def test_the_first_failing_configuration_in_manifest_order_is_the_one_reported(tiny: Path) -> None:
    (tiny / "runs" / "a.trec").write_text("not a run\n")
    (tiny / "runs" / "b.trec").write_text("nor this\n")
    with pytest.raises(InputFileError, match=r"a\.trec"):
        load_workspace(tiny).evaluate()


def test_the_ranked_grade_matrix_is_built_once_twenty_deep_and_shared_read_only() -> None:
    workspace = load_workspace(HANDMADE)
    name = workspace.names[1]
    qrels, run = workspace.qrels(name), workspace.run(name)
    shallow, again = workspace.ranked_grades(name, 3), workspace.ranked_grades(name, max(cg.DEFAULT_KS))
    assert shallow.gains is again.gains  # one build serves every depth up to 20
    expected = ranked_grades_from_tables(qrels, run, max(cg.DEFAULT_KS))
    assert shallow.question_ids == expected.question_ids
    np.testing.assert_array_equal(shallow.gains, expected.gains)
    np.testing.assert_array_equal(shallow.ideal, expected.ideal)
    with pytest.raises(ValueError, match="read-only"):
        shallow.gains[0, 0] = 9
    deep = workspace.ranked_grades(name, 30)  # deeper than what is kept: built for the call
    assert deep.gains is not workspace.ranked_grades(name, 30).gains
    np.testing.assert_array_equal(deep.gains, ranked_grades_from_tables(qrels, run, 30).gains)
    with pytest.raises(ContextGridError, match="at least 1"):
        workspace.ranked_grades(name, 0)


def test_a_name_the_workspace_lacks_is_an_unknown_configuration_naming_those_it_has() -> None:
    configs = tuple(Configuration(name, {}, run=Path("r"), qrels=Path("q")) for name in ("bm25", "dense"))
    workspace = Workspace("w", Path("."), configs)
    with pytest.raises(cg.UnknownConfigurationError) as caught:
        workspace.run("hybrid")
    assert str(caught.value) == "workspace 'w' has no configuration named 'hybrid'. Available: bm25, dense"
    assert not isinstance(caught.value, (cg.MissingWorkspaceInputError, cg.InvalidParameterError))


def test_an_input_the_manifest_does_not_name_is_a_missing_workspace_input() -> None:
    workspace = Workspace("w", Path("."), (Configuration("bm25", {}, run=Path("r"), qrels=Path("q")),))
    with pytest.raises(cg.MissingWorkspaceInputError) as caught:
        _ = workspace.resolved
    assert str(caught.value) == (
        "workspace 'w' names no questions (in its contextgrid.toml, or questions= of workspace_from_files)"
    )
    with pytest.raises(cg.MissingWorkspaceInputError) as caught:
        workspace.chunks("bm25")
    assert str(caught.value) == "configuration 'bm25' of workspace 'w' names no chunks file"
    assert not isinstance(caught.value, cg.UnknownConfigurationError)
