"""A workspace's configurations: a name, free-form parameters and the files they are scored from."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from contextgrid.core.errors import ContextGridError
from contextgrid.core.frozenmap import FrozenMap

if TYPE_CHECKING:
    import pandas as pd


__all__ = ["Configuration", "Described", "ParamValue"]


ParamValue = str | int | float | bool
"""What a configuration parameter may hold: one TOML scalar."""


def is_param_value(value: object) -> bool:
    return isinstance(value, (str, int, float, bool))


@dataclass(frozen=True, slots=True)
class Configuration:
    """One configuration of a workspace: its name, its parameters and its files.

    Parameters
    ----------
    name : str
        Unique within the workspace.
    params : mapping of str to str, int, float or bool
        Free-form (chunker, size, overlap, retriever, ...). Names may not
        hold ``@``, which is kept for ``metric@k`` labels.
    run : Path
        The ranked chunk ids per question.
    qrels : Path, optional
        The judgements the run is scored against: the configuration's own
        file, else the workspace's shared one. ``None`` (the default) judges
        its chunks on the workspace's gold spans instead, so it then needs
        ``chunks``.
    chunks, answers : Path, optional
        The chunks of this configuration's chunking, and its generated answers.

    Examples
    --------
    >>> from pathlib import Path
    >>> config = Configuration("bm25-512", {"size": 512}, run=Path("runs/bm25.trec"), qrels=Path("qrels.tsv"))
    >>> config.params["size"]
    512
    >>> import pickle
    >>> pickle.loads(pickle.dumps(config)) == config
    True
    >>> Configuration("bm25-512", {"size": [512]}, run=Path("r"), qrels=Path("q"))
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.ContextGridError: Configuration('bm25-512'): parameter 'size' must be a str, int, float
    or bool, got [512]
    >>> Configuration("bm25-512", {}, run=Path("r"), chunks=Path("chunks.jsonl")).files
    (PosixPath('r'), PosixPath('chunks.jsonl'))
    >>> Configuration("bm25-512", {}, run=Path("r"))
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.ContextGridError: Configuration('bm25-512'): a configuration without qrels is judged on the
    gold spans of its chunks, so it needs chunks
    """

    name: str
    params: Mapping[str, ParamValue]
    run: Path
    qrels: Path | None = None
    chunks: Path | None = None
    answers: Path | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ContextGridError(f"Configuration: name must be a non-empty str, got {self.name!r}")
        label = f"Configuration({self.name!r})"
        if not isinstance(self.params, Mapping):
            raise ContextGridError(f"{label}: params must be a mapping of name to value, got {self.params!r}")
        for key, value in self.params.items():
            if not isinstance(key, str) or not key or "@" in key:
                raise ContextGridError(f"{label}: parameter names must be non-empty str without '@', got {key!r}")
            if not is_param_value(value):
                raise ContextGridError(f"{label}: parameter {key!r} must be a str, int, float or bool, got {value!r}")
        for name in ("run", "qrels", "chunks", "answers"):
            value = getattr(self, name)
            if not (isinstance(value, Path) or (value is None and name != "run")):
                raise ContextGridError(f"{label}: {name} must be a Path, got {value!r}")
        if self.qrels is None and self.chunks is None:
            raise ContextGridError(
                f"{label}: a configuration without qrels is judged on the gold spans of its chunks, so it needs chunks"
            )
        # A read-only copy: the caller's dict stays theirs, and ours cannot drift. A FrozenMap, not a
        # MappingProxyType, so that a configuration pickles (into a cache, or to a worker process).
        object.__setattr__(self, "params", FrozenMap(self.params))

    @property
    def files(self) -> tuple[Path, ...]:
        """Every file this configuration names: run, then qrels, chunks and answers if given."""
        return tuple(path for path in (self.run, self.qrels, self.chunks, self.answers) if path is not None)


class Described(Protocol):
    """What a row of scores is labelled with: a name and its parameters (a :class:`Configuration` is one)."""

    @property
    def name(self) -> str: ...

    @property
    def params(self) -> Mapping[str, ParamValue]: ...


def parameters_frame(configs: Sequence[Described]) -> pd.DataFrame:
    import pandas as pd

    names = list(dict.fromkeys(name for config in configs for name in config.params))
    return pd.DataFrame(
        {name: [config.params.get(name) for config in configs] for name in names},
        index=pd.Index([config.name for config in configs], name="config"),
    )
