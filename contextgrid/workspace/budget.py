"""Every configuration of a workspace at an equal context budget: the curves, the frontier and the verdict.

Comparing configurations at the same ``k`` rewards big chunks: five chunks of 2,000 characters hand the model
four times what five of 500 do. :func:`budget_curves` gives every configuration the same budget instead (see
:mod:`contextgrid.analysis.budget` for the rule) and :meth:`BudgetCurves.verdict` says which holds the most
evidence at each budget, and whether that is more than chance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from contextgrid.analysis.budget import (
    BUDGET_COLUMNS,
    budget_frame,
    budget_frontier,
    budget_grid,
    budget_means,
    budget_rows,
    check_budgets,
)
from contextgrid.analysis.budget_verdict import BudgetVerdict, budget_verdict, parting_budget
from contextgrid.chunking import Tokenizer
from contextgrid.core.checks import check_int
from contextgrid.core.errors import MissingWorkspaceInputError, parameter_error
from contextgrid.metrics import DEFAULT_KS

if TYPE_CHECKING:
    import pandas as pd

    from contextgrid.workspace.model import Workspace

__all__ = ["DEFAULT_POINTS", "BudgetCurves", "budget_curves"]

DEFAULT_POINTS = 8
"""How many budgets the default grid has (about: rounding may merge two)."""


@dataclass(frozen=True, slots=True)
class BudgetCurves:
    """Every configuration at every budget (:func:`budget_curves` builds it).

    ``per_question`` has index ``(config, budget, question)`` and the columns
    of :data:`~contextgrid.analysis.budget.BUDGET_COLUMNS`; every configuration
    has the same questions (those whose gold is resolved) at every budget.
    ``unit`` is what budgets count: ``"characters"`` or ``"tokens"``.
    """

    per_question: pd.DataFrame
    budgets: tuple[int, ...]
    unit: str

    def __post_init__(self) -> None:
        if list(self.per_question.index.names) != ["config", "budget", "question"]:
            raise parameter_error(
                "BudgetCurves", "per_question", "a frame indexed by (config, budget, question)", self.per_question
            )
        if not set(BUDGET_COLUMNS) <= set(self.per_question.columns):
            raise parameter_error("BudgetCurves", "per_question", f"the columns {BUDGET_COLUMNS}", self.per_question)
        if self.unit not in ("characters", "tokens"):
            raise parameter_error("BudgetCurves", "unit", "'characters' or 'tokens'", self.unit)

    @property
    def configs(self) -> tuple[str, ...]:
        """The configurations, in the workspace's order."""
        return tuple(dict.fromkeys(self.per_question.index.get_level_values("config")))

    def means(self) -> pd.DataFrame:
        """One row per ``(config, budget)``: :func:`~contextgrid.analysis.budget.budget_means`."""
        return budget_means(self.per_question)

    def frontier(self) -> pd.DataFrame:
        """The (configuration, budget) points no other beats: :func:`~contextgrid.analysis.budget.budget_frontier`."""
        return budget_frontier(self.means())

    def records(self) -> list[dict[str, Any]]:
        """:meth:`means` as one plain dict per (configuration, budget): ``config``, ``budget``,
        ``evidence_recall``, ``hit_rate``, ``characters`` (mean characters sent), ``chunks`` (mean chunks
        taken), ``spent`` (mean cost in the budget's unit) and ``questions``."""
        means = self.means().reset_index()
        return [
            {
                "config": str(row["config"]),
                "budget": int(row["budget"]),
                "evidence_recall": float(row["evidence_recall"]),
                "hit_rate": float(row["hit_rate"]),
                "characters": float(row["characters"]),
                "chunks": float(row["chunks"]),
                "spent": float(row["spent"]),
                "questions": int(row["questions"]),
            }
            for row in means.to_dict("records")
        ]

    def verdict(self, **options: Any) -> BudgetVerdict:
        """:func:`~contextgrid.analysis.budget_verdict.budget_verdict` of these curves; ``options`` are its
        keywords (``metric``, ``test``, ``correction``, ``alpha``, ``n_resamples``, ``seed``)."""
        return budget_verdict(self.per_question, unit=self.unit, **options)

    def parting(self, a: str, b: str, **options: Any) -> tuple[int | None, str | None]:
        """The smallest budget at which ``a`` and ``b`` differ significantly, and which is ahead there:
        :func:`~contextgrid.analysis.budget_verdict.parting_budget`."""
        return parting_budget(self.per_question, a, b, **options)


def budget_curves(
    workspace: Workspace,
    *,
    budgets: Sequence[int] | None = None,
    tokenizer: Tokenizer | None = None,
    points: int = DEFAULT_POINTS,
    configs: Sequence[str] | None = None,
) -> BudgetCurves:
    """Every configuration of ``workspace`` (or of ``configs``) at every budget.

    Parameters
    ----------
    workspace : Workspace
        With documents, questions and chunks (a sweep writes all three).
    budgets : sequence of int, optional
        Budgets in characters (or tokens with ``tokenizer``). By default about ``points`` log-spaced budgets
        from the smallest configuration's median chunk to the longest whole context any configuration
        retrieves at its depth (:func:`~contextgrid.analysis.budget.budget_grid`).
    tokenizer : callable, optional
        Count budgets in this tokenizer's tokens (such as
        :data:`~contextgrid.answering.context.DEFAULT_TOKENIZER`, the one ``assemble_context`` counts with).
    points : int, default 8
        How many budgets the default grid has.
    configs : sequence of str, optional
        The configurations to measure (default: all, in manifest order).

    Returns
    -------
    BudgetCurves

    Examples
    --------
    >>> from contextgrid.workspace.manifest import load_workspace
    >>> from contextgrid.workspace.sample import SAMPLE
    >>> workspace = load_workspace(SAMPLE)
    >>> curves = budget_curves(workspace, budgets=[2000, 1000])
    >>> curves.configs == workspace.names, curves.budgets
    (True, (1000, 2000))
    """

    names = workspace.names if configs is None else tuple(configs)
    for name in names:
        workspace.config(name)
    missing = workspace.missing_evidence(names)
    if missing:
        raise MissingWorkspaceInputError(
            f"budget_curves: workspace {workspace.name!r} has no {', no '.join(missing)}; measuring evidence at a "
            "budget needs documents, questions and chunks in the workspace (a sweep writes all three)"
        )
    check_int(points, function="budget_curves", parameter="points", minimum=1)
    for name in names:
        workspace.check_alignment(name)  # qrels or a run of another chunking are refused, not measured
    # The questions' gold merged once, each chunking laid out against it once, and each configuration's ranked
    # grades those its scores were computed from.
    measured = workspace.each_config(
        lambda config: budget_rows(
            workspace.gold,
            workspace.run(config.name),
            workspace.chunking_gold(config.name),
            qrels=workspace.qrels(config.name),
            tokenizer=tokenizer,
            grades=workspace.ranked_grades(config.name, max(DEFAULT_KS)),
        ),
        names=names,
    )
    rows = dict(zip(names, measured, strict=True))
    if budgets is None:
        typical = min((r.typical_chunk for r in rows.values() if r.typical_chunk > 0), default=1)
        longest = max((r.longest_context for r in rows.values()), default=1)
        cuts = budget_grid(typical, max(longest, 1), points=points)
    else:
        cuts = check_budgets(budgets, function="budget_curves")
    return BudgetCurves(budget_frame(rows, cuts), cuts, "characters" if tokenizer is None else "tokens")
