"""The ranked-grade matrix built straight from a :class:`RunTable` and a :class:`QrelsTable`, by a join.

It is the same :class:`~contextgrid.engine.grades.RankedGrades` that
:func:`~contextgrid.engine.grades.build_ranked_grades` makes from dicts (same
rows, in the qrels order of the scored questions; same columns), without
building a Python list per question: only the run rows within the cut-off
are joined to the relevant judgements.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..tables import QrelsTable, RunTable
from .grades import IntArray, RankedGrades, _ideal_grades

__all__ = ["ranked_grades_from_tables"]


def _codes(table: Any) -> IntArray:
    """The question codes of a table's rows (indices into its ``question_ids``)."""
    chunks = table.column("question_id").chunks
    if not chunks:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate([chunk.indices.to_numpy(zero_copy_only=False) for chunk in chunks]).astype(np.int64)


def ranked_grades_from_tables(
    qrels: QrelsTable | Mapping[str, Mapping[str, int]],
    run: RunTable | Mapping[str, Any],
    depth: int | None,
) -> RankedGrades:
    """Lay out the scored questions of ``qrels`` against ``run``, ``depth`` ranks deep (``None``: all).

    Plain dicts are turned into tables first. A table never holds a repeated
    (question, chunk), so there are no repeats to refuse here.

    Examples
    --------
    >>> from contextgrid.tables import QrelsTable, RunTable
    >>> qrels = QrelsTable.from_dict({"q1": {"c1": 2, "c2": 1, "c3": 0}, "q2": {"c4": 2}, "q3": {"c5": 0}})
    >>> run = RunTable.from_dict({"q1": ["c3", "c1", "c5", "c2"], "q2": ["c9", "c4", "c1"]})
    >>> batch = ranked_grades_from_tables(qrels, run, 3)
    >>> batch.question_ids, batch.gains.tolist(), batch.ideal.tolist()
    (['q1', 'q2'], [[0, 2, 0], [0, 2, 0]], [[2, 1], [2, 0]])
    """
    import pyarrow as pa

    qrels = QrelsTable.from_dict(qrels)
    run = RunTable.from_dict(run)
    owner = _codes(qrels.table)
    grades = qrels.table.column("grade").to_numpy().astype(np.int64)
    n_all = len(qrels)
    relevant_all = np.bincount(owner, weights=grades > 0, minlength=n_all).astype(np.int64)
    scored = np.flatnonzero(relevant_all > 0)
    relevant = relevant_all[scored]
    question_ids = [qrels.question_ids[i] for i in scored.tolist()]

    # Row of the matrix for each of the run's questions, -1 for those not scored.
    row_of_question = {question: row for row, question in enumerate(question_ids)}
    run_row = np.fromiter((row_of_question.get(q, -1) for q in run.question_ids), dtype=np.int64, count=len(run))
    sizes = np.diff(run.starts)
    lengths = np.zeros(len(question_ids), dtype=np.int64)
    answered = run_row >= 0
    lengths[run_row[answered]] = sizes[answered]
    longest = int(lengths.max(initial=0))
    width = longest if depth is None else min(depth, longest)

    # A table's rows are grouped by question with ranks 1, 2, 3 ...: the top ``width`` of question j are
    # rows starts[j] .. starts[j] + width, so only those are gathered.
    cut = np.minimum(sizes, width) * answered
    rows = np.repeat(run_row, cut)
    columns = np.arange(int(cut.sum())) - np.repeat(np.cumsum(cut) - cut, cut)
    positions = np.repeat(run.starts[:-1], cut) + columns
    retrieved = pa.table(
        {"row": rows, "column": columns, "chunk_id": run.table.column("chunk_id").take(pa.array(positions))}
    )
    relevant_rows = grades > 0
    row_of_owner = np.full(n_all, -1, dtype=np.int64)
    row_of_owner[scored] = np.arange(len(scored))
    judged = pa.table(
        {
            "row": row_of_owner[owner[relevant_rows]],
            "chunk_id": qrels.table.column("chunk_id").filter(pa.array(relevant_rows)),
            "grade": grades[relevant_rows],
        }
    )
    hits = retrieved.join(judged, keys=["row", "chunk_id"], join_type="inner")
    gains = np.zeros((len(question_ids), width), dtype=np.int64)
    gains[hits.column("row").to_numpy(), hits.column("column").to_numpy()] = hits.column("grade").to_numpy()

    ideal_width = int(relevant.max(initial=0)) if depth is None else min(depth, int(relevant.max(initial=0)))
    ideal = _ideal_grades(owner, grades, scored, n_all, ideal_width)
    return RankedGrades(question_ids, gains, ideal, relevant)
