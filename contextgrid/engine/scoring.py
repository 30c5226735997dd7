"""evaluate(), per_query() and mean_rank_of_first_relevant(): scoring whole runs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from contextgrid.core.checks import check_k, check_ks
from contextgrid.core.errors import parameter_error
from contextgrid.core.log import WarningLog
from contextgrid.data.frames import ArrowStream, FrameColumns, tables_from_frames
from contextgrid.engine.grades import FloatArray, RankedGrades, build_ranked_grades
from contextgrid.engine.kernels import KERNELS
from contextgrid.metrics.base import BUILTIN_METRICS, DEFAULT_KS, METRICS, Metric, Qrels

__all__ = [
    "evaluate",
    "first_relevant_ranks",
    "mean_rank_of_first_relevant",
    "mean_scores",
    "per_query",
    "ranked_grades",
    "score_questions",
]


def ranked_grades(qrels: Qrels, run: Mapping[str, Sequence[str]], depth: int | None) -> RankedGrades:
    """The ranked-grade matrix of the scored questions, ``depth`` ranks deep (``None``: all),
    straight from the columns when both inputs are tables.

    Only when both are: a table cannot hold a repeated chunk id at all, while the
    dict path refuses repeats only for the questions it scores.
    """
    from contextgrid.data.tables import QrelsTable, RunTable

    if isinstance(qrels, QrelsTable) and isinstance(run, RunTable):
        from contextgrid.engine.columns import ranked_grades_from_tables

        return ranked_grades_from_tables(qrels, run, depth)
    return build_ranked_grades(qrels, run, depth)


def resolve_metrics(metrics: object, *, function: str) -> list[type[Metric]]:
    if isinstance(metrics, (str, bytes)) or not isinstance(metrics, Iterable):
        raise parameter_error(function, "metrics", "a sequence of registered metric names", metrics)
    names = list(metrics)
    if not names:
        raise parameter_error(function, "metrics", "a non-empty sequence of registered metric names", metrics)
    return [METRICS.get(name) for name in dict.fromkeys(names)]


def score_questions(
    metric: type[Metric], batch: RankedGrades, qrels: Qrels, run: Mapping[str, Sequence[str]], k: int
) -> FloatArray:
    """One score per scored question: the whole-run kernel when the metric has one,
    else the metric's own per-question ``evaluate``."""
    kernel = KERNELS.get(metric)
    if kernel is not None:
        return kernel(batch, k)
    instance = metric()
    empty: Sequence[str] = ()
    return np.fromiter(
        (float(instance.evaluate(qrels[q], run.get(q, empty), k)) for q in batch.question_ids),
        dtype=np.float64,
        count=len(batch),
    )


_COLUMNS = FrameColumns()


def evaluate(
    qrels: Qrels | ArrowStream,
    run: Mapping[str, Sequence[str]] | ArrowStream,
    *,
    ks: Sequence[int] = DEFAULT_KS,
    metrics: Sequence[str] = BUILTIN_METRICS,
    warnings: WarningLog | None = None,
    columns: FrameColumns = _COLUMNS,
) -> dict[str, float]:
    """Score every metric at every cut-off, averaged over the questions with a relevant chunk.

    Parameters
    ----------
    qrels : mapping or frame
        ``{question_id: {chunk_id: grade}}``, or a frame (pandas, pyarrow, or
        anything with ``__arrow_c_stream__``) of ``question_id``, ``chunk_id``
        and ``grade`` columns. Questions with no grade above 0 are left out of
        every mean.
    run : mapping or frame
        ``{question_id: [chunk_id, ...]}``, best first, or a frame of
        ``question_id``, ``chunk_id`` and ``score`` (higher first, ties by
        chunk id descending, as trec_eval) or ``rank`` (1 first) columns. A
        scored question the run never answered scores 0.0.
    ks : sequence of int, default DEFAULT_KS
        Cut-offs, each at least 1.
    metrics : sequence of str, default the six built-ins
        Registered metric names, without ``@k``.
    warnings : WarningLog, optional
        Receives an entry for every metric that raised and was left out.
    columns : FrameColumns, default FrameColumns()
        The frames' column names, when they are not the ones above.

    Returns
    -------
    dict
        ``{"metric@k": score}``, metric-major, plain floats; ``{}`` when no
        question has a relevant chunk.

    Examples
    --------
    >>> import contextgrid as cg
    >>> qrels = {"q1": {"c1": 2, "c2": 1, "c3": 0}, "q2": {"c4": 2}}
    >>> run = {"q1": ["c3", "c1", "c5", "c2"], "q2": ["c9", "c4", "c1"]}
    >>> cg.evaluate(qrels, run, ks=[1, 3], metrics=["recall", "ndcg"])
    {'recall@1': 0.0, 'recall@3': 0.75, 'ndcg@1': 0.0, 'ndcg@3': 0.5552773433538603}
    """
    cutoffs = check_ks(ks, function="evaluate")
    resolved = resolve_metrics(metrics, function="evaluate")
    judged, ranked = tables_from_frames(qrels, run, columns, function="evaluate")
    return mean_scores(resolved, ranked_grades(judged, ranked, max(cutoffs)), judged, ranked, cutoffs, warnings)


def mean_scores(
    metrics: Sequence[type[Metric]],
    batch: RankedGrades,
    qrels: Qrels,
    run: Mapping[str, Sequence[str]],
    ks: Sequence[int],
    warnings: WarningLog | None = None,
) -> dict[str, float]:
    """:func:`evaluate`'s result from a ranked-grade matrix at least ``max(ks)`` deep, with
    ``metrics`` and ``ks`` already checked.

    A deeper matrix gives the same numbers: every score at k reads the first k columns only.
    """
    if len(batch) == 0:
        return {}
    scores: dict[str, float] = {}
    for metric in metrics:
        try:
            columns = {k: score_questions(metric, batch, qrels, run, k) for k in ks}
        except Exception as error:  # a plugin's failure is reported, not allowed to sink the run
            if warnings is not None:
                warnings.caution(
                    "score",
                    metric.name,
                    f"the {metric.name!r} metric raised {error!r} and was left out of this run's results "
                    "rather than silently scoring zero",
                )
            continue
        scores.update({f"{metric.name}@{k}": float(np.mean(column)) for k, column in columns.items()})
    return scores


def per_query(
    qrels: Qrels | ArrowStream,
    run: Mapping[str, Sequence[str]] | ArrowStream,
    metric: str,
    k: int,
    *,
    columns: FrameColumns = _COLUMNS,
) -> dict[str, float]:
    """One metric at one cut-off, for each question with a relevant chunk.

    ``qrels`` and ``run`` are dicts or frames, as :func:`evaluate` takes them.

    Examples
    --------
    >>> import contextgrid as cg
    >>> qrels = {"q1": {"c1": 2, "c2": 1, "c3": 0}, "q2": {"c4": 2}, "q3": {"c7": 0}}
    >>> run = {"q1": ["c3", "c1", "c5", "c2"], "q2": ["c9", "c4", "c1"]}
    >>> cg.per_query(qrels, run, "recall", 3)
    {'q1': 0.5, 'q2': 1.0}
    """
    cutoff = check_k(k, function="per_query")
    if not isinstance(metric, str):
        raise parameter_error("per_query", "metric", "a registered metric name (a str)", metric)
    resolved = METRICS.get(metric)
    judged, ranked = tables_from_frames(qrels, run, columns, function="per_query")
    batch = ranked_grades(judged, ranked, cutoff)
    column = score_questions(resolved, batch, judged, ranked, cutoff)
    return dict(zip(batch.question_ids, column.tolist(), strict=True))


def mean_rank_of_first_relevant(
    qrels: Qrels | ArrowStream,
    run: Mapping[str, Sequence[str]] | ArrowStream,
    *,
    warnings: WarningLog | None = None,
    columns: FrameColumns = _COLUMNS,
) -> float | None:
    """Mean 1-based rank of the first relevant chunk, over the whole ranking.

    Only questions with a relevant chunk count, as in :func:`evaluate`. A
    question whose ranking holds no relevant chunk at all has no such rank:
    it is left out of the mean and counted in a ``warnings`` entry, since a
    mean over the successes alone flatters a run that misses often. ``None``
    when no question found a relevant chunk. ``qrels`` and ``run`` are dicts
    or frames, as :func:`evaluate` takes them.

    Examples
    --------
    >>> import contextgrid as cg
    >>> qrels = {"q1": {"c1": 2}, "q2": {"c4": 2}, "q3": {"c8": 1}}
    >>> run = {"q1": ["c3", "c1"], "q2": ["c4"], "q3": ["c9"]}
    >>> log = cg.WarningLog()
    >>> cg.mean_rank_of_first_relevant(qrels, run, warnings=log)
    1.5
    >>> print(log.entries[0])
    CAUTION [score] (mean_rank_of_first_relevant): 1 of 3 questions retrieved no relevant chunk and are not in this mean
    """
    judged, ranked = tables_from_frames(qrels, run, columns, function="mean_rank_of_first_relevant")
    batch = ranked_grades(judged, ranked, None)
    found = np.isfinite(batch.first_hit)
    missed = len(batch) - int(found.sum())
    if missed and warnings is not None:
        warnings.caution(
            "score",
            "mean_rank_of_first_relevant",
            f"{missed} of {len(batch)} questions retrieved no relevant chunk and are not in this mean",
        )
    if not found.any():
        return None
    return float(np.mean(batch.first_hit[found]))


def first_relevant_ranks(
    qrels: Qrels | ArrowStream,
    run: Mapping[str, Sequence[str]] | ArrowStream,
    *,
    columns: FrameColumns = _COLUMNS,
) -> dict[str, int | None]:
    """The 1-based rank of each scored question's first relevant chunk, ``None`` where none came back; ``qrels``
    and ``run`` are dicts or frames, as :func:`evaluate` takes them.

    Examples
    --------
    >>> import contextgrid as cg
    >>> cg.first_relevant_ranks({"q1": {"c1": 2}, "q2": {"c4": 1}, "q3": {}}, {"q1": ["x", "c1"], "q2": ["y"]})
    {'q1': 2, 'q2': None}
    """
    judged, ranked = tables_from_frames(qrels, run, columns, function="first_relevant_ranks")
    batch = ranked_grades(judged, ranked, None)
    return {
        question: int(rank) if np.isfinite(rank) else None
        for question, rank in zip(batch.question_ids, batch.first_hit.tolist(), strict=True)
    }
