"""What every index is and returns, how one is built by name, and how an
approximate one is held to an exact one."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any, ClassVar, Protocol, TypeAlias, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from contextgrid.core.checks import check_k, check_sequence, require
from contextgrid.core.errors import InvalidParameterError, parameter_error
from contextgrid.core.registry import Registry
from contextgrid.data.chunk_checks import checked_chunks
from contextgrid.data.records import Chunk

__all__ = [
    "RETRIEVERS",
    "Index",
    "Ranked",
    "RanksPositions",
    "Scored",
    "available_retrievers",
    "build_index",
    "check_chunks",
    "check_non_negative",
    "check_queries",
    "recall_against_exact",
    "retriever_options",
]


@dataclass(frozen=True, slots=True)
class Scored:
    """A chunk id and the score an index gave it; higher is better."""

    chunk_id: str
    score: float

    def __post_init__(self) -> None:
        require(
            isinstance(self.chunk_id, str) and self.chunk_id != "",
            "Scored",
            f"chunk_id must be a non-empty str, got {self.chunk_id!r}",
        )
        require(
            isinstance(self.score, Real) and not isinstance(self.score, bool),
            f"Scored({self.chunk_id!r})",
            f"score must be a number, got {self.score!r}",
        )


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


@runtime_checkable
class Index(Protocol):
    """A searchable collection of chunks.

    ``search`` returns at most ``k`` :class:`Scored` chunks, best first, each
    chunk at most once; ``search_many`` does the same for many queries at once
    and is where the work is vectorized. ``chunk_ids`` lists the indexed chunks
    in the order they were given, which is also the order that breaks ties.
    Every index class also has a ``from_chunks(chunks, **options)`` classmethod,
    which is what :func:`build_index` calls.
    """

    name: ClassVar[str]
    version: ClassVar[str]

    @property
    def chunk_ids(self) -> tuple[str, ...]: ...

    def search(self, query: str, k: int) -> list[Scored]: ...

    def search_many(self, queries: Sequence[str], k: int) -> list[list[Scored]]: ...


Ranked: TypeAlias = tuple[NDArray[np.intp], NDArray[np.floating[Any]]]
"""One query's ranking as columns: positions in ``chunk_ids`` and their scores, best first."""


@runtime_checkable
class RanksPositions(Index, Protocol):
    """An index that can also return its rankings as columns, without building a :class:`Scored` per hit.

    Every built-in index is one; :class:`~contextgrid.index.HybridIndex` and
    :func:`~contextgrid.index.retrieve` use it when it is there, and fall back
    on ``search_many`` for indexes that only have that.
    """

    def rank_many(self, queries: Sequence[str], k: int) -> list[Ranked]: ...


RETRIEVERS: Registry[type[Index]] = Registry("retriever")
"""Index classes by name (``bm25``, ``dense``, ``dense_int8``, ``hybrid``, ``lsa``), for :func:`build_index`."""


def available_retrievers() -> tuple[str, ...]:
    """Every registered retriever name, sorted."""
    return RETRIEVERS.names()


def build_index(name: str, chunks: Sequence[Chunk], /, **options: Any) -> Index:
    """Build the index registered under ``name`` over ``chunks``.

    ``options`` are the keyword options of that class's ``from_chunks``; one it
    does not take is refused with the list of those it does.

    Examples
    --------
    >>> import contextgrid as cg
    >>> from contextgrid.index import build_index
    >>> chunks = [cg.Chunk("c1", cg.Span("d", 0, 9), "red apple"), cg.Chunk("c2", cg.Span("d", 9, 20), "green pear")]
    >>> build_index("bm25", chunks).search("pear", 5)  # ln(2) * 1 / (1 + 1.5), Lucene BM25
    [Scored(chunk_id='c2', score=0.27725...)]
    >>> build_index("bm42", chunks)
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.UnknownPluginError: no retriever named 'bm42'. Available: bm25, dense, ...
    """
    factory: Callable[..., Index] = getattr(RETRIEVERS.get(name), "from_chunks")  # noqa: B009
    accepted = retriever_options(name)
    unknown = [option for option in options if option not in accepted]
    if unknown:
        raise InvalidParameterError(
            f"the {name!r} retriever has no option {unknown[0]!r}. Its options: {', '.join(accepted) or '(none)'}"
        )
    return factory(chunks, **options)


def retriever_options(name: str) -> tuple[str, ...]:
    """The keyword options the retriever registered under ``name`` takes in :func:`build_index`.

    Examples
    --------
    >>> from contextgrid.index import retriever_options
    >>> "embedder" in retriever_options("dense"), "embedder" in retriever_options("bm25")
    (True, False)
    """
    # from_chunks is not part of the Index protocol: each class takes its own options.
    factory = getattr(RETRIEVERS.get(name), "from_chunks")  # noqa: B009
    return tuple(
        parameter.name
        for parameter in inspect.signature(factory).parameters.values()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    )


def check_chunks(chunks: object, *, function: str) -> tuple[Chunk, ...]:
    """The chunks to index as a tuple, or an error naming the first bad one.

    An index needs at least one chunk, every one a :class:`Chunk`, and no two
    with the same id (a run that repeated an id could not be scored).
    """
    if isinstance(chunks, Mapping):
        raise parameter_error(function, "chunks", "a sequence of Chunk", chunks)
    return checked_chunks(
        chunks, function=function, nonempty=True, hint="a run could name the same chunk twice otherwise"
    )


def check_queries(queries: object, *, function: str) -> list[str]:
    """The queries as a list of str, or an error naming the first bad one."""
    return list(check_sequence(queries, str, function=function, parameter="queries"))


def check_non_negative(value: object, *, function: str, parameter: str, upper: float | None = None) -> float:
    """``value`` as a float, or an error unless it is a finite number from 0 to ``upper`` (if given)."""
    number = float(value) if isinstance(value, Real) and not isinstance(value, bool) else math.nan
    if not (math.isfinite(number) and 0 <= number <= (math.inf if upper is None else upper)):
        expected = "a finite number of at least 0" if upper is None else f"a number from 0 to {upper}"
        raise parameter_error(function, parameter, expected, value)
    return number
