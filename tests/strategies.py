"""Hypothesis strategies for qrels, runs and cut-offs.

Small pools of ids keep collisions frequent, so the awkward cases come up
often: rankings shorter than k or empty, judged questions the run never
answered, answered questions nobody judged, grade-0 rows, ``{}`` judgements,
all-grade-0 questions, and k beyond every ranking.
"""

from __future__ import annotations

from dataclasses import dataclass

import reference
from hypothesis import strategies as st

QUESTIONS = [f"q{i}" for i in range(8)]
CHUNKS = [f"c{i}" for i in range(12)]
MAX_RANKING = 10

BUILTIN = ("recall", "precision", "hit_rate", "mrr", "map", "ndcg")

grades = st.integers(min_value=0, max_value=3)
judgements = st.dictionaries(st.sampled_from(CHUNKS), grades, max_size=6)
qrels = st.dictionaries(st.sampled_from(QUESTIONS), judgements, max_size=6)
distinct_ranking = st.lists(st.sampled_from(CHUNKS), unique=True, max_size=MAX_RANKING)
ranking_with_repeats = st.lists(st.sampled_from(CHUNKS[:5]), max_size=MAX_RANKING)
ks = st.lists(st.integers(min_value=1, max_value=MAX_RANKING + 5), unique=True, min_size=1, max_size=5)
k = st.integers(min_value=1, max_value=MAX_RANKING + 5)
metric_orders = st.permutations(BUILTIN).flatmap(lambda names: st.integers(1, len(names)).map(lambda n: names[:n]))


@dataclass(frozen=True)
class Case:
    """A qrels and a run that evaluate() must accept."""

    qrels: dict[str, dict[str, int]]
    run: dict[str, list[str]]


@st.composite
def cases(draw: st.DrawFn) -> Case:
    """Qrels and a run over overlapping question pools.

    A question that will be scored gets a ranking of distinct ids; any other
    question (unjudged, ``{}`` or all grade 0) may repeat ids, since those
    rankings are never checked.
    """
    drawn_qrels = draw(qrels)
    scored = set(reference.scored_questions(drawn_qrels))
    answered = draw(st.lists(st.sampled_from(QUESTIONS), unique=True))
    run = {question: draw(distinct_ranking if question in scored else ranking_with_repeats) for question in answered}
    return Case(drawn_qrels, run)


@st.composite
def scored_cases(draw: st.DrawFn) -> Case:
    """Like :func:`cases`, with at least one question that has a relevant chunk."""
    case = draw(cases())
    question = draw(st.sampled_from(QUESTIONS))
    extra = draw(st.dictionaries(st.sampled_from(CHUNKS), st.integers(1, 3), min_size=1, max_size=4))
    case.qrels[question] = {**case.qrels.get(question, {}), **extra}
    if question in case.run:
        case.run[question] = list(dict.fromkeys(case.run[question]))
    return case
