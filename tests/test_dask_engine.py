"""The Dask engine: the in-memory engine's numbers to the last bit, every rule of the Metrics page kept, on a
LocalCluster of two worker processes and on Dask's local threads."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from plugins import BrokenMetric

import contextgrid as cg
from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.scale.dask_engine import evaluate_dask, per_question_dask

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """Two worker processes, as a small real cluster; yields the scheduler's address."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as made:
        yield made.scheduler_address


def random_inputs(seed: int, questions: int = 300, depth: int = 25) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A run with tied scores (ties broken by chunk id) and qrels naming questions in shuffled order, some
    unanswered, some with no relevant chunk."""
    rng = np.random.default_rng(seed)
    run_rows = [
        (f"q{q}", f"c{c}", float(rng.integers(0, 8)))
        for q in range(questions)
        for c in rng.choice(200, depth, replace=False)
    ]
    qrels_rows = [
        (f"q{q}", f"c{c}", int(rng.integers(0, 3)))
        for q in rng.permutation(questions + 40)
        for c in rng.choice(200, 4, replace=False)
    ]
    run = pd.DataFrame(run_rows, columns=["question_id", "chunk_id", "score"])
    qrels = pd.DataFrame(qrels_rows, columns=["question_id", "chunk_id", "grade"])
    return run, qrels


def in_memory(run: pd.DataFrame, qrels: pd.DataFrame) -> tuple[RunTable, QrelsTable]:
    score = run["score"].tolist() if "score" in run else None
    rank = run["rank"].tolist() if "rank" in run and score is None else None
    table = RunTable.from_columns(run["question_id"].tolist(), run["chunk_id"].tolist(), score=score, rank=rank)
    judged = QrelsTable.from_columns(qrels["question_id"].tolist(), qrels["chunk_id"].tolist(), qrels["grade"].tolist())
    return table, judged


def written(folder: Path, run: pd.DataFrame, qrels: pd.DataFrame, pieces: int = 3) -> tuple[list[Path], Path]:
    """The run as ``pieces`` Parquet files (a partitioned data set), the qrels as one."""
    paths = []
    for index, part in enumerate(np.array_split(np.arange(len(run)), pieces)):
        paths.append(folder / f"run-{index}.parquet")
        run.iloc[part].to_parquet(paths[-1])
    qrels.to_parquet(folder / "qrels.parquet")
    return paths, folder / "qrels.parquet"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_cluster_gives_the_in_memory_numbers_bit_for_bit(cluster: str, tmp_path: Path, seed: int) -> None:
    run, qrels = random_inputs(seed)
    run_paths, qrels_path = written(tmp_path, run, qrels)
    table, judged = in_memory(run, qrels)
    result = evaluate_dask(qrels_path, run_paths, partitions=5, scheduler=cluster)
    assert result.scores == cg.evaluate(judged, table)
    assert result.counts == cg.engine.counts.question_counts(judged, table)


def test_dask_dataframes_ranks_and_file_order_are_ranked_as_in_memory(tmp_path: Path) -> None:
    run, qrels = random_inputs(3, questions=120)
    ranked = run.assign(rank=run.groupby("question_id").cumcount(ascending=False) + 1).drop(columns="score")
    unscored = run.drop(columns="score")  # ranked in file order, which the shuffle must not lose
    for variant in (ranked, unscored):
        table, judged = in_memory(variant, qrels)
        result = evaluate_dask(
            dd.from_pandas(qrels, npartitions=2), dd.from_pandas(variant, npartitions=4), partitions=3
        )
        assert result.scores == cg.evaluate(judged, table)


def test_per_question_scores_are_per_querys(tmp_path: Path) -> None:
    run, qrels = random_inputs(4, questions=80)
    run_paths, qrels_path = written(tmp_path, run, qrels)
    table, judged = in_memory(run, qrels)
    frame = per_question_dask(qrels_path, run_paths, ks=[3, 10], metrics=["ndcg", "mrr"], partitions=4).compute()
    assert list(frame.columns) == ["ndcg@3", "ndcg@10", "mrr@3", "mrr@10"]
    for label in frame.columns:
        metric, k = label.split("@")
        assert frame[label].to_dict() == cg.per_query(judged, table, metric, int(k))


def test_the_metrics_pages_rules_hold() -> None:
    qrels = pd.DataFrame(
        {"qid": ["q1", "q1", "q2", "q3"], "docid": ["c1", "c2", "c4", "c7"], "relevance": [2, 1, 2, 0]}
    )
    run = pd.DataFrame({"qid": ["q1", "q1", "q9"], "docid": ["c2", "c5", "c1"], "score": [0.9, 0.8, 0.7]})
    result = evaluate_dask(dd.from_pandas(qrels, npartitions=2), dd.from_pandas(run, npartitions=2), ks=[2])
    # q2 is judged but unanswered: 0. q3 has no relevant chunk: left out. q9 is not judged: ignored.
    assert result.scores["recall@2"] == 0.25
    assert result.counts == cg.engine.counts.QuestionCounts(scored=2, unanswered=1, left_out=1, not_judged=1)


def test_a_repeated_chunk_id_is_refused_with_its_question_and_row(cluster: str, tmp_path: Path) -> None:
    run = pd.DataFrame(
        {"question_id": ["q1", "q2", "q3", "q2"], "chunk_id": ["c1", "c4", "c5", "c4"], "score": [1.0, 0.9, 0.9, 0.8]}
    )
    qrels = pd.DataFrame({"question_id": ["q1", "q2"], "chunk_id": ["c1", "c4"], "grade": [1, 1]})
    run_paths, qrels_path = written(tmp_path, run, qrels, pieces=2)
    with pytest.raises(cg.ContextGridError) as caught:
        evaluate_dask(qrels_path, run_paths, scheduler=cluster)
    assert str(caught.value) == "the run, row 4: expected each (question, chunk) pair once, got it again: 'q2 c4'"


def test_a_metric_that_raises_is_left_out_and_reported() -> None:
    cg.METRICS.register("broken")(BrokenMetric)
    run, qrels = random_inputs(5, questions=30)
    log = cg.WarningLog()
    result = evaluate_dask(
        dd.from_pandas(qrels, npartitions=1),
        dd.from_pandas(run, npartitions=2),
        ks=[5],
        metrics=["recall", "broken"],
        warnings=log,
    )
    table, judged = in_memory(run, qrels)
    assert result.scores == cg.evaluate(judged, table, ks=[5], metrics=["recall"])
    assert [entry.subject for entry in log.entries] == ["broken"]


@pytest.mark.parametrize(
    ("run", "message"),
    [
        (pd.DataFrame({"question_id": ["q1"], "score": [1.0]}), "the run has no column named 'chunk_id', 'docid'"),
        (pd.DataFrame({"question_id": [1.5], "chunk_id": ["c1"]}), "the run's question_id column holds float64"),
    ],
)
def test_inputs_it_cannot_use_are_refused_with_what_was_expected(run: pd.DataFrame, message: str) -> None:
    qrels = pd.DataFrame({"question_id": ["q1"], "chunk_id": ["c1"], "grade": [1]})
    with pytest.raises(cg.ContextGridError, match=message):
        evaluate_dask(dd.from_pandas(qrels, npartitions=1), dd.from_pandas(run, npartitions=1))


def test_the_command_line_engine_prints_the_in_memory_table(cluster: str, tmp_path: Path) -> None:
    import subprocess
    import sys

    run, qrels = random_inputs(6, questions=60)
    run.to_parquet(tmp_path / "run.parquet")
    qrels.to_parquet(tmp_path / "qrels.parquet")
    command = [sys.executable, "-c", "import sys; from contextgrid.cli.main import main; sys.exit(main())"]
    base = [*command, "evaluate", "qrels.parquet", "run.parquet", "--k", "1,10"]
    memory = subprocess.run(base, cwd=tmp_path, capture_output=True, text=True, check=True)
    on_dask = subprocess.run(
        [*base, "--engine", "dask", "--scheduler", cluster], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert on_dask.stdout == memory.stdout
    assert "questions scored" in memory.stdout
    refused = subprocess.run([*base, "--scheduler", cluster], cwd=tmp_path, capture_output=True, text=True)
    assert refused.returncode == 2
    assert refused.stderr.strip().endswith("--scheduler names a Dask scheduler: add --engine dask")
