"""The regression gate over a workspace, or over a qrels file and two run files: each gated ``metric@k`` tested
with :func:`~contextgrid.significance.gate.gate`, and the questions that went from hit to miss, with their
causes where the workspace has the evidence (:func:`~contextgrid.workspace.causes.failure_causes`)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from contextgrid.core.errors import ContextGridError, parameter_error
from contextgrid.metrics.labels import parse_label
from contextgrid.significance.gate import GateResult, gate

if TYPE_CHECKING:
    import pandas as pd

    from contextgrid.workspace.model import Workspace

__all__ = ["LOST_COLUMNS", "GateReport", "gate_files", "gate_workspace"]

LOST_COLUMNS = ("question", "baseline", "candidate", "cause")
"""The columns of a :class:`GateReport`'s lost questions: the scores and the candidate's cause (empty without
the evidence)."""


@dataclass(frozen=True, slots=True)
class GateReport:
    """Every gated metric of one candidate against one baseline.

    ``results`` holds one :class:`~contextgrid.significance.gate.GateResult` per metric, in the order asked;
    ``lost[metric]`` the questions that went from hit (a score above 0) to miss (0) on it, with
    :data:`LOST_COLUMNS`; ``causes`` says whether their causes could be named (the workspace has questions,
    documents and chunks), and ``missing`` what it lacks otherwise.
    """

    baseline: str
    candidate: str
    results: tuple[GateResult, ...]
    lost: Mapping[str, pd.DataFrame]
    causes: bool
    missing: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.results:
            raise ContextGridError("GateReport: needs at least one gated metric")
        object.__setattr__(self, "results", tuple(self.results))
        object.__setattr__(self, "lost", MappingProxyType(dict(self.lost)))
        if set(self.lost) != {r.metric for r in self.results}:
            raise ContextGridError("GateReport: lost must hold one table per gated metric")

    @property
    def passed(self) -> bool:
        """Whether every gated metric passed."""
        return all(result.passed for result in self.results)


def _labels(metrics: object, function: str) -> list[tuple[str, int]]:
    if isinstance(metrics, str) or not isinstance(metrics, Sequence) or not metrics:
        raise parameter_error(function, "metrics", "a non-empty sequence of labels like 'recall@5'", metrics)
    return [parse_label(str(label)) for label in dict.fromkeys(metrics)]


def _lost(base: Mapping[str, float], candidate: Mapping[str, float], causes: Mapping[str, str]) -> pd.DataFrame:
    import pandas as pd

    frame = pd.DataFrame({"baseline": pd.Series(base, dtype=float), "candidate": pd.Series(candidate, dtype=float)})
    lost = frame[(frame["baseline"] > 0.0) & (frame["candidate"] == 0.0)].copy()
    lost["cause"] = [causes.get(str(q), "") for q in lost.index]
    lost.index.name = "question"
    return lost.reset_index()[list(LOST_COLUMNS)]


def _report(
    scores: Mapping[str, tuple[Mapping[str, float], Mapping[str, float]]],
    causes: Mapping[str, Mapping[str, str]],
    names: tuple[str, str],
    options: Mapping[str, Any],
    evidence: tuple[bool, tuple[str, ...]],
) -> GateReport:
    results, lost = [], {}
    for label, (base, candidate) in scores.items():
        results.append(gate(base, candidate, metric=label, names=names, **options))
        lost[label] = _lost(base, candidate, causes.get(label, {}))
    return GateReport(names[0], names[1], tuple(results), lost, causes=evidence[0], missing=evidence[1])


def gate_workspace(
    workspace: Workspace,
    *,
    baseline: str,
    candidate: str,
    metrics: Sequence[str] = ("recall@5",),
    **options: Any,
) -> GateReport:
    """Gate configuration ``candidate`` against ``baseline`` of ``workspace`` on each of ``metrics``.

    Parameters
    ----------
    workspace : Workspace
    baseline, candidate : str
        Two of its configurations.
    metrics : sequence of str, default ("recall@5",)
        ``metric@k`` labels, each gated on the questions both configurations score.
    **options
        ``max_drop``, ``alpha``, ``test``, ``require_proof``, ``n_resamples``, ``seed``: as for
        :func:`~contextgrid.significance.gate.gate`.

    Returns
    -------
    GateReport
        With the causes of the lost questions when the workspace has questions, documents and chunks.

    Examples
    --------
    >>> from contextgrid.workspace.manifest import load_workspace
    >>> report = gate_workspace(
    ...     load_workspace(HANDMADE), baseline="bm25-fixed-512", candidate="dense-fixed-512", metrics=["recall@5"]
    ... )
    >>> report.passed, report.causes, list(report.lost["recall@5"].columns)
    (True, False, ['question', 'baseline', 'candidate', 'cause'])
    """
    from contextgrid.analysis.questions import shared_scores

    function = "gate_workspace"
    labels = _labels(metrics, function)
    for name in (baseline, candidate):
        if not isinstance(name, str):
            raise parameter_error(function, "baseline/candidate", "configuration names (str)", name)
        workspace.config(name)  # an unknown name raises, naming the available ones
    if baseline == candidate:
        raise parameter_error(function, "candidate", "a configuration other than the baseline", candidate)
    names = (baseline, candidate)
    missing = workspace.missing_evidence(list(names))
    scores, causes = {}, {}
    for metric, k in labels:
        shared = shared_scores(workspace.per_query(metric, k), list(names))
        label = f"{metric}@{k}"
        scores[label] = (shared[baseline], shared[candidate])
        if not missing:
            from contextgrid.workspace.causes import failure_causes

            table = failure_causes(workspace, k=k, configs=[candidate])
            causes[label] = dict(zip(table["question"].astype(str), table["cause"].astype(str), strict=True))
    return _report(scores, causes, names, options, (not missing, missing))


def gate_files(
    qrels: str | os.PathLike[str],
    baseline_run: str | os.PathLike[str],
    candidate_run: str | os.PathLike[str],
    *,
    metrics: Sequence[str] = ("recall@5",),
    names: tuple[str, str] = ("baseline", "candidate"),
    read_limits: Mapping[str, Any] | None = None,
    **options: Any,
) -> GateReport:
    """Gate a candidate run against a baseline run, both scored on one qrels file, on each of ``metrics``.

    Without a workspace there are no documents or chunks, so the lost questions carry no cause. ``read_limits``
    (``max_bytes``, ``max_line_bytes``, ``max_ratio``) bound each file read, the readers' defaults otherwise;
    ``options`` are as for :func:`gate_workspace`.

    Examples
    --------
    >>> run = HANDMADE / "runs" / "bm25-fixed-512.trec"
    >>> report = gate_files(HANDMADE / "qrels.trec", run, run)
    >>> report.passed, report.results[0].comparison.difference, len(report.lost["recall@5"])
    (True, 0.0, 0)
    """
    from contextgrid.engine.scoring import per_query
    from contextgrid.io.runs import read_qrels, read_run

    labels = _labels(metrics, "gate_files")
    limit = dict(read_limits or {})
    judged = read_qrels(qrels, **limit)
    runs = (read_run(baseline_run, **limit), read_run(candidate_run, **limit))
    scores = {}
    for metric, k in labels:
        base, candidate = (per_query(judged, run, metric, k) for run in runs)
        scores[f"{metric}@{k}"] = (base, candidate)
    return _report(scores, {}, names, options, (False, ("documents", "questions", "chunks")))
