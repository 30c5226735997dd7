"""trec_eval's measures, under trec_eval's names and with its averaging, scored by contextgrid's engine.

trec_eval averages over the questions that the run answers and the qrels judge, counting a judged question
without a relevant chunk (every measure 0 there); ``-c`` averages over every judged question instead, an
unanswered one scoring 0. contextgrid's own rule (:func:`contextgrid.evaluate`) leaves out questions without
a relevant chunk and counts unanswered judged ones as 0. The lines printed are trec_eval's: the measure name
padded to 22 characters, the question id or ``all``, and the value with 4 decimals (counts as whole numbers),
separated by tabs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from contextgrid.core.checks import check_k
from contextgrid.core.errors import ContextGridError
from contextgrid.engine.grades import FloatArray
from contextgrid.engine.scoring import ranked_grades, score_questions
from contextgrid.metrics.base import METRICS, Qrels

__all__ = ["DEFAULT_MEASURES", "TREC_MEASURES", "TrecMeasure", "parse_measures", "trec_eval_lines"]

_TREC_DEFAULT_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


class _Questions:
    """What the per-question counts read: the questions evaluated, their rows of the ranked-grade matrix."""

    def __init__(self, qrels: Qrels, run: Mapping[str, Sequence[str]], evaluated: list[str]) -> None:
        self.run = run
        self.evaluated = evaluated
        self.batch = ranked_grades(qrels, run, None)
        row = {question: position for position, question in enumerate(self.batch.question_ids)}
        self.rows = np.array([row.get(question, -1) for question in evaluated], dtype=np.int64)
        self.scored = self.rows >= 0

    def of_scored(self, values: npt.NDArray[Any]) -> FloatArray:
        """``values`` (one per scored question) for the evaluated questions, 0 for the others."""
        column = np.zeros(len(self.evaluated))
        column[self.scored] = values[self.rows[self.scored]]
        return column


def _num_ret(questions: _Questions) -> FloatArray:
    empty: Sequence[str] = ()
    return np.fromiter((len(questions.run.get(q, empty)) for q in questions.evaluated), np.float64)


def _num_rel(questions: _Questions) -> FloatArray:
    return questions.of_scored(questions.batch.relevant)


def _num_rel_ret(questions: _Questions) -> FloatArray:
    return questions.of_scored(questions.batch.found.sum(axis=1))


@dataclass(frozen=True, slots=True)
class TrecMeasure:
    """One trec_eval measure: its name, and either the contextgrid metric that scores it (with the cut-offs it
    takes when ``-m`` names none; none for a measure without cut-offs) or the count it sums per question.
    ``num_q`` has neither: it counts the questions, and only in the ``all`` lines."""

    name: str
    metric: str | None = None
    default_cutoffs: tuple[int, ...] = ()
    count: Callable[[_Questions], FloatArray] | None = None

    def __post_init__(self) -> None:
        if self.metric is not None and self.metric not in METRICS:
            raise ContextGridError(f"TrecMeasure({self.name!r}): no metric named {self.metric!r}")
        if self.metric is not None and self.count is not None:
            raise ContextGridError(f"TrecMeasure({self.name!r}): a metric or a count, not both")


TREC_MEASURES: dict[str, TrecMeasure] = {
    measure.name: measure
    for measure in (
        TrecMeasure("num_q"),
        TrecMeasure("num_ret", count=_num_ret),
        TrecMeasure("num_rel", count=_num_rel),
        TrecMeasure("num_rel_ret", count=_num_rel_ret),
        TrecMeasure("recip_rank", "mrr"),
        TrecMeasure("P", "precision", _TREC_DEFAULT_CUTOFFS),
        TrecMeasure("recall", "recall", _TREC_DEFAULT_CUTOFFS),
        TrecMeasure("ndcg_cut", "ndcg", _TREC_DEFAULT_CUTOFFS),
        TrecMeasure("map_cut", "map", _TREC_DEFAULT_CUTOFFS),
        TrecMeasure("success", "hit_rate", (1, 5, 10)),
    )
}
"""The trec_eval measures contextgrid has, in the order trec_eval prints them."""

_WHOLE = re.compile("[+-]?[0-9]+")

DEFAULT_MEASURES = ("num_q", "num_ret", "num_rel", "num_rel_ret", "recip_rank", "P")
"""What ``--trec-eval`` prints without ``-m``: the measures of trec_eval's default set that contextgrid has."""


@dataclass(frozen=True, slots=True)
class _Chosen:
    label: str
    measure: TrecMeasure
    k: int | None


def parse_measures(specs: Sequence[str]) -> tuple[tuple[str, str, int | None], ...]:
    """``-m`` values as ``(printed name, measure, cut-off)``, in trec_eval's printing order, each once.

    ``"P.5,10"`` is P at 5 and at 10 (printed ``P_5``, ``P_10``); ``"P"`` alone takes trec_eval's default
    cut-offs. A cut-off is a whole number of 1 or more: trec_eval's ``atol`` reads ``23.4`` as 23, it is
    refused here.

    Examples
    --------
    >>> parse_measures(["ndcg_cut.10", "P.10,5", "num_q"])
    (('num_q', 'num_q', None), ('P_5', 'P', 5), ('P_10', 'P', 10), ('ndcg_cut_10', 'ndcg_cut', 10))
    >>> parse_measures(["bpref"])
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.ContextGridError: trec_eval measure 'bpref' is not one contextgrid has; it has num_q,
    num_ret, num_rel, num_rel_ret, recip_rank, P, recall, ndcg_cut, map_cut, success
    >>> parse_measures(["ndcg_cut.10,20,23.4"])
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.ContextGridError: trec_eval measure 'ndcg_cut.10,20,23.4': expected each cut-off to be
    a whole number, as in ndcg_cut.5,10, got '23.4' (trec_eval would read its leading digits alone)
    """
    return tuple((chosen.label, chosen.measure.name, chosen.k) for chosen in _chosen(specs))


def _chosen(specs: Sequence[str]) -> list[_Chosen]:
    chosen: dict[tuple[str, int | None], _Chosen] = {}
    for spec in specs:
        # trec_eval's own split: the name ends at the first ".", the cut-offs follow it, separated by ",".
        name, dot, text = spec.partition(".")
        measure = TREC_MEASURES.get(name)
        if measure is None:
            shown = repr(name) if name == spec else f"{name!r} (in {spec!r})"
            raise ContextGridError(
                f"trec_eval measure {shown} is not one contextgrid has; it has {', '.join(TREC_MEASURES)}"
            )
        if dot and not measure.default_cutoffs:
            raise ContextGridError(f"trec_eval measure {measure.name!r} takes no cut-offs, got {spec!r}")
        if not measure.default_cutoffs:
            chosen[(measure.name, None)] = _Chosen(measure.name, measure, None)
            continue
        parts = text.split(",") if dot else [str(k) for k in measure.default_cutoffs]
        for part in parts:
            if _WHOLE.fullmatch(part) is None:
                raise ContextGridError(
                    f"trec_eval measure {spec!r}: expected each cut-off to be a whole number, as in "
                    f"{measure.name}.5,10, got {part!r} (trec_eval would read its leading digits alone)"
                )
            k = check_k(int(part), function="parse_measures")
            chosen[(measure.name, k)] = _Chosen(f"{measure.name}_{k}", measure, k)
    order = list(TREC_MEASURES)
    return sorted(chosen.values(), key=lambda item: (order.index(item.measure.name), item.k or 0))


def _line(item: _Chosen, question: str, value: float) -> str:
    """One line as trec_eval prints it: counts as whole numbers, every other measure with 4 decimals."""
    shown = f"{value:.4f}" if item.measure.metric is not None else str(int(value))
    return f"{item.label:<22}\t{question}\t{shown}"


def trec_eval_lines(
    qrels: Qrels,
    run: Mapping[str, Sequence[str]],
    measures: Sequence[str] = DEFAULT_MEASURES,
    *,
    per_query: bool = False,
    complete: bool = False,
) -> list[str]:
    """What ``trec_eval [-q] [-c] -m MEASURE... QRELS RUN`` prints, as lines.

    Questions come in trec_eval's order (sorted by id), then ``all``: the mean over the questions evaluated for
    each measure, the sum for ``num_ret``, ``num_rel`` and ``num_rel_ret``, and their count for ``num_q``.

    Examples
    --------
    >>> qrels = {"q1": {"c1": 2, "c2": 1, "c3": 0}, "q2": {"c4": 2}, "q3": {"c5": 0}}
    >>> run = {"q1": ["c3", "c1", "c5", "c2"], "q2": ["c9", "c4"], "q3": ["c5"]}
    >>> print("\\n".join(trec_eval_lines(qrels, run, ["num_q", "P.2", "recip_rank"], per_query=True)))
    recip_rank            	q1	0.5000
    P_2                   	q1	0.5000
    recip_rank            	q2	0.5000
    P_2                   	q2	0.5000
    recip_rank            	q3	0.0000
    P_2                   	q3	0.0000
    num_q                 	all	3
    recip_rank            	all	0.3333
    P_2                   	all	0.3333
    """
    chosen = _chosen(measures)
    judged = set(qrels)
    questions = _Questions(qrels, run, sorted(judged if complete else judged & set(run), key=lambda q: q.encode()))
    depth = max(questions.batch.gains.shape[1], 1)
    columns: dict[str, FloatArray] = {}
    for item in chosen:
        if item.measure.count is not None:
            columns[item.label] = item.measure.count(questions)
        elif item.measure.metric is not None:
            metric = METRICS.get(item.measure.metric)
            batch = questions.batch
            columns[item.label] = questions.of_scored(score_questions(metric, batch, qrels, run, item.k or depth))
    evaluated = questions.evaluated
    lines: list[str] = []
    if per_query:
        for position, question in enumerate(evaluated):
            for item in chosen:
                if item.label in columns:
                    lines.append(_line(item, question, columns[item.label][position]))
    for item in chosen:
        if item.label not in columns:
            lines.append(_line(item, "all", len(evaluated)))
        elif item.measure.count is not None:
            lines.append(_line(item, "all", columns[item.label].sum()))
        else:
            lines.append(_line(item, "all", columns[item.label].mean() if evaluated else 0.0))
    return lines
