"""A regression gate's report for CI: a Markdown summary (for ``$GITHUB_STEP_SUMMARY``) and a JUnit XML file,
one test case per gated metric, which CI systems display."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from contextgrid.render.markup import escape_markdown as md
from contextgrid.significance.wording import format_interval, format_level
from contextgrid.workspace.gate import GateReport

__all__ = ["SHOWN_LOST", "gate_junit", "gate_markdown"]

SHOWN_LOST = 20
"""Lost questions listed per metric in the summary; the rest are counted."""


def _cell(value: float) -> str:
    return f"{value:.4f}"


def gate_markdown(report: GateReport) -> str:
    """The gate's summary in Markdown: the answer, one row per metric, the evidence and the questions lost.

    Every name from the user is escaped, so a configuration or question id cannot break the table.

    Examples
    --------
    >>> from contextgrid.workspace.gate import gate_files
    >>> run = HANDMADE / "runs" / "bm25-fixed-512.trec"
    >>> print(gate_markdown(gate_files(HANDMADE / "qrels.trec", run, run)).splitlines()[0])
    ## contextgrid gate: passed, candidate against baseline
    """
    status = "passed" if report.passed else "failed"
    lines = [
        f"## contextgrid gate: {status}, {md(report.candidate)} against {md(report.baseline)}",
        "",
        "| metric | baseline | candidate | difference | interval | one-sided p | verdict |",
        "| --- | ---: | ---: | ---: | --- | ---: | --- |",
    ]
    for result in report.results:
        c = result.comparison
        interval = f"{format_interval(result.low, result.high)} ({format_level(1 - 2 * result.alpha)})"
        # The library's own words and numbers go as they are; only the names from the inputs are escaped.
        lines.append(
            f"| {md(result.metric)} | {_cell(c.mean_b)} | {_cell(c.mean_a)} | {c.difference:+.4f} | {interval} "
            f"| {result.p_text()} | {result.verdict(name=md)} |"
        )
    for result in report.results:
        lines += ["", f"**{md(result.metric)}**: " + " ".join(result.sentences(name=md))]
        lost = report.lost[result.metric]
        if lost.empty:
            continue
        lines += [
            "",
            f"{len(lost):,} question{'' if len(lost) == 1 else 's'} went from hit to miss on {md(result.metric)}"
            + ("" if report.causes else f" (no causes: the inputs have no {', no '.join(map(md, report.missing))})")
            + ":",
            "",
            "| question | baseline | candidate | cause |" if report.causes else "| question | baseline | candidate |",
            "| --- | ---: | ---: | --- |" if report.causes else "| --- | ---: | ---: |",
        ]
        for question, base, candidate, cause in lost.head(SHOWN_LOST).itertuples(index=False):
            row = f"| {md(question)} | {_cell(base)} | {_cell(candidate)} |"
            lines.append(f"{row} {md(cause)} |" if report.causes else row)
        if len(lost) > SHOWN_LOST:
            lines += ["", f"and {len(lost) - SHOWN_LOST:,} more."]
    return "\n".join(lines) + "\n"


def gate_junit(report: GateReport) -> str:
    """The gate as JUnit XML: one ``testsuite``, one ``testcase`` per gated metric, a ``failure`` in each that
    failed, the evidence as its text.

    Examples
    --------
    >>> import xml.etree.ElementTree as ET
    >>> from contextgrid.workspace.gate import gate_files
    >>> run = HANDMADE / "runs" / "bm25-fixed-512.trec"
    >>> suite = ET.fromstring(gate_junit(gate_files(HANDMADE / "qrels.trec", run, run)))
    >>> suite.get("tests"), suite.get("failures"), suite.find("testcase").get("name")
    ('1', '0', 'recall@5: candidate against baseline')
    """
    failures = sum(not result.passed for result in report.results)
    suite = ET.Element(
        "testsuite",
        {"name": "contextgrid gate", "tests": str(len(report.results)), "failures": str(failures), "errors": "0"},
    )
    for result in report.results:
        case = ET.SubElement(
            suite,
            "testcase",
            {"classname": "contextgrid.gate", "name": f"{result.metric}: {report.candidate} against {report.baseline}"},
        )
        evidence = "\n".join(result.sentences())
        if result.passed:
            ET.SubElement(case, "system-out").text = evidence
        else:
            failure = ET.SubElement(case, "failure", {"message": result.verdict(), "type": "regression"})
            failure.text = evidence
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"
