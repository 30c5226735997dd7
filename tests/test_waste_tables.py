"""The column-wise waste tables against a character-set reference: every character a set member."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from corpora import DOCUMENTS, ITEMS
from hypothesis import given, settings
from hypothesis import strategies as st

import contextgrid as cg
from contextgrid.core.errors import ContextGridError
from contextgrid.evidence.run_waste import (
    RunRows,
    chunking_gold,
    coverage_by_configuration,
    coverage_by_rank,
    gold_columns,
    question_waste,
    ranked_evidence,
    retrieved_table,
    rows_evidence,
    run_rows,
    union_contributions,
)
from contextgrid.evidence.waste import (
    COMPARED_COLUMNS,
    WASTE_COLUMNS,
    measure_waste,
    waste_frame,
)
from contextgrid.workspace.sweep import sweep, sweep_grid
from contextgrid.workspace.waste import (
    configuration_waste,
    workspace_waste,
)

DOCS = ("a", "b")


def characters(spans: list[cg.Span]) -> set[tuple[str, int]]:
    return {(span.doc_id, position) for span in spans for position in range(span.start, span.end)}


def reference_row(item: cg.EvalItem, retrieved: list[cg.Chunk]) -> dict[str, float]:
    gold = characters([g.span for g in item.gold if g.grade > 0])
    got = characters([chunk.span for chunk in retrieved])
    total = sum(len(chunk.span) for chunk in retrieved)
    recall = len(gold & got) / len(gold) if gold else 0.0
    precision = len(gold & got) / len(got) if got else 0.0
    return {
        "gold_characters": len(gold),
        "retrieved_characters": len(got),
        "retrieved_total": total,
        "gold_retrieved": len(gold & got),
        "not_gold": len(got - gold),
        "repeated": total - len(got),
        "missed": len(gold - got),
        "character_recall": recall,
        "character_precision": precision,
        "character_f1": 2 * precision * recall / (precision + recall) if precision + recall else 0.0,
        "best_chunk_coverage": max((len(gold & characters([c.span])) / len(gold) for c in retrieved), default=0.0)
        if gold
        else 0.0,
        "chunks_retrieved": len(retrieved),
    }


spans = st.builds(
    lambda doc, start, length: cg.Span(doc, start, start + length),
    st.sampled_from(DOCS),
    st.integers(0, 60),
    st.integers(0, 25),
)


@st.composite
def waste_cases(draw: st.DrawFn) -> tuple[list[cg.EvalItem], dict[str, list[str]], list[cg.Chunk], int]:
    chunks = [cg.Chunk(f"c{i}", span, "") for i, span in enumerate(draw(st.lists(spans, min_size=1, max_size=12)))]
    items = []
    for number in range(draw(st.integers(1, 5))):
        gold = draw(st.lists(st.tuples(spans, st.integers(0, 2)), max_size=4))
        items.append(cg.EvalItem(id=f"q{number}", question="?", gold=tuple(cg.GoldSpan(s, g) for s, g in gold)))
    ids = [chunk.id for chunk in chunks]
    run = {
        item.id: draw(st.lists(st.sampled_from(ids), unique=True, max_size=8)) for item in items if draw(st.booleans())
    }
    return items, run, chunks, draw(st.integers(1, 9))


@settings(max_examples=300, deadline=None)
@given(waste_cases())
def test_question_waste_counts_every_character_as_the_reference_does(
    case: tuple[list[cg.EvalItem], dict[str, list[str]], list[cg.Chunk], int],
) -> None:
    items, run, chunks, k = case
    by_id = {chunk.id: chunk for chunk in chunks}
    frame = question_waste(items, run, chunks, k)
    resolved = [item for item in items if any(g.grade > 0 for g in item.gold)]
    assert list(frame.index) == [item.id for item in resolved]
    assert list(frame.columns) == list(WASTE_COLUMNS)
    for item in resolved:
        retrieved = [by_id[c] for c in run.get(item.id, [])[:k]]
        expected = reference_row(item, retrieved)
        assert frame.loc[item.id].to_dict() == pytest.approx(expected, rel=1e-12, abs=0)
        waste = measure_waste(item, retrieved)
        assert (waste.not_gold, waste.repeated, waste.missed) == (
            expected["not_gold"],
            expected["repeated"],
            expected["missed"],
        )
    table = retrieved_table(items, run, by_id, k)
    for question, rank, chunk_id, share in zip(
        table["question"], table["rank"], table["chunk_id"], table["coverage"], strict=True
    ):
        item = next(i for i in resolved if i.id == question)
        coverage = cg.gold_coverage_by_chunk(item, [by_id[chunk_id]])[chunk_id]
        assert share == pytest.approx(coverage, rel=1e-12, abs=0)
        assert run[question][int(rank) - 1] == chunk_id


@settings(max_examples=150, deadline=None)
@given(waste_cases(), st.integers(1, 9))
def test_one_chunking_laid_out_once_serves_every_run_as_the_reference_does(
    case: tuple[list[cg.EvalItem], dict[str, list[str]], list[cg.Chunk], int], other_k: int
) -> None:
    items, run, chunks, k = case
    by_id = {chunk.id: chunk for chunk in chunks}
    gold = gold_columns(items)
    chunking = chunking_gold(gold, chunks)
    reversed_run = {question: ranked[::-1] for question, ranked in run.items()}
    for ranking, cutoff in ((run, k), (reversed_run, other_k)):
        frame = question_waste(gold, ranking, chunking, cutoff)
        for item in gold.items:
            retrieved = [by_id[c] for c in ranking.get(item.id, [])[:cutoff]]
            assert frame.loc[item.id].to_dict() == pytest.approx(reference_row(item, retrieved), rel=1e-12, abs=0)


def test_a_chunking_laid_out_against_other_gold_is_refused() -> None:
    chunks = [cg.Chunk("c1", cg.Span("a", 0, 10), "")]
    items = [cg.EvalItem("q1", "?", (cg.GoldSpan(cg.Span("a", 0, 5)),))]
    chunking = chunking_gold(gold_columns(items), chunks)
    with pytest.raises(cg.InvalidParameterError, match="the same GoldColumns as items"):
        question_waste(gold_columns(items), {"q1": ["c1"]}, chunking, 1)


@settings(max_examples=200, deadline=None)
@given(waste_cases(), st.lists(st.sampled_from(["bm25", "dense", "hybrid", "rerank"]), min_size=1, unique=True))
def test_waste_frame_puts_each_configurations_waste_side_by_side(
    case: tuple[list[cg.EvalItem], dict[str, list[str]], list[cg.Chunk], int], configs: list[str]
) -> None:
    items, _, chunks, k = case
    item = items[0]
    # Each configuration retrieves a different slice of the chunks: they must not be mixed up.
    retrieved = {config: chunks[position::3][:k] for position, config in enumerate(configs)}
    frame = waste_frame({config: measure_waste(item, got) for config, got in retrieved.items()})
    assert list(frame.index) == configs
    assert frame.index.name == "config"
    assert list(frame.columns) == list(COMPARED_COLUMNS)
    for config, got in retrieved.items():
        expected = {column: reference_row(item, got)[column] for column in COMPARED_COLUMNS}
        assert frame.loc[config].to_dict() == pytest.approx(expected, rel=1e-12, abs=0)


def test_waste_frame_refuses_what_is_not_a_waste() -> None:
    with pytest.raises(ContextGridError, match=r"waste_frame: expected a Waste for configuration 'bm25', got 0\.5"):
        waste_frame({"bm25": 0.5})  # type: ignore[dict-item]


ITEM = cg.EvalItem(id="q1", question="?", gold=(cg.GoldSpan(cg.Span("d", 100, 200)),))
CHUNKS = [
    cg.Chunk("c1", cg.Span("d", 0, 150), "first chunk"),
    cg.Chunk("c2", cg.Span("d", 120, 300), "second"),
    cg.Chunk("c3", cg.Span("d", 400, 500), "third"),
]


def test_hand_checked_example() -> None:
    # Gold 100-200. Top 3: c2 (120-300, holds 80), c1 (0-150, holds 50), c3 (nothing).
    # Distinct retrieved: 0-300 and 400-500 = 400; total 180 + 150 + 100 = 430; gold got 100.
    row = question_waste([ITEM], {"q1": ["c2", "c1", "c3"]}, CHUNKS, 3).loc["q1"]
    assert row["retrieved_characters"] == 400
    assert row["retrieved_total"] == 430
    assert row["repeated"] == 30
    assert row["not_gold"] == 300
    assert row["character_precision"] == 0.25
    assert row["best_chunk_coverage"] == 0.8
    # At k=1 only c2: 80 of the gold, 180 retrieved.
    top = question_waste([ITEM], {"q1": ["c2", "c1", "c3"]}, CHUNKS, 1).loc["q1"]
    assert (top["gold_retrieved"], top["retrieved_characters"], top["missed"]) == (80, 180, 20)


def test_coverage_by_rank_is_question_by_rank() -> None:
    other = cg.EvalItem(id="q2", question="?", gold=(cg.GoldSpan(cg.Span("d", 400, 440)),))
    table = retrieved_table([ITEM, other], {"q1": ["c2", "c3", "c1"]}, CHUNKS, 2)
    matrix = coverage_by_rank(table, 3, questions=["q1", "q2"])
    assert matrix.to_numpy()[:, :2].tolist()[0] == [0.8, 0.0]
    assert np.isnan(matrix.to_numpy()[0, 2])
    assert np.isnan(matrix.to_numpy()[1]).all()
    assert list(matrix.index) == ["q1", "q2"]
    assert table["excerpt"].tolist() == ["second", "third"]


def test_a_chunk_id_missing_from_the_chunks_is_named() -> None:
    with pytest.raises(ContextGridError, match=r"question 'q1' returns chunk 'c9' at rank 2"):
        question_waste([ITEM], {"q1": ["c1", "c9"]}, CHUNKS, 5)


def test_inputs_are_checked() -> None:
    with pytest.raises(ContextGridError, match="k"):
        question_waste([ITEM], {}, CHUNKS, 0)
    with pytest.raises(ContextGridError, match="repeated"):
        question_waste([ITEM, ITEM], {}, CHUNKS, 1)
    with pytest.raises(
        ContextGridError, match=r"chunk ids must be distinct, repeated: 'c1' \(chunks\[0\] and chunks\[3\]\)"
    ):
        question_waste([ITEM], {}, [*CHUNKS, CHUNKS[0]], 1)


def test_a_question_the_run_never_answered_is_all_missed() -> None:
    row = question_waste([ITEM], {}, CHUNKS, 5).loc["q1"]
    assert (row["gold_retrieved"], row["missed"], row["character_recall"], row["chunks_retrieved"]) == (0, 100, 0, 0)


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> cg.Workspace:
    root = tmp_path_factory.mktemp("ws")
    sweep(
        DOCUMENTS,
        ITEMS,
        sweep_grid(chunkers=["fixed_chars"], sizes=[60, 200], overlaps=[20], retrievers=["bm25"]),
        root,
    )
    return cg.load_workspace(root)


def test_workspace_tables_agree_with_measure_waste(swept: cg.Workspace) -> None:
    assert swept.missing_evidence() == ()
    table = workspace_waste(swept, 3)
    assert list(table.index.get_level_values("config").unique()) == list(swept.names)
    items, _ = swept.resolved
    for name in swept.names:
        by_id = {chunk.id: chunk for chunk in swept.chunks(name)}
        for item in items:
            waste = measure_waste(item, [by_id[c] for c in swept.run(name).get(item.id, ())[:3]])
            row = table.xs((name, item.id))
            assert tuple(row[["gold_retrieved", "retrieved_total", "not_gold", "repeated"]]) == (
                waste.gold_retrieved,
                waste.retrieved_total,
                waste.not_gold,
                waste.repeated,
            )
    matrix = coverage_by_configuration(table)
    assert matrix.shape == (2, 2)
    assert matrix.to_numpy()[1, 1] == table.xs((swept.names[1], "q2"))["character_recall"]
    assert list(matrix.columns) == ["q1", "q2"]
    summary = configuration_waste(swept, 3, table=table)
    for name in swept.names:
        expected_recall = cg.evaluate(swept.qrels(name), swept.run(name), ks=[3], metrics=["recall"])["recall@3"]
        assert summary.loc[name, "recall@3"] == expected_recall
        part = table.loc[name]
        assert summary.loc[name, "character_precision"] == pytest.approx(part["character_precision"].mean())
        assert summary.loc[name, "share_gold"] == part["gold_retrieved"].sum() / part["retrieved_total"].sum()


def test_a_workspace_without_documents_is_refused_with_what_is_missing(tmp_path: Path) -> None:
    (tmp_path / "qrels.trec").write_text("q1 0 c1 2\n")
    (tmp_path / "run.trec").write_text("q1 Q0 c1 1 0.9 x\n")
    (tmp_path / "contextgrid.toml").write_text('qrels = "qrels.trec"\n[[config]]\nname = "only"\nrun = "run.trec"\n')
    workspace = cg.load_workspace(tmp_path)
    assert workspace.missing_evidence() == ("documents", "questions", "chunks (for only)")
    with pytest.raises(ContextGridError, match="has no documents, no questions, no chunks"):
        workspace_waste(workspace, 5)


def test_tables_do_not_modify_their_inputs(tmp_path: Path) -> None:
    run = {"q1": ["c2", "c1"]}
    chunks = list(CHUNKS)
    question_waste([ITEM], run, chunks, 2)
    assert run == {"q1": ["c2", "c1"]}
    assert chunks == CHUNKS


def reference_contributions(group: list[int], start: list[int], end: list[int]) -> list[int]:
    """Per interval, the positions it adds to its group's union, taking each group's intervals by start, ties in
    the order given: a set of positions per group."""
    covered: dict[int, set[int]] = {}
    added = [0] * len(group)
    for row in sorted(range(len(group)), key=lambda row: (group[row], start[row], row)):
        positions = set(range(start[row], end[row])) - covered.setdefault(group[row], set())
        added[row] = len(positions)
        covered[group[row]] |= positions
    return added


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 4), st.integers(0, 60), st.integers(0, 25)).map(lambda t: (t[0], t[1], t[1] + t[2])),
        max_size=30,
    )
)
def test_union_contributions_add_what_each_interval_adds_as_the_reference_does(
    intervals: list[tuple[int, int, int]],
) -> None:
    group, start, end = ([row[i] for row in intervals] for i in range(3))
    found = union_contributions(np.array(group, dtype=np.int64), np.array(start, dtype=np.int64), np.array(end))
    assert found.tolist() == reference_contributions(group, start, end)


def test_the_waste_of_some_configurations_is_their_rows_of_every_configuration_s(swept: cg.Workspace) -> None:
    names = list(swept.names)
    table = workspace_waste(swept, 3)
    some = workspace_waste(swept, 3, configs=[names[1], names[1]])
    assert some.equals(table.loc[[names[1]]])
    # Measured on a thread per CPU, the whole table is each configuration measured alone, in the manifest's order.
    alone = pd.concat([workspace_waste(swept, 3, configs=[name]) for name in names])
    assert alone.equals(table)
    assert table.index.get_level_values("config").unique().tolist() == names
    everything = configuration_waste(swept, 3)
    for held in (None, table):
        chosen = configuration_waste(swept, 3, table=held, configs=names[::-1])
        assert chosen.equals(everything.loc[names[::-1]])
    with pytest.raises(ContextGridError, match="no configuration named 'nope'"):
        workspace_waste(swept, 3, configs=["nope"])
    with pytest.raises(ContextGridError, match="The 'configs' parameter of configuration_waste must be a non-empty"):
        configuration_waste(swept, 3, configs=[])


def test_the_waste_summary_on_scores_at_hand_is_the_one_it_scores(swept: cg.Workspace) -> None:
    # The grid the dashboard keeps (every metric at every k, 20 deep) gives recall@3 to the last bit.
    kept = swept.evaluate().to_dataframe()
    table = workspace_waste(swept, 3)
    pd.testing.assert_frame_equal(
        configuration_waste(swept, 3, table=table, scores=kept), configuration_waste(swept, 3), check_exact=True
    )
    with pytest.raises(ContextGridError, match=r"The 'scores' parameter of configuration_waste must be .*'recall@3'"):
        configuration_waste(swept, 3, table=table, scores=kept.drop(columns="recall@3"))
    lacking = re.escape(f"a column for each metric@k it needs. Got [{swept.names[0]!r}]")
    with pytest.raises(ContextGridError, match=lacking):
        configuration_waste(swept, 3, table=table, scores=kept.iloc[1:])


def test_evidence_of_rows_cut_from_deeper_ones_is_the_evidence_at_that_k() -> None:
    from contextgrid.workspace.manifest import load_workspace
    from contextgrid.workspace.sample import SAMPLE

    workspace = load_workspace(SAMPLE)
    for name in workspace.names[::3]:
        chunking, run = workspace.chunking_gold(name), workspace.run(name)
        gold = chunking.gold
        deep = run_rows(run, gold.ids, chunking.columns.ids, None, "test")
        for k in (1, 3, 10):
            expected = ranked_evidence(gold, run, chunking, k)
            keep = deep.rank <= k
            got = rows_evidence(chunking, RunRows(deep.item[keep], deep.rank[keep], deep.chunk[keep]))
            for field in ("item", "rank", "chunk", "held", "gold_retrieved", "part_gold", "part_start", "part_row"):
                assert getattr(got, field).tolist() == getattr(expected, field).tolist(), (name, k, field)
            assert expected.gold_retrieved.any()
    outside = RunRows(np.array([len(gold.items)]), np.array([1]), np.array([0]))
    with pytest.raises(ContextGridError, match="'rows' parameter of rows_evidence"):
        rows_evidence(chunking, outside)


def _rows_by_hand(run: dict[str, list[str]], questions: list[str], chunk_ids: list[str], k: int | None) -> list:
    """run_rows' rows written out: (question position, rank, chunk position), by question then rank."""
    rows = []
    for item, question in enumerate(questions):
        for rank, chunk in enumerate(run.get(question, []), start=1):
            if k is None or rank <= k:
                rows.append((item, rank, chunk_ids.index(chunk)))
    return rows


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from("abcdef"), min_size=1, max_size=5, unique=True),
            st.lists(st.sampled_from(["q1", "q2", "q3", "q4"]), min_size=1, max_size=4, unique=True),
            st.one_of(st.none(), st.integers(1, 4)),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_one_run_aligned_with_many_chunkings_and_question_lists_in_turn_gives_each_its_own_rows(
    alignments: list[tuple[list[str], list[str], int | None]],
) -> None:
    # One run table, as a workspace keeps it, aligned in turn with chunkings and question lists that come and go
    # (more of them than the run keeps positions for): each alignment is the one written out by hand, and a chunk
    # the chunking does not have is refused, whatever was aligned before.
    plain = {"q1": ["a", "b", "c"], "q2": ["c"], "q3": ["f", "e", "d", "a"]}
    run = cg.RunTable.from_dict(plain)
    # The same lists come back as the same objects, as a workspace's chunking and questions do.
    indexes: dict[tuple[str, ...], pd.Index] = {}
    for chunk_ids, questions, k in alignments + alignments[::-1]:
        chunking = indexes.setdefault(tuple(chunk_ids), pd.Index(chunk_ids))
        asked = indexes.setdefault(tuple(questions), pd.Index(questions))
        needed = {chunk for q in questions if q in plain for chunk in plain[q][: k if k is not None else None]}
        if needed <= set(chunk_ids):
            rows = run_rows(run, asked, chunking, k, "test")
            got = list(zip(rows.item.tolist(), rows.rank.tolist(), rows.chunk.tolist(), strict=True))
            assert got == _rows_by_hand(plain, questions, chunk_ids, k)
        else:
            with pytest.raises(ContextGridError, match="which is not among the"):
                run_rows(run, asked, chunking, k, "test")
