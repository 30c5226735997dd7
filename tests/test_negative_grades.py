"""A negative grade (-1, -2: judged and not relevant in several TREC collections) counts exactly as 0 does.

trec_eval reads it so (``form_res_rels.c`` counts a chunk relevant from grade 1, and its ideal ranking for ndcg
from grade 0 up), and so does every way into contextgrid: the dict API, :class:`QrelsTable`, every qrels format,
and ``--trec-eval``'s measures, counts included. The law checked here is that replacing every negative grade with
0 changes no number; the numbers themselves are checked against pytrec_eval, with negative grades, in
tests/test_cli_trec_eval.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contextgrid as cg
from contextgrid.data.tables import QrelsTable
from contextgrid.engine.trec_eval import TREC_MEASURES, trec_eval_lines
from contextgrid.io import read_qrels, read_run, write_qrels

QUESTIONS = [f"q{i}" for i in range(6)]
CHUNKS = [f"c{i}" for i in range(10)]
BUILTIN = ("recall", "precision", "hit_rate", "mrr", "map", "ndcg")

qrels_with_negatives = st.dictionaries(
    st.sampled_from(QUESTIONS),
    st.dictionaries(st.sampled_from(CHUNKS), st.integers(-3, 3), min_size=1, max_size=6),
    min_size=1,
    max_size=6,
)
runs = st.dictionaries(
    st.sampled_from(QUESTIONS), st.lists(st.sampled_from(CHUNKS), unique=True, min_size=1, max_size=8), max_size=6
)
ks = st.lists(st.integers(1, 10), unique=True, min_size=1, max_size=3)


def as_zero(qrels: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    return {question: {chunk: max(grade, 0) for chunk, grade in judged.items()} for question, judged in qrels.items()}


@settings(deadline=None, max_examples=150)
@given(qrels=qrels_with_negatives, run=runs, ks=ks)
def test_evaluate_per_query_and_first_ranks_score_a_negative_grade_as_0(
    qrels: dict[str, dict[str, int]], run: dict[str, list[str]], ks: list[int]
) -> None:
    zero = as_zero(qrels)
    for judged in (qrels, QrelsTable.from_dict(qrels)):
        assert cg.evaluate(judged, run, ks=ks) == cg.evaluate(zero, run, ks=ks)
        for metric in BUILTIN:
            assert cg.per_query(judged, run, metric, ks[0]) == cg.per_query(zero, run, metric, ks[0])
        assert cg.mean_rank_of_first_relevant(judged, run) == cg.mean_rank_of_first_relevant(zero, run)


@settings(deadline=None, max_examples=100)
@given(qrels=qrels_with_negatives, run=runs, complete=st.booleans())
def test_trec_eval_measures_and_counts_score_a_negative_grade_as_0(
    qrels: dict[str, dict[str, int]], run: dict[str, list[str]], complete: bool
) -> None:
    measures = [*TREC_MEASURES, "P.1,3", "ndcg_cut.2"]
    ours = trec_eval_lines(qrels, run, measures, per_query=True, complete=complete)
    assert ours == trec_eval_lines(as_zero(qrels), run, measures, per_query=True, complete=complete)


def test_a_question_judged_only_below_1_is_judged_and_scores_0() -> None:
    # trec_eval 10.0 itself stops on a question whose every grade is negative ("Can't calculate measure"); here it
    # is a judged question without a relevant chunk, as if judged 0.
    qrels = {"q1": {"c1": -1, "c2": -2}, "q2": {"c3": 1, "c4": -1}}
    run = {"q1": ["c1", "c2"], "q2": ["c4", "c3"]}
    assert cg.evaluate(qrels, run, ks=[2], metrics=["recall", "precision"]) == {"recall@2": 1.0, "precision@2": 0.5}
    lines = trec_eval_lines(qrels, run, ["num_q", "num_rel", "P.2"], per_query=True)
    assert [line.split("\t")[1:] for line in lines] == [
        ["q1", "0"],
        ["q1", "0.0000"],
        ["q2", "1"],
        ["q2", "0.5000"],
        ["all", "2"],
        ["all", "1"],
        ["all", "0.2500"],
    ]


@pytest.mark.parametrize("suffix", [".trec", ".json", ".jsonl", ".csv", ".tsv", ".parquet", ".qrels.gz"])
def test_every_qrels_format_keeps_a_negative_grade(tmp_path: Path, suffix: str) -> None:
    qrels = {"q1": {"c1": 2, "c2": -1, "c3": 0}, "q2": {"c4": -2, "c5": 1}}
    path = tmp_path / f"judged{suffix}"
    write_qrels(qrels, path)
    assert read_qrels(path).to_dict() == qrels


def test_hand_written_negative_grades_are_read_in_every_text_format(tmp_path: Path) -> None:
    texts = {
        "a.qrels": "q1 0 c1 -1\nq1 0 c2 +1\n",
        "a.csv": "qid,docid,rel\nq1,c1,-1\nq1,c2,1\n",
        "a.tsv": "question_id\tchunk_id\tgrade\nq1\tc1\t-1\nq1\tc2\t1\n",
        "a.jsonl": '{"qid": "q1", "docid": "c1", "rel": -1}\n{"qid": "q1", "docid": "c2", "rel": 1}\n',
        "a.json": '{"q1": {"c1": -1, "c2": 1}}',
    }
    run_path = tmp_path / "run.trec"
    run_path.write_text("q1 Q0 c1 1 2 r\nq1 Q0 c2 2 1 r\n")
    for name, text in texts.items():
        (tmp_path / name).write_text(text)
        qrels = read_qrels(tmp_path / name)
        assert qrels.to_dict() == {"q1": {"c1": -1, "c2": 1}}, name
        # c1 is judged, not relevant: MRR@2 is 1/2, and recall@1 0 of the one relevant chunk.
        scores = cg.evaluate(qrels, read_run(run_path), ks=[1, 2], metrics=["mrr", "recall"])
        assert scores == {"mrr@1": 0.0, "mrr@2": 0.5, "recall@1": 0.0, "recall@2": 1.0}, name
