"""How many questions a score is a mean over, and why the others are not in it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from contextgrid.core.checks import check_int
from contextgrid.core.errors import parameter_error
from contextgrid.engine.scoring import ranked_grades
from contextgrid.metrics.base import Qrels

__all__ = ["QuestionCounts", "question_counts"]


@dataclass(frozen=True, slots=True)
class QuestionCounts:
    """The questions behind a run's means, as :func:`contextgrid.evaluate` counts them.

    ``scored`` questions have a relevant chunk in the qrels: the means are over them, ``unanswered`` ones (not
    in the run) scoring 0. ``left_out`` questions are judged without a relevant chunk; ``not_judged`` ones are
    in the run but not in the qrels. Neither is in any mean.
    """

    scored: int
    unanswered: int
    left_out: int
    not_judged: int

    def __post_init__(self) -> None:
        for name in ("scored", "unanswered", "left_out", "not_judged"):
            check_int(getattr(self, name), function="QuestionCounts", parameter=name, minimum=0)
        if self.unanswered > self.scored:
            raise parameter_error("QuestionCounts", "unanswered", f"at most scored ({self.scored})", self.unanswered)

    @property
    def answered(self) -> int:
        """Scored questions the run answers."""
        return self.scored - self.unanswered

    def describe(self) -> str:
        """One sentence for a reader of the means.

        Examples
        --------
        >>> print(QuestionCounts(scored=3, unanswered=1, left_out=1, not_judged=2).describe())
        3 questions scored (2 answered, 1 not in the run, each scored 0); 1 judged question left out (no
        relevant chunk); 2 run questions not judged (ignored)
        """

        def counted(count: int, one: str, many: str) -> str:
            return f"{count} {one if count == 1 else many}"

        scored = counted(self.scored, "question", "questions")
        if self.unanswered:
            parts = [f"{scored} scored ({self.answered} answered, {self.unanswered} not in the run, each scored 0)"]
        else:
            parts = [f"{scored} scored, all answered"]
        if self.left_out:
            parts.append(
                f"{counted(self.left_out, 'judged question', 'judged questions')} left out (no relevant chunk)"
            )
        if self.not_judged:
            parts.append(f"{counted(self.not_judged, 'run question', 'run questions')} not judged (ignored)")
        return "; ".join(parts)


def question_counts(qrels: Qrels, run: Mapping[str, Sequence[str]]) -> QuestionCounts:
    """Count the questions :func:`contextgrid.evaluate` scores, and those it leaves out.

    Examples
    --------
    >>> qrels = {"q1": {"c1": 2}, "q2": {"c4": 1}, "q3": {"c5": 0}}
    >>> question_counts(qrels, {"q1": ["c1"], "q3": ["c5"], "q9": ["c2"]})
    QuestionCounts(scored=2, unanswered=1, left_out=1, not_judged=1)
    """
    scored = set(ranked_grades(qrels, run, 1).question_ids)
    return QuestionCounts(
        scored=len(scored),
        unanswered=len(scored - set(run)),
        left_out=len(qrels) - len(scored),
        not_judged=len(set(run) - set(qrels)),
    )
