"""The one-screen summary of a configuration for people who will not open the dashboard: which configuration
holds the most evidence at an equal context budget, the chosen configuration against the best and the baseline,
whether the differences are real, how much of what it retrieves is waste, and where its questions fail.

:func:`configuration_summary` computes it from a workspace; the record's sentences are plain text, which the
report (:func:`contextgrid.render.report.build_report`) and the dashboard escape for their markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from contextgrid.analysis.budget_verdict import BudgetVerdict
from contextgrid.analysis.causes import CAUSES, cause_counts
from contextgrid.analysis.questions import shared_scores
from contextgrid.core.checks import check_k
from contextgrid.core.errors import parameter_error
from contextgrid.metrics.base import METRICS
from contextgrid.significance.compare import compare_pair
from contextgrid.significance.comparisons import PairedComparison
from contextgrid.significance.wording import limits, verdict_phrase
from contextgrid.workspace.budget import budget_curves
from contextgrid.workspace.causes import failure_causes_only
from contextgrid.workspace.results import scores_at_hand
from contextgrid.workspace.waste import configuration_waste

if TYPE_CHECKING:
    import pandas as pd

    from contextgrid.workspace.model import Workspace

__all__ = ["HEADLINE_METRICS", "ConfigurationSummary", "configuration_summary"]

HEADLINE_METRICS = ("recall", "mrr", "ndcg")
"""The chunk-level metrics of a summary's headline table, beside the one it ranks by."""

_FAILURES = {
    "partial": "hold only a sliver of their gold in the top {k}",
    "split": "have their evidence split over chunks that each hold too little of it",
    "ranked_low": "have a relevant chunk ranked below {k}",
    "not_retrieved": "retrieve nothing relevant in the chunks retrieved",
}
"""How each retrieval failure reads in a sentence, in the rule order of the causes."""


_APART = (("no_gold", "with no gold evidence"), ("unresolved", "whose gold is not in the documents"))
"""The questions that are no retrieval failure, and how they read."""


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


@dataclass(frozen=True, slots=True)
class ConfigurationSummary:
    """One configuration's summary (:func:`configuration_summary` builds it).

    ``headline`` has one row per distinct configuration of (``config``, ``best``, ``baseline``), in that order,
    with a ``role`` column and the numbers: ``metric@k`` for the ranking metric and
    :data:`HEADLINE_METRICS`, then, when the workspace has the evidence, ``character_recall``,
    ``share_gold`` and ``retrieved_total`` (mean characters retrieved per question). ``against_best`` and
    ``against_baseline`` are paired tests of ``config`` (as ``a``) against the other, ``None`` where they
    are the same configuration. ``causes`` counts the questions of the headline's configurations by cause
    (:func:`~contextgrid.analysis.causes.cause_counts`' table, same rows), or is ``None`` without the evidence.
    ``budget_verdict`` is every configuration's verdict at an equal context budget and ``budget_means`` its
    curves (:meth:`~contextgrid.workspace.budget.BudgetCurves.means`), ``None`` without the evidence.
    """

    config: str
    best: str
    baseline: str
    metric: str
    k: int
    configurations: int
    headline: pd.DataFrame
    against_best: PairedComparison | None
    against_baseline: PairedComparison | None
    causes: pd.DataFrame | None
    budget_verdict: BudgetVerdict | None = None
    budget_means: pd.DataFrame | None = None

    def __post_init__(self) -> None:
        for name in ("config", "best", "baseline"):
            value = getattr(self, name)
            if value not in self.headline.index:
                raise parameter_error("ConfigurationSummary", name, "a configuration of the headline table", value)
        if self.causes is not None and (
            list(self.causes.columns) != list(CAUSES) or list(self.causes.index) != list(self.headline.index)
        ):
            raise parameter_error(
                "ConfigurationSummary", "causes", "cause_counts' table of the headline's configurations", self.causes
            )

    @property
    def label(self) -> str:
        """The ranking metric at the cut-off, e.g. ``recall@5``."""
        return f"{self.metric}@{self.k}"

    def score(self, name: str) -> float:
        """``name``'s ``metric@k``."""
        return float(self.headline[self.label].to_numpy(dtype=float)[self.headline.index.get_loc(name)])

    def budget(self) -> str | None:
        """Which configuration holds the most evidence at an equal context budget, in one sentence; ``None``
        without the evidence."""
        return None if self.budget_verdict is None else self.budget_verdict.sentence()

    def verdict(self) -> str:
        """Where ``config`` stands: its score, the best's and the baseline's, and whether each gap is real."""
        score = self.score(self.config)
        parts = [f"{self.config} scores {self.label} = {score:.3f}."]
        if self.against_best is None:
            parts.append(f"It is the best of the {self.configurations} configurations.")
        else:
            parts.append(
                f"The best of the {self.configurations} configurations is {self.best}, at "
                f"{self.score(self.best):.3f}: {_gap(self.against_best)}."
            )
        if self.against_baseline is None:
            parts.append("It is the baseline.")
        else:
            parts.append(
                f"Against the baseline {self.baseline}, at {self.score(self.baseline):.3f}: "
                f"{_gap(self.against_baseline)}."
            )
        return " ".join(parts)

    def waste(self) -> str | None:
        """One sentence on how much of what ``config`` retrieves is gold evidence; ``None`` without evidence."""
        if "share_gold" not in self.headline.columns:
            return None
        row = self.headline.loc[self.config]
        share = row["share_gold"]
        # Said as characters read per character of evidence: "88% is waste" counts all that is not the (often
        # one-sentence) gold as waste, which overstates it to a reader who is not an engineer.
        reads = (
            f"the model reads {1 / share:,.1f} characters for every character of evidence"
            if share > 0
            else "none of it is evidence"
        )
        return (
            f"{self.config} retrieves {row['retrieved_total']:,.0f} characters per question on average at "
            f"k = {self.k}; of all it retrieves, {share:.1%} is gold evidence: {reads}."
        )

    def failures(self) -> str | None:
        """One sentence on where ``config``'s questions fail, by cause; ``None`` without the evidence."""
        if self.causes is None:
            return None
        row = self.causes.index.get_loc(self.config)
        counts = dict(zip(CAUSES, self.causes.to_numpy(dtype=int)[row].tolist(), strict=True))
        asked = sum(counts.values())
        answerable = asked - counts["no_gold"] - counts["unresolved"]
        failing = sum(counts[cause] for cause in _FAILURES)
        text = f"{counts['hit']:,} of {_count(answerable, 'answerable question')} find gold in the top {self.k}"
        if failing:
            reasons = [
                f"{counts[cause]:,} {phrase.format(k=self.k)}" for cause, phrase in _FAILURES.items() if counts[cause]
            ]
            text += f"; of the {failing:,} that fail, " + ", ".join(reasons[:-1])
            text += f"{' and ' if len(reasons) > 1 else ''}{reasons[-1]}"
        notes = [
            f"{_count(counts[cause], 'question')} {what}"
            for cause, what in (
                ("no_gold", "with no gold evidence"),
                ("unresolved", "whose gold is not in the documents"),
            )
            if counts[cause]
        ]
        if notes:
            text += f" ({' and '.join(notes)}, not counted)"
        return text + "."


def _gap(comparison: PairedComparison) -> str:
    """The difference ``a - b`` with the test's own interval and verdict, and how many questions differ: the
    wording of :mod:`contextgrid.significance.wording`, as the command line and the dashboard say it."""
    return f"{verdict_phrase(comparison, digits=3)}. {limits(comparison)[0].removesuffix('.')}"


def configuration_summary(
    workspace: Workspace,
    config: str,
    *,
    k: int = 5,
    metric: str = "recall",
    baseline: str | None = None,
    waste: pd.DataFrame | None = None,
    budget_verdict: BudgetVerdict | None = None,
    budget_means: pd.DataFrame | None = None,
    scores: pd.DataFrame | None = None,
) -> ConfigurationSummary:
    """The summary of configuration ``config`` of ``workspace`` at cut-off ``k``.

    Parameters
    ----------
    workspace : Workspace
    config : str
        The configuration the summary is about.
    k : int, keyword-only
        The cut-off, at least 1.
    metric : str, keyword-only
        The registered metric that ranks the configurations (the best is the highest ``metric@k``, the first
        in manifest order among equals) and that the paired tests compare.
    baseline : str, keyword-only
        The configuration to compare with; by default the workspace's first, as on the Compare page.
    waste : pandas.DataFrame, keyword-only
        :func:`~contextgrid.workspace.waste.workspace_waste`'s table at ``k``, when already at hand; else the
        waste of the headline's configurations alone is measured.
    budget_verdict, budget_means : keyword-only
        The verdict and the means of the workspace's :func:`~contextgrid.workspace.budget.budget_curves`
        (``curves.verdict()``, ``curves.means()``), when already at hand: both or neither.
    scores : pandas.DataFrame, keyword-only
        The workspace's scores (``workspace.evaluate(...).to_dataframe()``, a row for every configuration, at
        ``ks`` that hold ``k`` and ``metrics`` that hold ``metric`` and :data:`HEADLINE_METRICS`), when already
        at hand: taken as they are, the same numbers (a score at k reads the first k ranks whatever the depth
        scored), rather than every configuration scored again.

    Each paired test is a permutation test (10,000 sign flips, seed 0) of ``config`` against one other
    configuration on the questions both score, with its own interval (the shifts the same sign flips do not
    reject; no bootstrap is drawn, as nothing beside the verdict shows one); it is one comparison, so no
    correction applies. The budget verdict covers every configuration of the workspace, at the default grid of
    budgets (:func:`~contextgrid.workspace.budget.budget_curves`), when it has documents, questions and chunks for
    all of them.

    Examples
    --------
    >>> from contextgrid.workspace.manifest import load_workspace
    >>> from contextgrid.workspace.sample import SAMPLE
    >>> summary = configuration_summary(load_workspace(SAMPLE), "bm25-recursive-200-0", k=5)
    >>> summary.best, summary.baseline, list(summary.headline["role"])
    ('bm25-recursive-2000-0', 'bm25-recursive-200-0', ['chosen, baseline', 'best'])
    """
    import pandas as pd

    function = "configuration_summary"
    cutoff = check_k(k, function=function)
    workspace.config(config)  # an unknown name raises, naming the available ones
    if not isinstance(metric, str) or metric not in METRICS:
        raise parameter_error(function, "metric", f"a registered metric, one of {sorted(METRICS)}", metric)
    base = workspace.names[0] if baseline is None else baseline
    if not isinstance(base, str):
        raise parameter_error(function, "baseline", "a configuration name (str) or None", base)
    workspace.config(base)
    if (budget_verdict is None) != (budget_means is None):
        raise parameter_error(function, "budget_verdict", "given with budget_means, or both left out", budget_verdict)
    label = f"{metric}@{cutoff}"
    metrics = list(dict.fromkeys([metric, *HEADLINE_METRICS]))
    labels = [f"{name}@{cutoff}" for name in metrics]
    if scores is None:
        grid = workspace.evaluate(ks=[cutoff], metrics=metrics).to_dataframe()
    else:
        # In manifest order, as scored: the first of equals is the best.
        grid = scores_at_hand(scores, workspace.names, labels, function=function)
    ranking = grid[label]
    best = str(ranking.index[int(ranking.to_numpy().argmax())])
    names = list(dict.fromkeys([config, best, base]))
    roles: dict[str, list[str]] = {name: [] for name in names}
    for role, name in (("chosen", config), ("best", best), ("baseline", base)):
        roles[name].append(role)
    headline = grid.loc[names, labels]
    missing = workspace.missing_evidence(names)
    causes = verdict = means = None
    if not missing:
        # Only the headline's configurations: the mean waste of each is the same whichever others are measured.
        measured = configuration_waste(workspace, cutoff, table=waste, configs=names, scores=grid)
        headline = pd.concat([headline, measured[["character_recall", "share_gold", "retrieved_total"]]], axis=1)
        causes = cause_counts(failure_causes_only(workspace, k=cutoff, configs=names))
    if not workspace.missing_evidence():
        if budget_verdict is None or budget_means is None:
            curves = budget_curves(workspace)
            verdict, means = curves.verdict(), curves.means()
        else:
            verdict, means = budget_verdict, budget_means
    headline.insert(0, "role", [", ".join(roles[name]) for name in names])
    headline.index.name = "config"
    per_question = workspace.per_query(metric, cutoff)

    def against(other: str) -> PairedComparison | None:
        if other == config:
            return None
        scores = shared_scores(per_question, [config, other])
        return compare_pair(scores[config], scores[other], names=(config, other), seed=0, interval=None)

    return ConfigurationSummary(
        config=config,
        best=best,
        baseline=base,
        metric=metric,
        k=cutoff,
        configurations=len(workspace.names),
        headline=headline,
        against_best=against(best),
        against_baseline=against(base),
        causes=causes,
        budget_verdict=verdict,
        budget_means=means,
    )
