"""The scores of every configuration of a workspace, as one record that lays out as a frame, and scores kept by a
caller, taken as they are."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from contextgrid.core.errors import ContextGridError, UnknownConfigurationError, parameter_error
from contextgrid.data.run_result import RunResult
from contextgrid.workspace.configuration import Described, parameters_frame

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pandas as pd


__all__ = ["WorkspaceResults", "scores_at_hand"]


@dataclass(frozen=True, slots=True)
class WorkspaceResults:
    """The scores of every configuration of a workspace, as :meth:`Workspace.evaluate` returns them.

    ``results[i]`` holds the ``metric@k`` scores of ``configs[i]`` (a workspace's :class:`Configuration`, or
    anything :class:`Described` by a name and parameters, such as a live retriever); ``labels``
    are the ``metric@k`` labels asked for, in :func:`contextgrid.evaluate`'s
    order. A metric that raised for a configuration is absent from its
    :class:`RunResult` (and ``NaN`` in :meth:`to_dataframe`), never 0.0.
    """

    configs: tuple[Described, ...]
    results: tuple[RunResult, ...]
    labels: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "configs", tuple(self.configs))
        object.__setattr__(self, "results", tuple(self.results))
        object.__setattr__(self, "labels", tuple(self.labels))
        names = [config.name for config in self.configs]
        scored = [result.config for result in self.results]
        if names != scored:
            raise ContextGridError(f"WorkspaceResults: results are for {scored!r} but the configurations are {names!r}")

    def __getitem__(self, config: str) -> RunResult:
        for result in self.results:
            if result.config == config:
                return result
        raise UnknownConfigurationError(
            f"no results for a configuration named {config!r}. Available: {', '.join(r.config for r in self.results)}"
        )

    def to_dataframe(self) -> pd.DataFrame:
        """One row per configuration (index ``config``): the ``metric@k`` columns, then the parameters.

        A ``metric@k`` column appears when at least one configuration has
        that score (``NaN`` for the others); a parameter a configuration
        lacks is missing (``None``, or ``NaN`` in a numeric column).

        Examples
        --------
        >>> from contextgrid.workspace.manifest import load_workspace
        >>> handmade = load_workspace(HANDMADE)
        >>> frame = handmade.evaluate(ks=[5], metrics=["recall", "mrr"]).to_dataframe()
        >>> print(frame.round(3))
                         recall@5  mrr@5 chunker  size  overlap retriever
        config
        bm25-fixed-512      0.662  0.536   fixed   512       64      bm25
        dense-fixed-512     0.784  0.591   fixed   512       64     dense
        bm25-fixed-256      0.527  0.491   fixed   256       32      bm25
        dense-fixed-256     0.788  0.793   fixed   256       32     dense
        """
        import pandas as pd

        present = [label for label in self.labels if any(result.has(label) for result in self.results)]
        scores = pd.DataFrame(
            [[result.scores.get(label, float("nan")) for label in present] for result in self.results],
            columns=pd.Index(present),
            dtype="float64",
        )
        params = parameters_frame(self.configs)
        scores.index = params.index
        return pd.concat([scores, params], axis=1)


def scores_at_hand(scores: pd.DataFrame, names: Sequence[str], labels: Sequence[str], *, function: str) -> pd.DataFrame:
    """The rows ``names`` and columns ``labels`` (``metric@k``) of ``scores``, the workspace's scores a caller kept
    (:meth:`WorkspaceResults.to_dataframe`), as they are: a score at k reads the first k ranks whatever depth was
    scored. The configurations or labels it lacks are refused in one wording, for ``function``'s ``scores``.

    Examples
    --------
    >>> import pandas as pd
    >>> kept = pd.DataFrame({"recall@5": [0.5, 0.25]}, index=pd.Index(["a", "b"], name="config"))
    >>> scores_at_hand(kept, ["b"], ["recall@5"], function="f")["recall@5"].tolist()
    [0.25]
    >>> scores_at_hand(kept, ["c"], ["ndcg@5"], function="f")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.InvalidParameterError: The 'scores' parameter of f must be ... Got ['ndcg@5', 'c'] instead.
    """
    lacking = [label for label in labels if label not in scores.columns]
    lacking += [name for name in names if name not in scores.index]
    if lacking:
        raise parameter_error(
            function,
            "scores",
            "the workspace's scores (workspace.evaluate(...).to_dataframe()), with a row for each configuration "
            "and a column for each metric@k it needs",
            lacking,
        )
    return scores.loc[list(names), list(labels)]
