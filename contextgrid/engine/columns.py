"""The ranked-grade matrix built straight from a :class:`RunTable` and a :class:`QrelsTable`.

It is the same :class:`~contextgrid.engine.grades.RankedGrades` that
:func:`~contextgrid.engine.grades.build_ranked_grades` makes from dicts (same
rows, in the qrels order of the scored questions; same columns), without
building a Python list per question. The qrels' side (which questions are
scored, their relevant chunks, the ideal rankings) is laid out once per
table; for each run, only the rows within the cut-off are matched to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from contextgrid.data.repeats import fingerprints
from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.engine.grades import (
    IdealLayout,
    IntArray,
    RankedGrades,
    ideal_layout,
    ideal_matrix,
)

__all__ = ["ranked_grades_from_tables"]

CodeArray = npt.NDArray[np.int32]
_Array = TypeVar("_Array", bound=npt.NDArray[Any])
Matches = tuple[IntArray, IntArray]
"""The judgements found in the run (indices into the relevant judgements) and the column each is at."""

# Matching by comparing each relevant judgement with its question's whole row of retrieved chunks is
# quickest while that is not much more work than the rows themselves; past this, sort and search instead.
_COMPARISONS_PER_ROW = 4


@dataclass(frozen=True, slots=True)
class _Judged:
    """The scored questions of a qrels table and their relevant judgements, as numbers."""

    question_ids: list[str]
    questions: Any  # the same ids, a pyarrow array: a run's questions are looked up in it
    relevant: IntArray
    rows: IntArray  # each relevant judgement's matrix row, chunk id (and its fingerprint) and grade
    chunk_ids: Any
    fingerprints: npt.NDArray[np.uint64]
    grades: IntArray
    ideal: IdealLayout


@dataclass(frozen=True, slots=True)
class _Encoded:
    """The relevant judgements' chunk ids as codes: for looking a run's chunk ids up id by id."""

    chunks: Any  # the distinct relevant chunk ids, a pyarrow array: a run's chunks are looked up in it
    codes: CodeArray  # each relevant judgement's chunk's index in ``chunks``


def _codes(table: Any) -> IntArray:
    """The question codes of a table's rows (indices into its ``question_ids``)."""
    chunks = table.column("question_id").chunks
    if not chunks:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate([chunk.indices.to_numpy(zero_copy_only=False) for chunk in chunks]).astype(np.int64)


def _lookup(values: Any, known: Any) -> CodeArray:
    """The index of each of ``values`` in the distinct ``known`` (-1 where absent), by pyarrow's hash lookup."""
    import pyarrow.compute as pc

    if len(known) == 0:
        return np.full(len(values), -1, dtype=np.int32)
    found = pc.index_in(values, value_set=known).fill_null(-1)
    return np.asarray(found.to_numpy(zero_copy_only=False), dtype=np.int32)


def _frozen(values: _Array) -> _Array:
    values.flags.writeable = False
    return values


def _judged(qrels: QrelsTable) -> _Judged:
    """Kept with the table and shared by every run scored against it, so its arrays are made read-only."""
    import pyarrow as pa

    owner = _codes(qrels.table)
    grades = qrels.table.column("grade").to_numpy().astype(np.int64)
    n_all = len(qrels)
    is_relevant = grades > 0
    relevant_all = np.bincount(owner, weights=is_relevant, minlength=n_all).astype(np.int64)
    scored = np.flatnonzero(relevant_all > 0)
    questions = qrels.question_array.take(pa.array(scored))
    row_of_owner = np.full(n_all, -1, dtype=np.int64)
    row_of_owner[scored] = np.arange(len(scored))
    chunk_ids = qrels.table.column("chunk_id").combine_chunks().filter(pa.array(is_relevant))
    return _Judged(
        question_ids=questions.to_pylist(),
        questions=questions,
        relevant=_frozen(relevant_all[scored]),
        rows=_frozen(row_of_owner[owner[is_relevant]]),
        chunk_ids=chunk_ids,
        fingerprints=_frozen(fingerprints(chunk_ids)),
        grades=_frozen(grades[is_relevant]),
        ideal=ideal_layout(owner, grades, scored, n_all),
    )


def _encoded(judged: _Judged) -> _Encoded:
    """Kept with the table, as :func:`_judged` is; made only when a run's ids are looked up one by one."""
    chunks = judged.chunk_ids.dictionary_encode()
    return _Encoded(chunks.dictionary, _frozen(chunks.indices.to_numpy(zero_copy_only=False).astype(np.int32)))


def _match_in_rows(
    judged: _Judged, encoded: _Encoded, shape: tuple[int, int], cells: IntArray, codes: CodeArray
) -> Matches:
    """Each relevant judgement's column in its row of retrieved chunks, for those retrieved: lay the
    retrieved chunks out as a matrix (``cells`` index it flat) and compare each judgement with its row."""
    if shape[1] == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    retrieved = np.full(shape[0] * shape[1], -1, dtype=np.int32)
    retrieved[cells] = codes
    same = retrieved.reshape(shape)[judged.rows] == encoded.codes[:, None]
    column = np.argmax(same, axis=1)
    matched = np.flatnonzero(same[np.arange(len(same)), column])
    return matched, column[matched]


def _match_by_fingerprints(
    judged: _Judged, shape: tuple[int, int], cells: IntArray, retrieved: Any, first: IntArray, filled: IntArray
) -> Matches | None:
    """The matches of :func:`_match_in_rows`, found by comparing the chunk ids' fingerprints instead of
    looking every retrieved id up among the relevant ones (a hash lookup per id costs several times more);
    ``None`` if a match's ids differ after all, for the caller to look them up.

    ``retrieved`` are the ids the flat ``cells`` hold; row ``r``'s are ``retrieved[first[r]:][:filled[r]]``.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    rows, width = shape
    if width == 0 or len(judged.rows) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    grid = np.zeros(rows * width, dtype=np.uint64)
    grid[cells] = fingerprints(retrieved)
    same = grid.reshape(shape)[judged.rows] == judged.fingerprints[:, None]
    column = np.argmax(same, axis=1)
    # A row's filled cells come first, so an empty cell is the first equal one only where no filled one is.
    found = same[np.arange(len(same)), column] & (column < filled[judged.rows])
    matched = np.flatnonzero(found)
    at = column[matched]
    # Equal fingerprints are only candidates: the ids themselves must be equal.
    theirs = retrieved.take(pa.array(first[judged.rows[matched]] + at))
    ours = judged.chunk_ids.take(pa.array(matched))
    if len(matched) and not pc.all(pc.equal(theirs, ours)).as_py():
        return None
    return matched, at


def _match_by_search(judged: _Judged, encoded: _Encoded, width: int, cells: IntArray, codes: CodeArray) -> Matches:
    """The same matches as :func:`_match_in_rows`, found by a binary search for each retrieved
    (row, chunk) among the judgements' sorted keys: for rankings too deep to compare row by row."""
    if len(judged.rows) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    chunks = np.int64(len(encoded.chunks))
    keys = judged.rows * chunks + encoded.codes
    order = np.argsort(keys)
    sorted_keys = keys[order]
    known = codes >= 0
    cells = cells[known]
    wanted = cells // width * chunks + codes[known]
    at = np.minimum(np.searchsorted(sorted_keys, wanted), len(sorted_keys) - 1)
    hit = sorted_keys[at] == wanted
    return order[at[hit]], cells[hit] % width


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
    >>> from contextgrid.data.tables import QrelsTable, RunTable
    >>> qrels = QrelsTable.from_dict({"q1": {"c1": 2, "c2": 1, "c3": 0}, "q2": {"c4": 2}, "q3": {"c5": 0}})
    >>> run = RunTable.from_dict({"q1": ["c3", "c1", "c5", "c2"], "q2": ["c9", "c4", "c1"]})
    >>> batch = ranked_grades_from_tables(qrels, run, 3)
    >>> batch.question_ids, batch.gains.tolist(), batch.ideal.tolist()
    (['q1', 'q2'], [[0, 2, 0], [0, 2, 0]], [[2, 1], [2, 0]])
    """
    import pyarrow as pa

    qrels = QrelsTable.from_dict(qrels)
    run = RunTable.from_dict(run)
    judged = qrels.derived("engine.judged", lambda: _judged(qrels))
    n = len(judged.question_ids)

    # Row of the matrix for each of the run's questions, -1 for those not scored.
    run_row = _lookup(run.question_array, judged.questions)
    sizes = np.diff(run.starts)
    lengths = np.zeros(n, dtype=np.int64)
    answered = run_row >= 0
    lengths[run_row[answered]] = sizes[answered]
    longest = int(lengths.max(initial=0))
    width = longest if depth is None else min(depth, longest)

    # A table's rows are grouped by question with ranks 1, 2, 3 ...: the top ``width`` of question j are
    # rows starts[j] .. starts[j] + width, which go to cells row_j * width .. row_j * width + width of the
    # matrix, laid out flat.
    cut = np.minimum(sizes, width) * answered
    total = int(cut.sum())
    before = np.cumsum(cut) - cut
    step = np.arange(total)
    cells = np.repeat(run_row * width - before, cut) + step
    chunk_ids = run.table.column("chunk_id")
    positions = None if total == run.num_rows else np.repeat(run.starts[:-1] - before, cut) + step
    in_rows = len(judged.rows) * width <= _COMPARISONS_PER_ROW * total
    matches = None
    if in_rows:
        retrieved = (chunk_ids if positions is None else chunk_ids.take(pa.array(positions))).combine_chunks()
        first = np.zeros(n, dtype=np.int64)
        first[run_row[answered]] = before[answered]
        matches = _match_by_fingerprints(judged, (n, width), cells, retrieved, first, np.minimum(lengths, width))
    if matches is None:
        encoded = qrels.derived("engine.encoded", lambda: _encoded(judged))
        if positions is None:
            codes = _lookup(chunk_ids, encoded.chunks)
        # Looking every row up beats gathering the strings first unless most rows are left out.
        elif 2 * total >= run.num_rows:
            codes = _lookup(chunk_ids, encoded.chunks)[positions]
        else:
            codes = _lookup(chunk_ids.take(pa.array(positions)), encoded.chunks)
        matches = (
            _match_in_rows(judged, encoded, (n, width), cells, codes)
            if in_rows
            else _match_by_search(judged, encoded, width, cells, codes)
        )
    matched, at = matches
    # Column-major: the metrics run down one rank (column) at a time.
    gains = np.zeros((n, width), dtype=np.int64, order="F")
    gains[judged.rows[matched], at] = judged.grades[matched]

    most = int(judged.relevant.max(initial=0))
    ideal = ideal_matrix(judged.ideal, n, most if depth is None else min(depth, most))
    return RankedGrades(list(judged.question_ids), gains, ideal, judged.relevant)
