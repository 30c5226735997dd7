"""pair_scatter's points against a slow reference: one point per distinct pair of scores, in order of first
appearance, sized by its questions, named by its first few, coloured by its first question's outcome."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from contextgrid.render.grid_charts import EXAMPLES_SHOWN, OUTCOME_COLOURS, pair_scatter
from contextgrid.render.style import plot_text


def reference_points(changes: pd.DataFrame) -> dict[str, list[tuple[float, float, int, str]]]:
    """Each outcome's points (x = B's score, y = A's, questions, examples), one row at a time."""
    seen: dict[tuple[float, float], list[object]] = {}
    for question, (score_a, score_b, outcome) in zip(
        changes.index, changes[["A", "B", "outcome"]].itertuples(index=False), strict=True
    ):
        if math.isnan(score_a) or math.isnan(score_b):
            continue  # no point for a question either configuration does not score
        point = seen.setdefault((score_a, score_b), [outcome, []])
        point[1].append(plot_text(str(question)))
    drawn: dict[str, list[tuple[float, float, int, str]]] = {outcome: [] for outcome in OUTCOME_COLOURS}
    for (score_a, score_b), (outcome, questions) in seen.items():
        examples = ", ".join(questions[:EXAMPLES_SHOWN]) + (" …" if len(questions) > EXAMPLES_SHOWN else "")
        drawn[str(outcome)].append((score_b, score_a, len(questions), examples))
    return drawn


scores = st.sampled_from([0.0, 0.25, 0.5, 1.0, math.nan])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(scores, scores, st.sampled_from(["q", "q<b>", "a&b", "x"])), max_size=40))
def test_each_point_is_the_references(rows: list[tuple[float, float, str]]) -> None:
    a = np.array([row[0] for row in rows], dtype=float)
    b = np.array([row[1] for row in rows], dtype=float)
    outcome = np.where(a > b, "win", np.where(a < b, "loss", "tie"))
    index = [f"{row[2]}{number}" for number, row in enumerate(rows)]
    changes = pd.DataFrame({"A": a, "B": b, "outcome": outcome}, index=index)
    expected = reference_points(changes)
    for trace, outcome_name in zip(pair_scatter(changes, "A", "B", "recall@5").data[1:], OUTCOME_COLOURS, strict=True):
        points = expected[outcome_name]
        assert list(trace.x) == [point[0] for point in points]
        assert list(trace.y) == [point[1] for point in points]
        assert [list(row) for row in trace.customdata] == [[point[2], point[3]] for point in points]
        assert list(trace.marker.size) == [point[2] for point in points]
