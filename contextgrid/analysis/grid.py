"""The metric@k grid of many configurations, reshaped for reading: the best per
column, a pivot over two parameters, and metric-against-k curves.

Input is the frame ``Workspace.evaluate().to_dataframe()`` gives: one row per
configuration, ``metric@k`` columns, then parameter columns.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import pandas as pd

from contextgrid.core.errors import ContextGridError, UnknownScoreError

__all__ = ["best_per_column", "metric_curves", "parameter_columns", "pivot_counts", "pivot_grid", "score_columns"]

_LABEL = re.compile(r"^(?P<metric>[^@]+)@(?P<k>[1-9]\d*)$")


def score_columns(grid: pd.DataFrame) -> list[str]:
    """The ``metric@k`` columns of ``grid``, in its order."""
    return [str(column) for column in grid.columns if _LABEL.match(str(column))]


def best_per_column(grid: pd.DataFrame) -> dict[str, list[str]]:
    """For each ``metric@k`` column, the configurations holding its highest value (all of them on a tie).

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.analysis.grid import best_per_column
    >>> grid = pd.DataFrame({"recall@5": [0.5, 0.75, 0.75], "size": [256, 512, 1024]}, index=["a", "b", "c"])
    >>> best_per_column(grid)
    {'recall@5': ['b', 'c']}
    """
    best: dict[str, list[str]] = {}
    for column in score_columns(grid):
        values = grid[column]
        top = values.max()
        best[column] = [] if pd.isna(top) else [str(config) for config in values.index[values == top]]
    return best


def pivot_grid(grid: pd.DataFrame, label: str, *, rows: str, columns: str) -> pd.DataFrame:
    """``label`` (a ``metric@k``) laid out over two parameters, e.g. chunk size x retriever.

    Configurations that share both parameter values are averaged; a
    combination no configuration has is missing.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.analysis.grid import pivot_grid
    >>> grid = pd.DataFrame(
    ...     {"ndcg@10": [0.25, 0.5, 0.75], "size": [256, 256, 512], "retriever": ["bm25", "dense", "bm25"]},
    ...     index=["a", "b", "c"],
    ... )
    >>> pivot_grid(grid, "ndcg@10", rows="size", columns="retriever")
    retriever  bm25  dense
    size
    256        0.25    0.5
    512        0.75    NaN
    """
    for name in (label, rows, columns):
        if name not in grid.columns:
            raise ContextGridError(f"the grid has no column {name!r}. Available: {', '.join(map(str, grid.columns))}")
    if rows == columns:
        raise ContextGridError(f"pivot over two different parameters, got {rows!r} twice")
    return grid.pivot_table(index=rows, columns=columns, values=label, aggfunc="mean", dropna=False)


def pivot_counts(grid: pd.DataFrame, *, rows: str, columns: str) -> pd.DataFrame:
    """How many configurations each cell of :func:`pivot_grid` averages (0 where none has the pair of values).

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.analysis.grid import pivot_counts
    >>> grid = pd.DataFrame({"size": [256, 256, 512], "retriever": ["bm25", "bm25", "dense"]}, index=["a", "b", "c"])
    >>> pivot_counts(grid, rows="size", columns="retriever")
    retriever  bm25  dense
    size
    256           2      0
    512           0      1
    """
    for name in (rows, columns):
        if name not in grid.columns:
            raise ContextGridError(f"the grid has no column {name!r}. Available: {', '.join(map(str, grid.columns))}")
    counted = grid.groupby([rows, columns], dropna=False).size().unstack(columns, fill_value=0)
    return counted.astype(int)


def metric_curves(grid: pd.DataFrame, metric: str) -> pd.DataFrame:
    """One metric against k, per configuration: rows are configurations, columns the ks ascending.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.analysis.grid import metric_curves
    >>> grid = pd.DataFrame({"recall@10": [0.5], "recall@1": [0.25], "mrr@1": [0.25]}, index=["a"])
    >>> metric_curves(grid, "recall")
    k     1    10
    a  0.25  0.5
    """
    ks: list[tuple[int, str]] = []
    for column in score_columns(grid):
        match = _LABEL.match(column)
        if match is not None and match["metric"] == metric:
            ks.append((int(match["k"]), column))
    if not ks:
        available = sorted({label.split("@")[0] for label in score_columns(grid)})
        raise UnknownScoreError(f"the grid has no {metric!r} columns. Available metrics: {', '.join(available)}")
    ks.sort()
    curves = grid[[column for _, column in ks]].copy()
    curves.columns = pd.Index([k for k, _ in ks], name="k")
    return curves


def parameter_columns(grid: pd.DataFrame, *, varying: bool = False) -> Sequence[str]:
    """The columns of ``grid`` that are configuration parameters, not scores;
    with ``varying=True`` only those that take more than one value.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.analysis.grid import parameter_columns
    >>> grid = pd.DataFrame({"mrr@1": [0.5, 0.25], "size": [256, 512], "chunker": ["fixed", "fixed"]})
    >>> parameter_columns(grid), parameter_columns(grid, varying=True)
    (['size', 'chunker'], ['size'])
    """
    scores = set(score_columns(grid))
    names = [str(column) for column in grid.columns if str(column) not in scores]
    return [name for name in names if grid[name].nunique(dropna=True) > 1] if varying else names
