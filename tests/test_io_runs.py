"""read_run / read_qrels / write_run / write_qrels: every format, .gz, suffixes, ties, and round trips."""

from __future__ import annotations

import gzip
import json
import tracemalloc
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextgrid.core.errors import ContextGridError, OutputExistsError, UnknownPluginError
from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.io import read_qrels, read_run, write_qrels, write_run
from contextgrid.io.files import Source

RUN = {"q1": {"c1": 0.5, "c2": 0.9, "c3": 0.25}, "q2": {"c9": 2.0, "c4": -1.5}}
RANKED = {"q1": ["c2", "c1", "c3"], "q2": ["c9", "c4"]}
QRELS = {"q1": {"c1": 2, "c7": 0}, "q2": {"c4": 1}}
SUFFIXES = [".trec", ".txt", ".run", ".json", ".jsonl", ".csv", ".tsv", ".parquet"]


@pytest.mark.parametrize("compressed", ["", ".gz"])
@pytest.mark.parametrize("suffix", SUFFIXES)
def test_run_round_trip(tmp_path: Path, suffix: str, compressed: str) -> None:
    path = tmp_path / f"run{suffix}{compressed}"
    write_run(RUN, path)
    back = read_run(path)
    assert back.to_dict() == RANKED
    assert back.table.column("score").to_pylist() == [0.9, 0.5, 0.25, 2.0, -1.5]
    if compressed:
        assert gzip.decompress(path.read_bytes())


@pytest.mark.parametrize("compressed", ["", ".gz"])
@pytest.mark.parametrize("suffix", [".qrels", ".trec", ".json", ".jsonl", ".csv", ".tsv", ".parquet"])
def test_qrels_round_trip(tmp_path: Path, suffix: str, compressed: str) -> None:
    path = tmp_path / f"judged{suffix}{compressed}"
    write_qrels(QRELS, path)
    assert read_qrels(path).to_dict() == QRELS


@pytest.mark.parametrize("suffix", [".json", ".jsonl", ".csv", ".tsv", ".parquet"])
def test_rank_only_run_round_trip_keeps_no_scores(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"run{suffix}"
    write_run(RANKED, path)
    back = read_run(path)
    assert back.to_dict() == RANKED
    assert not back.has_scores


def test_rank_only_run_as_trec_counts_scores_down(tmp_path: Path) -> None:
    path = tmp_path / "run.trec"
    write_run(RANKED, path, tag="mine")
    assert path.read_text().splitlines() == [
        "q1 Q0 c2 1 3 mine",
        "q1 Q0 c1 2 2 mine",
        "q1 Q0 c3 3 1 mine",
        "q2 Q0 c9 1 2 mine",
        "q2 Q0 c4 2 1 mine",
    ]
    assert read_run(path).to_dict() == RANKED


def test_trec_run_as_written_by_a_retriever(tmp_path: Path) -> None:
    path = tmp_path / "bm25.trec"
    path.write_text("q1 Q0 d3 1 12.5 bm25\nq1 Q0 d1 2 12.5 bm25\nq1 Q0 d2 3 14 bm25\nq2 Q0 d1 1 3 bm25\n")
    run = read_run(path)
    # d2 has the highest score whatever its rank column says; d3 and d1 tie and break by docno descending.
    assert run.to_dict() == {"q1": ["d2", "d3", "d1"], "q2": ["d1"]}
    assert run.table.column("rank").to_pylist() == [1, 2, 3, 1]


def test_trec_ties_follow_trec_eval_string_order(tmp_path: Path) -> None:
    path = tmp_path / "tied.trec"
    path.write_text("".join(f"q1 Q0 {doc} 1 1.0 t\n" for doc in ["D1", "D10", "D2", "d1", "D9"]))
    # strcmp order, descending: lower-case after upper-case, "D9" > "D2" > "D10" > "D1".
    assert read_run(path)["q1"] == ("d1", "D9", "D2", "D10", "D1")


def test_trec_whitespace_variants(tmp_path: Path) -> None:
    path = tmp_path / "messy.trec"
    path.write_bytes(b"q1\tQ0\tc1\t1\t0.5\tx\r\n\n  q1  Q0 c2 2   0.9 x  \r\n\t\nq2 Q0\tc3 1 1 x")
    assert read_run(path).to_dict() == {"q1": ["c2", "c1"], "q2": ["c3"]}


def test_tab_separated_trec_qrels(tmp_path: Path) -> None:
    path = tmp_path / "tabs.qrels"
    path.write_text("q1\t0\tc1\t2\nq1\t0\tc2\t0\n")
    assert read_qrels(path).to_dict() == {"q1": {"c1": 2, "c2": 0}}


def test_ranx_and_pytrec_eval_json(tmp_path: Path) -> None:
    path = tmp_path / "ranx.json"
    path.write_text(json.dumps({"q1": {"d1": 0.2, "d2": 0.7}, "q2": {"d5": 1}}))
    run = read_run(path)
    assert run.to_dict() == {"q1": ["d2", "d1"], "q2": ["d5"]}
    assert run.has_scores


def test_json_list_run_keeps_its_order(tmp_path: Path) -> None:
    path = tmp_path / "lists.json"
    path.write_text(json.dumps({"q1": ["d3", "d1", "d2"]}))
    assert read_run(path)["q1"] == ("d3", "d1", "d2")


def test_csv_with_other_tools_column_names_and_numeric_looking_ids(tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    path.write_text("qid,docid,rank\n007,0012,2\n007,0011,1\n")
    assert read_run(path).to_dict() == {"007": ["0011", "0012"]}
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("query_id\tdoc_id\trelevance\n1\t01\t2\n")
    assert read_qrels(qrels).to_dict() == {"1": {"01": 2}}


def test_parquet_with_integer_ids(tmp_path: Path) -> None:
    path = tmp_path / "run.parquet"
    pq.write_table(pa.table({"qid": [1, 1], "docid": [10, 11], "score": [0.1, 0.2]}), path)
    assert read_run(path).to_dict() == {"1": ["11", "10"]}


def test_format_keyword_overrides_the_suffix(tmp_path: Path) -> None:
    path = tmp_path / "run.out"
    path.write_text('{"question_id": "q1", "chunk_id": "c1", "score": 1.0}\n')
    assert read_run(path, format="jsonl").to_dict() == {"q1": ["c1"]}
    with pytest.raises(ContextGridError, match="cannot tell the format"):
        read_run(path)
    with pytest.raises(UnknownPluginError, match="no file format named 'xml'"):
        read_run(path, format="xml")


def test_writers_refuse_to_overwrite_unless_asked(tmp_path: Path) -> None:
    path = tmp_path / "run.trec"
    path.write_text("keep me\n")
    with pytest.raises(OutputExistsError):
        write_run(RUN, path)
    assert path.read_text() == "keep me\n"
    write_run(RUN, path, overwrite=True)
    assert read_run(path).to_dict() == RANKED
    assert [p.name for p in tmp_path.iterdir()] == ["run.trec"]  # no temporary file left behind


def test_a_failed_write_leaves_nothing(tmp_path: Path) -> None:
    path = tmp_path / "run.trec"
    with pytest.raises(ContextGridError, match="whitespace"):
        write_run({"q1": ["a chunk"]}, path)
    assert list(tmp_path.iterdir()) == []


def test_bad_tag_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ContextGridError, match="tag"):
        write_run(RUN, tmp_path / "run.trec", tag="two words")


def test_writers_accept_tables(tmp_path: Path) -> None:
    write_run(RunTable.from_dict(RUN), tmp_path / "run.jsonl")
    write_qrels(QrelsTable.from_dict(QRELS), tmp_path / "qrels.csv")
    assert read_run(tmp_path / "run.jsonl").to_dict() == RANKED
    assert read_qrels(tmp_path / "qrels.csv").to_dict() == QRELS


ids = st.text(alphabet="abcXYZ019_-.é", min_size=1, max_size=6)
scores = st.floats(allow_nan=False, min_value=-1e9, max_value=1e9) | st.sampled_from([0.0, 1.0, 0.1, 1e-7])
runs = st.dictionaries(ids, st.dictionaries(ids, scores, min_size=1, max_size=6), min_size=1, max_size=5)
qrels_strategy = st.dictionaries(
    ids, st.dictionaries(ids, st.integers(0, 3), min_size=1, max_size=6), min_size=1, max_size=5
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(run=runs, suffix=st.sampled_from([*SUFFIXES, ".trec.gz", ".csv.gz"]))
def test_random_runs_round_trip_exactly(tmp_path: Path, run: dict[str, dict[str, float]], suffix: str) -> None:
    path = tmp_path / f"random{suffix}"
    write_run(run, path, overwrite=True)
    back = read_run(path)
    table = RunTable.from_dict(run)
    assert back.to_dict() == table.to_dict()
    assert back.table.column("score").to_pylist() == table.table.column("score").to_pylist()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(qrels=qrels_strategy, suffix=st.sampled_from([".qrels", ".json", ".jsonl", ".csv", ".tsv", ".parquet"]))
def test_random_qrels_round_trip_exactly(tmp_path: Path, qrels: dict[str, dict[str, int]], suffix: str) -> None:
    path = tmp_path / f"random{suffix}"
    write_qrels(qrels, path, overwrite=True)
    assert read_qrels(path).to_dict() == qrels


def test_written_files_get_the_usual_permissions(tmp_path: Path) -> None:
    import os

    from contextgrid.io import write_run

    umask = os.umask(0o022)
    try:
        write_run({"q1": ["c1"]}, tmp_path / "run.trec")
    finally:
        os.umask(umask)
    assert (tmp_path / "run.trec").stat().st_mode & 0o777 == 0o644


def test_reading_a_files_first_line_does_not_split_the_whole_file(tmp_path: Path) -> None:
    # The JSON Lines reader types its columns from the first line: splitting a large file into every line's
    # bytes first would cost as much memory again as the file itself.
    path = tmp_path / "run.jsonl"
    line = json.dumps({"question_id": "q1", "chunk_id": "c1", "score": 1.0}) + "\n"
    path.write_text(line * 200_000)
    source = Source(path)
    assert len(source.data) > 10_000_000
    tracemalloc.start()
    try:
        number, first = next(source.lines())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (number, first) == (1, line.rstrip("\n").encode())
    assert peak < 1_000_000
    assert [number for number, _ in source.lines()][-1] == 200_000
