"""Evidence at an equal context budget: the columnar rule against a slow character-set reference on the sample,
hand-checked cases, the laws it must obey, and the verdict over the grid."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from budget_reference import reference
from hypothesis import given, settings
from hypothesis import strategies as st

import contextgrid as cg
from contextgrid.analysis.budget import budget_grid, budget_rows, budget_table
from contextgrid.analysis.budget_verdict import BudgetStep, BudgetVerdict, budget_verdict, parting_budget, quantity
from contextgrid.answering.context import DEFAULT_TOKENIZER, count_tokens
from contextgrid.core.errors import ContextGridError, InvalidParameterError, MissingWorkspaceInputError
from contextgrid.evidence.run_waste import question_waste
from contextgrid.significance import compare_pair
from contextgrid.workspace.budget import BudgetCurves, budget_curves
from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.sample import SAMPLE


@cache
def sample() -> cg.Workspace:
    return load_workspace(SAMPLE)


@cache
def sample_curves() -> BudgetCurves:
    return budget_curves(sample())


def test_every_configuration_and_budget_of_the_sample_equals_the_reference() -> None:
    workspace, curves = sample(), sample_curves()
    items, _ = workspace.resolved
    # The default grid plus budgets on either side of it, and one that no chunk fits.
    budgets = sorted({*curves.budgets, 1, 999, 2500, 10**7})
    assert len(curves.budgets) >= 6
    for name in workspace.names:
        run = workspace.run(name).to_dict()
        expected = reference(items, run, workspace.chunks(name), workspace.qrels(name).to_dict(), budgets)
        frame = budget_table(items, workspace.run(name), workspace.chunks(name), budgets, qrels=workspace.qrels(name))
        got = frame.to_dict("index")
        assert got.keys() == expected.keys(), name
        for key, row in expected.items():
            assert got[key] == pytest.approx(row, rel=1e-12, abs=0), (name, key)
        # The workspace's curves are the same numbers, over the same questions for every configuration.
        for budget in curves.budgets:
            part = pd.DataFrame(curves.per_question.xs((name, budget), level=("config", "budget")))
            assert part.to_dict("index") == {q: got[budget, q] for q in part.index}


def test_the_sample_means_are_the_reference_means_over_one_set_of_questions() -> None:
    workspace, curves = sample(), sample_curves()
    items, _ = workspace.resolved
    resolved = [item.id for item in items if any(g.grade > 0 for g in item.gold)]
    means = curves.means()
    for name in workspace.names:
        expected = reference(
            items,
            workspace.run(name).to_dict(),
            workspace.chunks(name),
            workspace.qrels(name).to_dict(),
            curves.budgets,
        )
        for budget in curves.budgets:
            rows = [expected[budget, q] for q in resolved]
            row = means.xs((name, budget)).to_dict()
            assert row["questions"] == len(resolved)
            assert row["evidence_recall"] == pytest.approx(np.mean([r["evidence_recall"] for r in rows]), rel=1e-12)
            assert row["hit_rate"] == pytest.approx(np.mean([r["hit"] for r in rows]), rel=1e-12)
            assert row["characters"] == pytest.approx(np.mean([r["characters"] for r in rows]), rel=1e-12)
    records = curves.records()
    assert len(records) == len(workspace.names) * len(curves.budgets)
    assert {"config", "budget", "evidence_recall", "hit_rate", "characters", "questions"} <= records[0].keys()


def test_token_budgets_count_each_chunk_with_the_tokenizer() -> None:
    workspace = sample()
    items, _ = workspace.resolved
    name = workspace.names[0]
    budgets = [50, 300, 1200]
    expected = reference(
        items,
        workspace.run(name).to_dict(),
        workspace.chunks(name),
        workspace.qrels(name).to_dict(),
        budgets,
        cost=lambda text: count_tokens(text, DEFAULT_TOKENIZER),
    )
    frame = budget_table(
        items,
        workspace.run(name),
        workspace.chunks(name),
        budgets,
        qrels=workspace.qrels(name),
        tokenizer=DEFAULT_TOKENIZER,
    )
    got = frame.to_dict("index")
    assert got.keys() == expected.keys()
    for key, row in expected.items():
        assert got[key] == pytest.approx(row, rel=1e-12, abs=0), key
    curves = budget_curves(workspace, budgets=budgets, tokenizer=DEFAULT_TOKENIZER, configs=[name])
    assert curves.unit == "tokens"
    assert (curves.per_question["spent"] <= curves.per_question.index.get_level_values("budget")).all()


# Hand-checked: document "d" of 300 characters, gold 100-200 (and 150-250 overlapping it for q2).
GOLD = cg.GoldSpan(cg.Span("d", 100, 200))
CHUNKS = [
    cg.Chunk("a", cg.Span("d", 0, 120), "a" * 120),  # holds 20 gold characters of q1
    cg.Chunk("b", cg.Span("d", 110, 190), "b" * 80),  # holds 80, 10 of them already in a
    cg.Chunk("c", cg.Span("d", 190, 300), "c" * 110),  # holds 10 of q1, 60 of q2
]
ITEMS = [
    cg.EvalItem(id="q1", question="?", gold=(GOLD,)),
    cg.EvalItem(id="q2", question="?", gold=(GOLD, cg.GoldSpan(cg.Span("d", 150, 250)))),
    cg.EvalItem(id="q3", question="?", gold=(GOLD,)),  # never answered
    cg.EvalItem(id="q4", question="?", gold=(cg.GoldSpan(cg.Span("d", 0, 10), grade=0),)),  # no gold: left out
]
RUN = {"q1": ["b", "a", "c"], "q2": ["c", "b"]}
QRELS = {"q1": {"a": 1, "b": 0}, "q2": {"b": 2}}


def test_hand_checked_budgets() -> None:
    frame = budget_table(ITEMS, RUN, CHUNKS, [79, 80, 110, 199, 200, 310], qrels=QRELS)
    assert list(frame.index.get_level_values("question").unique()) == ["q1", "q2", "q3"]
    rows = {
        key: (row["evidence_recall"], row["hit"], row["characters"], row["chunks"]) for key, row in frame.iterrows()
    }
    # q1: b costs 80 (gold 110-190: 80 of 100), then a 120 (adds 100-110), then c 110 (adds 190-200).
    assert rows[79, "q1"] == (0.0, 0, 0, 0)
    assert rows[80, "q1"] == (0.8, 0, 80, 1)
    assert rows[199, "q1"] == (0.8, 0, 80, 1)  # a would take the total to 200: it stops there
    assert rows[200, "q1"] == (0.9, 1, 200, 2)
    assert rows[310, "q1"] == (1.0, 1, 310, 3)
    # q2: gold 100-250 (150 characters, the overlap counted once); c holds 190-250 (60), b 110-190 (80).
    assert rows[80, "q2"] == (0.0, 0, 0, 0)
    assert rows[110, "q2"] == (pytest.approx(60 / 150), 0, 110, 1)
    assert rows[199, "q2"] == (pytest.approx(140 / 150), 1, 190, 2)
    assert rows[310, "q2"] == (pytest.approx(140 / 150), 1, 190, 2)
    assert rows[310, "q3"] == (0.0, 0, 0, 0)


def test_characters_count_repeated_text_twice() -> None:
    overlapping = [cg.Chunk("x", cg.Span("d", 100, 160), "x" * 60), cg.Chunk("y", cg.Span("d", 130, 200), "y" * 70)]
    frame = budget_table(ITEMS[:1], {"q1": ["x", "y"]}, overlapping, [1000], qrels={})
    assert frame.loc[(1000, "q1"), "characters"] == 130
    assert frame.loc[(1000, "q1"), "evidence_recall"] == 1.0


def test_bad_budgets_and_tokenizers_are_refused() -> None:
    with pytest.raises(InvalidParameterError, match="budgets"):
        budget_table(ITEMS, RUN, CHUNKS, [0, 10], qrels=QRELS)
    with pytest.raises(InvalidParameterError, match="budgets"):
        budget_table(ITEMS, RUN, CHUNKS, [10, 10], qrels=QRELS)
    with pytest.raises(InvalidParameterError, match="tokenizer"):
        budget_table(ITEMS, RUN, CHUNKS, [10], qrels=QRELS, tokenizer="words")  # type: ignore[arg-type]
    with pytest.raises(ContextGridError, match="not among the 2 chunks given"):
        budget_table(ITEMS, RUN, CHUNKS[:2], [10], qrels=QRELS)


def test_a_workspace_without_chunks_is_told_what_it_lacks() -> None:
    handmade = Path(__file__).resolve().parent.parent / "sample_data" / "handmade"
    with pytest.raises(MissingWorkspaceInputError, match=r"budget_curves: workspace .* has no documents"):
        budget_curves(load_workspace(handmade))


spans = st.builds(
    lambda doc, start, length: cg.Span(doc, start, start + length),
    st.sampled_from(("a", "b")),
    st.integers(0, 60),
    st.integers(1, 30),
)


@st.composite
def budget_cases(draw: st.DrawFn) -> tuple[list[cg.EvalItem], dict[str, list[str]], list[cg.Chunk], list[int]]:
    chunks = [
        cg.Chunk(f"c{i}", span, "t" * len(span))
        for i, span in enumerate(draw(st.lists(spans, min_size=1, max_size=10)))
    ]
    items = []
    for number in range(draw(st.integers(1, 4))):
        gold = draw(st.lists(st.tuples(spans, st.integers(0, 2)), max_size=4))
        items.append(cg.EvalItem(id=f"q{number}", question="?", gold=tuple(cg.GoldSpan(s, g) for s, g in gold)))
    ids = [chunk.id for chunk in chunks]
    run = {
        item.id: draw(st.lists(st.sampled_from(ids), unique=True, max_size=8)) for item in items if draw(st.booleans())
    }
    budgets = draw(st.lists(st.integers(1, 250), min_size=1, max_size=6, unique=True))
    return items, run, chunks, budgets


@settings(max_examples=120, deadline=None)
@given(budget_cases())
def test_laws_monotone_within_budget_and_whole_context_is_full_depth(
    case: tuple[list[cg.EvalItem], dict[str, list[str]], list[cg.Chunk], list[int]],
) -> None:
    items, run, chunks, budgets = case
    qrels = {q: dict.fromkeys(ranking[::2], 1) for q, ranking in run.items()}
    rows = budget_rows(items, run, chunks, qrels=qrels)
    whole = rows.longest_context
    cuts = sorted({*budgets, whole + 1})
    frame = budget_table(items, run, chunks, cuts, qrels=qrels)
    expected = reference(items, run, chunks, qrels, cuts)
    got = frame.to_dict("index")
    assert got.keys() == expected.keys()
    for key, row in expected.items():
        assert got[key] == pytest.approx(row, rel=1e-12, abs=0), key
    if not expected:
        return
    recall = frame["evidence_recall"].unstack("budget")
    assert (recall.diff(axis=1).fillna(0) >= -1e-15).all().all()
    assert (frame["characters"] <= frame.index.get_level_values("budget")).all()
    depth = max((len(r) for r in run.values()), default=1) or 1
    full = question_waste(items, run, chunks, depth)["character_recall"]
    last = recall[whole + 1]
    assert last.to_dict() == pytest.approx(full.to_dict(), rel=1e-12, abs=0)


def test_the_default_grid_spans_the_median_chunk_to_the_longest_context() -> None:
    curves = sample_curves()
    workspace = sample()
    items, _ = workspace.resolved
    rows = [
        budget_rows(items, workspace.run(n), workspace.chunks(n), qrels=workspace.qrels(n)) for n in workspace.names
    ]
    low = min(int(np.median([len(c.text) for c in workspace.chunks(n)])) for n in workspace.names)
    high = max(r.longest_context for r in rows)
    assert curves.budgets == budget_grid(low, high)
    assert curves.budgets[0] <= low * 1.05
    assert curves.budgets[-1] >= high
    ratios = np.diff(np.log(curves.budgets))
    assert ratios.max() / ratios.min() < 1.3  # evenly spread on a log scale, up to the rounding


@pytest.mark.parametrize(
    ("low", "high", "expected"),
    [
        (100, 100, (100,)),
        (1, 10, (1, 2, 3, 4, 5, 7, 10)),  # whole numbers: the smallest merge
        (999, 1001, (1000, 1100)),  # the last rounded up, so it holds every whole context
        (180, 14_500, (180, 340, 630, 1200, 2200, 4100, 7700, 15000)),
    ],
)
def test_budget_grid_rounds_to_two_digits(low: int, high: int, expected: tuple[int, ...]) -> None:
    assert budget_grid(low, high) == expected


def holm(p_values: list[float]) -> list[float]:
    """Holm's step-down, written out."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted, running = [0.0] * m, 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (m - step) * p_values[i]))
        adjusted[i] = running
    return adjusted


def test_the_verdict_names_the_best_and_tests_it_against_the_runner_up_corrected_over_the_grid() -> None:
    curves = sample_curves()
    verdict = curves.verdict(n_resamples=2000)
    means = curves.means()["evidence_recall"].unstack("budget")
    raw = []
    for step in verdict.steps:
        column = means[step.budget]
        ordered = sorted(column.index, key=lambda name: (-column[name], list(column.index).index(name)))
        assert (step.best, step.runner_up) == (ordered[0], ordered[1])
        assert step.best_mean == pytest.approx(column[ordered[0]], rel=1e-12)
        pair = [curves.per_question.loc[(name, step.budget), "evidence_recall"].to_dict() for name in ordered[:2]]
        raw.append(compare_pair(pair[0], pair[1], n_resamples=2000).p_value)
        assert step.p_value == raw[-1]
    assert [s.p_adjusted for s in verdict.steps] == pytest.approx(holm(raw), rel=1e-12)
    assert [s.significant for s in verdict.steps] == [p <= 0.05 for p in holm(raw)]
    sentence = verdict.sentence()
    assert sentence.endswith(".")
    assert sentence[0].isupper()
    for step in verdict.steps:
        if step.significant:
            assert step.best in sentence


def test_the_sentence_says_each_run_of_budgets_once_with_separators_and_plurals() -> None:
    def verdict(*steps: BudgetStep, unit: str = "characters") -> str:
        return BudgetVerdict(steps, unit, "evidence_recall", "permutation", "holm", 0.05).sentence()

    a_ahead = BudgetStep(2000, "X", 0.64, "Y", 0.55, 0.001, 0.003, True)
    tied = BudgetStep(6000, "Y", 0.8, "X", 0.79, 0.4, 1.0, False)
    tied_more = BudgetStep(12000, "X", 0.9, "Y", 0.9, 1.0, 1.0, False)
    assert verdict(a_ahead, tied, tied_more) == (
        "At 2,000 characters, X holds the most evidence (0.64), significantly more than Y (0.55); "
        "from 6,000 characters on, no configuration is significantly ahead."
    )
    assert verdict(BudgetStep(1, "X", 0.5, "Y", 0.1, 0.01, 0.01, True), unit="tokens") == (
        "At 1 token, X holds the most evidence (0.50), significantly more than Y (0.10)."
    )
    assert verdict(tied, BudgetStep(7000, "Y", 0.9, "X", 0.5, 0.001, 0.002, True)) == (
        "At 6,000 characters, no configuration is significantly ahead; at 7,000 characters, Y holds the most "
        "evidence (0.90), significantly more than X (0.50)."
    )
    only = BudgetStep(1500, "X", 0.7, None, None, 1.0, 1.0, False)
    assert verdict(only) == "X is the only configuration; at 1,500 characters it holds 0.70 of the evidence."
    assert quantity(1_000_000, "characters") == "1,000,000 characters"
    with pytest.raises(InvalidParameterError, match="significant"):
        BudgetStep(10, "X", 0.7, None, None, 0.01, 0.01, True)
    with pytest.raises(InvalidParameterError, match="smallest first"):
        BudgetVerdict((tied, a_ahead), "characters", "evidence_recall", "permutation", "holm", 0.05)


def test_parting_budget_is_the_first_corrected_difference() -> None:
    questions = [f"q{i}" for i in range(12)]
    index = pd.MultiIndex.from_product([["a", "b"], [10, 20, 30], questions], names=["config", "budget", "question"])
    a = [0.0] * 12 + [1.0] * 12 + [1.0] * 12
    b = [0.0] * 12 + [0.0] * 12 + [1.0] * 12
    table = pd.DataFrame({"evidence_recall": a + b}, index=index)
    assert parting_budget(table, "a", "b") == (20, "a")
    assert parting_budget(table, "b", "a") == (20, "a")
    same = pd.DataFrame({"evidence_recall": a + a}, index=index)
    assert parting_budget(same, "a", "b") == (None, None)
    assert budget_verdict(same).steps[1].p_value == 1.0


def test_ranked_grades_given_are_used_when_deep_enough_and_refused_when_not_grades() -> None:
    from contextgrid.engine.scoring import ranked_grades

    workspace = sample()
    name = workspace.names[0]
    items, _ = workspace.resolved
    run, chunks, qrels = workspace.run(name), workspace.chunks(name), workspace.qrels(name)
    budgets = [500, 2000, 10**7]
    built = budget_rows(items, run, chunks, qrels=qrels).at(budgets)
    assert built["hit"].sum() > 0
    depth = int(np.diff(run.starts).max())
    given = budget_rows(items, run, chunks, qrels=qrels, grades=ranked_grades(qrels, run, depth)).at(budgets)
    pd.testing.assert_frame_equal(given, built)
    # Grades against another chunking's qrels give other hits: used when deep enough (the hits of those qrels),
    # and built again from the qrels given when a rank too shallow.
    other = workspace.qrels(
        next(n for n in workspace.names if workspace.config(n).qrels != workspace.config(name).qrels)
    )
    foreign = budget_rows(items, run, chunks, qrels=qrels, grades=ranked_grades(other, run, depth)).at(budgets)
    pd.testing.assert_frame_equal(foreign, budget_rows(items, run, chunks, qrels=other).at(budgets))
    assert not foreign["hit"].equals(built["hit"])
    shallow = ranked_grades(other, run, depth - 1)
    pd.testing.assert_frame_equal(budget_rows(items, run, chunks, qrels=qrels, grades=shallow).at(budgets), built)
    with pytest.raises(InvalidParameterError, match="'grades' parameter of budget_rows"):
        budget_rows(items, run, chunks, qrels=qrels, grades={"q1": [1]})  # type: ignore[arg-type]
