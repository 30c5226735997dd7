"""The ranked-grade matrix: a whole run's judgements laid out as columns, once per call.

Row ``i`` is the ``i``-th scored question (qrels order); column ``r`` is rank
``r + 1``. Every built-in metric at every k is a few numpy operations on the
prefix sums of this matrix.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from itertools import chain, count
from numbers import Integral
from operator import methodcaller
from typing import Any

import numpy as np
import numpy.typing as npt

from contextgrid.core.checks import is_whole
from contextgrid.core.collector import collector_paused
from contextgrid.core.errors import ContextGridError, DuplicateChunkError
from contextgrid.data.tables import QrelsTable, RunTable, check_qrels_ids, check_question_ids, check_ranked_ids

__all__ = ["RankedGrades", "build_ranked_grades"]

# The mapping's own values(): a C-level view for a dict, where Mapping.values would iterate in Python.
_values = methodcaller("values")
# str.join as the check that every id of a ranking is a str: a C-level pass that raises TypeError at the first
# that is not (see check_ranked_ids).
_join_ids: Callable[[Sequence[str]], str] = "".join

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


class RankedGrades:
    """Grades of the retrieved chunks (``gains``) and of the ideal ranking (``ideal``),
    both ``(questions, depth)``, with each question's count of relevant chunks."""

    def __init__(self, question_ids: list[str], gains: IntArray, ideal: IntArray, relevant: IntArray) -> None:
        self.question_ids = question_ids
        self.gains = gains
        self.ideal = ideal
        self.relevant = relevant

    def __len__(self) -> int:
        return len(self.question_ids)

    @staticmethod
    def at(prefix: FloatArray, k: int) -> FloatArray:
        """Column ``k - 1`` of a prefix-sum matrix, clamped to its depth (0 if it has none)."""
        if prefix.shape[1] == 0:
            return np.zeros(prefix.shape[0])
        return prefix[:, min(k, prefix.shape[1]) - 1]

    @cached_property
    def found(self) -> npt.NDArray[np.bool_]:
        """Where a relevant chunk was retrieved."""
        return self.gains > 0

    @cached_property
    def hits(self) -> FloatArray:
        """Relevant chunks within the top ``r + 1``."""
        found = self.found
        return _running_sums(found.shape, lambda column: found[:, column])

    @cached_property
    def precision_sums(self) -> FloatArray:
        """Sum of precision@r over the relevant ranks r within the top ``r + 1``."""
        found, hits = self.found, self.hits
        ranks = np.arange(1, found.shape[1] + 1, dtype=np.float64)
        return _running_sums(
            found.shape, lambda column: np.where(found[:, column], hits[:, column] / ranks[column], 0.0)
        )

    @cached_property
    def first_hit(self) -> FloatArray:
        """Rank of the first relevant chunk, ``inf`` where none was retrieved."""
        found = self.found
        first = np.argmax(found, axis=1).astype(np.float64) + 1.0 if found.shape[1] else np.zeros(len(self))
        return np.where(found.any(axis=1), first, np.inf)

    @staticmethod
    def _discounted(grades: IntArray) -> FloatArray:
        discounts = np.log2(np.arange(2, grades.shape[1] + 2, dtype=np.float64))
        return _running_sums(grades.shape, lambda column: grades[:, column] / discounts[column])

    @cached_property
    def dcg(self) -> FloatArray:
        return self._discounted(self.gains)

    @cached_property
    def idcg(self) -> FloatArray:
        return self._discounted(self.ideal)


def _running_sums(shape: tuple[int, ...], term: Callable[[int], npt.NDArray[Any]]) -> FloatArray:
    """Running sums along the rows of the matrix whose columns are ``term(0), term(1), ...``.

    The same additions, in the same order, as ``np.cumsum(matrix, axis=1,
    dtype=float64)``, made column by column: numpy's cumsum along short rows
    pays per row, and no matrix of the terms is made (a large allocation costs
    more than the arithmetic).
    """
    sums = np.empty(shape, dtype=np.float64, order="F")
    for column in range(shape[1]):
        if column:
            np.add(sums[:, column - 1], term(column), out=sums[:, column])
        else:
            sums[:, 0] = term(0)
    return sums


def _check_judgements(qrels: Mapping[str, Mapping[str, int]]) -> None:
    """Refuse qrels that are not ``{question: {chunk: grade}}`` with whole-number grades."""
    if not isinstance(qrels, Mapping):
        raise ContextGridError(
            f"qrels must be a mapping of question id to {{chunk id: grade}}, got {type(qrels).__name__}"
        )
    if not set(map(type, qrels.values())) <= {dict}:
        for question_id, judgements in qrels.items():
            if not isinstance(judgements, Mapping):
                raise ContextGridError(
                    f"qrels for query {question_id!r} must be a mapping of chunk id to grade, got {judgements!r}"
                )
    grade_types = set(map(type, chain.from_iterable(map(_values, qrels.values()))))
    if all(issubclass(t, Integral) and not issubclass(t, bool) for t in grade_types):
        return
    for question_id, judgements in qrels.items():
        for chunk_id, grade in judgements.items():
            if not is_whole(grade):
                raise ContextGridError(
                    f"qrels for query {question_id!r} give chunk {chunk_id!r} the grade {grade!r}; a grade is a "
                    "whole number (2 fully relevant, 1 partial, 0 or below irrelevant)"
                )


def _check_rankings(question_ids: list[str], rankings: list[Sequence[str]]) -> IntArray:
    """Refuse a ranking that is not a sequence; returns the rankings' lengths."""
    if not set(map(type, rankings)) <= {list, tuple}:
        for question_id, ranked in zip(question_ids, rankings, strict=True):
            if isinstance(ranked, (str, bytes)) or not isinstance(ranked, Sequence):
                raise ContextGridError(
                    f"the run for query {question_id!r} must be a list of chunk ids, best first, got {ranked!r}"
                )
    return np.fromiter(map(len, rankings), dtype=np.int64, count=len(rankings))


Found = list[tuple[int, int, int]]
"""Each relevant chunk found in its ranking's top ``width``: its row, its position there, and its grade."""


def _scan_rankings(
    question_ids: list[str],
    judgement_maps: list[Mapping[str, int]],
    rankings: list[Sequence[str]],
    width: int,
    *,
    from_table: bool,
) -> Found:
    """Check each ranking's chunk ids (each a str, as a table's are, and distinct) and find its relevant chunks
    in its top ``width``, in one pass.

    One pass, because the cost is fetching the ids from memory: the str check, the set that finds repeats and
    the search for the relevant chunks read the same few hundred bytes of a ranking, and while it is in the
    CPU cache the second and third reads are nearly free, where a pass each would fetch every id again.
    """
    join = None if from_table else _join_ids
    found: Found = []
    add = found.append
    repeating: list[int] = []
    try:
        for row, judgements, ranked in zip(count(), judgement_maps, rankings):
            if join is not None:
                join(ranked)  # TypeError at an id that is not a str, before set() meets an unhashable one
            if len(set(ranked)) != len(ranked):
                repeating.append(row)
            top = ranked[:width]
            for chunk_id in judgements.keys() & top:
                grade = judgements[chunk_id]
                if grade > 0:
                    add((row, top.index(chunk_id), grade))
    except TypeError:
        check_ranked_ids(question_ids, rankings)  # names the first id that is not a str
        raise
    if repeating:
        raise _repeats_refused(question_ids, rankings, repeating)
    return found


def _repeats_refused(question_ids: list[str], rankings: list[Sequence[str]], repeating: list[int]) -> ContextGridError:
    """The refusal of the rankings ``repeating`` (rows, ascending), naming the first's repeated ids."""
    first = repeating[0]
    seen: set[str] = set()
    repeated: dict[str, None] = {}
    for chunk_id in rankings[first]:
        if chunk_id in seen:
            repeated[chunk_id] = None
        seen.add(chunk_id)
    message = (
        f"the run for query {question_ids[first]!r} returns the same chunk id more than once: "
        f"{', '.join(map(repr, repeated))}. A ranking is a list of distinct chunks, and scoring one with repeats "
        "in it would report a retriever's bug as a score. De-duplicate the ranking, keeping each chunk at its "
        "best position."
    )
    if len(repeating) > 1:
        others = [question_ids[i] for i in repeating[1:6]]
        more = " …" if len(repeating) > 6 else ""
        message += f" Other queries that repeat ids: {', '.join(map(repr, others))}{more}"
    return DuplicateChunkError(message)


def build_ranked_grades(
    qrels: Mapping[str, Mapping[str, int]],
    run: Mapping[str, Sequence[str]],
    depth: int | None,
) -> RankedGrades:
    """Lay out the scored questions of ``qrels`` against ``run``, ``depth`` ranks deep
    (``None``: the whole ranking).

    A question is scored when at least one chunk has a grade above 0; a scored
    question the run never answered gets an empty ranking.
    """
    # One short-lived set per ranking and a list per run: the collections those allocations trigger would walk
    # every live object of the caller's process (its runs and qrels included) and find nothing to free.
    with collector_paused():
        return _lay_out(qrels, run, depth)


def _lay_out(
    qrels: Mapping[str, Mapping[str, int]], run: Mapping[str, Sequence[str]], depth: int | None
) -> RankedGrades:
    _check_judgements(qrels)
    # A table's ids are str by construction: only dicts are checked.
    if not isinstance(qrels, QrelsTable):
        check_qrels_ids(qrels)
    if not isinstance(run, Mapping):
        raise ContextGridError(f"run must be a mapping of question id to a list of chunk ids, got {type(run).__name__}")
    if not isinstance(run, RunTable):
        check_question_ids(run, "the run holds")

    all_ids = list(qrels)
    counts = np.fromiter(map(len, qrels.values()), dtype=np.int64, count=len(all_ids))
    grades = np.fromiter(chain.from_iterable(map(_values, qrels.values())), dtype=np.int64, count=int(counts.sum()))
    owner = np.repeat(np.arange(len(all_ids)), counts)
    relevant_all = np.bincount(owner, weights=grades > 0, minlength=len(all_ids)).astype(np.int64)
    scored = np.flatnonzero(relevant_all > 0)

    question_ids = [all_ids[i] for i in scored]
    judgement_maps = [qrels[q] for q in question_ids]
    empty: Sequence[str] = ()
    rankings = [run.get(q, empty) for q in question_ids]
    lengths = _check_rankings(question_ids, rankings)
    longest = int(lengths.max(initial=0))
    width = longest if depth is None else min(depth, longest)
    found = _scan_rankings(question_ids, judgement_maps, rankings, width, from_table=isinstance(run, RunTable))
    gains = np.zeros((len(question_ids), width), dtype=np.int64, order="F")
    if found:
        rows, positions, values = np.array(found, dtype=np.int64).T
        gains[rows, positions] = values

    relevant = relevant_all[scored]
    ideal_width = int(relevant.max(initial=0)) if depth is None else min(depth, int(relevant.max(initial=0)))
    ideal = _ideal_grades(owner, grades, scored, len(all_ids), ideal_width)
    return RankedGrades(question_ids, gains, ideal, relevant)


IdealLayout = tuple[IntArray, IntArray, IntArray]
"""Each relevant judgement's row, position in its row's ideal ranking, and grade: the ideal matrix at any width."""


def ideal_layout(owner: IntArray, grades: IntArray, scored: IntArray, n_all: int) -> IdealLayout:
    """Where each relevant grade goes in the ideal ranking of its scored question (best first)."""
    keep = grades > 0
    owner, grades = owner[keep], grades[keep]
    # owner is already ascending, so one sort on (owner, best grade first) packed in an int64 orders each row.
    top = int(grades.max(initial=0))
    order = np.argsort(owner * (top + 1) + (top - grades), kind="stable")
    owner, grades = owner[order], grades[order]
    starts = np.searchsorted(owner, np.arange(n_all))
    position = np.arange(len(owner)) - starts[owner]
    row_of = np.full(n_all, -1, dtype=np.int64)
    row_of[scored] = np.arange(len(scored))
    return row_of[owner], position, grades


def ideal_matrix(layout: IdealLayout, questions: int, width: int) -> IntArray:
    """The ideal grades of ``questions`` rows, ``width`` deep."""
    rows, position, grades = layout
    take = position < width
    ideal = np.zeros((questions, width), dtype=np.int64)
    ideal[rows[take], position[take]] = grades[take]
    return ideal


def _ideal_grades(owner: IntArray, grades: IntArray, scored: IntArray, n_all: int, width: int) -> IntArray:
    """Each scored question's relevant grades, best first, ``width`` deep."""
    return ideal_matrix(ideal_layout(owner, grades, scored, n_all), len(scored), width)
