"""Per-question score dicts lined up by question id into one matrix."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Real
from typing import TYPE_CHECKING, TypeAlias

import numpy as np
import numpy.typing as npt

from contextgrid.core.errors import ContextGridError, QuestionMismatchError, parameter_error

if TYPE_CHECKING:
    import pandas as pd

PerQuestion: TypeAlias = "Mapping[str, Mapping[str, float]] | pd.DataFrame"
"""Per-question scores of several configurations: ``{config: {question_id: score}}``, or a frame of questions
(index) by configurations (columns), as :meth:`~contextgrid.workspace.model.Workspace.per_query` returns it."""

__all__ = ["AlignedScores", "PerQuestion", "align_scores", "describe_ids"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]

SHOWN_IDS = 5
"""How many differing ids an error message lists before it says "and N more"."""


def describe_ids(ids: Sequence[str]) -> str:
    """The first few ids, then a count of the rest, so a 9,000-id mismatch stays readable.

    Examples
    --------
    >>> describe_ids(["q1", "q2"])
    "'q1', 'q2'"
    >>> describe_ids([f"q{i}" for i in range(8)])
    "'q0', 'q1', 'q2', 'q3', 'q4' and 3 more"
    """
    shown = ", ".join(repr(i) for i in ids[:SHOWN_IDS])
    rest = len(ids) - SHOWN_IDS
    return f"{shown} and {rest} more" if rest > 0 else shown


@dataclass(frozen=True, slots=True)
class AlignedScores:
    """Scores of several configurations on the same questions.

    ``scores[c, q]`` is configuration ``names[c]`` on question ``question_ids[q]``.
    """

    names: tuple[str, ...]
    question_ids: tuple[str, ...]
    scores: FloatArray

    def __post_init__(self) -> None:
        expected = (len(self.names), len(self.question_ids))
        if self.scores.shape != expected:
            raise ContextGridError(f"AlignedScores: scores has shape {self.scores.shape}, expected {expected}")

    def row(self, name: str) -> int:
        """Position of configuration ``name`` in :attr:`names`."""
        return self.names.index(name)

    def differences(self, first: IntArray, second: IntArray, tolerance: float) -> FloatArray:
        """Row ``first[p]`` minus row ``second[p]``, question by question, a tie exactly 0.

        A difference of at most ``tolerance`` either way is a tie, and every test, interval and count takes
        these differences, so all of them agree on which questions are ties: float noise such as
        ``0.1 + 0.2 - 0.3`` is neither ranked by the Wilcoxon test nor counted as a win.

        Examples
        --------
        >>> aligned = align_scores({"a": {"q1": 0.1 + 0.2, "q2": 1.0}, "b": {"q1": 0.3, "q2": 0.5}}, function="f")
        >>> aligned.differences(np.array([0]), np.array([1]), 1e-9).tolist()
        [[0.0, 0.5]]
        """
        differences = self.scores[first] - self.scores[second]
        differences[np.abs(differences) <= tolerance] = 0.0
        return differences


def _is_score(value: object) -> bool:
    # bool is a Real, but True as a score is a bug upstream, not a 1.0.
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(float(value))


def _column(name: str, scores: Mapping[str, float], ids: Sequence[str], function: str) -> FloatArray:
    kinds = set(map(type, scores.values()))
    if all(issubclass(kind, Real) and not issubclass(kind, bool) for kind in kinds):
        values = np.fromiter((scores[q] for q in ids), dtype=np.float64, count=len(ids))
        if bool(np.isfinite(values).all()):
            return values
    culprit = next(q for q in ids if not _is_score(scores[q]))
    raise ContextGridError(
        f"{function}: the score of configuration {name!r} for question {culprit!r} must be a finite number, "
        f"got {scores[culprit]!r}"
    )


def _from_frame(frame: pd.DataFrame, function: str) -> AlignedScores:
    """A frame's columns as they are: one row of scores per configuration, on the frame's question order."""
    names = [str(name) for name in frame.columns]
    if len(names) < 2:
        raise parameter_error(function, "per_query_by_config", "a frame with at least two configurations", names)
    if frame.empty:
        raise ContextGridError(f"{function}: the frame scores no questions; there is nothing to compare")
    values = frame.to_numpy(dtype=np.float64, na_value=np.nan).T
    unscored = np.isnan(values)
    if unscored.any():
        row = int(np.flatnonzero(unscored.any(axis=1))[0])
        missing = [str(q) for q, gap in zip(frame.index, unscored[row], strict=True) if gap]
        raise QuestionMismatchError(
            f"{function}: configuration {names[row]!r} scores no value for {len(missing)} question(s) "
            f"({describe_ids(missing)}), and a paired test lines every configuration up by question id. Score "
            "every configuration on the same qrels, or choose the questions they all score (frame.dropna())."
        )
    if not np.isfinite(values).all():
        row, column = (int(axis[0]) for axis in np.nonzero(~np.isfinite(values)))
        raise ContextGridError(
            f"{function}: the score of configuration {names[row]!r} for question {frame.index[column]!r} must be a "
            f"finite number, got {values[row, column]!r}"
        )
    return AlignedScores(tuple(names), tuple(map(str, frame.index)), values)


def align_scores(per_query_by_config: PerQuestion, *, function: str) -> AlignedScores:
    """Line every configuration's ``{question_id: score}`` up on the first one's question order.

    A frame (questions by configurations) is taken as it is; a missing score in it is refused like a question
    one configuration does not score.

    All configurations must cover exactly the same question ids: a paired test
    compares each question with itself, and a question scored by one side only
    has no partner. The error lists the ids on each side that differ.

    Examples
    --------
    >>> aligned = align_scores({"a": {"q1": 1.0, "q2": 0.5}, "b": {"q2": 0.0, "q1": 1.0}}, function="f")
    >>> aligned.question_ids, aligned.scores.tolist()
    (('q1', 'q2'), [[1.0, 0.5], [1.0, 0.0]])
    >>> align_scores({"a": {"q1": 1.0, "q2": 0.5}, "b": {"q1": 1.0, "q3": 0.0}}, function="f")
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.QuestionMismatchError: f: configurations 'a' and 'b' must score the same questions, ...
    """
    import pandas as pd

    if isinstance(per_query_by_config, pd.DataFrame):
        return _from_frame(per_query_by_config, function)
    if not isinstance(per_query_by_config, Mapping):
        expected = "a mapping of configuration name to {question_id: score}"
        raise parameter_error(function, "per_query_by_config", expected, type(per_query_by_config).__name__)
    if len(per_query_by_config) < 2:
        raise parameter_error(
            function, "per_query_by_config", "a mapping with at least two configurations", list(per_query_by_config)
        )
    names: list[str] = []
    for name, scores in per_query_by_config.items():
        if not isinstance(name, str) or not name:
            raise parameter_error(function, "per_query_by_config", "keyed by non-empty str configuration names", name)
        if not isinstance(scores, Mapping):
            raise ContextGridError(
                f"{function}: the scores of configuration {name!r} must be a mapping of question id to score "
                f"(what per_query() returns), got {type(scores).__name__}"
            )
        names.append(name)
    first = names[0]
    ids = tuple(per_query_by_config[first])
    if not ids:
        raise ContextGridError(f"{function}: configuration {first!r} scored no questions; there is nothing to compare")
    reference = set(ids)
    for name in names[1:]:
        scores = per_query_by_config[name]
        if len(scores) != len(reference) or not reference.issuperset(scores):
            only_first = sorted(reference.difference(scores))
            only_other = sorted(set(scores).difference(reference))
            raise QuestionMismatchError(
                f"{function}: configurations {first!r} and {name!r} must score the same questions, since a paired "
                f"test lines them up by question id. Only in {first!r}: {len(only_first)} "
                f"({describe_ids(only_first) or 'none'}). Only in {name!r}: {len(only_other)} "
                f"({describe_ids(only_other) or 'none'}). Score every configuration on the same qrels."
            )
    matrix = np.vstack([_column(name, per_query_by_config[name], ids, function) for name in names])
    return AlignedScores(tuple(names), ids, matrix)
