"""Answers of a workspace scored, summarised and marked; the simulated generator; ``contextgrid answers``."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import runpy
import tomllib
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import contextgrid as cg
from contextgrid.answering.batch import (
    abstention_matrix,
    answers_frame,
    invalid_citations,
    passages_frame,
    score_answers,
    score_frame,
    summarize_answers,
    worst_first,
)
from contextgrid.answering.lexical import is_abstention
from contextgrid.cli.main import main as run_cli
from contextgrid.core.errors import InputFileError
from contextgrid.core.text import words
from contextgrid.data.records import AnswerRecord
from contextgrid.io import read_answers, read_chunks, read_qrels
from contextgrid.io.answers import read_answer_columns
from contextgrid.render.answer_html import answer_html, mark_answer
from contextgrid.workspace.answers import (
    workspace_answer,
    workspace_answers,
    workspace_answers_frame,
    workspace_summary,
)
from contextgrid.workspace.sweep import sweep, sweep_grid

REPO = Path(__file__).resolve().parent.parent
MAKE_ANSWERS = runpy.run_path(str(REPO / "sample_data" / "make_answers.py"))

# -- a small hand-checked case ------------------------------------------------------------------

R0 = cg.Chunk("r0", cg.Span("refund.md", 0, 51), "Refunds are available within 30 days of purchase.")
R1 = cg.Chunk("r1", cg.Span("refund.md", 52, 90), "Store credit is offered after 30 days.")
S0 = cg.Chunk("s0", cg.Span("stove.md", 0, 40), "The stove burns for 90 minutes.")
CHUNKS = (R0, R1, S0)
ITEMS = (
    cg.EvalItem(id="q1", question="Refund window?", gold=(cg.GoldSpan(cg.Span("refund.md", 0, 51)),)),
    cg.EvalItem(id="q2", question="Burn time?", gold=(cg.GoldSpan(cg.Span("stove.md", 0, 40)),)),
    cg.EvalItem(id="q3", question="Mars shipping?"),
)
QRELS = {"q1": {"r0": 2, "r1": 0}, "q2": {"s0": 1}, "q3": {}}
RECORDS = (
    # Context "[1] Refunds ... purchase. [2] Store credit ... days."
    AnswerRecord("q1", cg.Answer("Within 30 days for members [1][4].", (1, 4)), ("r0", "r1")),
    # Context "[1] Store credit is offered after 30 days." holds no gold: a wrong refusal.
    AnswerRecord("q2", cg.Answer("The passages do not contain the answer."), ("r1",)),
    # Nothing to answer from, answered anyway, citing nothing.
    AnswerRecord("q3", cg.Answer("Yes, we ship to Mars."), ("s0",)),
)


def hand_frame() -> pd.DataFrame:
    return answers_frame(score_answers(ITEMS, RECORDS, CHUNKS, QRELS))


def test_each_answer_is_scored_against_the_context_its_chunk_ids_rebuild() -> None:
    frame = hand_frame()
    assert list(frame.index) == ["q1", "q2", "q3"]
    q1, q2, q3 = (frame.loc[q] for q in ("q1", "q2", "q3"))
    # q1 words (citation markers are not words): within 30 days for members; within, 30, days are held: 3/5.
    assert q1["groundedness"] == 3 / 5
    assert q1["citation_accuracy"] == 0.5
    assert q1["invalid_citations"] == (4,)
    # Gold chunk r0 only (r1 is graded 0): refunds are available within 30 days of purchase -> 3 of 8 used.
    assert q1["evidence_overlap"] == 3 / 8
    assert q1["passages"] == 2
    assert (q1["abstained"], q1["should_have_abstained"], q1["problems"]) == (False, False, 1)
    # q2: context words 1 store credit is offered after 30 days; answer shares none of its 6 words.
    assert q2["groundedness"] == 0.0
    assert pd.isna(q2["citation_accuracy"])
    assert (q2["abstained"], q2["should_have_abstained"], q2["abstention_correct"]) == (True, False, False)
    assert q2["warnings"] == (
        "declined to answer although the context held passages and the gold evidence was resolved",
    )
    # q3: "yes we ship to mars" against "1 the stove burns for 90 minutes": nothing held.
    assert (q3["groundedness"], q3["evidence_overlap"]) == (0.0, 0.0)
    assert (q3["abstained"], q3["should_have_abstained"], q3["problems"]) == (False, True, 2)


def test_worst_first_orders_by_warnings_then_wrong_abstention_then_groundedness() -> None:
    frame = hand_frame()
    # q3 has two warnings; q1 and q2 one each, and q2 abstained wrongly.
    assert list(worst_first(frame).index) == ["q3", "q2", "q1"]
    # Without warnings or wrong abstentions: by groundedness, 0.0 and 0.0 (ties keep their order), then 4/7.
    fine = frame.assign(problems=0, abstention_correct=True)
    assert list(worst_first(fine).index) == ["q2", "q3", "q1"]


def test_summary_means_are_over_the_answers_that_did_not_abstain() -> None:
    frame = hand_frame()
    summary = summarize_answers({"a": frame, "b": frame.loc[["q2"]]})
    assert list(summary.index) == ["a", "b"]
    a = summary.loc["a"]
    assert a["answers"] == 3
    assert a["answered"] == 2
    assert a["groundedness"] == pytest.approx((3 / 5 + 0.0) / 2, abs=0, rel=1e-15)
    assert a["citation_accuracy"] == 0.5  # q3 cites nothing and is left out
    assert a["evidence_overlap"] == pytest.approx(3 / 16, abs=0, rel=1e-15)
    counts = ("abstained", "should_have_abstained", "correct_refusals", "wrong_refusals", "unwarranted_answers")
    assert [a[name] for name in counts] == [1, 1, 0, 1, 1]
    b = summary.loc["b"]
    assert (b["answers"], b["answered"], b["wrong_refusals"]) == (1, 0, 1)
    assert pd.isna(b["groundedness"])
    assert pd.isna(b["citation_accuracy"])


def test_a_configuration_without_answers_counts_zero_and_averages_nothing() -> None:
    summary = summarize_answers({"a": hand_frame(), "none": answers_frame([])})
    row = summary.loc["none"]
    assert [row[name] for name in ("answers", "answered", "abstained", "wrong_refusals")] == [0, 0, 0, 0]
    assert pd.isna(row["groundedness"])
    assert summary["answers"].dtype == "int64"


def test_abstention_matrix_counts_every_answer_once() -> None:
    matrix = abstention_matrix(hand_frame())
    assert matrix.loc["yes", "yes"] == 0  # should have abstained and did
    assert matrix.loc["yes", "no"] == 1  # q3
    assert matrix.loc["no", "yes"] == 1  # q2
    assert matrix.loc["no", "no"] == 1  # q1
    assert int(matrix.to_numpy().sum()) == 3


def test_passages_list_the_context_with_gold_and_cited_marked() -> None:
    first = score_answers(ITEMS, RECORDS, CHUNKS, QRELS)[0]
    table = passages_frame(first)
    assert list(table.index) == [1, 2]
    assert list(table["chunk_id"]) == ["r0", "r1"]
    assert list(table["grade"]) == [2, 0]
    assert list(table["gold"]) == [True, False]
    assert list(table["cited"]) == [True, False]
    assert first.gold_chunk_ids == ("r0",)


def test_an_unknown_chunk_or_question_names_the_answers_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text(
        '{"question_id": "q1", "answer": "30 days [1].", "citations": [1], "context_chunk_ids": ["r0"]}\n'
        "\n"
        '{"question_id": "q2", "answer": "90 minutes.", "context_chunk_ids": ["s0", "s9"]}\n'
    )
    with pytest.raises(InputFileError) as caught:
        score_answers(ITEMS, read_answers(path), CHUNKS, QRELS, source=path)
    assert str(caught.value) == (
        f"{path}, line 3: the context names chunk(s) 's9', which are not chunks of this configuration's chunking: "
        + repr('{"question_id": "q2", "answer": "90 minutes.", "context_chunk_ids": ["s0", "s9"]}')
    )
    path.write_text('{"question_id": "q7", "answer": "No."}\n')
    with pytest.raises(InputFileError, match=r"answers\.jsonl, line 1: answers question 'q7', which is not a question"):
        score_answers(ITEMS, read_answers(path), CHUNKS, QRELS, source=path)
    with pytest.raises(cg.ContextGridError, match=r"^answer 1 \(question 'q7'\): answers question 'q7'"):
        score_answers(ITEMS, read_answers(path), CHUNKS, QRELS)


def test_the_columns_name_the_answers_file_and_line_as_the_records_do(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text(
        '{"question_id": "q1", "answer": "30 days [1].", "citations": [1], "context_chunk_ids": ["r0"]}\n'
        "\n"
        '{"question_id": "q2", "answer": "90 minutes.", "context_chunk_ids": ["s0", "s9"]}\n'
    )
    columns = read_answer_columns(path)
    # The file is gone: the line can only come from the columns.
    path.unlink()
    with pytest.raises(InputFileError) as caught:
        score_frame(ITEMS, columns, CHUNKS, QRELS, source=path)
    assert str(caught.value) == (
        f"{path}, line 3: the context names chunk(s) 's9', which are not chunks of this configuration's chunking: "
        + repr('{"question_id": "q2", "answer": "90 minutes.", "context_chunk_ids": ["s0", "s9"]}')
    )
    with pytest.raises(cg.ContextGridError, match=r"^answer 2 \(question 'q2'\): the context names chunk\(s\) 's9'"):
        score_frame(ITEMS, columns, CHUNKS, QRELS)


def test_the_line_named_is_the_one_the_reader_kept(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text('\n{"question_id": "q7", "answer": "No."}\n')
    records = read_answers(path)
    # The file is gone: the line can only come from the records.
    path.unlink()
    with pytest.raises(InputFileError, match=r"answers\.jsonl, line 2: answers question 'q7', which is not a question"):
        score_answers(ITEMS, records, CHUNKS, QRELS, source=path)


def test_a_record_made_in_code_is_refused_naming_the_file_only(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    record = AnswerRecord("q7", cg.Answer("No."))
    with pytest.raises(InputFileError, match=r"answers\.jsonl: answers question 'q7', which is not a question$"):
        score_answers(ITEMS, [record], CHUNKS, QRELS, source=path)


def test_a_context_repeating_a_chunk_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text('{"question_id": "q1", "answer": "x", "context_chunk_ids": ["r0", "r0"]}\n')
    with pytest.raises(
        InputFileError, match=r"line 1: context_from_chunks: chunk ids must be distinct, repeated: 'r0'"
    ):
        score_answers(ITEMS, read_answers(path), CHUNKS, QRELS, source=path)


# -- marking words -----------------------------------------------------------------------------

CONTEXT = cg.AssembledContext(text="[1] Refunds within 30 days.", chunks=(R0,), tokens=8)


def test_words_are_marked_by_whether_the_context_holds_them() -> None:
    pieces = mark_answer("Refunds in 30 days [1], 60 for members [1, 2].", CONTEXT)
    assert [(p.text, p.mark) for p in pieces if p.mark] == [
        ("Refunds", "held"),
        ("in", "missing"),
        ("30", "held"),
        ("days", "held"),
        ("[1]", "cite"),
        ("60", "missing"),
        ("for", "missing"),
        ("members", "missing"),
        ("[1, 2]", "bad-cite"),
    ]
    assert invalid_citations(cg.Answer("x", (2, 1, 2, 5)), CONTEXT) == (2, 5)


answer_texts = st.text(alphabet=st.sampled_from("ab Ab1 2[]<>&'’_.,\"é"), max_size=40)


@given(answer_texts, answer_texts)
def test_marking_agrees_with_the_word_rule_and_loses_nothing(text: str, context_text: str) -> None:
    context = cg.AssembledContext(text=context_text, chunks=(R0,), tokens=0)
    pieces = mark_answer(text, context)
    assert "".join(piece.text for piece in pieces) == text
    outside_markers = re.sub(r"\[\s*\d+(?:\s*[,;]\s*\d+)*\s*\]", " ", text)
    held = {piece.text.casefold().replace("’", "'") for piece in pieces if piece.mark == "held"}
    missing = {piece.text.casefold().replace("’", "'") for piece in pieces if piece.mark == "missing"}
    assert held == words(outside_markers) & words(context_text)
    assert missing == words(outside_markers) - words(context_text)
    page = answer_html(text, context)
    body = page[page.index('<div class="cg-answer">') :]
    assert re.sub(r"</?(?:div|span)[^>]*>", "", body).count("<") == 0


# -- a workspace written by sweep, answered by the simulated generator ---------------------------

DOCUMENTS = {
    "faq.md": (
        "Shipping. Standard shipping costs $6.95 and is free on orders over $50. "
        "Expedited shipping is $14.95. We ship to the United States and Canada only.\n\n"
        "Returns. You can return unused gear within 45 days of delivery. Used gear can be returned within 30 days "
        "if it is clean. Refunds usually show up in 3 to 5 business days after inspection.\n\n"
        "Members. Trail Club members get 60 days for unused items and free expedited shipping.\n"
    ),
    "stove.md": (
        "The Trailblaze stove boils one litre of water in 3 minutes. It burns for 60 minutes on a 230 g canister. "
        "Never use a windscreen that fully surrounds the stove and canister, because trapped heat can make the "
        "canister explode. Store canisters below 50 degrees Celsius.\n\n"
        "Cleaning. Let the stove cool, then wipe the burner with a dry cloth. Do not use water on the valve.\n"
    ),
    "tent.md": (
        "The Ridgeline tent sleeps two and weighs 1.6 kg. Pitching time for one person with practice is about "
        "8 minutes. The rainfly has a 3000 mm hydrostatic head. Seal the seams once a season.\n"
    ),
}
QUESTIONS = (
    ("w1", "How much does standard shipping cost?", "faq.md", "Standard shipping costs $6.95"),
    ("w2", "How long can I return unused gear?", "faq.md", "return unused gear within 45 days of delivery"),
    ("w3", "When does my refund arrive?", "faq.md", "Refunds usually show up in 3 to 5 business days"),
    ("w4", "Which countries do you ship to?", "faq.md", "We ship to the United States and Canada only."),
    ("w5", "How long does the stove burn on one canister?", "stove.md", "It burns for 60 minutes on a 230 g canister."),
    ("w6", "Can I use a windscreen around the stove?", "stove.md", "Never use a windscreen that fully surrounds"),
    ("w7", "How do I clean the stove burner?", "stove.md", "wipe the burner with a dry cloth"),
    ("w8", "How heavy is the tent?", "tent.md", "weighs 1.6 kg"),
    ("w9", "How long does it take to pitch the tent?", "tent.md", "about 8 minutes"),
    ("w10", "What do members get?", "faq.md", "Trail Club members get 60 days for unused items"),
    ("w11", "How waterproof is the rainfly?", "tent.md", "3000 mm hydrostatic head"),
    ("w12", "Who signs the supplier contract?", "faq.md", "The Director of Purchasing signs it."),  # lost
)
SWEEP_ITEMS = (
    *(cg.EvalItem(id=q, question=text, anchors=(cg.Anchor(doc, quote),)) for q, text, doc, quote in QUESTIONS),
    cg.EvalItem(id="w13", question="Do you sell kayaks?"),
    cg.EvalItem(id="w14", question="Is there a student discount?"),
)
SWEEP_GRID = sweep_grid(chunkers=["fixed_chars"], sizes=[120, 400], overlaps=[0], retrievers=["bm25", "lsa"])


def build_workspace(root: Path) -> Path:
    """A sweep-written workspace with simulated answers for three of its four configurations."""
    sweep(DOCUMENTS, SWEEP_ITEMS, SWEEP_GRID, root, name="answers-test")
    configs = ["bm25-fixed_chars-120-0", "lsa-fixed_chars-120-0", "lsa-fixed_chars-400-0"]
    MAKE_ANSWERS["make_answers"](root, configs=configs, seed=0, budget_tokens=90)
    return root


@pytest.fixture(scope="module")
def workspace_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_workspace(tmp_path_factory.mktemp("answers") / "ws")


def independent_score(root: Path, config: str, record: AnswerRecord) -> cg.AnswerScore:
    """score_answer on a context rebuilt by hand from the files, not through answer_scores."""
    chunks = {chunk.id: chunk for chunk in read_chunks(root / "chunks" / (config.split("-", 1)[1] + ".jsonl"))}
    picked = [chunks[chunk_id] for chunk_id in record.context_chunk_ids]
    text = "\n\n".join(f"[{n}] {chunk.text.strip()}" for n, chunk in enumerate(picked, 1))
    context = cg.AssembledContext(text=text, chunks=tuple(picked), tokens=0)
    judged = read_qrels(root / "qrels" / (config.split("-", 1)[1] + ".trec")).to_dict().get(record.question_id, {})
    item = next(i for i in cg.SpanResolver(DOCUMENTS).resolve(SWEEP_ITEMS) if i.id == record.question_id)
    gold = [chunks[chunk_id] for chunk_id, grade in judged.items() if grade > 0]
    return cg.score_answer(item, record.answer, context, gold_chunks=gold)


def test_workspace_answers_are_score_answer_on_the_logged_contexts(workspace_root: Path) -> None:
    workspace = cg.load_workspace(workspace_root)
    for config in ("bm25-fixed_chars-120-0", "lsa-fixed_chars-400-0"):
        scored = workspace_answers(workspace, config)
        records = read_answers(workspace_root / "answers" / f"{config}.jsonl")
        assert [entry.record for entry in scored] == list(records)
        assert [entry.score for entry in scored] == [independent_score(workspace_root, config, r) for r in records]


def test_the_frame_and_the_one_answer_shown_are_the_records(workspace_root: Path) -> None:
    workspace = cg.load_workspace(workspace_root)
    for config in ("bm25-fixed_chars-120-0", "lsa-fixed_chars-400-0"):
        scored = workspace_answers(workspace, config)
        pd.testing.assert_frame_equal(
            workspace_answers_frame(workspace, config), answers_frame(scored), check_exact=True
        )
        for entry in scored[:5]:
            assert workspace_answer(workspace, config, entry.record.question_id) == entry
    with pytest.raises(
        cg.InvalidParameterError, match="'question_id' parameter of workspace_answer must be a question"
    ):
        workspace_answer(workspace, "bm25-fixed_chars-120-0", "no-such-question")


def test_workspace_summary_covers_the_configurations_with_answers(workspace_root: Path) -> None:
    workspace = cg.load_workspace(workspace_root)
    summary = workspace_summary(workspace)
    assert list(summary.index) == ["bm25-fixed_chars-120-0", "lsa-fixed_chars-120-0", "lsa-fixed_chars-400-0"]
    for config in summary.index:
        scores = [entry.score for entry in workspace_answers(workspace, config)]
        answered = [s for s in scores if not s.abstained]
        row = summary.loc[config]
        assert row["answers"] == len(scores) == len(SWEEP_ITEMS)
        assert row["groundedness"] == pytest.approx(sum(s.groundedness for s in answered) / len(answered), rel=1e-12)
        cited = [s.citation_accuracy for s in answered if s.citation_accuracy is not None]
        assert row["citation_accuracy"] == pytest.approx(sum(cited) / len(cited), rel=1e-12)
        assert row["correct_refusals"] == sum(s.abstained and s.should_have_abstained for s in scores)
        assert row["unwarranted_answers"] == sum(not s.abstained and s.should_have_abstained for s in scores)


def test_a_workspace_without_answers_says_how_to_add_them(tmp_path: Path) -> None:
    sweep(DOCUMENTS, SWEEP_ITEMS, SWEEP_GRID[:1], tmp_path)
    workspace = cg.load_workspace(tmp_path)
    with pytest.raises(cg.ContextGridError, match=r"has no answers: add answers = \"...\" to a \[\[config\]\]"):
        workspace_summary(workspace)
    with pytest.raises(cg.ContextGridError, match="names no answers file"):
        workspace_answers(workspace, workspace.names[0])


# -- the simulated generator --------------------------------------------------------------------


def test_the_generator_answers_like_a_real_one_right_and_wrong(workspace_root: Path) -> None:
    workspace = cg.load_workspace(workspace_root)
    scores = [
        entry.score
        for config in ("bm25-fixed_chars-120-0", "lsa-fixed_chars-120-0", "lsa-fixed_chars-400-0")
        for entry in workspace_answers(workspace, config)
    ]
    assert any(s.citation_accuracy is not None and s.citation_accuracy < 1 for s in scores), "invalid citations"
    assert any(not s.abstained and s.groundedness < 1 for s in scores), "invented content"
    assert any(s.abstained and s.should_have_abstained for s in scores), "correct refusals"
    assert any(s.abstained and not s.should_have_abstained for s in scores), "wrong refusals"
    assert any(not s.abstained and s.should_have_abstained for s in scores), "confident answers to nothing"
    assert sum(not s.abstained and s.groundedness > 0.8 and s.evidence_overlap > 0 for s in scores) > len(scores) / 3
    assert all(is_abstention(text) for text in MAKE_ANSWERS["REFUSALS"])


def test_the_generator_uses_the_budgeted_context_of_the_runs_top_chunks(workspace_root: Path) -> None:
    workspace = cg.load_workspace(workspace_root)
    config = "lsa-fixed_chars-400-0"
    run = workspace.run(config)
    for record in workspace.answers(config):
        ranked = run.get(record.question_id, ())
        assert record.context_chunk_ids == tuple(ranked[: len(record.context_chunk_ids)])
        assert len(record.context_chunk_ids) < 5  # 400-character chunks do not all fit 90 tokens


def test_the_generator_is_deterministic_and_edits_only_answers_lines(tmp_path: Path) -> None:
    first, second = build_workspace(tmp_path / "a"), build_workspace(tmp_path / "b")
    for name in ("bm25-fixed_chars-120-0", "lsa-fixed_chars-400-0"):
        assert (first / "answers" / f"{name}.jsonl").read_bytes() == (second / "answers" / f"{name}.jsonl").read_bytes()
    sweep(DOCUMENTS, SWEEP_ITEMS, SWEEP_GRID, tmp_path / "plain", name="answers-test")
    plain = (tmp_path / "plain" / "contextgrid.toml").read_text().splitlines()
    edited = (first / "contextgrid.toml").read_text().splitlines()
    assert [line for line in edited if not line.startswith("answers = ")] == plain
    # Run again with other configurations: the old lines go, the new ones come, nothing doubles.
    MAKE_ANSWERS["make_answers"](first, configs=["bm25-fixed_chars-400-0"], seed=1)
    manifest = tomllib.loads((first / "contextgrid.toml").read_text())
    assert {c["name"]: c.get("answers") for c in manifest["config"]} == {
        "bm25-fixed_chars-120-0": None,
        "lsa-fixed_chars-120-0": None,
        "bm25-fixed_chars-400-0": "answers/bm25-fixed_chars-400-0.jsonl",
        "lsa-fixed_chars-400-0": None,
    }


def test_default_configurations_spread_over_the_grid() -> None:
    choose = MAKE_ANSWERS["default_configs"]
    assert choose(["a", "b"]) == ["a", "b"]
    assert choose(["a", "b", "c", "d", "e", "f", "g", "h"]) == ["a", "c", "f", "h"]


# -- contextgrid answers ------------------------------------------------------------------------


def run_command(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    status = run_cli(["answers", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_command_prints_the_summary_in_every_format(
    workspace_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = workspace_summary(cg.load_workspace(workspace_root))
    status, out, err = run_command(monkeypatch, capsys, str(workspace_root), "--format", "json")
    assert (status, err) == (0, "")
    shown = json.loads(out)  # one object per configuration, named by its "config"
    assert [row["config"] for row in shown] == list(summary.index)
    for row in shown:
        config, values = row["config"], {name: value for name, value in row.items() if name != "config"}
        assert list(values) == list(summary.columns)
        assert values["answers"] == len(SWEEP_ITEMS)
        assert isinstance(values["answers"], int)
        assert values["groundedness"] == summary.loc[config, "groundedness"]
    status, out, _ = run_command(monkeypatch, capsys, str(workspace_root), "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["measure", *summary.index]
    assert [row[0] for row in rows[1:]] == list(summary.columns)
    status, out, _ = run_command(monkeypatch, capsys, str(workspace_root))
    lines = out.splitlines()
    assert status == 0
    assert lines[0].split() == ["measure", *summary.index]
    groundedness = next(line for line in lines if line.startswith("groundedness")).split()[1:]
    assert groundedness == [f"{value:.4f}" for value in summary["groundedness"]]


def test_command_prints_one_row_per_answer_worst_first(
    workspace_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = "lsa-fixed_chars-120-0"
    frame = worst_first(answers_frame(workspace_answers(cg.load_workspace(workspace_root), config)))
    status, out, _ = run_command(monkeypatch, capsys, str(workspace_root), "--config", config, "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert status == 0
    assert rows[0][:4] == ["question", "groundedness", "citation_accuracy", "evidence_overlap"]
    assert [row[0] for row in rows[1:]] == list(frame.index)
    for row in rows[1:]:
        expected = frame.loc[row[0]].to_dict()
        assert float(row[1]) == expected["groundedness"]
        accuracy = float(expected["citation_accuracy"])
        assert row[2] == ("" if math.isnan(accuracy) else repr(accuracy))
        assert row[4:6] == [str(int(expected["abstained"])), str(int(expected["should_have_abstained"]))]


def test_command_errors_exit_2_with_one_line(
    workspace_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run_command(monkeypatch, capsys, str(workspace_root), "--config", "bm25-fixed_chars-400-0")
    assert (status, out) == (2, "")
    assert err == (
        "contextgrid: error: configuration 'bm25-fixed_chars-400-0' of workspace 'answers-test' names no answers file\n"
    )
    status, _, err = run_command(monkeypatch, capsys, str(workspace_root), "--config", "nope")
    assert status == 2
    assert "has no configuration named 'nope'" in err
    status, _, err = run_command(monkeypatch, capsys, str(tmp_path / "missing"))
    assert status == 2
    assert err.startswith("contextgrid: error: ")
    assert "no such workspace folder" in err
