"""Every command's ``--format json`` is a list of one object per row of its data: answers per configuration
(and per answer of one), diagnose per configuration and question, audit per finding."""

from __future__ import annotations

import json

import pytest
from commandline import run_main

from contextgrid.workspace.answers import workspace_summary
from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.sample import SAMPLE


def test_answers_json_is_one_object_per_configuration_and_per_answer(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_main(capsys, "answers", str(SAMPLE), "--format", "json")
    assert (status, err) == (0, "")
    rows = json.loads(out)
    summary = workspace_summary(load_workspace(SAMPLE))
    assert [row["config"] for row in rows] == list(summary.index)
    for row in rows:
        assert list(row)[1:] == list(summary.columns)
        assert row["answers"] == int(summary.loc[row["config"], "answers"])
        assert row["groundedness"] == pytest.approx(float(summary.loc[row["config"], "groundedness"]))
    config = rows[0]["config"]
    status, out, _ = run_main(capsys, "answers", str(SAMPLE), "--config", config, "--format", "json")
    answers = json.loads(out)
    assert status == 0
    assert len(answers) == rows[0]["answers"]
    assert all(next(iter(answer)) == "question" and "groundedness" in answer for answer in answers)
