"""FrozenMap: the read-only mapping records hold, so a caller's dict stays theirs.

Unlike ``types.MappingProxyType`` it pickles, so records that hold one can be
cached, sent to worker processes and saved.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Generic, TypeVar

__all__ = ["FrozenMap"]

K = TypeVar("K")
V = TypeVar("V")


class FrozenMap(Mapping[K, V], Generic[K, V]):
    """An immutable copy of a mapping, in the order given.

    Examples
    --------
    >>> import pickle
    >>> scores = FrozenMap({"recall@5": 0.5})
    >>> pickle.loads(pickle.dumps(scores)) == {"recall@5": 0.5}
    True
    >>> scores["recall@5"] = 1.0
    Traceback (most recent call last):
    ...
    TypeError: 'FrozenMap' object does not support item assignment
    """

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[K, V] | None = None) -> None:
        self._items: dict[K, V] = dict(items or {})

    def __getitem__(self, key: K) -> V:
        return self._items[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"FrozenMap({self._items!r})"

    def __reduce__(self) -> tuple[type[FrozenMap[K, V]], tuple[dict[K, V]]]:
        return (type(self), (self._items,))
