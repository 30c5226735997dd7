"""The one-screen summary of a configuration: hand-checked numbers, the best and the baseline, the sentences."""

from __future__ import annotations

import math
from pathlib import Path

import corpora
import pandas as pd
import pytest

import contextgrid as cg
from contextgrid.analysis.causes import CAUSES, cause_counts
from contextgrid.core.errors import ContextGridError
from contextgrid.significance.compare import compare_pair
from contextgrid.workspace.budget import budget_curves
from contextgrid.workspace.causes import failure_causes
from contextgrid.workspace.summary import ConfigurationSummary, configuration_summary
from contextgrid.workspace.waste import workspace_waste

QRELS = "q1 0 c1 1\nq2 0 c2 1\nq3 0 c3 1\nq4 0 c4 1\n"
# recall@1 per question: base 1,0,0,0 (0.25); wide 1,1,1,0 (0.75); also 1,1,0,1 (0.75, a tie with wide).
RUNS = {
    "base": "q1 Q0 c1 1 9 x\nq2 Q0 c9 1 9 x\nq3 Q0 c9 1 9 x\nq4 Q0 c9 1 9 x\n",
    "wide": "q1 Q0 c1 1 9 x\nq2 Q0 c2 1 9 x\nq3 Q0 c3 1 9 x\nq4 Q0 c9 1 9 x\n",
    "also": "q1 Q0 c1 1 9 x\nq2 Q0 c2 1 9 x\nq3 Q0 c9 1 9 x\nq4 Q0 c4 1 9 x\n",
}


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> cg.Workspace:
    root = tmp_path_factory.mktemp("scored")
    (root / "qrels.trec").write_text(QRELS)
    manifest = ['qrels = "qrels.trec"']
    for name, text in RUNS.items():
        (root / f"{name}.trec").write_text(text)
        manifest += ["[[config]]", f'name = "{name}"', f'run = "{name}.trec"']
    (root / "contextgrid.toml").write_text("\n".join(manifest) + "\n")
    return cg.load_workspace(root)


def test_the_best_is_the_first_of_equals_and_the_baseline_the_first_configuration(scored: cg.Workspace) -> None:
    summary = configuration_summary(scored, "also", k=1)
    assert (summary.best, summary.baseline, summary.configurations) == ("wide", "base", 3)
    assert list(summary.headline.index) == ["also", "wide", "base"]
    assert list(summary.headline["role"]) == ["chosen", "best", "baseline"]
    assert summary.headline["recall@1"].tolist() == [0.75, 0.75, 0.25]
    assert summary.headline["mrr@1"].tolist() == [0.75, 0.75, 0.25]
    assert summary.against_baseline is not None
    assert summary.against_best is not None
    assert summary.against_baseline.difference == 0.5
    assert summary.against_best.difference == 0.0
    # The same test as compare_pair's on the same scores.
    expected = compare_pair(
        {"q1": 1.0, "q2": 1.0, "q3": 0.0, "q4": 1.0}, {"q1": 1.0, "q2": 0.0, "q3": 0.0, "q4": 0.0}, seed=0
    )
    assert summary.against_baseline.p_value == expected.p_value
    tied = compare_pair(
        {"q1": 1.0, "q2": 1.0, "q3": 0.0, "q4": 1.0}, {"q1": 1.0, "q2": 1.0, "q3": 1.0, "q4": 0.0}, seed=0
    )
    assert (summary.against_best.ci_low, summary.against_best.ci_high) == (tied.ci_low, tied.ci_high)
    # Four questions: two of the 16 sign patterns are as extreme as any, so no shift is rejected.
    assert (tied.ci_low, tied.ci_high, expected.ci_low, expected.ci_high) == (-math.inf, math.inf, -math.inf, math.inf)
    assert summary.verdict() == (
        "also scores recall@1 = 0.750. The best of the 3 configurations is wide, at 0.750: a difference of 0.000 "
        "(95% sign-flip interval -inf to +inf), not significant (p = 1). Only 2 of 4 questions differ: a sign-flip "
        "test cannot go below p = 0.5 with them. Against the "
        "baseline base, at 0.250: a difference of +0.500 (95% sign-flip interval -inf to +inf), not significant "
        f"(p = {expected.p_value:.2g}). Only 2 of 4 questions differ: a sign-flip test cannot go below p = 0.5 with "
        "them."
    )
    assert summary.waste() is None
    assert summary.failures() is None
    assert summary.causes is None


def test_one_configuration_in_every_role_and_another_baseline_and_metric(scored: cg.Workspace) -> None:
    summary = configuration_summary(scored, "wide", k=1, baseline="wide")
    assert list(summary.headline["role"]) == ["chosen, best, baseline"]
    assert summary.against_best is None
    assert summary.against_baseline is None
    assert summary.verdict() == (
        "wide scores recall@1 = 0.750. It is the best of the 3 configurations. It is the baseline."
    )
    by_map = configuration_summary(scored, "base", k=3, metric="map", baseline="also")
    assert by_map.label == "map@3"
    assert by_map.best == "wide"
    assert list(by_map.headline.columns) == ["role", "map@3", "recall@3", "mrr@3", "ndcg@3"]


def test_a_summary_on_scores_at_hand_is_the_one_it_scores(scored: cg.Workspace) -> None:
    kept = scored.evaluate().to_dataframe()
    for config, k, metric in (("also", 1, "recall"), ("base", 3, "map")):
        given = configuration_summary(scored, config, k=k, metric=metric, scores=kept.iloc[::-1])
        summary = configuration_summary(scored, config, k=k, metric=metric)
        # The best is still the first of equals in manifest order, whatever order the scores come in.
        pd.testing.assert_frame_equal(given.headline, summary.headline, check_exact=True)
        assert (given.best, given.verdict()) == (summary.best, summary.verdict())
    with pytest.raises(ContextGridError, match=r"The 'scores' parameter .* Got \['ndcg@1'\]"):
        configuration_summary(scored, "also", k=1, scores=kept.drop(columns="ndcg@1"))
    with pytest.raises(ContextGridError, match=r"The 'scores' parameter .* Got \['base'\]"):
        configuration_summary(scored, "also", k=1, scores=kept.drop(index="base"))


def test_bad_arguments_are_refused_by_name(scored: cg.Workspace) -> None:
    with pytest.raises(ContextGridError, match="no configuration named 'nope'"):
        configuration_summary(scored, "nope")
    with pytest.raises(ContextGridError, match="no configuration named 'gone'"):
        configuration_summary(scored, "base", baseline="gone")
    with pytest.raises(ContextGridError, match=r"The 'metric' parameter of configuration_summary must be a regis"):
        configuration_summary(scored, "base", metric="bleu")
    with pytest.raises(ContextGridError, match="cut-off k must be at least 1, got 0"):
        configuration_summary(scored, "base", k=0)


def test_the_failure_sentence_counts_each_cause(scored: cg.Workspace) -> None:
    base = configuration_summary(scored, "wide", k=1)
    counts = pd.DataFrame(
        [[2, 1, 40, 0, 3, 0, 7], [0, 0, 1, 0, 0, 0, 0]],
        index=pd.Index(["wide", "base"], name="config"),
        columns=pd.Index(list(CAUSES), name="cause"),
    )
    summary = ConfigurationSummary(
        config="wide",
        best="wide",
        baseline="base",
        metric="recall",
        k=1,
        configurations=3,
        headline=base.headline,
        against_best=None,
        against_baseline=base.against_baseline,
        causes=counts,
    )
    assert summary.failures() == (
        "40 of 50 answerable questions find gold in the top 1; of the 10 that fail, 3 have their evidence split "
        "over chunks that each hold too little of it and 7 retrieve nothing relevant in the chunks retrieved "
        "(2 questions with no gold evidence and 1 question whose gold is not in the documents, not counted)."
    )
    with pytest.raises(ContextGridError, match="cause_counts' table of the headline's configurations"):
        ConfigurationSummary(**{**_fields(summary), "causes": counts.iloc[:1]})
    with pytest.raises(ContextGridError, match="The 'best' parameter of ConfigurationSummary"):
        ConfigurationSummary(**{**_fields(summary), "best": "also"})


def _fields(summary: ConfigurationSummary) -> dict[str, object]:
    return {name: getattr(summary, name) for name in ConfigurationSummary.__slots__}


def test_with_evidence_the_waste_and_the_causes_are_the_workspace_s(tmp_path: Path) -> None:
    workspace = cg.load_workspace(corpora.swept(tmp_path, sizes=[40, 200], overlap=0))
    config = workspace.names[1]
    summary = configuration_summary(workspace, config, k=1)
    assert summary.causes is not None
    expected = cause_counts(failure_causes(workspace, k=1, configs=list(summary.headline.index)))
    assert summary.causes.equals(expected)
    share = summary.headline.loc[config, "share_gold"]
    total = summary.headline.loc[config, "retrieved_total"]
    # Characters read per character of evidence, from the questions' own counts: all retrieved over all gold
    # retrieved (the reciprocal of the share).
    waste = workspace_waste(workspace, 1).loc[config]
    ratio = waste["retrieved_total"].sum() / waste["gold_retrieved"].sum()
    assert summary.waste() == (
        f"{config} retrieves {total:,.0f} characters per question on average at k = 1; of all it retrieves, "
        f"{share:.1%} is gold evidence: the model reads {ratio:,.1f} characters for every character of evidence."
    )
    hits = int(expected.loc[config, "hit"])
    sentence = summary.failures()
    assert sentence is not None
    assert sentence.startswith(f"{hits} of 2 answerable questions find gold in the top 1")


def test_what_a_caller_holds_gives_the_summary_it_measures(tmp_path: Path) -> None:
    workspace = cg.load_workspace(corpora.swept(tmp_path, sizes=[40, 200], overlap=0))
    config, baseline = workspace.names[1], workspace.names[0]
    measured = configuration_summary(workspace, config, k=1, baseline=baseline)
    curves = budget_curves(workspace)
    held = configuration_summary(
        workspace,
        config,
        k=1,
        baseline=baseline,
        waste=workspace_waste(workspace, 1),
        budget_verdict=curves.verdict(),
        budget_means=curves.means(),
    )
    assert held.headline.equals(measured.headline)
    assert measured.budget_means is not None
    assert held.budget_means is not None
    assert held.budget_means.equals(measured.budget_means)
    for sentence in ("budget", "verdict", "waste", "failures"):
        assert getattr(held, sentence)() == getattr(measured, sentence)()
    # The headline's waste is each configuration's own: measured alone, as in the whole table.
    everything = workspace_waste(workspace, 1)
    assert measured.headline.loc[config, "retrieved_total"] == everything.loc[config, "retrieved_total"].mean()
    with pytest.raises(ContextGridError, match="The 'budget_verdict' parameter of configuration_summary"):
        configuration_summary(workspace, config, k=1, budget_verdict=curves.verdict())


def test_the_paired_tests_draw_no_bootstrap_nothing_shows(scored: cg.Workspace) -> None:
    summary = configuration_summary(scored, "also", k=1)
    assert summary.against_best is not None
    assert summary.against_baseline is not None
    assert (summary.against_best.bootstrap_low, summary.against_baseline.bootstrap_high) == (None, None)
