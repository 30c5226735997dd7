"""Is the winner real? Paired tests, bootstrap intervals and corrections for many comparisons.

Per-question scores in (what :func:`contextgrid.per_query` returns, one dict
per configuration), frozen records of plain Python values out. scipy is
imported only when a test or interval that needs it runs.
"""

from __future__ import annotations

from contextgrid.significance.alignment import AlignedScores, align_scores
from contextgrid.significance.compare import (
    compare_all_pairs,
    compare_configurations,
    compare_pair,
)
from contextgrid.significance.comparisons import (
    ComparisonTable,
    PairedComparison,
    PairwiseComparisons,
)
from contextgrid.significance.corrections import CORRECTIONS, Correction, correct_p_values
from contextgrid.significance.intervals import INTERVALS, IntervalMethod
from contextgrid.significance.paired import PAIRED_TESTS, PairedTest

__all__ = [
    "CORRECTIONS",
    "INTERVALS",
    "PAIRED_TESTS",
    "AlignedScores",
    "ComparisonTable",
    "Correction",
    "IntervalMethod",
    "PairedComparison",
    "PairedTest",
    "PairwiseComparisons",
    "align_scores",
    "compare_all_pairs",
    "compare_configurations",
    "compare_pair",
    "correct_p_values",
]
