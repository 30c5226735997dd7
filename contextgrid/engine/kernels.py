"""Whole-run kernels for the built-in metrics, looked up by metric class.

Each kernel returns one score per scored question for one cut-off. A metric
class with no kernel here (any plugin) is scored through its own
per-question ``evaluate``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from contextgrid.engine.grades import FloatArray, RankedGrades
from contextgrid.metrics import builtin

__all__ = ["KERNELS", "Kernel"]

Kernel = Callable[[RankedGrades, int], FloatArray]

KERNELS: dict[type, Kernel] = {}


def kernel_for(metric: type) -> Callable[[Kernel], Kernel]:
    def decorator(function: Kernel) -> Kernel:
        KERNELS[metric] = function
        return function

    return decorator


@kernel_for(builtin.RecallMetric)
def _recall(batch: RankedGrades, k: int) -> FloatArray:
    return batch.at(batch.hits, k) / batch.relevant


@kernel_for(builtin.PrecisionMetric)
def _precision(batch: RankedGrades, k: int) -> FloatArray:
    return batch.at(batch.hits, k) / k


@kernel_for(builtin.HitRateMetric)
def _hit_rate(batch: RankedGrades, k: int) -> FloatArray:
    return (batch.first_hit <= k).astype(np.float64)


@kernel_for(builtin.MRRMetric)
def _mrr(batch: RankedGrades, k: int) -> FloatArray:
    return np.where(batch.first_hit <= k, 1.0 / batch.first_hit, 0.0)


@kernel_for(builtin.MAPMetric)
def _map(batch: RankedGrades, k: int) -> FloatArray:
    return batch.at(batch.precision_sums, k) / batch.relevant


@kernel_for(builtin.NDCGMetric)
def _ndcg(batch: RankedGrades, k: int) -> FloatArray:
    ideal = batch.at(batch.idcg, k)
    return np.divide(batch.at(batch.dcg, k), ideal, out=np.zeros(len(batch)), where=ideal > 0)
