"""Workspaces: a folder of configurations to compare, described by a ``contextgrid.toml`` manifest.

The manifest names each configuration (a name, free-form parameters such as
chunker, size or retriever, and its run / qrels / chunks / answers files) and
what they share (qrels, or questions and documents). :func:`load_workspace`
checks the manifest and that every file it names exists; the files themselves
load lazily, once, the first time they are asked for. The dashboard and the
``contextgrid`` command both work from the one :class:`Workspace`.
"""

from __future__ import annotations

import json
import os
import re
import threading
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar

from .engine.grades import FloatArray, RankedGrades
from .errors import ContextGridError, InputFileError
from .log import LogEntry, WarningLog
from .metrics.base import BUILTIN_METRICS, DEFAULT_KS, METRICS
from .params import check_k, check_ks
from .records import AnswerRecord, Chunk, EvalItem
from .results import RunResult
from .scoring import _resolve_metrics as resolve_metrics
from .scoring import mean_scores, ranked_grades, score_questions

if TYPE_CHECKING:
    import pandas as pd

    from .tables import QrelsTable, RunTable

__all__ = [
    "MANIFEST",
    "SAMPLE",
    "Configuration",
    "ParamValue",
    "Workspace",
    "WorkspaceResults",
    "load_workspace",
    "manifest_text",
]

MANIFEST = "contextgrid.toml"
"""The file that makes a folder a workspace."""

SAMPLE = Path(__file__).resolve().parent.parent / "sample_data" / "workspace"
"""The bundled sample workspace in the source checkout (``sample_data/make_sample.py`` writes it)."""

ParamValue = str | int | float | bool
"""What a configuration parameter may hold: one TOML scalar."""

_TOP_KEYS = ("name", "qrels", "questions", "documents", "config")
_CONFIG_KEYS = ("name", "run", "qrels", "chunks", "answers", "params")
_CONFIG_HEADER = re.compile(r"^\s*\[\[\s*config\s*\]\]")
_ANY_HEADER = re.compile(r"^\s*\[")
_T = TypeVar("_T")
_KEPT_DEPTH = max(DEFAULT_KS)
"""How deep the ranked-grade matrix a workspace keeps for each configuration is."""


def _is_param_value(value: object) -> bool:
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
    qrels : Path
        The judgements the run is scored against: the configuration's own
        file, else the workspace's shared one.
    chunks, answers : Path, optional
        The chunks of this configuration's chunking, and its generated answers.

    Examples
    --------
    >>> from pathlib import Path
    >>> config = Configuration("bm25-512", {"size": 512}, run=Path("runs/bm25.trec"), qrels=Path("qrels.tsv"))
    >>> config.params["size"]
    512
    >>> Configuration("bm25-512", {"size": [512]}, run=Path("r"), qrels=Path("q"))
    Traceback (most recent call last):
    ...
    contextgrid.errors.ContextGridError: Configuration('bm25-512'): parameter 'size' must be a str, int, float
    or bool, got [512]
    """

    name: str
    params: Mapping[str, ParamValue]
    run: Path
    qrels: Path
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
            if not _is_param_value(value):
                raise ContextGridError(f"{label}: parameter {key!r} must be a str, int, float or bool, got {value!r}")
        for name in ("run", "qrels", "chunks", "answers"):
            value = getattr(self, name)
            if not (isinstance(value, Path) or (value is None and name in ("chunks", "answers"))):
                raise ContextGridError(f"{label}: {name} must be a Path, got {value!r}")
        # A read-only copy: the caller's dict stays theirs, and ours cannot drift.
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    @property
    def files(self) -> tuple[Path, ...]:
        """Every file this configuration names: run, qrels, then chunks and answers if given."""
        return tuple(path for path in (self.run, self.qrels, self.chunks, self.answers) if path is not None)


@dataclass(frozen=True, slots=True)
class WorkspaceResults:
    """The scores of every configuration of a workspace, as :meth:`Workspace.evaluate` returns them.

    ``results[i]`` holds the ``metric@k`` scores of ``configs[i]``; ``labels``
    are the ``metric@k`` labels asked for, in :func:`contextgrid.evaluate`'s
    order. A metric that raised for a configuration is absent from its
    :class:`RunResult` (and ``NaN`` in :meth:`to_dataframe`), never 0.0.
    """

    configs: tuple[Configuration, ...]
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
        raise ContextGridError(
            f"no results for a configuration named {config!r}. Available: {', '.join(r.config for r in self.results)}"
        )

    def to_dataframe(self) -> pd.DataFrame:
        """One row per configuration (index ``config``): the ``metric@k`` columns, then the parameters.

        A ``metric@k`` column appears when at least one configuration has
        that score (``NaN`` for the others); a parameter a configuration
        lacks is missing (``None``, or ``NaN`` in a numeric column).

        Examples
        --------
        >>> from contextgrid.workspace import SAMPLE, load_workspace
        >>> handmade = load_workspace(SAMPLE.parent / "handmade")
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
        params = _parameters(self.configs)
        scores.index = params.index
        return pd.concat([scores, params], axis=1)


def _parameters(configs: Sequence[Configuration]) -> pd.DataFrame:
    import pandas as pd

    names = list(dict.fromkeys(name for config in configs for name in config.params))
    return pd.DataFrame(
        {name: [config.params.get(name) for config in configs] for name in names},
        index=pd.Index([config.name for config in configs], name="config"),
    )


@dataclass(frozen=True, slots=True, eq=False)
class Workspace:
    """A folder of configurations to compare; make one with :func:`load_workspace`.

    The files a workspace names load on first use and are kept, so asking
    twice reads once. Everything it returns is read-only.
    """

    name: str
    root: Path
    configs: tuple[Configuration, ...]
    questions_path: Path | None = None
    documents_path: Path | None = None
    _cache: dict[tuple[Any, ...], Any] = field(default_factory=dict, init=False, repr=False)
    # One lock per cache key, so that different files load at once while each is read only once. Re-entrant:
    # a loader may load what it is built from (the resolved questions need the documents).
    _locks: dict[tuple[Any, ...], threading.RLock] = field(default_factory=dict, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "configs", tuple(self.configs))
        names = [config.name for config in self.configs]
        if not names:
            raise ContextGridError(f"Workspace({self.name!r}): a workspace needs at least one configuration")
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ContextGridError(
                f"Workspace({self.name!r}): configuration names must be unique, repeated: {repeated}"
            )

    def _load(self, key: tuple[Any, ...], build: Callable[[], _T]) -> _T:
        """``build()``, once per ``key``; callers asking for a key being built wait for it."""
        if key in self._cache:
            cached: _T = self._cache[key]
            return cached
        with self._lock:
            lock = self._locks.setdefault(key, threading.RLock())
        with lock:
            if key not in self._cache:
                self._cache[key] = build()
            loaded: _T = self._cache[key]
            return loaded

    def _each_config(self, work: Callable[[Configuration], _T]) -> list[_T]:
        """``work(config)`` for every configuration, in manifest order, on one thread per CPU.

        Reading files and building matrices is mostly pyarrow and numpy, which
        run outside the GIL. The first configuration (in manifest order) that
        fails raises; those not yet started are not started.
        """
        workers = min(_cpu_count(), len(self.configs))
        if workers <= 1:
            return [work(config) for config in self.configs]
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(workers, thread_name_prefix="contextgrid-workspace")
        try:
            return list(pool.map(work, self.configs))
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    @property
    def names(self) -> tuple[str, ...]:
        """The configuration names, in manifest order."""
        return tuple(config.name for config in self.configs)

    def parameters(self) -> pd.DataFrame:
        """One row per configuration (index ``config``, manifest order), one column per parameter;
        nothing is read but the manifest. A parameter a configuration lacks is missing.

        Examples
        --------
        >>> from contextgrid.workspace import SAMPLE, load_workspace
        >>> print(load_workspace(SAMPLE.parent / "handmade").parameters())
                        chunker  size  overlap retriever
        config
        bm25-fixed-512    fixed   512       64      bm25
        dense-fixed-512   fixed   512       64     dense
        bm25-fixed-256    fixed   256       32      bm25
        dense-fixed-256   fixed   256       32     dense
        """
        return _parameters(self.configs)

    def config(self, name: str) -> Configuration:
        """The configuration called ``name``."""
        for config in self.configs:
            if config.name == name:
                return config
        raise ContextGridError(
            f"workspace {self.name!r} has no configuration named {name!r}. Available: {', '.join(self.names)}"
        )

    def run(self, name: str) -> RunTable:
        """The run of configuration ``name``, read on first use."""
        from .io import read_run

        path = self.config(name).run
        return self._load(("run", path), lambda: read_run(path))

    def qrels(self, name: str) -> QrelsTable:
        """The qrels configuration ``name`` is scored against (its own, else the shared ones)."""
        from .io import read_qrels

        path = self.config(name).qrels
        return self._load(("qrels", path), lambda: read_qrels(path))

    def chunks(self, name: str) -> tuple[Chunk, ...]:
        """The chunks of configuration ``name``; an error if the manifest names none."""
        path = self.config(name).chunks
        if path is None:
            raise ContextGridError(f"configuration {name!r} of workspace {self.name!r} names no chunks file")
        from .io import read_chunks

        def load() -> tuple[Chunk, ...]:
            documents = dict(self.documents) if self.documents_path is not None else None
            return read_chunks(path, documents=documents)

        return self._load(("chunks", path), load)

    def answers(self, name: str) -> tuple[AnswerRecord, ...]:
        """The generated answers of configuration ``name``; an error if the manifest names none."""
        path = self.config(name).answers
        if path is None:
            raise ContextGridError(f"configuration {name!r} of workspace {self.name!r} names no answers file")
        from .io import read_answers

        return self._load(("answers", path), lambda: read_answers(path))

    @property
    def documents(self) -> Mapping[str, str]:
        """The shared documents, ``{doc_id: text}``; an error if the manifest names none."""
        path = self.documents_path
        if path is None:
            raise ContextGridError(f"workspace {self.name!r} names no documents in its {MANIFEST}")
        from .io import read_documents

        return self._load(("documents", path), lambda: MappingProxyType(read_documents(path)))

    @property
    def questions(self) -> tuple[EvalItem, ...]:
        """The shared questions; an error if the manifest names none."""
        path = self.questions_path
        if path is None:
            raise ContextGridError(f"workspace {self.name!r} names no questions in its {MANIFEST}")
        from .io import read_questions

        return self._load(("questions", path), lambda: read_questions(path))

    @property
    def resolved(self) -> tuple[tuple[EvalItem, ...], tuple[LogEntry, ...]]:
        """The questions with their gold evidence found in the documents, and what could not be.

        Resolved once with :class:`~contextgrid.resolver.SpanResolver` and kept; needs
        both documents and questions in the manifest.
        """
        if self.questions_path is None:
            raise ContextGridError(f"workspace {self.name!r} names no questions in its {MANIFEST}")

        def resolve() -> tuple[tuple[EvalItem, ...], tuple[LogEntry, ...]]:
            from .resolver import SpanResolver

            log = WarningLog()
            items = SpanResolver(self.documents).resolve(self.questions, warnings=log)
            return items, tuple(log.entries)

        return self._load(("resolved", self.questions_path), resolve)

    def ranked_grades(self, name: str, depth: int) -> RankedGrades:
        """The ranked-grade matrix of configuration ``name`` against its qrels, at least ``depth`` ranks deep.

        Up to ``max(DEFAULT_KS)`` ranks deep, the matrix is built once per
        configuration at that depth and shared by :meth:`evaluate`,
        :meth:`per_query` and any other caller (a deeper matrix gives the same
        scores at every k it covers); deeper ones are built on each call, so
        a workspace never holds whole rankings twice.
        """
        depth = check_k(depth, function="Workspace.ranked_grades")
        config = self.config(name)
        # The run first: configurations usually share their qrels, and threads reading runs need not wait for them.
        run, qrels = self.run(name), self.qrels(name)
        if depth > _KEPT_DEPTH:
            return ranked_grades(qrels, run, depth)
        key = ("grades", config.run, config.qrels)
        kept = self._load(key, lambda: _read_only(ranked_grades(qrels, run, _KEPT_DEPTH)))
        # A new matrix object around the kept arrays: what a caller derives from it (hits, dcg ...) is not kept.
        return RankedGrades(list(kept.question_ids), kept.gains, kept.ideal, kept.relevant)

    def evaluate(
        self,
        *,
        ks: Sequence[int] = DEFAULT_KS,
        metrics: Sequence[str] = BUILTIN_METRICS,
        warnings: WarningLog | None = None,
    ) -> WorkspaceResults:
        """Score every configuration as :func:`contextgrid.evaluate` does.

        Configurations are read and scored on one thread per CPU.

        Parameters
        ----------
        ks, metrics, warnings
            As for :func:`contextgrid.evaluate`. ``warnings`` receives every
            configuration's entries, in manifest order; each :class:`RunResult`
            keeps its own.

        Returns
        -------
        WorkspaceResults
            One :class:`RunResult` per configuration, in manifest order;
            ``.to_dataframe()`` lays them out with the parameters.

        Examples
        --------
        >>> from contextgrid.workspace import SAMPLE, load_workspace
        >>> results = load_workspace(SAMPLE.parent / "handmade").evaluate(ks=[5], metrics=["recall"])
        >>> results["dense-fixed-512"]["recall@5"]
        0.7837837837837838
        """
        # Checked as evaluate() checks them, but before any file is read.
        cutoffs = check_ks(ks, function="Workspace.evaluate")
        resolved = resolve_metrics(metrics, function="Workspace.evaluate")
        depth = max(cutoffs)

        def score(config: Configuration) -> RunResult:
            log = WarningLog()
            batch = self.ranked_grades(config.name, depth)
            scores = mean_scores(resolved, batch, self.qrels(config.name), self.run(config.name), cutoffs, log)
            return RunResult(config.name, scores, tuple(log.entries))

        results = self._each_config(score)
        if warnings is not None:
            for result in results:
                warnings.entries.extend(result.warnings)
        labels = tuple(f"{metric.name}@{k}" for metric in resolved for k in cutoffs)
        return WorkspaceResults(self.configs, tuple(results), labels)

    def per_query(self, metric: str, k: int) -> pd.DataFrame:
        """``metric@k`` per question (rows, index ``question``) and configuration (columns).

        The scores are :func:`contextgrid.per_query`'s; a question a
        configuration's qrels do not score is missing (``NaN``) in its column.

        Examples
        --------
        >>> from contextgrid.workspace import SAMPLE, load_workspace
        >>> load_workspace(SAMPLE.parent / "handmade").per_query("mrr", 5).loc["q02"].tolist()
        [0.0, 1.0, 0.2, 1.0]
        """
        import numpy as np
        import pandas as pd

        cutoff = check_k(k, function="Workspace.per_query")
        resolved = METRICS.get(metric)

        def score(config: Configuration) -> tuple[list[str], FloatArray]:
            batch = self.ranked_grades(config.name, cutoff)
            scores = score_questions(resolved, batch, self.qrels(config.name), self.run(config.name), cutoff)
            return batch.question_ids, scores

        columns = self._each_config(score)
        # Configurations scored against the same qrels share their questions: usually there is one list.
        distinct: list[list[str]] = []
        for questions, _ in columns:
            if not any(questions == seen for seen in distinct):
                distinct.append(questions)
        index = pd.Index(list(dict.fromkeys(chain.from_iterable(distinct))), name="question")
        values = np.full((len(index), len(columns)), np.nan)
        for position, (questions, scores) in enumerate(columns):
            rows = slice(None) if len(distinct) == 1 else index.get_indexer(pd.Index(questions))
            values[rows, position] = scores
        return pd.DataFrame(values, index=index, columns=pd.Index(self.names, name="config"))


def _cpu_count() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _read_only(batch: RankedGrades) -> RankedGrades:
    """``batch`` with its arrays made read-only, as it is kept and shared."""
    for array in (batch.gains, batch.ideal, batch.relevant):
        array.flags.writeable = False
    return batch


class _Manifest:
    """The parsed manifest with its text, so every complaint can name the line it is about."""

    def __init__(self, path: Path, shown: str) -> None:
        self.path = path
        self.shown = shown
        try:
            self.text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as error:
            raise InputFileError(shown, None, None, f"a manifest must be UTF-8 text ({error})") from None
        self.lines = self.text.splitlines()
        try:
            self.data = tomllib.loads(self.text)
        except tomllib.TOMLDecodeError as error:
            found = re.search(r"at line (\d+)", str(error))
            line = int(found.group(1)) if found else None
            raise self.error(line, f"this is not valid TOML ({error})") from None
        self.config_lines = [number for number, text in enumerate(self.lines, 1) if _CONFIG_HEADER.match(text)]

    def error(self, line: int | None, expected: str) -> InputFileError:
        text = self.lines[line - 1].strip() if line is not None and 0 < line <= len(self.lines) else None
        return InputFileError(self.shown, line, text, expected)

    def key_line(self, key: str, config: int | None = None, *, table: str | None = None) -> int | None:
        """Line of ``key = ...`` at the top level, or in the ``config``-th ``[[config]]``
        (in its ``[config.table]`` when ``table`` is given)."""
        if config is None:
            start = 1
            end = next((n for n, text in enumerate(self.lines, 1) if _ANY_HEADER.match(text)), len(self.lines) + 1)
        elif config < len(self.config_lines):
            start = self.config_lines[config] + 1
            end = self.config_lines[config + 1] if config + 1 < len(self.config_lines) else len(self.lines) + 1
            if table is not None:
                header = re.compile(rf"^\s*\[\s*config\s*\.\s*{re.escape(table)}\s*\]")
                start = next((n + 1 for n in range(start, end) if header.match(self.lines[n - 1])), start)
        else:
            return None
        pattern = re.compile(rf"^\s*(?:{re.escape(key)}|\"{re.escape(key)}\")\s*=")
        return next((n for n in range(start, end) if pattern.match(self.lines[n - 1])), None)

    def config_line(self, config: int) -> int | None:
        return self.config_lines[config] if config < len(self.config_lines) else None


def _check_keys(manifest: _Manifest, table: Mapping[str, object], allowed: Sequence[str], config: int | None) -> None:
    where = "at the top level" if config is None else "in a [[config]]"
    for key in table:
        if key not in allowed:
            raise manifest.error(
                manifest.key_line(key, config),
                f"unknown key {key!r} {where}; the keys allowed there are {', '.join(allowed)}",
            )


def _path(
    manifest: _Manifest,
    root: Path,
    table: Mapping[str, object],
    key: str,
    subject: str,
    config: int | None,
) -> Path | None:
    """The file ``table[key]`` names, relative to the workspace folder; it must exist."""
    if key not in table:
        return None
    value = table[key]
    line = manifest.key_line(key, config)
    if not isinstance(value, str) or not value:
        raise manifest.error(line, f"{subject}: {key} must be a path (a non-empty string), got {value!r}")
    path = root / value
    if key == "documents" and not path.exists():
        raise manifest.error(line, f"{subject}: the documents {value!r} do not exist (paths are relative to {root})")
    if key != "documents" and not path.is_file():
        raise manifest.error(line, f"{subject}: the {key} file {value!r} does not exist (paths are relative to {root})")
    return path


def _configuration(manifest: _Manifest, root: Path, index: int, table: object, shared: Path | None) -> Configuration:
    line = manifest.config_line(index)
    if not isinstance(table, Mapping):
        raise manifest.error(line, f"config must be an array of tables ([[config]]), got {table!r}")
    _check_keys(manifest, table, _CONFIG_KEYS, index)
    name = table.get("name")
    if not isinstance(name, str) or not name.strip():
        where = manifest.key_line("name", index) or line
        raise manifest.error(where, f"configuration {index + 1} needs a name (a non-empty string), got {name!r}")
    subject = f"configuration {name!r}"
    run = _path(manifest, root, table, "run", subject, index)
    if run is None:
        raise manifest.error(line, f'{subject} names no run file; every configuration needs run = "..."')
    qrels = _path(manifest, root, table, "qrels", subject, index) or shared
    if qrels is None:
        raise manifest.error(
            line,
            f'{subject} has no qrels: give it qrels = "..." or name shared qrels at the top of the manifest',
        )
    params = table.get("params", {})
    if not isinstance(params, Mapping):
        raise manifest.error(manifest.key_line("params", index) or line, f"{subject}: params must be a table")
    for key, value in params.items():
        if "@" in key or not key:
            raise manifest.error(
                manifest.key_line(key, index, table="params") or line,
                f"{subject}: parameter {key!r} must be a non-empty name without '@' (kept for metric@k labels)",
            )
        if not _is_param_value(value):
            raise manifest.error(
                manifest.key_line(key, index, table="params") or line,
                f"{subject}: parameter {key!r} must be a string, number or boolean, got {value!r}",
            )
    return Configuration(
        name,
        params,
        run=run,
        qrels=qrels,
        chunks=_path(manifest, root, table, "chunks", subject, index),
        answers=_path(manifest, root, table, "answers", subject, index),
    )


def manifest_text(
    name: str,
    configs: Sequence[Mapping[str, object]],
    *,
    comment: str | None = None,
    **shared: str,
) -> str:
    """The text of a ``contextgrid.toml``: the shared files, then one ``[[config]]`` table per mapping.

    Each mapping gives a configuration's keys (``name``, ``run``, ``qrels``,
    ``chunks``, ``answers``) and optionally ``params``, a mapping of its own.
    Values are written as JSON, which TOML reads the same for strings,
    numbers and booleans.

    Examples
    --------
    >>> print(manifest_text("demo", [{"name": "a", "run": "a.trec", "params": {"size": 500}}], qrels="q.trec"), end="")
    name = "demo"
    qrels = "q.trec"
    <BLANKLINE>
    [[config]]
    name = "a"
    run = "a.trec"
    [config.params]
    size = 500
    """
    lines = [] if comment is None else [f"# {comment}"]
    lines += [f"name = {json.dumps(name)}", *(f"{key} = {json.dumps(value)}" for key, value in shared.items())]
    for config in configs:
        lines += ["", "[[config]]"]
        lines += [f"{key} = {json.dumps(value)}" for key, value in config.items() if key != "params"]
        params = config.get("params")
        if isinstance(params, Mapping) and params:
            lines += ["[config.params]", *(f"{key} = {json.dumps(value)}" for key, value in params.items())]
    return "\n".join(lines) + "\n"


def load_workspace(path: str | Path) -> Workspace:
    """Read the workspace in folder ``path`` (or from its ``contextgrid.toml`` itself).

    The manifest is checked in full, and every file it names must exist; the
    files are read later, when first asked for. Paths in the manifest are
    relative to the workspace folder.

    Raises
    ------
    InputFileError
        Naming ``contextgrid.toml``, the line and the configuration, for a
        missing manifest or file, invalid TOML, an unknown key, a repeated
        configuration name or a configuration without qrels.

    Examples
    --------
    >>> from contextgrid.workspace import SAMPLE, load_workspace
    >>> workspace = load_workspace(SAMPLE.parent / "handmade")
    >>> workspace.names
    ('bm25-fixed-512', 'dense-fixed-512', 'bm25-fixed-256', 'dense-fixed-256')
    >>> dict(workspace.config("dense-fixed-256").params)
    {'chunker': 'fixed', 'size': 256, 'overlap': 32, 'retriever': 'dense'}
    """
    given = Path(path)
    manifest_path = given if given.name == MANIFEST and given.is_file() else given / MANIFEST
    shown = str(manifest_path)
    if not manifest_path.is_file():
        expected = (
            f"no {MANIFEST} here; a workspace is a folder holding a {MANIFEST} manifest"
            if given.is_dir()
            else "no such workspace folder"
        )
        raise InputFileError(shown if given.is_dir() else given, None, None, expected)
    root = manifest_path.parent.resolve()
    manifest = _Manifest(manifest_path, shown)
    data = manifest.data
    _check_keys(manifest, data, _TOP_KEYS, None)

    name = data.get("name", root.name)
    if not isinstance(name, str) or not name.strip():
        raise manifest.error(manifest.key_line("name"), f"name must be a non-empty string, got {name!r}")
    shared = _path(manifest, root, data, "qrels", "the shared qrels", None)
    questions = _path(manifest, root, data, "questions", "the shared questions", None)
    documents = _path(manifest, root, data, "documents", "the shared documents", None)

    tables = data.get("config", [])
    if not isinstance(tables, list) or not tables:
        raise manifest.error(
            manifest.key_line("config"),
            "a workspace needs at least one configuration: add a [[config]] table with a name and a run",
        )
    configs: list[Configuration] = []
    for index, table in enumerate(tables):
        config = _configuration(manifest, root, index, table, shared)
        if any(config.name == earlier.name for earlier in configs):
            raise manifest.error(
                manifest.key_line("name", index) or manifest.config_line(index),
                f"configuration name {config.name!r} is used twice; each configuration needs its own name",
            )
        configs.append(config)
    return Workspace(name, root, tuple(configs), questions_path=questions, documents_path=documents)
