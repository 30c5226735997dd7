"""`contextgrid evaluate` for trec_eval's users: its command line, its names, its averaging; metric@k names,
layouts, per-question tables with means, and the counts behind every mean.

tests/trec_files/ holds a qrels and a run made by hand with what trec_eval 10.0's own test files exercise
(comment lines, text after a run's tag, negative grades, unjudged chunks, ties, tabs and padding); the
``--trec-eval`` lines for them are checked against pytrec_eval (trec_eval's C code, run in-process on the same
data) and against values worked out by hand.
"""

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
    # Negative grades too: judged and not relevant, in trec_eval as here. trec_eval cannot score a question whose
    # every grade is negative ("Can't calculate measure"; pytrec_eval crashes), so each has one of 0 or more.
    st.dictionaries(st.sampled_from([f"c{i}" for i in range(12)]), st.integers(-2, 3), min_size=1, max_size=6).filter(
        lambda judged: max(judged.values()) >= 0
    ),
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


def test_a_cut_off_that_is_not_whole_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = write_files(tmp_path, QRELS, RUN)
    status, out, err = run_main(capsys, "evaluate", "--trec-eval", "-m", "ndcg_cut.10,20,23.4", qrels, run)
    assert (status, out) == (2, "")
    assert err == (
        "contextgrid: error: trec_eval measure 'ndcg_cut.10,20,23.4': expected each cut-off to be a whole number, "
        "as in ndcg_cut.5,10, got '23.4' (trec_eval would read its leading digits alone)\n"
    )
    status, _, err = run_main(capsys, "evaluate", "--trec-eval", "-m", "bpref.5", qrels, run)
    assert status == 2
    assert "trec_eval measure 'bpref' (in 'bpref.5') is not one contextgrid has" in err


# --- trec_eval's features, on files made by hand --------------------------------------------------------------------

FILES = Path(__file__).parent / "trec_files"
FEATURES = ("qrels.features", "results.features")
EVERY_MEASURE = ["num_q", "num_ret", "num_rel", "num_rel_ret", "recip_rank", "P", "recall", "ndcg_cut", "map_cut"]
EVERY_MEASURE += ["success"]


def trec_eval_rows(path: Path, width: int) -> list[list[str]]:
    """The fields of ``path``'s data lines as trec_eval 10.0 reads them (get_qrels.c, get_trec_results.c): a line
    whose first byte is "#" is a comment in qrels (width 4), one whose first byte after whitespace is in a run
    (width 6), where whatever follows the sixth field is ignored."""
    rows = []
    for line in path.read_text().split("\n"):
        comment = (line.lstrip() if width == 6 else line).startswith("#")
        if line.split() and not comment:
            rows.append(line.split()[:width])
    return rows


def trec_eval_inputs(qrels: Path, run: Path) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    judged: dict[str, dict[str, int]] = {}
    for question, _, chunk, grade in trec_eval_rows(qrels, 4):
        judged.setdefault(question, {})[chunk] = int(grade)
    scores: dict[str, dict[str, float]] = {}
    for question, _, chunk, _, score, _ in trec_eval_rows(run, 6):
        scores.setdefault(question, {})[chunk] = float(score)
    return judged, scores


def cli_lines(capsys: pytest.CaptureFixture[str], qrels: Path, run: Path, *options: str) -> list[str]:
    """``contextgrid evaluate --trec-eval OPTIONS QRELS RUN``, with trec_eval's file names (no suffix to go by)."""
    argv = ["evaluate", "--trec-eval", "--qrels-format", "trec", "--run-format", "trec", *options, str(qrels), str(run)]
    status, out, err = run_main(capsys, *argv)
    assert (status, err) == (0, "")
    return out.splitlines()


@pytest.mark.parametrize("complete", [False, True])
def test_hand_made_files_score_as_pytrec_eval_scores_them(capsys: pytest.CaptureFixture[str], complete: bool) -> None:
    qrels, run = (FILES / name for name in FEATURES)
    options = ["-q", *(["-c"] if complete else []), *(arg for m in EVERY_MEASURE for arg in ("-m", m))]
    ours = [line.split("\t") for line in cli_lines(capsys, qrels, run, *options)]
    judged, scores = trec_eval_inputs(qrels, run)
    names = [label for label, _, _ in parse_measures(EVERY_MEASURE)]
    # The same measures with trec_eval's default cut-offs; num_q is counted here, not asked of pytrec_eval.
    theirs = pytrec_eval.RelevanceEvaluator(judged, set(EVERY_MEASURE) - {"num_q"}).evaluate(scores)
    evaluated = sorted(set(judged) if complete else set(judged) & set(scores))
    assert evaluated == (["401", "402", "403", "404"] if complete else ["401", "402", "403"])
    expected = []
    for question in evaluated:
        for name in names[1:]:
            # trec_eval leaves a question without a run out of pytrec_eval's answer; -c scores it 0 (its relevant
            # chunks still counted in num_rel).
            value = theirs.get(question, {}).get(name, 0.0)
            if name == "num_rel" and question not in theirs:
                value = sum(grade > 0 for grade in judged[question].values())
            expected.append(trec_line(name, question, value).split("\t"))
    assert ours[: len(expected)] == expected
    means = ours[len(expected) :]
    assert means[0] == trec_line("num_q", "all", len(evaluated)).split("\t")
    for (label, question, shown), name in zip(means[1:], names[1:], strict=True):
        assert (label.strip(), question) == (name, "all")
        column = [float(row[2]) for row in ours[: len(expected)] if row[0].strip() == name]
        if name.startswith("num_"):
            assert float(shown) == sum(column)
        else:
            per_question = [theirs.get(q, {}).get(name, 0.0) for q in evaluated]
            assert abs(float(shown) - math.fsum(per_question) / len(per_question)) <= 0.5e-4 + 1e-12


def test_hand_made_files_score_what_is_worked_out_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    measures = ["num_ret", "num_rel", "num_rel_ret", "recip_rank", "P.5", "recall.5", "ndcg_cut.5", "map_cut.5"]
    measures += ["success.1,5", "num_q"]
    lines = cli_lines(capsys, *(FILES / name for name in FEATURES), "-q", *(a for m in measures for a in ("-m", m)))
    log2 = math.log2
    # 401 ranks d3 (0) and d1 (2) tied at 9.5, d3 first (docid descending), then x1 (unjudged), d4 (-1), d2 (1),
    # d#6 (-2), x2: relevant d1 at rank 2 and d2 at 5 of d1, d2, d5 (grades 2, 1, 1).
    # 402 ranks e2 (-1), e3 (3), x3: relevant e3 at rank 2 of e1, e3 (grades 1, 3). 403 (f2 0, f1 -2) has no
    # relevant chunk: every measure 0. 404 is judged, not in the run; 405 is in the run, not judged: both out.
    ndcg_401 = (2 / log2(3) + 1 / log2(6)) / (2 + 1 / log2(3) + 1 / log2(4))
    ndcg_402 = (3 / log2(3)) / (3 + 1 / log2(3))
    names = ["num_ret", "num_rel", "num_rel_ret", "recip_rank", "P_5", "recall_5", "ndcg_cut_5", "map_cut_5"]
    names += ["success_1", "success_5"]
    expected = {
        "401": [7, 3, 2, 1 / 2, 2 / 5, 2 / 3, ndcg_401, (1 / 2 + 2 / 5) / 3, 0, 1],
        "402": [3, 2, 1, 1 / 2, 1 / 5, 1 / 2, ndcg_402, (1 / 2) / 2, 0, 1],
        "403": [2, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    }
    wanted = [trec_line(n, q, v) for q, values in expected.items() for n, v in zip(names, values, strict=True)]
    means = [
        sum(column) / 3 if not name.startswith("num_") else sum(column)
        for name, column in zip(names, zip(*expected.values(), strict=True), strict=True)
    ]
    wanted += [trec_line("num_q", "all", 3)] + [trec_line(n, "all", v) for n, v in zip(names, means, strict=True)]
    assert lines == wanted


def test_comments_text_after_the_tag_and_negative_grades_change_no_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, run = (FILES / name for name in FEATURES)
    # The same judgements and ranking without any of it: no comment line, six fields a line, 0 for every grade
    # below 0.
    plain_qrels, plain_run = tmp_path / "plain.qrels", tmp_path / "plain.trec"
    plain_qrels.write_text("".join(f"{q} 0 {c} {max(int(g), 0)}\n" for q, _, c, g in trec_eval_rows(qrels, 4)))
    plain_run.write_text("".join(" ".join(row) + "\n" for row in trec_eval_rows(run, 6)))
    assert "#" not in plain_qrels.read_text().replace("d#6", "")
    assert "-" not in plain_qrels.read_text()
    for options in ([], ["-q"], ["-q", "-c"]):
        every = [*options, *(arg for m in EVERY_MEASURE for arg in ("-m", m))]
        assert cli_lines(capsys, qrels, run, *every) == cli_lines(capsys, plain_qrels, plain_run, *every)
    # A comment is no question: three judged questions in the run, not a fourth named "#".
    lines = cli_lines(capsys, qrels, run, "-q", "-m", "num_q", "-m", "num_rel")
    assert [line.split("\t")[1] for line in lines] == ["401", "402", "403", "all", "all"]
    assert lines[-2] == trec_line("num_q", "all", 3)
