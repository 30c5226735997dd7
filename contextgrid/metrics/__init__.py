"""Metric plugins: the registry, the protocol and the six built-ins."""

from __future__ import annotations

from contextgrid.metrics.base import BUILTIN_METRICS, DEFAULT_K, DEFAULT_KS, METRICS, Metric, Qrels, Run
from contextgrid.metrics.builtin import (
    HitRateMetric,
    MAPMetric,
    MRRMetric,
    NDCGMetric,
    PrecisionMetric,
    RecallMetric,
)

__all__ = [
    "BUILTIN_METRICS",
    "DEFAULT_K",
    "DEFAULT_KS",
    "METRICS",
    "HitRateMetric",
    "MAPMetric",
    "MRRMetric",
    "Metric",
    "NDCGMetric",
    "PrecisionMetric",
    "Qrels",
    "RecallMetric",
    "Run",
    "available_metrics",
    "get_metric",
]


def get_metric(name: str) -> Metric:
    """The metric registered under the plain name ``name``, ready to call.

    Examples
    --------
    >>> import contextgrid as cg
    >>> cg.get_metric("recall")
    RecallMetric()
    >>> cg.get_metric("recall").evaluate({"c1": 2, "c2": 1}, ["c1", "x"], 1)
    0.5
    """
    return METRICS.get(name)()


def available_metrics() -> tuple[str, ...]:
    """Every registered metric name, sorted."""
    return METRICS.names()
