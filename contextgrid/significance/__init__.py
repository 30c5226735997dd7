"""Is the winner real? Paired tests with their own intervals, corrections for many comparisons, the words of a
verdict, and a regression gate.

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
    compare_pairs,
)
from contextgrid.significance.comparisons import (
    ComparisonTable,
    PairedComparison,
    PairwiseComparisons,
)
from contextgrid.significance.corrections import CORRECTIONS, Correction, correct_p_values
from contextgrid.significance.gate import GateResult, gate
from contextgrid.significance.intervals import INTERVALS, IntervalMethod
from contextgrid.significance.paired import PAIRED_TESTS, OnePairTest, PairedTest
from contextgrid.significance.wording import describe, limits, verdict_phrase

__all__ = [
    "CORRECTIONS",
    "INTERVALS",
    "PAIRED_TESTS",
    "AlignedScores",
    "ComparisonTable",
    "Correction",
    "GateResult",
    "IntervalMethod",
    "OnePairTest",
    "PairedComparison",
    "PairedTest",
    "PairwiseComparisons",
    "align_scores",
    "compare_all_pairs",
    "compare_configurations",
    "compare_pair",
    "compare_pairs",
    "correct_p_values",
    "describe",
    "gate",
    "limits",
    "verdict_phrase",
]
