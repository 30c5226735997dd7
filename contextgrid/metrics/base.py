"""What a metric is: the per-question protocol every metric plugin follows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar, Protocol, runtime_checkable

from contextgrid.core.registry import Registry

__all__ = ["BUILTIN_METRICS", "DEFAULT_K", "DEFAULT_KS", "METRICS", "Metric", "Qrels", "Run"]

Qrels = Mapping[str, Mapping[str, int]]
"""``{question_id: {chunk_id: grade}}``; a grade above 0 marks a relevant chunk."""

Run = Mapping[str, Sequence[str]]
"""``{question_id: [chunk_id, ...]}``, best first."""

DEFAULT_KS: tuple[int, ...] = (1, 3, 5, 10, 20)

DEFAULT_K = 5
"""The one cut-off every view starts at when none is chosen: the dashboard's pages, ``contextgrid diagnose``,
``contextgrid report`` and :func:`~contextgrid.render.report.build_report`; so a page and the command line count
the same causes. One of :data:`DEFAULT_KS`."""

BUILTIN_METRICS: tuple[str, ...] = ("recall", "precision", "hit_rate", "mrr", "map", "ndcg")
"""The metrics ``evaluate()`` scores when ``metrics=`` is not given, in output order."""


@runtime_checkable
class Metric(Protocol):
    """A metric scores one question's ranking at one cut-off.

    ``judgements`` maps chunk id to grade for the question, ``ranked`` is the
    run's chunk ids best first, and ``k`` (1 or more) is the cut-off.
    """

    name: ClassVar[str]
    version: ClassVar[str]

    def evaluate(self, judgements: Mapping[str, int], ranked: Sequence[str], k: int) -> float: ...


METRICS: Registry[type[Metric]] = Registry("metric")
