"""Metric plugins the tests register: one that raises, as the Metrics page's example does."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar


@dataclass(frozen=True, slots=True)
class BrokenMetric:
    """A registered metric that raises while scoring (not an unknown name, which is refused up front)."""

    name: ClassVar[str] = "broken"
    version: ClassVar[str] = "1"

    def evaluate(self, judgements: Mapping[str, int], ranked: Sequence[str], k: int) -> float:
        raise RuntimeError("oops")
