"""RunResult: the scores of one configuration, and what went wrong computing them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from contextgrid.core.errors import ContextGridError, UnknownScoreError
from contextgrid.core.frozenmap import FrozenMap
from contextgrid.core.log import LogEntry

__all__ = ["RunResult"]


@dataclass(frozen=True, slots=True)
class RunResult:
    """The ``metric@k`` scores of one configuration.

    A metric that raised is absent from ``scores``, not 0.0, so ask
    :meth:`has` before trusting a number.

    Examples
    --------
    >>> from contextgrid import RunResult
    >>> result = RunResult("bm25-512", {"recall@5": 0.0})
    >>> result.has("recall@5"), result.has("broken@5")
    (True, False)
    >>> result["recall@5"]
    0.0
    """

    config: str
    scores: Mapping[str, float]
    warnings: tuple[LogEntry, ...] = field(default=())

    def __post_init__(self) -> None:
        if not isinstance(self.config, str) or not self.config:
            raise ContextGridError(f"RunResult: config must be a non-empty str, got {self.config!r}")
        if not isinstance(self.scores, Mapping):
            raise ContextGridError(f"RunResult({self.config!r}): scores must be a mapping, got {self.scores!r}")
        # A read-only copy: the caller's dict stays theirs, and ours cannot drift.
        object.__setattr__(self, "scores", FrozenMap({str(k): float(v) for k, v in self.scores.items()}))
        object.__setattr__(self, "warnings", tuple(self.warnings))

    def has(self, name: str) -> bool:
        """Whether ``name`` (a ``metric@k`` label) was scored at all."""
        return name in self.scores

    def __contains__(self, name: object) -> bool:
        return name in self.scores

    def __getitem__(self, name: str) -> float:
        if name not in self.scores:
            raise UnknownScoreError(
                f"configuration {self.config!r} has no score {name!r}: it was not asked for, or its metric "
                f"raised (see warnings). Scored: {', '.join(self.scores) or 'nothing'}"
            )
        return self.scores[name]
