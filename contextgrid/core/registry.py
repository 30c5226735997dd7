"""A name-to-class registry: how plugins are found, never an if/elif dispatch."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from contextgrid.core.errors import ContextGridError, NameTakenError, UnknownPluginError

__all__ = ["Registry"]

T = TypeVar("T", bound=type)


class Registry(Generic[T]):
    """Classes registered under a plain name, with a ``name`` class variable to match.

    Registering a second class under a taken name is refused, unless it is the
    same class defined again (a notebook cell run twice) or ``replace=True``.
    """

    __slots__ = ("_classes", "_kind")

    def __init__(self, kind: str) -> None:
        self._kind = kind
        self._classes: dict[str, T] = {}

    def register(self, name: str, *, replace: bool = False) -> Callable[[T], T]:
        """Return a class decorator that registers the class under ``name``."""
        if not isinstance(name, str) or not name or "@" in name or name != name.strip():
            raise ContextGridError(
                f"a {self._kind} name must be a non-empty str without '@' or surrounding spaces, got {name!r}"
            )

        def decorator(cls: T) -> T:
            declared = getattr(cls, "name", None)
            if declared != name:
                raise ContextGridError(
                    f"{cls.__qualname__} is being registered as {name!r} but its name class variable is "
                    f"{declared!r}; the two must match"
                )
            if not isinstance(getattr(cls, "version", None), str):
                raise ContextGridError(f"{cls.__qualname__} needs a version class variable holding a str")
            current = self._classes.get(name)
            redefined = current is not None and (current.__module__, current.__qualname__) == (
                cls.__module__,
                cls.__qualname__,
            )
            if current is not None and current is not cls and not redefined and not replace:
                raise NameTakenError(
                    f"a {self._kind} named {name!r} is already registered "
                    f"({current.__module__}.{current.__qualname__}); pass replace=True to replace it"
                )
            self._classes[name] = cls
            return cls

        return decorator

    def unregister(self, name: str) -> None:
        """Remove ``name``; unknown names raise :class:`UnknownPluginError`."""
        self.get(name)
        del self._classes[name]

    def get(self, name: str) -> T:
        """The class registered under ``name``."""
        try:
            return self._classes[name]
        except (KeyError, TypeError):
            raise UnknownPluginError(
                f"no {self._kind} named {name!r}. Available: {', '.join(self.names()) or 'none'}"
            ) from None

    def names(self) -> tuple[str, ...]:
        """Every registered name, sorted."""
        return tuple(sorted(self._classes))

    def __contains__(self, name: object) -> bool:
        return name in self._classes

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self._classes)

    def __repr__(self) -> str:
        return f"Registry({self._kind!r}, names={self.names()!r})"
