"""Scoring runs too big for one process's memory with Dask: the rows are shuffled by question, so that each
partition holds whole questions of both the run and the qrels, and each partition is scored with the columnar
engine that :func:`contextgrid.evaluate` uses.

Every rule of the Metrics page holds, since each question is scored by the
same code: a repeated chunk id in a question's ranking is refused with the
question named, a judged question the run does not answer scores 0, a
question with no grade above 0 is left out. The means are then taken over the
questions in the order the qrels first name them, as the in-memory engine
takes them, so the numbers are the same to the last bit.

Rows keep their file order within a question (a global row number is carried
through the shuffle), so a run without scores or ranks is ranked in file
order, as :func:`contextgrid.io.read_run` ranks it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from contextgrid.core.checks import check_ks
from contextgrid.core.errors import ContextGridError, RowError, parameter_error
from contextgrid.core.log import WarningLog
from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.engine.counts import QuestionCounts, question_counts
from contextgrid.engine.scoring import ranked_grades, resolve_metrics, score_questions
from contextgrid.io.named import ALIASES
from contextgrid.metrics.base import BUILTIN_METRICS, DEFAULT_KS, Metric

if TYPE_CHECKING:
    import dask.dataframe as dd
    import pandas as pd

__all__ = ["DaskEvaluation", "evaluate_dask", "per_question_dask"]

_ROW = "_row"
_FIRST = "_first_row"
_FAILED = "_failed"
_COUNTS = ("scored", "unanswered", "left_out", "not_judged")


@dataclass(frozen=True, slots=True)
class DaskEvaluation:
    """What :func:`evaluate_dask` computes: ``evaluate()``'s scores, and how many questions they are over."""

    scores: dict[str, float]
    counts: QuestionCounts


def _dask() -> Any:
    try:
        import dask.dataframe as dd
    except ImportError:
        raise ContextGridError(
            "the Dask engine needs Dask: pip install 'contextgrid[dask]' (dask[distributed])"
        ) from None
    return dd


def _frame(given: object, role: str, fields: Sequence[str], required: Sequence[str]) -> dd.DataFrame:
    """``given`` (Parquet paths, or a Dask DataFrame) with its columns found by name and renamed to ``fields``."""
    frames = _dask()
    if isinstance(given, frames.DataFrame):
        frame = given
    elif isinstance(given, (str, os.PathLike)) or (
        isinstance(given, Sequence) and all(isinstance(path, (str, os.PathLike)) for path in given)
    ):
        paths = [os.fspath(given)] if isinstance(given, (str, os.PathLike)) else [os.fspath(path) for path in given]
        try:
            frame = frames.read_parquet(paths)
        except (OSError, ValueError) as error:
            raise ContextGridError(f"the {role} {paths!r}: expected Parquet files ({error})") from None
    else:
        raise parameter_error("evaluate_dask", role, "Parquet paths or a dask DataFrame", given)
    renames: dict[str, str] = {}
    for field in fields:
        present = [name for name in ALIASES[field] if name in frame.columns]
        if len(present) > 1:
            raise ContextGridError(f"the {role} has {len(present)} columns for {field}: {present}; expected one")
        if present:
            renames[present[0]] = field
        elif field in required:
            spellings = ", ".join(repr(name) for name in ALIASES[field])
            raise ContextGridError(f"the {role} has no column named {spellings} (columns: {list(frame.columns)})")
    frame = frame[list(renames)].rename(columns=renames)
    for field in ("question_id", "chunk_id"):
        kind = frame[field].dtype
        if kind.kind not in "OUiu" and str(kind) not in {"string", "string[pyarrow]", "large_string[pyarrow]"}:
            raise ContextGridError(f"the {role}'s {field} column holds {kind}; ids are text (or whole numbers)")
        # One string type on both sides, so that a question hashes to the same partition in the run and the qrels.
        frame[field] = frame[field].astype("string[pyarrow]")
    # The row's place in the whole input: the shuffle does not keep the order of rows, and ranking ties do.
    numbered: dd.DataFrame = frame.assign(**{_ROW: frame.assign(_one=1)["_one"].cumsum() - 1})
    return numbered


def _column(part: pd.DataFrame, name: str) -> Any:
    """A partition's column as a pyarrow array, as the tables take it (no Python object per row)."""
    import pyarrow as pa

    return pa.Array.from_pandas(part[name])


@contextmanager
def _rows_named(role: str, part: pd.DataFrame) -> Iterator[None]:
    """A bad row named by its place in the whole input (1-based, counting every file in order), not the
    partition's."""
    try:
        yield
    except RowError as error:
        row = int(part[_ROW].iloc[error.row]) + 1
        raise ContextGridError(f"the {role}, row {row}: {error.expected}: {error.text!r}") from None


def _tables(run_part: pd.DataFrame, qrels_part: pd.DataFrame) -> tuple[RunTable, QrelsTable, pd.Series]:
    """One partition's rows as the in-memory engine's tables, in file order; and each question's first qrels row."""
    run_part = run_part.sort_values(_ROW, kind="stable")
    qrels_part = qrels_part.sort_values(_ROW, kind="stable")
    with _rows_named("run", run_part):
        run = RunTable.from_columns(
            _column(run_part, "question_id"),
            _column(run_part, "chunk_id"),
            rank=_column(run_part, "rank") if "rank" in run_part and "score" not in run_part else None,
            score=_column(run_part, "score") if "score" in run_part else None,
        )
    with _rows_named("qrels", qrels_part):
        qrels = QrelsTable.from_columns(
            _column(qrels_part, "question_id"), _column(qrels_part, "chunk_id"), _column(qrels_part, "grade")
        )
    first = qrels_part.groupby("question_id", sort=False, observed=True)[_ROW].min()
    return run, qrels, first


def _score_partition(
    run_part: pd.DataFrame, qrels_part: pd.DataFrame, metrics: Sequence[type[Metric]], ks: Sequence[int]
) -> pd.DataFrame:
    """The per-question scores of one partition (index ``question_id``), each question's first qrels row, and the
    metrics that raised here."""
    import pandas as pd

    run, qrels, first = _tables(run_part, qrels_part)
    batch = ranked_grades(qrels, run, max(ks))
    columns: dict[str, Any] = {}
    failed: list[str] = []
    for metric in metrics:
        try:
            columns.update({f"{metric.name}@{k}": score_questions(metric, batch, qrels, run, k) for k in ks})
        except Exception:  # as evaluate() does: a plugin that raises is left out and reported
            failed.append(metric.name)
            columns.update({f"{metric.name}@{k}": np.full(len(batch), np.nan) for k in ks})
    frame = pd.DataFrame(columns, index=pd.Index(batch.question_ids, name="question_id", dtype="string[pyarrow]"))
    frame.insert(0, _FIRST, first.reindex(frame.index).to_numpy(dtype=np.int64))
    frame[_FAILED] = ",".join(failed)
    return frame


def _count_partition(run_part: pd.DataFrame, qrels_part: pd.DataFrame) -> pd.DataFrame:
    import pandas as pd

    run, qrels, _ = _tables(run_part, qrels_part)
    counts = question_counts(qrels, run)
    return pd.DataFrame({name: [getattr(counts, name)] for name in _COUNTS})


def _shuffled(qrels: object, run: object, partitions: int | None) -> tuple[dd.DataFrame, dd.DataFrame]:
    run_frame = _frame(run, "run", ("question_id", "chunk_id", "rank", "score"), ("question_id", "chunk_id"))
    qrels_frame = _frame(qrels, "qrels", ("question_id", "chunk_id", "grade"), ("question_id", "chunk_id", "grade"))
    count = partitions if partitions is not None else max(run_frame.npartitions, qrels_frame.npartitions)
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise parameter_error("evaluate_dask", "partitions", "an int >= 1", partitions)
    # The same hash of the question on both sides: partition i of the run and of the qrels hold the same questions.
    return qrels_frame.shuffle("question_id", npartitions=count), run_frame.shuffle("question_id", npartitions=count)


def _meta(labels: Sequence[str]) -> pd.DataFrame:
    import pandas as pd

    meta = pd.DataFrame({_FIRST: pd.Series(dtype=np.int64)})
    for label in labels:
        meta[label] = pd.Series(dtype=np.float64)
    meta[_FAILED] = pd.Series(dtype="string[pyarrow]")
    meta.index = pd.Index([], name="question_id", dtype="string[pyarrow]")
    return meta


def _scored(
    qrels: object, run: object, ks: Sequence[int], metrics: Sequence[str], partitions: int | None, function: str
) -> tuple[dd.DataFrame, dd.DataFrame, list[type[Metric]], tuple[int, ...]]:
    frames = _dask()
    cutoffs = check_ks(ks, function=function)
    resolved = resolve_metrics(metrics, function=function)
    qrels_parts, run_parts = _shuffled(qrels, run, partitions)
    labels = [f"{metric.name}@{k}" for metric in resolved for k in cutoffs]
    scores = frames.map_partitions(
        _score_partition, run_parts, qrels_parts, resolved, cutoffs, meta=_meta(labels), align_dataframes=False
    )
    counts = frames.map_partitions(
        _count_partition, run_parts, qrels_parts, meta=dict.fromkeys(_COUNTS, np.int64), align_dataframes=False
    )
    return scores, counts, resolved, cutoffs


@contextmanager
def _scheduler(address: str | None) -> Iterator[None]:
    """Compute on the cluster at ``address`` for the duration, or on Dask's current scheduler."""
    if address is None:
        yield
        return
    try:
        from distributed import Client
    except ImportError:
        raise ContextGridError(
            "a scheduler address needs Dask's distributed: pip install 'contextgrid[dask]'"
        ) from None
    try:
        client = Client(address, timeout="30s")  # type: ignore[no-untyped-call]
    except OSError as error:
        raise ContextGridError(f"cannot reach the Dask scheduler at {address!r} ({error})") from None
    with client:
        yield


def evaluate_dask(
    qrels: object,
    run: object,
    *,
    ks: Sequence[int] = DEFAULT_KS,
    metrics: Sequence[str] = BUILTIN_METRICS,
    partitions: int | None = None,
    scheduler: str | None = None,
    warnings: WarningLog | None = None,
) -> DaskEvaluation:
    """:func:`contextgrid.evaluate` for a run and qrels that need not fit in memory, computed with Dask.

    Parameters
    ----------
    qrels, run : Parquet path(s) or dask DataFrame
        Columns named as in Parquet files (:mod:`contextgrid.io.named`): ``question_id``, ``chunk_id`` and
        ``grade``; ``question_id``, ``chunk_id`` and ``score`` or ``rank`` (else file order).
    ks, metrics, warnings
        As for :func:`contextgrid.evaluate`.
    partitions : int, optional
        How many partitions to shuffle the questions into (default: the larger input's count).
    scheduler : str, optional
        The address of a Dask scheduler (``tcp://host:8786``); default: Dask's current scheduler (a
        ``distributed.Client`` already made, or Dask's local threads).

    Returns
    -------
    DaskEvaluation
        ``scores`` equal to ``evaluate()``'s on the same rows, and the question counts behind them.
    """
    frames = _dask()
    per_question, counts, resolved, cutoffs = _scored(qrels, run, ks, metrics, partitions, "evaluate_dask")
    with _scheduler(scheduler):
        table, counted = frames.compute(per_question, counts)
    totals = QuestionCounts(**{name: int(counted[name].sum()) for name in _COUNTS})
    failed = set(",".join(table[_FAILED].tolist()).split(",")) - {""}
    # The questions in the order the qrels first name them: the in-memory engine's order, so its means exactly.
    ordered = table.sort_values(_FIRST, kind="stable")
    scores: dict[str, float] = {}
    if len(ordered):
        for metric in resolved:
            if metric.name in failed:
                if warnings is not None:
                    warnings.caution(
                        "score",
                        metric.name,
                        f"the {metric.name!r} metric raised on some questions and was left out of this run's "
                        "results rather than silently scoring zero",
                    )
                continue
            for k in cutoffs:
                label = f"{metric.name}@{k}"
                scores[label] = float(np.mean(ordered[label].to_numpy()))
    return DaskEvaluation(scores, totals)


def per_question_dask(
    qrels: object,
    run: object,
    *,
    ks: Sequence[int] = DEFAULT_KS,
    metrics: Sequence[str] = BUILTIN_METRICS,
    partitions: int | None = None,
) -> dd.DataFrame:
    """Every ``metric@k`` of every scored question, as a lazy dask DataFrame (index ``question_id``): what
    :func:`contextgrid.per_query` gives, one metric@k a column, for runs that need not fit in memory.

    Nothing is computed until asked (``.compute()``, ``.to_parquet(...)``); a metric that raises on a partition
    gives ``NaN`` there.
    """
    per_question, _, _, _ = _scored(qrels, run, ks, metrics, partitions, "per_question_dask")
    scores: dd.DataFrame = per_question.drop(columns=[_FIRST, _FAILED])
    return scores
