"""The six built-in metrics, each as a plain per-question definition.

These classes are the specification: they score one question at a time in
the most direct way. :mod:`contextgrid.engine.kernels` computes the same
numbers for a whole run at once; the tests hold the two to each other.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from contextgrid.core.checks import check_k
from contextgrid.metrics.base import METRICS

__all__ = ["HitRateMetric", "MAPMetric", "MRRMetric", "NDCGMetric", "PrecisionMetric", "RecallMetric"]


def gains_at(judgements: Mapping[str, int], ranked: Sequence[str], k: int) -> list[int]:
    """The gain at each of the first ``k`` ranks: the grade of a relevant chunk's
    first appearance, 0 for anything else (a repeat is a wasted slot)."""
    seen: set[str] = set()
    gains = []
    for chunk_id in ranked[:k]:
        grade = judgements.get(chunk_id, 0) if chunk_id not in seen else 0
        seen.add(chunk_id)
        gains.append(grade if grade > 0 else 0)
    return gains


def relevant_count(judgements: Mapping[str, int]) -> int:
    return sum(1 for grade in judgements.values() if grade > 0)


@METRICS.register("recall")
@dataclass(frozen=True, slots=True)
class RecallMetric:
    """Fraction of the relevant chunks that are in the top k."""

    name: ClassVar[str] = "recall"
    version: ClassVar[str] = "1"

    def evaluate(self, judgements: Mapping[str, int], ranked: Sequence[str], k: int) -> float:
        k = check_k(k, function="RecallMetric.evaluate")
        relevant = relevant_count(judgements)
        if relevant == 0:
            return 0.0
        return sum(1 for gain in gains_at(judgements, ranked, k) if gain) / relevant


@METRICS.register("precision")
@dataclass(frozen=True, slots=True)
class PrecisionMetric:
    """Distinct relevant chunks in the top k, divided by k itself."""

    name: ClassVar[str] = "precision"
    version: ClassVar[str] = "1"

    def evaluate(self, judgements: Mapping[str, int], ranked: Sequence[str], k: int) -> float:
        k = check_k(k, function="PrecisionMetric.evaluate")
        return sum(1 for gain in gains_at(judgements, ranked, k) if gain) / k


@METRICS.register("hit_rate")
@dataclass(frozen=True, slots=True)
class HitRateMetric:
    """1.0 if any relevant chunk is in the top k, else 0.0."""

    name: ClassVar[str] = "hit_rate"
    version: ClassVar[str] = "1"

    def evaluate(self, judgements: Mapping[str, int], ranked: Sequence[str], k: int) -> float:
        k = check_k(k, function="HitRateMetric.evaluate")
        return 1.0 if any(gains_at(judgements, ranked, k)) else 0.0


@METRICS.register("mrr")
@dataclass(frozen=True, slots=True)
class MRRMetric:
    """1 / rank of the first relevant chunk in the top k, else 0.0."""

    name: ClassVar[str] = "mrr"
    version: ClassVar[str] = "1"

    def evaluate(self, judgements: Mapping[str, int], ranked: Sequence[str], k: int) -> float:
        k = check_k(k, function="MRRMetric.evaluate")
        for rank, gain in enumerate(gains_at(judgements, ranked, k), start=1):
            if gain:
                return 1.0 / rank
        return 0.0


@METRICS.register("map")
@dataclass(frozen=True, slots=True)
class MAPMetric:
    """Average precision at k, divided by the number of relevant chunks
    (trec_eval's ``map_cut``), not by ``min(relevant, k)``."""

    name: ClassVar[str] = "map"
    version: ClassVar[str] = "1"

    def evaluate(self, judgements: Mapping[str, int], ranked: Sequence[str], k: int) -> float:
        k = check_k(k, function="MAPMetric.evaluate")
        relevant = relevant_count(judgements)
        if relevant == 0:
            return 0.0
        hits = 0
        total = 0.0
        for rank, gain in enumerate(gains_at(judgements, ranked, k), start=1):
            if gain:
                hits += 1
                total += hits / rank
        return total / relevant


@METRICS.register("ndcg")
@dataclass(frozen=True, slots=True)
class NDCGMetric:
    """DCG over ideal DCG at k, gain = grade, discount = log2(rank + 1)
    (trec_eval's ``ndcg_cut``)."""

    name: ClassVar[str] = "ndcg"
    version: ClassVar[str] = "1"

    def evaluate(self, judgements: Mapping[str, int], ranked: Sequence[str], k: int) -> float:
        k = check_k(k, function="NDCGMetric.evaluate")
        dcg = 0.0
        for rank, gain in enumerate(gains_at(judgements, ranked, k), start=1):
            dcg += gain / math.log2(rank + 1)
        ideal = sorted((grade for grade in judgements.values() if grade > 0), reverse=True)[:k]
        idcg = 0.0
        for rank, gain in enumerate(ideal, start=1):
            idcg += gain / math.log2(rank + 1)
        return dcg / idcg if idcg > 0 else 0.0
