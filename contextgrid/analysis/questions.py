"""Question-level views of a run: which questions fail, what came back for one, and
what changed between two configurations.

Every number comes from :func:`contextgrid.per_query` and
:func:`contextgrid.first_relevant_ranks`; this module only lays them out as
tables, so the dashboard and a notebook show the same thing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from contextgrid.core.checks import TIE_TOLERANCE, check_k
from contextgrid.core.errors import ContextGridError
from contextgrid.data.records import Chunk
from contextgrid.engine.scoring import ranked_grades, score_questions
from contextgrid.metrics.base import BUILTIN_METRICS, METRICS, Qrels

__all__ = [
    "failing_configurations",
    "filter_questions",
    "question_changes",
    "question_scores",
    "ranked_list",
    "shared_scores",
]


def question_scores(
    qrels: Qrels,
    run: Mapping[str, Sequence[str]],
    k: int,
    *,
    metrics: Sequence[str] = BUILTIN_METRICS,
) -> pd.DataFrame:
    """Every metric at ``k`` for each scored question, worst first.

    Columns: one per ``metric@k``, then ``first_relevant_rank`` (over the whole
    ranking; missing where no relevant chunk came back) and ``failing`` (no
    relevant chunk in the top ``k``). Rows are sorted by ``failing`` first,
    then by the first metric ascending, then by question id.

    Examples
    --------
    >>> from contextgrid.analysis.questions import question_scores
    >>> qrels = {"q1": {"c1": 2}, "q2": {"c4": 1}, "q3": {"c7": 2}}
    >>> run = {"q1": ["x", "c1"], "q2": ["c4"], "q3": ["y"]}
    >>> question_scores(qrels, run, 1, metrics=["recall", "mrr"])
              recall@1  mrr@1  first_relevant_rank  failing
    question
    q1             0.0    0.0                    2     True
    q3             0.0    0.0                 <NA>     True
    q2             1.0    1.0                    1    False
    """
    cutoff = check_k(k, function="question_scores")
    if isinstance(metrics, str) or not metrics:
        raise ContextGridError(f"question_scores: metrics must be a non-empty sequence of names, got {metrics!r}")
    # One ranked-grade matrix, the whole ranking deep, serves every metric at k and the first relevant rank.
    batch = ranked_grades(qrels, run, None)
    columns = {
        f"{metric}@{cutoff}": score_questions(METRICS.get(metric), batch, qrels, run, cutoff)
        for metric in dict.fromkeys(metrics)
    }
    frame = pd.DataFrame(columns, index=pd.Index(batch.question_ids, name="question"), dtype="float64")
    found = np.isfinite(batch.first_hit)
    frame["first_relevant_rank"] = pd.array(
        [int(rank) if hit else None for rank, hit in zip(batch.first_hit.tolist(), found.tolist(), strict=True)],
        dtype="Int64",
    )
    frame["failing"] = batch.first_hit > cutoff
    first = next(iter(columns))
    frame["_question"] = frame.index
    ordered = frame.sort_values(["failing", first, "_question"], ascending=[False, True, True], kind="stable")
    return ordered.drop(columns="_question")


def filter_questions(
    table: pd.DataFrame,
    *,
    label: str | None = None,
    at_most: float = 1.0,
    failing_only: bool = False,
    contains: str = "",
) -> pd.DataFrame:
    """Rows of a :func:`question_scores` table: ``label`` at most ``at_most``, only
    failing ones, and/or question ids containing ``contains`` (case-insensitive).

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.analysis.questions import filter_questions
    >>> table = pd.DataFrame(
    ...     {"mrr@5": [0.0, 0.5, 1.0], "failing": [True, False, False]}, index=["refund-1", "refund-2", "ship-1"]
    ... )
    >>> list(filter_questions(table, label="mrr@5", at_most=0.5, contains="REFUND").index)
    ['refund-1', 'refund-2']
    >>> list(filter_questions(table, failing_only=True).index)
    ['refund-1']
    """
    keep = pd.Series(True, index=table.index)
    if label is not None:
        if label not in table.columns:
            raise ContextGridError(
                f"the table has no column {label!r}. Available: {', '.join(map(str, table.columns))}"
            )
        keep &= table[label] <= at_most
    if failing_only:
        keep &= table["failing"].astype(bool)
    if contains:
        keep &= table.index.astype(str).str.contains(contains, case=False, regex=False)
    return table[keep]


def ranked_list(
    judgements: Mapping[str, int],
    ranked: Sequence[str],
    *,
    chunks: Mapping[str, Chunk] | None = None,
    depth: int | None = None,
) -> pd.DataFrame:
    """What one question's run returned: rank, chunk id, grade, whether it is relevant, and its text.

    ``grade`` is the qrels grade, missing for a chunk the qrels never judged;
    ``text`` is the chunk's text when ``chunks`` holds it.

    Examples
    --------
    >>> from contextgrid.analysis.questions import ranked_list
    >>> ranked_list({"c1": 2, "c3": 0}, ["c3", "c1", "c9"])
          chunk_id  grade  relevant  text
    rank
    1           c3      0     False  <NA>
    2           c1      2      True  <NA>
    3           c9   <NA>     False  <NA>
    """
    shown = list(ranked if depth is None else ranked[: check_k(depth, function="ranked_list", parameter="depth")])
    grades = pd.array([judgements.get(chunk_id) for chunk_id in shown], dtype="Int64")
    texts = [chunks[c].text if chunks is not None and c in chunks else None for c in shown]
    return pd.DataFrame(
        {
            "chunk_id": shown,
            "grade": grades,
            "relevant": [judgements.get(chunk_id, 0) > 0 for chunk_id in shown],
            "text": pd.array(texts, dtype="string"),
        },
        index=pd.RangeIndex(1, len(shown) + 1, name="rank"),
    )


def failing_configurations(per_question: pd.DataFrame, question: str) -> list[str]:
    """The configurations (columns of a ``hit_rate@k`` question x configuration table,
    as ``Workspace.per_query`` gives) that return no relevant chunk for ``question``."""
    if question not in per_question.index:
        raise ContextGridError(f"question {question!r} is not scored in this table")
    row = per_question.loc[question]
    return [str(config) for config, value in row.items() if value == 0.0]


def question_changes(per_question: pd.DataFrame, a: str, b: str, *, tolerance: float = TIE_TOLERANCE) -> pd.DataFrame:
    """Configuration ``a`` against ``b`` question by question, biggest changes first.

    ``per_question`` is a question x configuration table of one metric@k (as
    ``Workspace.per_query`` gives). Columns: ``a``, ``b``, ``delta`` (a - b) and
    ``outcome``: ``"win"`` where ``a`` is higher by more than ``tolerance``,
    ``"loss"`` where lower, else ``"tie"``. Questions either side does not
    score are left out. Rows are sorted by ``|delta|`` descending, then id.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.analysis.questions import question_changes
    >>> table = pd.DataFrame({"A": [1.0, 0.5, 0.0], "B": [0.0, 0.5, 0.25]}, index=["q1", "q2", "q3"])
    >>> question_changes(table, "A", "B")
          A     B  delta outcome
    q1  1.0  0.00   1.00     win
    q3  0.0  0.25  -0.25    loss
    q2  0.5  0.50   0.00     tie
    """
    for name in (a, b):
        if name not in per_question.columns:
            raise ContextGridError(
                f"no configuration named {name!r} in this table. Available: {', '.join(map(str, per_question.columns))}"
            )
    if a == b:
        raise ContextGridError(f"compare two different configurations, got {a!r} twice")
    pair = per_question[[a, b]].dropna()
    delta = pair[a] - pair[b]
    outcome = pd.Series("tie", index=pair.index)
    outcome[delta > tolerance] = "win"
    outcome[delta < -tolerance] = "loss"
    changes = pd.DataFrame({a: pair[a], b: pair[b], "delta": delta, "outcome": outcome})
    changes["_size"] = delta.abs()
    changes["_question"] = changes.index
    ordered = changes.sort_values(["_size", "_question"], ascending=[False, True], kind="stable")
    return ordered.drop(columns=["_size", "_question"])


def shared_scores(per_question: pd.DataFrame, configs: Sequence[str]) -> dict[str, dict[str, float]]:
    """``{config: {question: score}}`` over the questions every one of ``configs`` scores,
    the shape the paired tests of :mod:`contextgrid.significance` take.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.analysis.questions import shared_scores
    >>> table = pd.DataFrame({"A": [1.0, None], "B": [0.5, 0.25]}, index=["q1", "q2"])
    >>> shared_scores(table, ["A", "B"])
    {'A': {'q1': 1.0}, 'B': {'q1': 0.5}}
    """
    missing = [name for name in configs if name not in per_question.columns]
    if missing:
        raise ContextGridError(
            f"no configuration named {', '.join(map(repr, missing))} in this table. "
            f"Available: {', '.join(map(str, per_question.columns))}"
        )
    both = per_question[list(configs)].dropna()
    return {name: {str(q): float(v) for q, v in both[name].items()} for name in configs}
