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

from contextgrid.core.checks import check_fraction
from contextgrid.core.errors import parameter_error
from contextgrid.significance.compare import compare_pair
from contextgrid.significance.corrections import correct_p_values

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


def _scores(column: pd.Series, name: str, budget: object) -> dict[str, float]:
    """``{question: score}`` of ``name`` at ``budget``: the shape the paired tests take."""
    part = column.xs((name, budget), level=("config", "budget"))
    return dict(zip(map(str, part.index), part.astype(float).tolist(), strict=True))


def _outcome(step: BudgetStep) -> str | None:
    """What a run of budgets shares: the configuration significantly ahead, or ``None``."""
    return step.best if step.significant else None


def _means_by_budget(per_question: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Budgets (rows) by configurations (columns, in the table's order) of the mean ``metric``."""
    if metric not in per_question.columns:
        raise parameter_error(
            "budget_verdict", "metric", f"a column of the table ({list(per_question.columns)})", metric
        )
    configs = list(dict.fromkeys(per_question.index.get_level_values("config")))
    means = per_question[metric].groupby(level=["budget", "config"], sort=False).mean().unstack("config")
    return means.reindex(columns=configs).sort_index()


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
        As for :func:`contextgrid.significance.compare_pair`, which makes each comparison.
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
    means = _means_by_budget(per_question, metric)
    column = per_question[metric]
    found: list[tuple[int, str, float, str | None, float | None, float]] = []
    for budget, row in means.iterrows():
        ranked = row.sort_values(ascending=False, kind="stable")
        best = str(ranked.index[0])
        if len(ranked) == 1:
            found.append((int(budget), best, float(ranked.iloc[0]), None, None, 1.0))  # type: ignore[call-overload]
            continue
        runner = str(ranked.index[1])
        scores = {name: _scores(column, name, budget) for name in (best, runner)}
        result = compare_pair(
            scores[best],
            scores[runner],
            names=(best, runner),
            test=test,
            alpha=alpha,
            n_resamples=n_resamples,
            seed=seed,
        )
        found.append((int(budget), best, float(ranked.iloc[0]), runner, float(ranked.iloc[1]), result.p_value))  # type: ignore[call-overload]
    adjusted = correct_p_values([p for *_, p in found], method=correction)
    steps = tuple(
        BudgetStep(budget, best, best_mean, runner, runner_mean, p, q, runner is not None and q <= alpha)
        for (budget, best, best_mean, runner, runner_mean, p), q in zip(found, adjusted, strict=True)
    )
    return BudgetVerdict(steps, unit, metric, test, correction, alpha)


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
    pair = per_question.loc[[a, b]]
    means = _means_by_budget(pair, metric)
    column = pair[metric]
    raw = []
    for budget in means.index:
        scores = [_scores(column, name, budget) for name in (a, b)]
        raw.append(
            compare_pair(
                scores[0], scores[1], names=(a, b), test=test, alpha=alpha, n_resamples=n_resamples, seed=seed
            ).p_value
        )
    adjusted = correct_p_values(raw, method=correction)
    for budget, q in zip(means.index, adjusted, strict=True):
        if q <= alpha:
            ahead = a if means.loc[budget, a] > means.loc[budget, b] else b
            return int(budget), ahead
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
