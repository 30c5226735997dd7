"""``contextgrid diagnose``: one row per question and configuration, in file order, in every format."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from commandline import run_main

import contextgrid as cg
from contextgrid.analysis.causes import CAUSE_COLUMNS
from contextgrid.io import write_chunks, write_documents, write_questions
from contextgrid.workspace.sample import SAMPLE

TEXT = "Refunds take thirty days. Shipping costs five dollars. Refunds of sale items take ninety days."
SENTENCES = [(0, 25), (26, 54), (55, 94)]

QUESTIONS = [
    # Not in id order: rows follow the file.
    cg.EvalItem("q10", "How long do refunds take?", anchors=(cg.Anchor("d.md", "Refunds take thirty days."),)),
    cg.EvalItem("q2", "Who founded the company?"),
    cg.EvalItem("q3", "Is there a warranty?", anchors=(cg.Anchor("d.md", "Two year warranty on tents."),)),
    cg.EvalItem("q4", "Sale items?", anchors=(cg.Anchor("d.md", "Refunds of sale items take ninety days."),)),
    cg.EvalItem(
        "q5",
        "How long, and what does it cost?",
        anchors=tuple(cg.Anchor("d.md", quote) for quote in ("thirty days", "five dollars", "ninety days")),
    ),
    cg.EvalItem("q6", "What do discounted goods cost?", anchors=(cg.Anchor("d.md", "Shipping costs five dollars."),)),
]

# "sentences": one chunk per sentence; "whole": the document as one chunk, which holds every gold span whole.
RUNS = {
    "sentences": {"q10": ["s0", "s2"], "q4": ["s1", "s0", "s2"], "q5": ["s2"], "q6": ["s0", "s2"]},
    "whole": {question.id: ["w0"] for question in QUESTIONS},
}
QRELS = {
    "sentences": {"q10": {"s0": 2}, "q4": {"s2": 2}, "q5": {"s0": 1, "s1": 1}, "q6": {"s1": 2}},
    "whole": {"q10": {"w0": 2}, "q4": {"w0": 2}, "q5": {"w0": 2}, "q6": {"w0": 2}},
}


def trec_run(run: dict[str, list[str]]) -> str:
    return "".join(f"{q} Q0 {c} {r} {10 - r} t\n" for q, ranked in run.items() for r, c in enumerate(ranked, 1))


def trec_qrels(qrels: dict[str, dict[str, int]]) -> str:
    return "".join(f"{q} 0 {c} {g}\n" for q, judged in qrels.items() for c, g in judged.items())


def unresolved_q3(tiny: Path) -> str:
    """What diagnose says of q3, the third line of the questions file: it quotes a sentence the document lacks."""
    return (
        "contextgrid: warning: CAUTION [resolve] (q3): questions.jsonl, line 3: not resolved, so it has "
        "no gold evidence in this parse: anchor 1: quote 'Two year warranty on tents.' not found in doc 'd.md'\n"
    )


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    write_documents({"d.md": TEXT}, tmp_path / "documents.jsonl")
    write_questions(QUESTIONS, tmp_path / "questions.jsonl")
    chunks = {
        "sentences": [cg.Chunk(f"s{i}", cg.Span("d.md", a, b), TEXT[a:b]) for i, (a, b) in enumerate(SENTENCES)],
        "whole": [cg.Chunk("w0", cg.Span("d.md", 0, len(TEXT)), TEXT)],
    }
    manifest = 'name = "tiny"\ndocuments = "documents.jsonl"\nquestions = "questions.jsonl"\n'
    for name in ("sentences", "whole"):
        write_chunks(chunks[name], tmp_path / f"{name}.jsonl")
        (tmp_path / f"{name}.trec").write_text(trec_run(RUNS[name]))
        (tmp_path / f"{name}.qrels").write_text(trec_qrels(QRELS[name]))
        manifest += (
            f'\n[[config]]\nname = "{name}"\nrun = "{name}.trec"\nqrels = "{name}.qrels"\nchunks = "{name}.jsonl"\n'
        )
        if name == "sentences":  # a lexical retriever, unstemmed: "cost" is not "costs"
            manifest += '[config.params]\nretriever = "bm25"\nstemmer = "none"\n'
    (tmp_path / "contextgrid.toml").write_text(manifest)
    return tmp_path


def test_json_names_every_cause_of_the_tiny_workspace_in_file_order(
    tiny: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run_main(capsys, "diagnose", str(tiny), "--k", "2", "--format", "json")
    assert (status, err) == (0, unresolved_q3(tiny))
    rows = json.loads(out)
    ids = [question.id for question in QUESTIONS]
    assert [(row["config"], row["question"]) for row in rows] == [(c, q) for c in ("sentences", "whole") for q in ids]
    # q10: s0 at rank 1. q4: s2 at rank 3 > k. q5: 11 + 12 + 11 gold characters, one sentence each: at best 12
    # of 34 in one chunk. q6: s1 never comes back.
    assert [row["cause"] for row in rows[:6]] == [
        "hit",
        "no_gold",
        "unresolved",
        "ranked_low",
        "split",
        "not_retrieved",
    ]
    assert [row["cause"] for row in rows[6:]] == ["hit", "no_gold", "unresolved", "hit", "hit", "hit"]
    ranked_low, not_retrieved = rows[3], rows[5]
    assert ranked_low == {
        "config": "sentences",
        "question": "q4",
        "cause": "ranked_low",
        "first_relevant_rank": 3,
        "best_chunk_share": 1.0,
        "vocabulary_gap": False,
        "distractor": "s0",
        "distractor_rank": 2,
        "distractor_similarity": 3 / 7,
        "gold_share_of_top_k": None,
        "gold_recall_at_k": None,
        "retrieved": 3,
        # s2 is the gold sentence exactly; s0 shares no question word and 3 of 7 words with the gold.
        "gold_density": 1.0,
        "diluted": False,
        "distractors": 0,
        # s1, s0, s2: 28 + 25 + 39 characters; "whole" gets it at k = 2.
        "smallest_k": 3,
        "smallest_budget": 92,
        "hit_elsewhere": 1,
    }
    # "cost" is not "costs" unstemmed: the question shares no term with the gold sentence.
    assert (not_retrieved["vocabulary_gap"], not_retrieved["distractor"]) == (True, None)
    assert (not_retrieved["retrieved"], not_retrieved["smallest_k"], not_retrieved["hit_elsewhere"]) == (2, None, 1)
    # "whole" is no lexical retriever: nothing is said of a lexical gap; its rows are all hits.
    assert all(row["vocabulary_gap"] is None and row["hit_elsewhere"] is None for row in rows[6:])
    assert rows[0]["gold_share_of_top_k"] == 25 / (25 + 39)
    assert rows[6]["gold_share_of_top_k"] == 25 / len(TEXT)


def test_one_configuration_has_no_config_key(tiny: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_main(capsys, "diagnose", str(tiny), "--config", "whole", "--format", "json")
    assert status == 0
    rows = json.loads(out)
    assert [row["question"] for row in rows] == [question.id for question in QUESTIONS]
    assert all("config" not in row and "cause" in row for row in rows)


def test_the_table_is_aligned_with_a_dash_where_a_signal_does_not_apply(
    tiny: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run_main(capsys, "diagnose", str(tiny), "--config", "sentences", "--k", "2", "--wide")
    assert (status, err) == (0, unresolved_q3(tiny))
    # q4 and q6 are hits of "whole" (elsewhere 1); q5 too. Then the count of each cause.
    assert out == (
        "question  cause          first_rank  retrieved  best_share  gold_recall  vocab_gap  density  distractors  "
        "min_k  min_budget  elsewhere\n"
        "q10       hit                     1          2        1.00         1.00  -                -            -  "
        "    -           -          -\n"
        "q2        no_gold                 -          0           -            -  -                -            -  "
        "    -           -          -\n"
        "q3        unresolved              -          0           -            -  -                -            -  "
        "    -           -          -\n"
        "q4        ranked_low              3          3        1.00            -  no            1.00            0  "
        "    3          92          1\n"
        "q5        split                   -          1        0.35            -  -                -            -  "
        "    -           -          1\n"
        "q6        not_retrieved           -          2        1.00            -  yes           1.00            0  "
        "    -           -          1\n"
        "\n"
        "causes     no_gold  unresolved  hit  partial  split  ranked_low  not_retrieved\n"
        "sentences        1           1    1        0      1           1              1\n"
    )


def test_csv_has_the_full_column_names_and_empty_cells_for_missing(
    tiny: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run_main(capsys, "diagnose", str(tiny), "--format", "csv")
    assert status == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == ["config", *CAUSE_COLUMNS, "hit_elsewhere"]
    assert len(rows) == 12
    assert (rows[1]["cause"], rows[1]["first_relevant_rank"], rows[1]["best_chunk_share"]) == ("no_gold", "", "")


def test_an_unknown_configuration_exits_2_naming_the_available_ones(
    tiny: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run_main(capsys, "diagnose", str(tiny), "--config", "nope")
    assert (status, out) == (2, "")
    assert (
        err == "contextgrid: error: workspace 'tiny' has no configuration named 'nope'. Available: sentences, whole\n"
    )


def test_a_bad_k_and_a_workspace_without_questions_exit_2(tiny: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_main(capsys, "diagnose", str(tiny), "--k", "0")
    assert status == 2
    assert "--k" in err
    manifest = (tiny / "contextgrid.toml").read_text().replace('questions = "questions.jsonl"\n', "")
    (tiny / "contextgrid.toml").write_text(manifest)
    status, out, err = run_main(capsys, "diagnose", str(tiny))
    assert (status, out) == (2, "")
    assert err.startswith("contextgrid: error: failure_causes: workspace 'tiny' has no questions;")
    assert err.count("\n") == 1


def test_the_sample_workspace_gives_one_object_per_question_and_configuration(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run_main(capsys, "diagnose", str(SAMPLE), "--format", "json")
    assert (status, err) == (0, "")
    rows = json.loads(out)
    questions = [json.loads(line)["id"] for line in (SAMPLE / "questions.jsonl").read_text().splitlines()]
    configs = {row["config"] for row in rows}
    assert len(rows) == len(configs) * len(questions)
    assert [row["question"] for row in rows[: len(questions)]] == questions
    status, out, _ = run_main(capsys, "diagnose", str(SAMPLE), "--config", "hybrid-recursive-500-0", "--format", "json")
    one = json.loads(out)
    assert status == 0
    assert [row["question"] for row in one] == questions
    assert [row["cause"] for row in one] == [row["cause"] for row in rows if row["config"] == "hybrid-recursive-500-0"]


def test_gold_past_a_documents_end_or_in_an_unknown_one_is_unresolved_and_named_with_its_line(
    tiny: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with (tiny / "questions.jsonl").open("a") as questions:  # lines 7 and 8, after the six of QUESTIONS
        questions.write('{"id": "q7", "question": "Past?", "gold": [{"doc_id": "d.md", "start": 90, "end": 120}]}\n')
        questions.write('{"id": "q8", "question": "Where?", "gold": [{"doc_id": "e.md", "start": 0, "end": 5}]}\n')
    status, out, err = run_main(capsys, "diagnose", str(tiny), "--config", "whole", "--format", "json")
    assert status == 0
    causes = {row["question"]: row["cause"] for row in json.loads(out)}
    assert (causes["q7"], causes["q8"], causes["q2"]) == ("unresolved", "unresolved", "no_gold")
    # Named as the manifest names the file, from the workspace folder: no path of the machine it runs on.
    assert err.splitlines()[1:] == [
        "contextgrid: warning: CAUTION [resolve] (q7): questions.jsonl, line 7: not resolved, so it has no gold "
        "evidence in this parse: gold span 1: offsets 90-120 of doc 'd.md' run past its end (94 characters)",
        "contextgrid: warning: CAUTION [resolve] (q8): questions.jsonl, line 8: not resolved, so it has no gold "
        "evidence in this parse: gold span 1: unknown document 'e.md'",
    ]
    status, out, _ = run_main(capsys, "diagnose", str(tiny), "--config", "whole")
    # q3's quote not found, q7 and q8: three unresolved; q2 alone has no gold.
    assert out.splitlines()[-1].split() == ["whole", "1", "3", "4", "0", "0", "0", "0"]
