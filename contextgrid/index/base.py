"""What every index returns, and how an approximate one is held to an exact one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Real

from ..errors import ContextGridError
from ..params import check_k

__all__ = ["Scored", "recall_against_exact"]


@dataclass(frozen=True, slots=True)
class Scored:
    """A chunk id and the score an index gave it; higher is better."""

    chunk_id: str
    score: float

    def __post_init__(self) -> None:
        if not isinstance(self.chunk_id, str) or not self.chunk_id:
            raise ContextGridError(f"Scored: chunk_id must be a non-empty str, got {self.chunk_id!r}")
        if not isinstance(self.score, Real) or isinstance(self.score, bool):
            raise ContextGridError(f"Scored({self.chunk_id!r}): score must be a number, got {self.score!r}")


def recall_against_exact(approximate: Sequence[Scored], exact: Sequence[Scored], k: int) -> float:
    """Fraction of exact search's top ``k`` that the approximate search's top ``k`` also holds.

    An empty ``exact`` gives 1.0: there was nothing to miss.

    Examples
    --------
    >>> import contextgrid as cg
    >>> from contextgrid.index.base import Scored
    >>> exact = [Scored("c1", 0.9), Scored("c2", 0.8)]
    >>> cg.recall_against_exact([Scored("c2", 0.8), Scored("c7", 0.5)], exact, k=2)
    0.5
    """
    cutoff = check_k(k, function="recall_against_exact")
    wanted = {scored.chunk_id for scored in exact[:cutoff]}
    if not wanted:
        return 1.0
    found = {scored.chunk_id for scored in approximate[:cutoff]}
    return len(wanted & found) / len(wanted)
