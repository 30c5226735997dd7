"""A slow, obviously correct reference for the six built-in metrics.

Written from the definitions on the Metrics page and trec_eval's conventions,
independently of ``contextgrid.metrics``: plain Python, one question at a
time, no numpy. The tests hold contextgrid's numbers to these.

Conventions, straight from the page:

- a chunk is relevant when its grade is above 0;
- only the top ``k`` of the ranking counts, and a chunk id repeated within it
  counts once, at its first position; a later repeat is a wasted slot (so
  ``c1, c1, x`` scores what ``c1, y, x`` scores);
- precision divides by ``k``; map divides by the number of relevant chunks;
  ndcg's gain is the grade and its discount ``log2(rank + 1)``, against the
  ideal ordering of every judged grade;
- a whole run averages over the questions with at least one relevant chunk;
  a judged question the run never answered has an empty ranking.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

Judgements = Mapping[str, int]
Ranking = Sequence[str]


def relevant(judgements: Judgements) -> set[str]:
    """The chunk ids judged relevant (grade above 0)."""
    return {chunk for chunk, grade in judgements.items() if grade > 0}


def top_k_first_occurrences(ranked: Ranking, k: int) -> list[tuple[int, str]]:
    """(1-based rank, chunk id) for each chunk's first appearance in the top ``k``."""
    seen: set[str] = set()
    kept = []
    for position, chunk in enumerate(ranked[:k], start=1):
        if chunk not in seen:
            seen.add(chunk)
            kept.append((position, chunk))
    return kept


def relevant_ranks(judgements: Judgements, ranked: Ranking, k: int) -> list[int]:
    """Ranks, within the top ``k``, at which a relevant chunk first appears."""
    wanted = relevant(judgements)
    return [position for position, chunk in top_k_first_occurrences(ranked, k) if chunk in wanted]


def recall(judgements: Judgements, ranked: Ranking, k: int) -> float:
    wanted = relevant(judgements)
    if not wanted:
        return 0.0
    return len(relevant_ranks(judgements, ranked, k)) / len(wanted)


def precision(judgements: Judgements, ranked: Ranking, k: int) -> float:
    return len(relevant_ranks(judgements, ranked, k)) / k


def hit_rate(judgements: Judgements, ranked: Ranking, k: int) -> float:
    return 1.0 if relevant_ranks(judgements, ranked, k) else 0.0


def mrr(judgements: Judgements, ranked: Ranking, k: int) -> float:
    ranks = relevant_ranks(judgements, ranked, k)
    return 1.0 / ranks[0] if ranks else 0.0


def average_precision(judgements: Judgements, ranked: Ranking, k: int) -> float:
    """Sum of precision at each relevant rank in the top ``k``, over all relevant chunks."""
    wanted = relevant(judgements)
    if not wanted:
        return 0.0
    total = 0.0
    for found, position in enumerate(relevant_ranks(judgements, ranked, k), start=1):
        total += found / position
    return total / len(wanted)


def ndcg(judgements: Judgements, ranked: Ranking, k: int) -> float:
    dcg = 0.0
    for position, chunk in top_k_first_occurrences(ranked, k):
        dcg += judgements.get(chunk, 0) / math.log2(position + 1)
    ideal_grades = sorted(judgements.values(), reverse=True)[:k]
    idcg = 0.0
    for position, grade in enumerate(ideal_grades, start=1):
        idcg += grade / math.log2(position + 1)
    return dcg / idcg if idcg > 0 else 0.0


METRIC_FUNCTIONS: dict[str, Callable[[Judgements, Ranking, int], float]] = {
    "recall": recall,
    "precision": precision,
    "hit_rate": hit_rate,
    "mrr": mrr,
    "map": average_precision,
    "ndcg": ndcg,
}


def scored_questions(qrels: Mapping[str, Judgements]) -> list[str]:
    """Questions with at least one relevant chunk, in qrels order."""
    return [question for question, judgements in qrels.items() if relevant(judgements)]


def per_query(qrels: Mapping[str, Judgements], run: Mapping[str, Ranking], metric: str, k: int) -> dict[str, float]:
    score = METRIC_FUNCTIONS[metric]
    return {question: score(qrels[question], run.get(question, []), k) for question in scored_questions(qrels)}


def evaluate(
    qrels: Mapping[str, Judgements], run: Mapping[str, Ranking], ks: Sequence[int], metrics: Sequence[str]
) -> dict[str, float]:
    """``{"metric@k": mean}`` metric-major; ``{}`` when no question has a relevant chunk."""
    if not scored_questions(qrels):
        return {}
    result = {}
    for metric in metrics:
        for k in ks:
            scores = list(per_query(qrels, run, metric, k).values())
            result[f"{metric}@{k}"] = math.fsum(scores) / len(scores)
    return result


def mean_rank_of_first_relevant(qrels: Mapping[str, Judgements], run: Mapping[str, Ranking]) -> float | None:
    """Mean rank of the first relevant chunk over the whole ranking, among the questions that found one."""
    firsts = []
    for question in scored_questions(qrels):
        ranked = run.get(question, [])
        ranks = relevant_ranks(qrels[question], ranked, len(ranked))
        if ranks:
            firsts.append(ranks[0])
    return sum(firsts) / len(firsts) if firsts else None
