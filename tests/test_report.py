"""The one-file HTML report and its command-line glue."""

from __future__ import annotations

import argparse
import html
import re
from pathlib import Path

import corpora
import pytest

import contextgrid as cg
from contextgrid.analysis.budget import budget_frontier
from contextgrid.cli.commands import add_limit_options
from contextgrid.cli.report import COMMAND as REPORT
from contextgrid.core.errors import ContextGridError, OutputExistsError
from contextgrid.evidence.run_waste import character_boxes, retrieved_table
from contextgrid.evidence.waste import measure_waste
from contextgrid.metrics import BUILTIN_METRICS, DEFAULT_KS
from contextgrid.render.budget_figures import budget_plot
from contextgrid.render.report import DRAWN, build_report
from contextgrid.render.waste_figures import characters_plot, precision_recall_plot, rank_heatmap
from contextgrid.workspace.budget import budget_curves
from contextgrid.workspace.causes import failure_causes
from contextgrid.workspace.summary import configuration_summary
from contextgrid.workspace.sweep import sweep, sweep_grid
from contextgrid.workspace.waste import configuration_waste, workspace_waste

HOSTILE = '<script>window.__pwned = 1</script> & "quotes"'
DOCUMENTS = {
    "refunds.md": "Refunds are available within 30 days of purchase. Items must be unused.\n\n"
    + "Store credit is offered after 30 days and up to 90 days. " * 6
    + "<b>Fees</b>: $5 per return.",
    "stove.md": "The Ember stove burns for 90 minutes on one 230 g canister.\n\n"
    + "Always light the stove outdoors, away from the tent. " * 8,
}
ITEMS = (
    cg.EvalItem(
        id="q1",
        question=f"How long do I have to return something? {HOSTILE}",
        anchors=(cg.Anchor("refunds.md", "Refunds are available within 30 days of purchase."),),
    ),
    corpora.ITEMS[1],  # the canister question, on the tiny corpus's stove.md
    cg.EvalItem(
        id="q3",
        question="What does a return cost?",
        anchors=(cg.Anchor("refunds.md", "<b>Fees</b>: $5 per return."),),
    ),
)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> cg.Workspace:
    root = tmp_path_factory.mktemp("ws")
    grid = sweep_grid(chunkers=["fixed_chars"], sizes=[80, 300], overlaps=[20], retrievers=["bm25"])
    sweep(DOCUMENTS, ITEMS, grid, root)
    return cg.load_workspace(root)


def test_report_holds_the_grid_row_of_the_configuration(workspace: cg.Workspace) -> None:
    config = workspace.names[0]
    page = build_report(workspace, config, k=3)
    scores = cg.evaluate(workspace.qrels(config), workspace.run(config))
    for metric in BUILTIN_METRICS:
        cells = "".join(f"<td>{scores[f'{metric}@{k}']:.4f}</td>" for k in DEFAULT_KS)
        assert f"<tr><td>{metric}</td>{cells}</tr>" in page


def test_report_states_the_share_of_gold_and_lists_the_worst_question_first(workspace: cg.Workspace) -> None:
    config = workspace.names[1]
    page = build_report(workspace, config, k=3)
    items, _ = workspace.resolved
    chunks = {chunk.id: chunk for chunk in workspace.chunks(config)}
    wastes = {
        item.id: measure_waste(item, [chunks[c] for c in workspace.run(config).get(item.id, ())[:3]]) for item in items
    }
    share = sum(w.gold_retrieved for w in wastes.values()) / sum(w.retrieved_total for w in wastes.values())
    assert f"of all it retrieves, {share:.1%} is gold evidence" in page
    # The first failing question listed is, of the questions of the first failure cause listed, the one whose top 3
    # hold the least of its evidence.
    causes = failure_causes(workspace, k=3, configs=[config]).set_index("question")["cause"].astype(str)
    table = page.split("<h2>Questions that fail, one of each cause in turn</h2>")[1].split("</table>")[0]
    rows = re.findall(r"<tr><td>([^<]+)</td>", table)
    assert rows
    first_cause = causes[rows[0]]
    assert first_cause != "hit"
    worst = min(
        (q for q in wastes if causes[q] == first_cause),
        key=lambda q: (wastes[q].character_recall, q),
    )
    assert rows[0] == worst
    assert f"<h3>{worst}: " in page
    assert page.count("Plotly.newPlot") == 5  # the budget curves, the causes, three waste views


def test_report_opens_with_the_summary_and_carries_plotly_js_once(workspace: cg.Workspace) -> None:
    config, baseline = workspace.names[1], workspace.names[0]
    page = build_report(workspace, config, k=3, baseline=baseline)
    summary = configuration_summary(workspace, config, k=3, baseline=baseline)
    first_screen = page.split("</section>")[0]
    assert "<h2>" not in first_screen  # nothing comes before the summary but the title
    # It leads with the verdict at an equal context budget, over every configuration, and its curves.
    budget = budget_curves(workspace).verdict().sentence()
    assert summary.budget() == budget
    lead = first_screen.split('<section class="summary">')[1].lstrip()
    assert lead.startswith(f'<p class="lead">{html.escape(budget)}</p>')
    assert first_screen.index('<div id="figure-budget"') < first_screen.index(html.escape(summary.verdict()))
    assert f'<p class="lead">{html.escape(summary.verdict())}</p>' in first_screen
    for sentence in (summary.waste(), summary.failures()):
        assert sentence is not None
        assert f"<p>{html.escape(sentence)}</p>" in first_screen
    assert '<div id="figure-causes"' in first_screen
    # plotly.js (its licence banner) once, in the head; no figure carries its own copy.
    assert page.count("* plotly.js (cartesian") == 1
    assert page.index("* plotly.js (cartesian") < page.index("</head>")
    drawn = re.findall(r"<h3>([^<:]+): ", page)
    failing = (failure_causes(workspace, k=3, configs=[config])["cause"].astype(str) != "hit").sum()
    assert len(drawn) == min(DRAWN, failing)


def test_a_report_built_on_what_the_caller_holds_is_the_same_file(workspace: cg.Workspace) -> None:
    config, baseline = workspace.names[1], workspace.names[0]
    curves = budget_curves(workspace)
    waste = workspace_waste(workspace, 3)
    summary = configuration_summary(
        workspace,
        config,
        k=3,
        baseline=baseline,
        waste=waste,
        budget_verdict=curves.verdict(),
        budget_means=curves.means(),
    )
    page = build_report(workspace, config, k=3, baseline=baseline)
    assert build_report(workspace, config, k=3, baseline=baseline, summary=summary, waste=waste) == page
    assert build_report(workspace, config, k=3, baseline=baseline, waste=waste) == page
    # The figures and the causes the dashboard's other views already hold, built as those views build them.
    means, params = curves.means(), workspace.params_by_config()
    items = [item.id for item in workspace.resolved[0] if item.is_resolved]
    retrieved = retrieved_table(workspace.gold, workspace.run(config), workspace.chunking_gold(config), 3)
    figures = {
        "budget": budget_plot(means, budget_frontier(means), params),
        "precision-recall": precision_recall_plot(configuration_waste(workspace, 3, table=waste), 3, params),
        "characters": characters_plot(character_boxes(waste), points=waste),
        "ranks": rank_heatmap(retrieved, 3, questions=items, config=config),
    }
    causes = failure_causes(workspace, k=3, configs=[config], others=workspace.names)
    held = {"summary": summary, "waste": waste, "causes": causes, "figures": figures}
    assert build_report(workspace, config, k=3, baseline=baseline, **held) == page
    with pytest.raises(ContextGridError, match=r"The 'figures' parameter of build_report .* Got 'grid' instead"):
        build_report(workspace, config, k=3, baseline=baseline, figures={"grid": figures["ranks"]})
    others = failure_causes(workspace, k=3, configs=[baseline], others=workspace.names)
    with pytest.raises(ContextGridError, match="The 'causes' parameter of build_report must be failure_causes' rows"):
        build_report(workspace, config, k=3, baseline=baseline, causes=others)
    # A summary of another cut-off, baseline, metric or configuration is refused.
    for wrong in (
        lambda: build_report(workspace, config, k=2, baseline=baseline, summary=summary),
        lambda: build_report(workspace, config, k=3, baseline=config, summary=summary),
        lambda: build_report(workspace, config, k=3, baseline=baseline, metric="mrr", summary=summary),
        lambda: build_report(workspace, baseline, k=3, baseline=baseline, summary=summary),
    ):
        with pytest.raises(ContextGridError, match="The 'summary' parameter of build_report"):
            wrong()


def test_report_escapes_every_piece_of_user_text(workspace: cg.Workspace) -> None:
    page = build_report(workspace, workspace.names[0], k=5)
    assert "window.__pwned" not in page.replace("window.__pwned = 1&lt;/script&gt;", "")
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt; &amp; &quot;quotes&quot;" in page
    assert "<b>Fees</b>" not in page


def test_a_workspace_without_documents_gets_the_grid_and_a_note(tmp_path: Path) -> None:
    (tmp_path / "qrels.trec").write_text("q1 0 c1 2\nq2 0 c4 1\n")
    (tmp_path / "run.trec").write_text("q1 Q0 c2 1 0.9 x\nq1 Q0 c1 2 0.8 x\nq2 Q0 c4 1 0.7 x\n")
    (tmp_path / "contextgrid.toml").write_text('qrels = "qrels.trec"\n[[config]]\nname = "only"\nrun = "run.trec"\n')
    page = build_report(cg.load_workspace(tmp_path), "only", k=1)
    assert "They need documents, questions and chunks in the workspace." in page
    assert "Plotly.newPlot" not in page
    assert "<tr><td>mrr</td><td>0.5000</td><td>0.7500</td>" in page


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="contextgrid report")
    REPORT.configure(parser)
    add_limit_options(parser)  # as the command line's parser adds them to every command that reads files
    return parser.parse_args(argv)


def test_the_command_writes_the_report_and_refuses_to_overwrite(
    workspace: cg.Workspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "report.html"
    config = workspace.names[0]
    assert REPORT.run(parse(str(workspace.root), "--config", config, "-o", str(output), "--k", "3")) == 0
    assert output.read_text() == build_report(workspace, config, k=3)
    assert f"wrote {output}" in capsys.readouterr().out
    with pytest.raises(OutputExistsError, match="pass --force"):
        REPORT.run(parse(str(workspace.root), "--config", config, "-o", str(output)))
    assert REPORT.run(parse(str(workspace.root), "--config", config, "-o", str(output), "--force")) == 0
    other = workspace.names[1]
    argv = ["--config", config, "-o", str(output), "--force", "--baseline", other, "--metric", "ndcg"]
    assert REPORT.run(parse(str(workspace.root), *argv)) == 0
    assert output.read_text() == build_report(workspace, config, k=5, metric="ndcg", baseline=other)
    with pytest.raises(ContextGridError, match="no configuration named 'nope'"):
        REPORT.run(parse(str(workspace.root), "--config", "nope", "-o", str(tmp_path / "other.html")))
    assert not (tmp_path / "other.html").exists()


def test_the_command_checks_k_and_requires_config_and_output(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse("ws", "--config", "a", "-o", "r.html", "--k", "0")
    assert "expected a whole number, 1 or more, got '0'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parse("ws", "-o", "r.html")
    with pytest.raises(SystemExit):
        parse("ws", "--config", "a", "-o", "r.html", "--metric", "recal")
    assert "argument --metric: invalid choice: 'recal'" in capsys.readouterr().err


def test_what_each_drawn_question_says_of_the_other_configurations_is_true() -> None:
    from contextgrid.workspace.sample import SAMPLE

    sample = cg.load_workspace(SAMPLE)
    config = "bm25-recursive-2000-0"
    page = build_report(sample, config, k=5, baseline="bm25-recursive-200-0")
    rows = failure_causes(sample, k=5).set_index(["config", "question"]).loc[config]
    heads = list(re.finditer(r"<h3[^>]*>(q\w+):", page))
    assert heads
    said_some = False
    for head, after in zip(heads, [*heads[1:], None], strict=True):
        part = page[head.end() : None if after is None else after.start()]
        count = rows.loc[head.group(1), "hit_elsewhere"]
        if count:
            said_some = True
            plural = "s" if count != 1 else ""
            assert f"{count} other configuration{plural} get it right at k = 5" in part, head.group(1)
        else:
            assert "no other configuration gets it right at k = 5" in part, head.group(1)
    # The sample has a drawn question other configurations get right: the check above is not only of "no other".
    assert said_some
