"""A comparison table as people read it: :func:`verdict_table`, the table the dashboard's Compare page shows, with
column names in words and every number written as :mod:`contextgrid.significance.wording` writes it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from contextgrid.core.errors import parameter_error
from contextgrid.significance.comparisons import ComparisonTable
from contextgrid.significance.wording import format_interval, format_level, format_p

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["VERDICT_COLUMNS", "verdict_table"]

VERDICT_COLUMNS = (
    "Configuration",
    "Mean",
    "Difference",
    "Interval",
    "Level",
    "p",
    "Effect size",
    "Won / tied / lost",
    "Verdict",
)
"""The columns of :func:`verdict_table`, in order."""


def verdict_table(table: ComparisonTable) -> pd.DataFrame:
    """One row per configuration, the baseline first, every cell text: nothing reads ``None``, ``NaN`` or a
    machine name.

    ``Interval`` is the test's own interval of the difference at ``Level`` (the level the correction set for
    that row); ``p`` the corrected p-value, "< 0.001" below what can be told apart; ``Effect size`` Cohen's d of
    the per-question differences; ``Won / tied / lost`` the questions the configuration scored higher, the same,
    lower than the baseline. The baseline's comparison cells are empty and its verdict reads "baseline".

    Examples
    --------
    >>> from contextgrid.significance import compare_configurations
    >>> scores = {"bm25": {"q1": 0.0, "q2": 1.0, "q3": 0.5}, "dense": {"q1": 1.0, "q2": 1.0, "q3": 0.5}}
    >>> frame = verdict_table(compare_configurations(scores, baseline="bm25", metric="recall@5"))
    >>> frame.loc[1].tolist()
    ['dense', '0.8333', '+0.3333', '[-inf, +inf]', '95%', '1', '+0.58', '1 / 2 / 0', 'not significant']
    """
    import pandas as pd

    if not isinstance(table, ComparisonTable):
        raise parameter_error("verdict_table", "table", "a ComparisonTable", type(table).__name__)
    by_config = {c.a: c for c in table.comparisons}
    rows = []
    for config, mean in table.means.items():
        c = by_config.get(config)
        if c is None:
            rows.append([config, f"{mean:.4f}", "", "", "", "", "", "", "baseline"])
            continue
        factor = c.p_adjusted / c.p_value if c.p_value > 0 else 1.0
        rows.append(
            [
                config,
                f"{mean:.4f}",
                f"{c.difference:+.4f}",
                format_interval(c.ci_low, c.ci_high),
                format_level(c.ci_level),
                format_p(c.p_adjusted, resolution=c.p_resolution, factor=factor),
                "n/a" if c.effect_size is None else f"{c.effect_size:+.2f}",
                f"{c.wins} / {c.ties} / {c.losses}",
                c.verdict,
            ]
        )
    # Baseline first: the row everything else is measured against.
    rows.sort(key=lambda row: row[-1] != "baseline")
    return pd.DataFrame(rows, columns=list(VERDICT_COLUMNS))
