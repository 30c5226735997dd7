"""trec_eval's own ``make quicktest``, for the measures contextgrid has, when trec_eval's test files are at hand.

The files are trec_eval 10.0's ``test/`` folder (github.com/usnistgov/trec_eval, whose ``Makefile`` lists the
``quicktest`` runs used here): qrels, results and the output each run must print. They are not copied into this
repository, and no installed package ships them (pytrec_eval-terrier, ranx and ir_datasets do not), so this test
runs when ``CONTEXTGRID_TREC_EVAL_TESTS`` names such a folder, or when the project's ``shared/`` folder beside the
checkout holds it as ``shared/trec_eval/test`` (where CI finds it), and is skipped otherwise::

    git clone https://github.com/usnistgov/trec_eval
    CONTEXTGRID_TREC_EVAL_TESTS=trec_eval/test python3 -m pytest tests/test_trec_eval_quicktest.py

Each quicktest run that uses only options contextgrid has is run through ``contextgrid evaluate --trec-eval``,
and its lines must equal, in order, the lines of the expected output whose measure contextgrid has. The runs
with ``-M``, ``-l``, ``-R`` or ``-Z``, which contextgrid does not have, are left out, and ``ndcg_cut.23.4``
(which trec_eval reads as 23, and contextgrid refuses) is asked as ``ndcg_cut.23``. The same features are
checked on every run, on files made by hand, in ``tests/test_cli_trec_eval.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from commandline import run_main

from contextgrid.engine.trec_eval import TREC_MEASURES

SHARED = Path(__file__).resolve().parents[2] / "shared" / "trec_eval" / "test"
FOLDER = os.environ.get("CONTEXTGRID_TREC_EVAL_TESTS") or (str(SHARED) if SHARED.is_dir() else None)
ALL_OURS = [argument for name in TREC_MEASURES for argument in ("-m", name)]
DEFAULT_OURS = ("num_q", "num_ret", "num_rel", "num_rel_ret", "recip_rank", "P")
CUTOFF_OURS = ("P", "recall", "ndcg_cut", "success")
MEASURE_PARAMETERS = ["-m", "P.5,7,3", "-m", "recall.20,2000", "-m", "ndcg_cut.10,20,23", "-m", "success.2,5,20"]

# (expected output, options, qrels, results, the measures of the expected output contextgrid prints)
QUICKTEST = [
    ("out.test", [], "qrels.test", "results.test", DEFAULT_OURS),
    ("out.test", [], "qrels.test.with-comments", "results.test", DEFAULT_OURS),
    ("out.comment.test", [], "qrels.comment.test", "results.comment.test", DEFAULT_OURS),
    ("out.test.a", ALL_OURS, "qrels.test", "results.test", tuple(TREC_MEASURES)),
    ("out.test.aq", ["-q", *ALL_OURS], "qrels.test", "results.test", tuple(TREC_MEASURES)),
    ("out.test.aqc", ["-q", "-c", *ALL_OURS], "qrels.test", "results.trunc", tuple(TREC_MEASURES)),
    ("out.test.meas_params", ["-q", *MEASURE_PARAMETERS], "qrels.test", "results.test", CUTOFF_OURS),
]

pytestmark = pytest.mark.skipif(
    FOLDER is None, reason="set CONTEXTGRID_TREC_EVAL_TESTS to trec_eval's test/ folder to run its quicktest"
)


def measure_of(line: str) -> str:
    """The measure a printed line is for: ``P_10`` is ``P``, ``ndcg_cut_5`` is ``ndcg_cut``, ``num_q`` itself."""
    label = line.split("\t")[0].strip()
    name, _, cutoff = label.rpartition("_")
    return name if cutoff.isdigit() and name in TREC_MEASURES else label


@pytest.mark.parametrize(("expected", "options", "qrels", "results", "measures"), QUICKTEST)
def test_quicktest_lines_of_the_measures_contextgrid_has(
    capsys: pytest.CaptureFixture[str],
    expected: str,
    options: list[str],
    qrels: str,
    results: str,
    measures: tuple[str, ...],
) -> None:
    folder = Path(str(FOLDER))
    argv = ["evaluate", "--trec-eval", "--qrels-format", "trec", "--run-format", "trec", *options]
    status, out, err = run_main(capsys, *argv, str(folder / qrels), str(folder / results))
    assert (status, err) == (0, "")
    wanted = [line for line in (folder / expected).read_text().splitlines() if measure_of(line) in measures]
    assert wanted
    assert out.splitlines() == wanted
