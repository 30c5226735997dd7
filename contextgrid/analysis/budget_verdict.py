"""The verdict at an equal context budget: at each budget, which configuration holds the most evidence, and
whether it is significantly ahead of the runner-up (Compare's paired test, corrected over the whole grid).

:func:`budget_verdict` takes the per-question table of
:func:`contextgrid.workspace.budget.budget_curves` (index ``(config, budget, question)``) and returns a
:class:`BudgetVerdict`, whose :meth:`~BudgetVerdict.sentence` says it in one sentence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from contextgrid.core.checks import check_fraction
from contextgrid.core.errors import parameter_error
from contextgrid.significance.compare import compare_pairs

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["BudgetStep", "BudgetVerdict", "budget_verdict", "parting_budget", "parting_sentence", "quantity"]


def quantity(number: int, unit: str) -> str:
    """``number`` with thousands separators and ``unit`` in the right number.

    Examples
    --------
    >>> quantity(2000, "characters"), quantity(1, "tokens")
    ('2,000 characters', '1 token')
    """
    return f"{number:,} {unit[:-1] if number == 1 and unit.endswith('s') else unit}"


@dataclass(frozen=True, slots=True)
class BudgetStep:
    """One budget of the grid: the best configuration, the runner-up and the corrected paired test between them.

    ``runner_up`` is ``None`` (and the p-values 1.0) when there is one configuration only.
    """

    budget: int
    best: str
    best_mean: float
    runner_up: str | None
    runner_up_mean: float | None
    p_value: float
    p_adjusted: float
    significant: bool

    def __post_init__(self) -> None:
        if not isinstance(self.budget, int) or self.budget < 1:
            raise parameter_error("BudgetStep", "budget", "an int >= 1", self.budget)
        for name in ("p_value", "p_adjusted"):
            check_fraction(getattr(self, name), function="BudgetStep", parameter=name)
        if self.runner_up is None and self.significant:
            raise parameter_error("BudgetStep", "significant", "False without a runner-up", self.significant)


@dataclass(frozen=True, slots=True)
class BudgetVerdict:
    """The budget verdict of a grid (:func:`budget_verdict` builds it): one :class:`BudgetStep` per budget,
    smallest first, and how they were tested."""

    steps: tuple[BudgetStep, ...]
    unit: str
    metric: str
    test: str
    correction: str
    alpha: float

    def __post_init__(self) -> None:
        if not self.steps or not all(isinstance(step, BudgetStep) for step in self.steps):
            raise parameter_error("BudgetVerdict", "steps", "a non-empty tuple of BudgetStep", self.steps)
        budgets = [step.budget for step in self.steps]
        if budgets != sorted(set(budgets)):
            raise parameter_error("BudgetVerdict", "steps", "one step per budget, smallest first", budgets)

    def to_dataframe(self) -> pd.DataFrame:
        """One row per budget: ``best``, ``best_mean``, ``runner_up``, ``runner_up_mean``, ``p_value``,
        ``p_adjusted``, ``significant``."""
        import pandas as pd

        rows = [
            {
                "budget": step.budget,
                "best": step.best,
                "best_mean": step.best_mean,
                "runner_up": step.runner_up,
                "runner_up_mean": step.runner_up_mean,
                "p_value": step.p_value,
                "p_adjusted": step.p_adjusted,
                "significant": step.significant,
            }
            for step in self.steps
        ]
        return pd.DataFrame(rows).set_index("budget")

    def sentence(self) -> str:
        """The verdict in one sentence, runs of budgets with the same outcome said once.

        Examples
        --------
        >>> steps = (
        ...     BudgetStep(500, "a", 0.41, "b", 0.3, 0.001, 0.004, True),
        ...     BudgetStep(2000, "a", 0.64, "b", 0.55, 0.002, 0.006, True),
        ...     BudgetStep(6000, "b", 0.8, "a", 0.79, 0.5, 1.0, False),
        ...     BudgetStep(9000, "b", 0.9, "a", 0.88, 0.4, 1.0, False),
        ... )
        >>> print(BudgetVerdict(steps, "characters", "evidence_recall", "permutation", "holm", 0.05).sentence())
        From 500 to 2,000 characters, a holds the most evidence, significantly more than the runner-up \
(at 2,000 characters: 0.64 against b's 0.55); from 6,000 characters on, no configuration is significantly ahead.
        """
        first = self.steps[0]
        if first.runner_up is None:
            last = self.steps[-1]
            return (
                f"{last.best} is the only configuration; at {quantity(last.budget, self.unit)} it holds "
                f"{last.best_mean:.2f} of the evidence."
            )
        runs: list[list[BudgetStep]] = []
        for step in self.steps:
            if runs and _outcome(runs[-1][-1]) == _outcome(step):
                runs[-1].append(step)
            else:
                runs.append([step])
        clauses = [self._clause(run, is_last=i == len(runs) - 1) for i, run in enumerate(runs)]
        text = "; ".join(clauses)
        return text[0].upper() + text[1:] + "."

    def _clause(self, run: list[BudgetStep], *, is_last: bool) -> str:
        low, high = run[0], run[-1]
        if len(run) == 1:
            where = f"at {quantity(low.budget, self.unit)}"
        elif is_last:
            where = f"from {quantity(low.budget, self.unit)} on"
        else:
            where = f"from {low.budget:,} to {quantity(high.budget, self.unit)}"
        if not low.significant:
            return f"{where}, no configuration is significantly ahead"
        if len(run) == 1:
            return (
                f"{where}, {low.best} holds the most evidence ({low.best_mean:.2f}), significantly more than "
                f"{low.runner_up} ({low.runner_up_mean:.2f})"
            )
        return (
            f"{where}, {high.best} holds the most evidence, significantly more than the runner-up (at "
            f"{quantity(high.budget, self.unit)}: {high.best_mean:.2f} against {high.runner_up}'s "
            f"{high.runner_up_mean:.2f})"
        )


def _outcome(step: BudgetStep) -> str | None:
    """What a run of budgets shares: the configuration significantly ahead, or ``None``."""
    return step.best if step.significant else None


@dataclass(frozen=True, slots=True)
class _ScoreCube:
    """A per-question table as one array ``values[config, budget, question]`` (NaN where the table has no row),
    configurations in the table's order and budgets smallest first: cut by positions, never by index lookups."""

    configs: tuple[str, ...]
    budgets: tuple[int, ...]
    questions: pd.Index
    values: npt.NDArray[np.float64]

    def means(self) -> npt.NDArray[np.float64]:
        """``means[budget, config]``: each configuration's mean over the questions it has at that budget."""
        present = ~np.isnan(self.values)
        totals = np.where(present, self.values, 0.0).sum(axis=2)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray((totals / present.sum(axis=2)).T, dtype=np.float64)

    def frame(self, cells: Sequence[tuple[int, int]]) -> pd.DataFrame:
        """Questions by the named ``(config, budget)`` cells (positions), each column named :func:`_cell`."""
        import pandas as pd

        columns = {_cell(self.configs[c], self.budgets[b]): self.values[c, b] for c, b in dict.fromkeys(cells)}
        return pd.DataFrame(columns, index=self.questions)


def _cell(config: str, budget: int) -> str:
    return f"{budget}:{config}"


def _score_cube(per_question: pd.DataFrame, metric: str, function: str) -> _ScoreCube:
    """``per_question[metric]`` laid out by the index's own codes (one scatter, no group-by)."""
    import pandas as pd

    if metric not in per_question.columns:
        raise parameter_error(function, "metric", f"a column of the table ({list(per_question.columns)})", metric)
    index = per_question.index
    if not isinstance(index, pd.MultiIndex) or list(index.names) != ["config", "budget", "question"]:
        raise parameter_error(function, "per_question", "a frame indexed by (config, budget, question)", index)
    config_codes, budget_codes, question_codes = (np.asarray(codes, dtype=np.intp) for codes in index.codes)
    seen = pd.unique(config_codes)  # the table's order, not the level's sorted one
    config_position = np.empty(len(index.levels[0]), dtype=np.intp)
    config_position[seen] = np.arange(len(seen))
    # A level can hold values no row uses (after .loc): only the budgets and questions of some row count.
    budgets = np.flatnonzero(np.bincount(budget_codes, minlength=len(index.levels[1])))
    budgets = budgets[np.argsort(np.asarray(index.levels[1])[budgets], kind="stable")]
    budget_position = np.empty(len(index.levels[1]), dtype=np.intp)
    budget_position[budgets] = np.arange(len(budgets))
    questions = np.flatnonzero(np.bincount(question_codes, minlength=len(index.levels[2])))
    question_position = np.empty(len(index.levels[2]), dtype=np.intp)
    question_position[questions] = np.arange(len(questions))
    values = np.full((len(seen), len(budgets), len(questions)), np.nan)
    values[config_position[config_codes], budget_position[budget_codes], question_position[question_codes]] = (
        per_question[metric].to_numpy(dtype=np.float64)
    )
    config_names, budget_values, question_ids = (list(level) for level in index.levels)
    return _ScoreCube(
        configs=tuple(str(config_names[code]) for code in seen.tolist()),
        budgets=tuple(int(budget_values[code]) for code in budgets.tolist()),
        questions=pd.Index([str(question_ids[code]) for code in questions.tolist()], dtype="object", name="question"),
        values=values,
    )


def _tested(
    cube: _ScoreCube,
    pairs: Sequence[tuple[tuple[int, int], tuple[int, int]]],
    *,
    test: str,
    correction: str,
    alpha: float,
    n_resamples: int,
    seed: int,
) -> list[tuple[float, float]]:
    """Raw and corrected p-values of each pair of ``(config, budget)`` cells, all in one call of the paired
    test: every pair sees the same sign flips, so each p-value is the one ``compare_pair`` gives that pair."""
    if not pairs:
        return []
    cells = [cell for pair in pairs for cell in pair]
    named = [
        (_cell(cube.configs[a[0]], cube.budgets[a[1]]), _cell(cube.configs[b[0]], cube.budgets[b[1]])) for a, b in pairs
    ]
    found = compare_pairs(
        cube.frame(cells),
        named,
        test=test,
        correction=correction,
        alpha=alpha,
        n_resamples=n_resamples,
        interval=None,
        seed=seed,
    )
    return [(result.p_value, result.p_adjusted) for result in found]


def budget_verdict(
    per_question: pd.DataFrame,
    *,
    unit: str = "characters",
    metric: str = "evidence_recall",
    test: str = "permutation",
    correction: str = "holm",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> BudgetVerdict:
    """At each budget, the best configuration and whether it beats the runner-up.

    Parameters
    ----------
    per_question : pandas.DataFrame
        Index ``(config, budget, question)``, every configuration on the same questions at every budget
        (:attr:`contextgrid.workspace.budget.BudgetCurves.per_question`).
    unit : str, default "characters"
        What the budgets count, for the sentence.
    metric : str, default "evidence_recall"
        The column compared (``hit`` works too).
    test, alpha, n_resamples, seed
        As for :func:`contextgrid.significance.compare_pair`, which gives each comparison the same p-value.
    correction : str, default "holm"
        A name in ``CORRECTIONS``, applied over the grid's comparisons (one per budget).

    Returns
    -------
    BudgetVerdict

    Examples
    --------
    >>> import pandas as pd
    >>> names = ["config", "budget", "question"]
    >>> index = pd.MultiIndex.from_product([["a", "b"], [100], ["q1", "q2", "q3"]], names=names)
    >>> table = pd.DataFrame({"evidence_recall": [1.0, 0.5, 1.0, 0.0, 0.5, 0.0]}, index=index)
    >>> print(budget_verdict(table).sentence())
    At 100 characters, no configuration is significantly ahead.
    >>> budget_verdict(table).steps[0].best, budget_verdict(table).steps[0].p_value
    ('a', 0.5)
    """
    cube = _score_cube(per_question, metric, "budget_verdict")
    means = cube.means()
    # Best first; among equal means, the table's order.
    ranked = np.argsort(-means, axis=1, kind="stable")
    pairs = [((ranked[b, 0], b), (ranked[b, 1], b)) for b in range(len(cube.budgets))] if len(cube.configs) > 1 else []
    tested = _tested(cube, pairs, test=test, correction=correction, alpha=alpha, n_resamples=n_resamples, seed=seed)
    steps = []
    for b, budget in enumerate(cube.budgets):
        best = int(ranked[b, 0])
        if not tested:
            steps.append(BudgetStep(budget, cube.configs[best], float(means[b, best]), None, None, 1.0, 1.0, False))
            continue
        runner = int(ranked[b, 1])
        p, q = tested[b]
        steps.append(
            BudgetStep(
                budget,
                cube.configs[best],
                float(means[b, best]),
                cube.configs[runner],
                float(means[b, runner]),
                p,
                q,
                q <= alpha,
            )
        )
    return BudgetVerdict(tuple(steps), unit, metric, test, correction, alpha)


def parting_budget(
    per_question: pd.DataFrame,
    a: str,
    b: str,
    *,
    metric: str = "evidence_recall",
    test: str = "permutation",
    correction: str = "holm",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> tuple[int | None, str | None]:
    """The smallest budget at which ``a`` and ``b`` part: their paired test (corrected over the grid's budgets)
    is significant there. Returns that budget and the configuration ahead, or ``(None, None)`` if they never do.

    Examples
    --------
    >>> import pandas as pd
    >>> index = pd.MultiIndex.from_product(
    ...     [["a", "b"], [100, 200], [f"q{i}" for i in range(8)]], names=["config", "budget", "question"]
    ... )
    >>> values = [0.0] * 8 + [1.0] * 8 + [0.0] * 8 + [0.0] * 8
    >>> parting_budget(pd.DataFrame({"evidence_recall": values}, index=index), "a", "b")
    (200, 'a')
    """
    cube = _score_cube(per_question.loc[[a, b]], metric, "parting_budget")
    first, second = cube.configs.index(a), cube.configs.index(b)
    pairs = [((first, column), (second, column)) for column in range(len(cube.budgets))]
    tested = _tested(cube, pairs, test=test, correction=correction, alpha=alpha, n_resamples=n_resamples, seed=seed)
    means = cube.means()
    for column, (_, q) in enumerate(tested):
        if q <= alpha:
            return cube.budgets[column], a if means[column, first] > means[column, second] else b
    return None, None


def parting_sentence(
    a: str, b: str, parting: int | None, ahead: str | None, budgets: Sequence[int], *, unit: str = "characters"
) -> str:
    """:func:`parting_budget`'s answer in one sentence.

    Examples
    --------
    >>> print(parting_sentence("a", "b", 1500, "a", [500, 1500, 4000]))
    The smallest budget at which a and b differ significantly is 1,500 characters, where a holds more evidence \
(paired test, corrected over the 3 budgets).
    >>> print(parting_sentence("a", "b", None, None, [500, 1500, 4000]))
    At no budget from 500 to 4,000 characters do a and b differ significantly.
    """
    if parting is None:
        span = (
            f"from {budgets[0]:,} to {quantity(budgets[-1], unit)}" if len(budgets) > 1 else quantity(budgets[0], unit)
        )
        return f"At no budget {span} do {a} and {b} differ significantly."
    return (
        f"The smallest budget at which {a} and {b} differ significantly is {quantity(parting, unit)}, where {ahead} "
        f"holds more evidence (paired test, corrected over the {len(budgets)} budgets)."
    )
