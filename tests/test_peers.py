"""contextgrid scores every question as trec_eval (pytrec_eval) and ranx do.

Both peers follow contextgrid's conventions for all six metrics: precision
divides by k, map by the number of relevant chunks, ndcg takes the grade as
gain with a log2(rank + 1) discount, mrr is cut at k (trec_eval's recip_rank on
the run cut at k). They differ only in which questions they report, which the
comparison accounts for: pytrec_eval leaves out questions the run never
answered (contextgrid scores them 0.0); both score questions with no relevant
chunk, which contextgrid leaves out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contextgrid as cg
from bench.bench_evaluate import PerQuestion, pytrec_per_question, pytrec_raw, ranx_per_question, ranx_tables
from bench.synthetic import SyntheticData, scored, synthetic_run
from contextgrid.metrics import BUILTIN_METRICS

KS = (1, 3, 5, 10, 20)
TOLERANCE = 1e-12

# (seed, questions, depth, options): full, short and empty rankings; more relevant chunks than k.
INPUTS: list[tuple[int, int, int, dict[str, Any]]] = [
    (0, 300, 100, {}),
    (1, 300, 20, {"short": 0.5}),
    (2, 250, 5, {"short": 0.4, "max_judged": 30, "retrieved_share": 1.0}),
    (3, 200, 1, {"short": 0.5, "unanswered": 0.2}),
    (4, 300, 50, {"no_relevant": 0.3, "unjudged": 0.2, "max_judged": 25}),
]


def contextgrid_scores(qrels: cg.Qrels, run: cg.Run) -> PerQuestion:
    return {f"{metric}@{k}": cg.per_query(qrels, run, metric, k) for metric in BUILTIN_METRICS for k in KS}


def disagreements(ours: PerQuestion, theirs: PerQuestion) -> dict[str, list[tuple[str, float, float | None]]]:
    """``{metric@k: [(question, contextgrid, peer), ...]}`` wherever the peer differs or said nothing."""
    found = {}
    for label, scores in ours.items():
        bad = [
            (question, score, theirs[label].get(question))
            for question, score in scores.items()
            if question not in theirs[label] or abs(score - theirs[label][question]) > TOLERANCE
        ]
        if bad:
            found[label] = bad[:5]
    return found


def pytrec_scores(qrels: Mapping[str, Mapping[str, int]], run: Mapping[str, Sequence[str]], depth: int) -> PerQuestion:
    """pytrec_eval's scores, with the questions it leaves out (the run never answered them) as 0.0."""
    reported = pytrec_per_question(pytrec_raw(qrels, scored(run, depth), KS), KS)
    judged_unanswered = [q for q, judgements in qrels.items() if q not in run and judgements]
    for label, scores in reported.items():
        assert not set(scores) & set(judged_unanswered), f"pytrec_eval reported an unanswered question for {label}"
        scores.update(dict.fromkeys(judged_unanswered, 0.0))
    return reported


@pytest.fixture(scope="module", params=INPUTS, ids=[f"seed{seed}-{n}x{depth}" for seed, n, depth, _ in INPUTS])
def data(request: pytest.FixtureRequest) -> SyntheticData:
    seed, questions, depth, options = request.param
    return synthetic_run(questions, depth=depth, seed=seed, **options)


def test_inputs_exercise_every_metric(data: SyntheticData) -> None:
    """The generated data is not degenerate: every metric scores above 0 somewhere and 0 somewhere."""
    ours = contextgrid_scores(data.qrels, data.run)
    for metric in BUILTIN_METRICS:
        values = [v for k in KS for v in ours[f"{metric}@{k}"].values()]
        assert max(values) > 0
        assert min(values) == 0


def test_inputs_hold_missing_empty_and_short_rankings() -> None:
    lengths = set()
    for seed, questions, depth, options in INPUTS:
        generated = synthetic_run(questions, depth=depth, seed=seed, **options)
        scored_questions = [q for q, judgements in generated.qrels.items() if any(judgements.values())]
        lengths |= {len(generated.run[q]) if q in generated.run else None for q in scored_questions}
    assert {None, 0, 1, 100} <= lengths
    assert any(length not in {None, 0, 1, 5, 20, 50, 100} for length in lengths)


def test_agrees_with_pytrec_eval(data: SyntheticData) -> None:
    ours = contextgrid_scores(data.qrels, data.run)
    assert disagreements(ours, pytrec_scores(data.qrels, data.run, data.depth)) == {}


def test_agrees_with_ranx(data: SyntheticData) -> None:
    ours = contextgrid_scores(data.qrels, data.run)
    ranx_qrels, ranx_run = ranx_tables(data.qrels, scored(data.run, data.depth))
    assert disagreements(ours, ranx_per_question(ranx_qrels, ranx_run, KS)) == {}


CHUNKS = [f"c{i}" for i in range(12)]


@st.composite
def judged_runs(draw: st.DrawFn) -> tuple[dict[str, dict[str, int]], dict[str, list[str]]]:
    """Up to 4 questions: any grades 0 to 3 over a small shared pool of chunks, rankings of distinct
    chunks (judged or not) of any length, some questions missing from the run, maybe one run question
    the qrels never judged."""
    questions = [f"q{i}" for i in range(draw(st.integers(1, 4)))]
    qrels = {
        q: draw(st.dictionaries(st.sampled_from(CHUNKS), st.integers(0, 3), min_size=0, max_size=8)) for q in questions
    }
    run = {}
    for q in questions:
        if draw(st.booleans()) or q == questions[0]:
            run[q] = draw(st.permutations(CHUNKS))[: draw(st.integers(0, len(CHUNKS)))]
    if draw(st.booleans()):
        run["never judged"] = draw(st.permutations(CHUNKS))
    return qrels, run


@settings(max_examples=300, deadline=None)
@given(judged_runs())
def test_agrees_with_trec_eval_on_any_small_input(case: tuple[dict[str, dict[str, int]], dict[str, list[str]]]) -> None:
    qrels, run = case
    assert disagreements(contextgrid_scores(qrels, run), pytrec_scores(qrels, run, len(CHUNKS))) == {}
