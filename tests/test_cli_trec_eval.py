"""`contextgrid evaluate` for trec_eval's users: its command line, its names, its averaging; metric@k names,
layouts, per-question tables with means, and the counts behind every mean."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import pytrec_eval
from commandline import run_main
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import contextgrid as cg
from contextgrid.engine.trec_eval import parse_measures, trec_eval_lines
from contextgrid.io import read_qrels, read_run

QRELS = {"q1": {"c1": 2, "c2": 1, "c3": 0}, "q2": {"c4": 2}, "q3": {"c5": 0}, "q4": {"c6": 1}}
RUN = {"q1": ["c3", "c1", "c5", "c2"], "q2": ["c9", "c4", "c1"], "q3": ["c5"], "q9": ["c1"]}
MEASURES = ["num_q", "num_ret", "num_rel", "num_rel_ret", "recip_rank", "P.1,3", "recall.3", "success.1,5"]
PYTREC = {"num_ret", "num_rel", "num_rel_ret", "recip_rank", "P.1,3", "recall.3", "success.1,5", "ndcg_cut.2"}


def write_files(folder: Path, qrels: dict[str, dict[str, int]], run: dict[str, list[str]]) -> tuple[str, str]:
    (folder / "qrels.trec").write_text(
        "".join(f"{q} 0 {c} {grade}\n" for q, judged in qrels.items() for c, grade in judged.items())
    )
    (folder / "run.trec").write_text(
        "".join(f"{q} Q0 {c} {rank} {100 - rank} t\n" for q, ranked in run.items() for rank, c in enumerate(ranked, 1))
    )
    return str(folder / "qrels.trec"), str(folder / "run.trec")


def trec_line(name: str, question: str, value: float) -> str:
    """A line as trec_eval's C code prints it: "%-22s\\t%s\\t%6.4f" (counts "%ld")."""
    shown = str(int(value)) if name.startswith("num_") else f"{value:.4f}"
    return f"{name:<22}\t{question}\t{shown}"


def test_trec_eval_lines_are_hand_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = write_files(tmp_path, QRELS, RUN)
    argv = ["evaluate", "--trec-eval", "-q", *(arg for m in MEASURES for arg in ("-m", m)), qrels, run]
    status, out, err = run_main(capsys, *argv)
    assert (status, err) == (0, "")
    # Evaluated: q1, q2, q3 (in the run and judged; q3 has no relevant chunk, so 0 everywhere); not q4
    # (unanswered) nor q9 (not judged). q1: first relevant at rank 2; P@3 = 1/3; recall@3 = 1/2.
    # q2: c4 at rank 2. P_1 is 0 for all; success_5 is 1 for q1 and q2.
    # Each question's values in MEASURES' printed order (less num_q): num_ret, num_rel, num_rel_ret,
    # recip_rank, P_1, P_3, recall_3, success_1, success_5.
    names = ["num_ret", "num_rel", "num_rel_ret", "recip_rank", "P_1", "P_3", "recall_3", "success_1", "success_5"]
    expected = {
        "q1": [4, 2, 2, 0.5, 0, 1 / 3, 0.5, 0, 1],
        "q2": [3, 1, 1, 0.5, 0, 1 / 3, 1, 0, 1],
        "q3": [1, 0, 0, 0, 0, 0, 0, 0, 0],
        "all": [8, 3, 3, 1 / 3, 0, 2 / 9, 0.5, 0, 2 / 3],
    }
    lines = [
        trec_line(name, question, value)
        for question in ("q1", "q2", "q3")
        for name, value in zip(names, expected[question], strict=True)
    ]
    lines += [trec_line("num_q", "all", 3)] + [
        trec_line(name, "all", value) for name, value in zip(names, expected["all"], strict=True)
    ]
    assert out.splitlines() == lines


def test_c_averages_over_every_judged_question(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = write_files(tmp_path, QRELS, RUN)
    status, out, _ = run_main(capsys, "evaluate", "--trec-eval", "-c", "-m", "num_q", "-m", "recall.3", qrels, run)
    assert status == 0
    # q4 is judged and unanswered: it counts, with 0. (1/2 + 1 + 0 + 0) / 4.
    assert out.splitlines() == [trec_line("num_q", "all", 4), trec_line("recall_3", "all", 0.375)]


def test_default_measures_are_trec_evals_official_ones_that_contextgrid_has(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, run = write_files(tmp_path, QRELS, RUN)
    status, out, _ = run_main(capsys, "evaluate", "--trec-eval", qrels, run)
    assert status == 0
    names = [line.split("\t")[0].strip() for line in out.splitlines()]
    cutoffs = ["P_5", "P_10", "P_15", "P_20", "P_30", "P_100", "P_200", "P_500", "P_1000"]
    assert names == ["num_q", "num_ret", "num_rel", "num_rel_ret", "recip_rank", *cutoffs]


qrels_strategy = st.dictionaries(
    st.sampled_from([f"q{i}" for i in range(6)]),
    st.dictionaries(st.sampled_from([f"c{i}" for i in range(12)]), st.integers(0, 3), min_size=1, max_size=6),
    min_size=1,
    max_size=6,
)
run_strategy = st.dictionaries(
    st.sampled_from([f"q{i}" for i in range(7)]),
    st.lists(st.sampled_from([f"c{i}" for i in range(14)]), min_size=1, max_size=10, unique=True),
    min_size=1,
    max_size=7,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(qrels=qrels_strategy, run=run_strategy, complete=st.booleans())
def test_numbers_equal_pytrec_evals(
    tmp_path: Path, qrels: dict[str, dict[str, int]], run: dict[str, list[str]], complete: bool
) -> None:
    qrels_path, run_path = write_files(tmp_path, qrels, run)
    measures = sorted(PYTREC)
    lines = trec_eval_lines(read_qrels(qrels_path), read_run(run_path), measures, per_query=True, complete=complete)
    ours = {(name.strip(), question): float(value) for name, question, value in (line.split("\t") for line in lines)}
    scores = {q: {c: float(100 - rank) for rank, c in enumerate(ranked, 1)} for q, ranked in run.items()}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, PYTREC).evaluate(scores)
    evaluated = set(qrels) if complete else set(qrels) & set(run)
    assert {question for _, question in ours} - {"all"} == evaluated
    names = [label for label, _, _ in parse_measures(measures)]
    for question in evaluated:
        for name in names:
            value = theirs.get(question, {}).get(name, 0.0)
            if name == "num_rel" and question not in theirs:
                value = sum(grade > 0 for grade in qrels[question].values())
            assert ours[(name, question)] == float(trec_line(name, question, value).split("\t")[2])
    for name in names:
        per_question = [theirs.get(q, {}).get(name, 0.0) for q in evaluated]
        if name.startswith("num_"):
            if name == "num_rel":
                per_question = [sum(grade > 0 for grade in qrels[q].values()) for q in evaluated]
            assert ours[(name, "all")] == sum(per_question)
        else:
            mean = math.fsum(per_question) / len(per_question) if per_question else 0.0
            assert abs(ours[(name, "all")] - mean) <= 0.5e-4 + 1e-12


def test_metric_at_k_labels_choose_single_cutoffs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = write_files(tmp_path, QRELS, RUN)
    status, out, _ = run_main(capsys, "evaluate", qrels, run, "--metrics", "ndcg@10,recall,mrr@1", "--k", "3")
    assert status == 0
    table = out.split("\n\n")[0].splitlines()
    assert [line.split()[0] for line in table] == ["metric", "ndcg@10", "recall@3", "mrr@1"]
    expected = cg.evaluate(read_qrels(qrels), read_run(run), ks=[3], metrics=["recall"])["recall@3"]
    assert table[2].split()[1] == f"{expected:.4f}"


def test_many_runs_print_as_rows_and_layout_chooses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = write_files(tmp_path, QRELS, RUN)
    copies = []
    for index in range(5):
        copy = tmp_path / f"run{index}.trec"
        copy.write_text(Path(run).read_text())
        copies.append(str(copy))
    status, out, _ = run_main(capsys, "evaluate", qrels, *copies, "--metrics", "recall@3")
    assert status == 0
    table, counts = out.split("\n\n")
    assert table.splitlines()[0].split() == ["run", "recall@3"]
    assert [line.split()[0] for line in table.splitlines()[1:]] == copies
    assert counts.startswith("every run: 3 questions scored (2 answered, 1 not in the run, each scored 0)")
    status, out, _ = run_main(capsys, "evaluate", qrels, *copies[:2], "--metrics", "recall@3", "--layout", "rows")
    assert out.splitlines()[0].split() == ["run", "recall@3"]


def test_per_query_prints_every_metric_with_a_row_of_means(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    qrels, run = write_files(Path(), QRELS, RUN)
    status, out, err = run_main(capsys, "evaluate", qrels, run, "-q", "--metrics", "recall@3,mrr@5", "--format", "csv")
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "question,recall@3,mrr@5"
    assert [line.split(",")[0] for line in lines[1:]] == ["q1", "q2", "q4", "mean"]
    means = cg.evaluate(read_qrels(qrels), read_run(run), ks=[3, 5], metrics=["recall", "mrr"])
    assert lines[-1] == f"mean,{means['recall@3']!r},{means['mrr@5']!r}"
    # q4 is judged but not answered, q9 answered but not judged: both said on stderr.
    assert err == (
        "contextgrid: note: run.trec: 3 questions scored (2 answered, 1 not in the run, each scored 0); "
        "1 judged question left out (no relevant chunk); 1 run question not judged (ignored)\n"
    )


def test_help_states_the_averaging_rules(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_main(capsys, "evaluate", "--help")
    assert status == 0
    flat = " ".join(out.split())
    assert "averaged as trec_eval averages" in flat
    assert "-c is the nearest trec_eval comes to that rule" in flat
