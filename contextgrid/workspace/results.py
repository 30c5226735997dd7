"""The scores of every configuration of a workspace, as one record that lays out as a frame."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from contextgrid.core.errors import ContextGridError, UnknownConfigurationError
from contextgrid.data.run_result import RunResult
from contextgrid.workspace.configuration import Described, parameters_frame

if TYPE_CHECKING:
    import pandas as pd


__all__ = ["WorkspaceResults"]


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
