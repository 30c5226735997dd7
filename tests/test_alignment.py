"""Mismatched inputs caught before scoring: qrels and runs that do not belong to a configuration's chunks are
refused naming the question, the chunk and what it overlaps; evaluate without chunks warns when most judged
rankings miss every judged chunk. Hand-checked cases, a slow reference, and a workspace whose qrels come from
another chunking."""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from commandline import run_main
from hypothesis import given, settings
from hypothesis import strategies as st

import contextgrid as cg
from contextgrid.core.errors import ContextGridError
from contextgrid.evidence.alignment import MISMATCH, check_alignment, disjoint_rankings
from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.sample import SAMPLE

TEXT = "Refunds take thirty days. Shipping costs five dollars. Refunds of sale items take ninety days."
SENTENCES = [cg.Chunk(f"s{i}", cg.Span("d", a, b), TEXT[a:b]) for i, (a, b) in enumerate([(0, 25), (26, 54), (55, 94)])]
ITEM = cg.EvalItem("q", "How long?", (cg.GoldSpan(cg.Span("d", 55, 94)),))


def test_qrels_and_a_run_of_the_chunks_pass() -> None:
    assert check_alignment([ITEM], SENTENCES, {"q": ["s0", "s2"]}, {"q": {"s2": 2, "s0": 0}}) is None
    # Grade 0 need not overlap the gold; a question without gold is not checked against the qrels.
    other = cg.EvalItem("o", "?")
    assert check_alignment([ITEM, other], SENTENCES, {}, {"q": {"s2": 1}, "o": {"s0": 2}}) is None


def test_a_relevant_chunk_that_overlaps_no_gold_is_refused_naming_what_it_is() -> None:
    with pytest.raises(ContextGridError) as caught:
        check_alignment([ITEM], SENTENCES, {}, {"q": {"s2": 2, "s0": 1}})
    assert str(caught.value) == (
        "check_alignment: the qrels grade chunk 's0' 1 for question 'q', but in these chunks 's0' is d [0, 25), "
        f"which overlaps none of the question's gold (d [55, 94)): {MISMATCH}"
    )


def test_a_relevant_chunk_or_a_retrieved_one_not_among_the_chunks_is_refused() -> None:
    with pytest.raises(ContextGridError, match=f"grade chunk 'd#9' 2 for question 'q', but it is not among the 3 "
                       f"chunks given: {MISMATCH}"):  # fmt: skip
        check_alignment([ITEM], SENTENCES, {}, {"q": {"d#9": 2}})
    with pytest.raises(ContextGridError, match="the run for question 'x' returns chunk 'd#9' at rank 2"):
        check_alignment([ITEM], SENTENCES, {"x": ["s0", "d#9"]}, {})


# -- against a slow reference -----------------------------------------------------------------------------------


def reference_breaks(
    items: Sequence[cg.EvalItem],
    chunks: Sequence[cg.Chunk],
    run: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Mapping[str, int]],
) -> bool:
    by_id = {chunk.id: chunk for chunk in chunks}
    if any(chunk not in by_id for ranked in run.values() for chunk in ranked):
        return True
    for item in items:
        gold = [entry.span for entry in item.gold if entry.grade > 0 and len(entry.span)]
        if not gold:
            continue
        for chunk_id, grade in qrels.get(item.id, {}).items():
            if grade <= 0:
                continue
            if chunk_id not in by_id:
                return True
            span = by_id[chunk_id].span
            if not any(g.doc_id == span.doc_id and g.start < span.end and span.start < g.end for g in gold):
                return True
    return False


@st.composite
def inputs(draw: st.DrawFn) -> tuple[Any, ...]:
    chunks = []
    for position in range(draw(st.integers(1, 5))):
        doc = draw(st.sampled_from(["a", "b"]))
        start = draw(st.integers(0, 30))
        chunks.append(cg.Chunk(f"c{position}", cg.Span(doc, start, start + draw(st.integers(1, 15))), "x"))
    items = []
    for position in range(draw(st.integers(1, 4))):
        gold = []
        for _ in range(draw(st.integers(0, 2))):
            start = draw(st.integers(0, 40))
            span = cg.Span(draw(st.sampled_from(["a", "b"])), start, start + draw(st.integers(0, 8)))
            gold.append(cg.GoldSpan(span, grade=draw(st.integers(0, 2))))
        items.append(cg.EvalItem(f"q{position}", "?", tuple(gold)))
    ids = [chunk.id for chunk in chunks] + ["zz"]
    questions = [item.id for item in items] + ["q9"]
    qrels = {
        q: draw(st.dictionaries(st.sampled_from(ids), st.integers(0, 2), min_size=1, max_size=3))
        for q in draw(st.lists(st.sampled_from(questions), unique=True, max_size=3))
    }
    run = {
        q: draw(st.lists(st.sampled_from(ids), unique=True, max_size=4))
        for q in draw(st.lists(st.sampled_from(questions), unique=True, max_size=3))
    }
    return items, chunks, run, qrels


@settings(max_examples=300, deadline=None)
@given(inputs())
def test_the_check_refuses_exactly_what_the_reference_does(case: tuple[Any, ...]) -> None:
    items, chunks, run, qrels = case
    expected = reference_breaks(items, chunks, run, qrels)
    try:
        check_alignment(items, chunks, run, qrels)
    except ContextGridError:
        assert expected
    else:
        assert not expected


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.sampled_from(["q1", "q2", "q3"]), st.dictionaries(st.sampled_from("abcd"), st.integers(-1, 2),
                    min_size=1, max_size=3), max_size=3),
    st.dictionaries(st.sampled_from(["q1", "q2", "q4"]), st.lists(st.sampled_from("abcde"), unique=True, max_size=4),
                    max_size=3),
)  # fmt: skip
def test_disjoint_rankings_equal_a_loop(qrels: dict[str, dict[str, int]], run: dict[str, list[str]]) -> None:
    ranked = [q for q in qrels if run.get(q)]
    disjoint = [q for q in ranked if not set(run[q]) & set(qrels[q])]
    assert disjoint_rankings(qrels, run) == (len(disjoint), len(ranked))


# -- a workspace whose qrels come from another chunking -----------------------------------------------------------


def mixed_workspace(root: Path) -> Path:
    """The sample's files copied to ``root``, one configuration's qrels taken from a configuration of another
    chunking."""
    sample = load_workspace(SAMPLE)
    first = sample.configs[0]
    other = next(config for config in sample.configs if config.chunks != first.chunks)
    files = {
        "documents": sample.documents_path,
        "questions": sample.questions_path,
        "run": first.run,
        "qrels": first.qrels,
        "chunks": first.chunks,
        "other": other.qrels,
    }
    for name, path in files.items():
        assert path is not None
        shutil.copyfile(path, root / f"{name}{path.suffix}")
    suffix = {name: path.suffix for name, path in files.items() if path is not None}
    text = (
        f'name = "mixed"\ndocuments = "documents{suffix["documents"]}"\nquestions = "questions{suffix["questions"]}"\n'
    )
    for name, qrels in (("good", "qrels"), ("mixed", "other")):
        text += (
            f'\n[[config]]\nname = "{name}"\nrun = "run{suffix["run"]}"\nqrels = "{qrels}{suffix[qrels]}"\n'
            f'chunks = "chunks{suffix["chunks"]}"\n'
        )
    (root / "contextgrid.toml").write_text(text)
    return root


def test_a_workspace_whose_qrels_come_from_another_chunking_is_refused_with_the_question_and_the_chunk(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = mixed_workspace(tmp_path)
    workspace = load_workspace(root)
    part, failed = workspace.readable()
    assert part.names == ("good",)
    message = str(failed["mixed"])
    assert message.startswith("configuration 'mixed' of workspace 'mixed': the qrels grade chunk '")
    assert "for question '" in message
    assert "which overlaps none of the question's gold (" in message
    assert message.endswith(MISMATCH)
    # The commands refuse it too, in one line.
    commands = [["evaluate", "--workspace", str(root)], ["diagnose", str(root)], ["budget", str(root)]]
    for command in [*commands, ["report", str(root), "--config", "mixed", "--output", str(tmp_path / "r.html")]]:
        status, out, err = run_main(capsys, *command)
        assert (status, out) == (2, "")
        assert err.startswith("contextgrid: error: ")
        assert MISMATCH in err
        assert err.count("\n") == 1


def test_evaluate_without_chunks_warns_when_the_rankings_miss_every_judged_chunk(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = tmp_path / "qrels.trec"
    qrels.write_text("q1 0 d#0 1\nq2 0 d#1 1\nq3 0 d#2 1\n")
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d#5 1 3 t\nq2 Q0 d#6 1 3 t\nq3 Q0 d#2 1 3 t\n")
    status, _, err = run_main(capsys, "evaluate", str(qrels), str(run))
    assert status == 0
    assert "2 of the 3 judged questions it ranks hold none of their judged chunks" in err
    run.write_text("q1 Q0 d#0 1 3 t\nq2 Q0 d#6 1 3 t\nq3 Q0 d#2 1 3 t\n")
    status, _, err = run_main(capsys, "evaluate", str(qrels), str(run))
    assert (status, "hold none of their judged chunks" in err) == (0, False)
