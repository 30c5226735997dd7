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
import re
import threading
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar

from .errors import ContextGridError, InputFileError
from .log import LogEntry, WarningLog
from .metrics.base import BUILTIN_METRICS, DEFAULT_KS, METRICS
from .params import check_k, check_ks
from .records import AnswerRecord, Chunk, EvalItem
from .results import RunResult
from .scoring import _resolve_metrics as resolve_metrics
from .scoring import evaluate, per_query

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
        param_names = list(dict.fromkeys(name for config in self.configs for name in config.params))
        params = pd.DataFrame(
            {name: [config.params.get(name) for config in self.configs] for name in param_names},
            index=scores.index,
        )
        frame = pd.concat([scores, params], axis=1)
        frame.index = pd.Index([config.name for config in self.configs], name="config")
        return frame


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
    _cache: dict[tuple[str, Path], Any] = field(default_factory=dict, init=False, repr=False)
    # Re-entrant: a loader may load what it is built from (the resolved questions need the documents).
    _lock: threading.RLock = field(default_factory=threading.RLock, init=False, repr=False)

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

    def _load(self, kind: str, path: Path, loader: Callable[[Path], _T]) -> _T:
        key = (kind, path)
        with self._lock:
            if key not in self._cache:
                self._cache[key] = loader(path)
            loaded: _T = self._cache[key]
            return loaded

    @property
    def names(self) -> tuple[str, ...]:
        """The configuration names, in manifest order."""
        return tuple(config.name for config in self.configs)

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

        return self._load("run", self.config(name).run, read_run)

    def qrels(self, name: str) -> QrelsTable:
        """The qrels configuration ``name`` is scored against (its own, else the shared ones)."""
        from .io import read_qrels

        return self._load("qrels", self.config(name).qrels, read_qrels)

    def chunks(self, name: str) -> tuple[Chunk, ...]:
        """The chunks of configuration ``name``; an error if the manifest names none."""
        path = self.config(name).chunks
        if path is None:
            raise ContextGridError(f"configuration {name!r} of workspace {self.name!r} names no chunks file")
        from .io import read_chunks

        documents = dict(self.documents) if self.documents_path is not None else None
        return self._load("chunks", path, lambda p: read_chunks(p, documents=documents))

    def answers(self, name: str) -> tuple[AnswerRecord, ...]:
        """The generated answers of configuration ``name``; an error if the manifest names none."""
        path = self.config(name).answers
        if path is None:
            raise ContextGridError(f"configuration {name!r} of workspace {self.name!r} names no answers file")
        from .io import read_answers

        return self._load("answers", path, read_answers)

    @property
    def documents(self) -> Mapping[str, str]:
        """The shared documents, ``{doc_id: text}``; an error if the manifest names none."""
        if self.documents_path is None:
            raise ContextGridError(f"workspace {self.name!r} names no documents in its {MANIFEST}")
        from .io import read_documents

        return self._load("documents", self.documents_path, lambda p: MappingProxyType(read_documents(p)))

    @property
    def questions(self) -> tuple[EvalItem, ...]:
        """The shared questions; an error if the manifest names none."""
        if self.questions_path is None:
            raise ContextGridError(f"workspace {self.name!r} names no questions in its {MANIFEST}")
        from .io import read_questions

        return self._load("questions", self.questions_path, read_questions)

    @property
    def resolved(self) -> tuple[tuple[EvalItem, ...], tuple[LogEntry, ...]]:
        """The questions with their gold evidence found in the documents, and what could not be.

        Resolved once with :class:`~contextgrid.resolver.SpanResolver` and kept; needs
        both documents and questions in the manifest.
        """
        if self.questions_path is None:
            raise ContextGridError(f"workspace {self.name!r} names no questions in its {MANIFEST}")

        def resolve(_: Path) -> tuple[tuple[EvalItem, ...], tuple[LogEntry, ...]]:
            from .resolver import SpanResolver

            log = WarningLog()
            items = SpanResolver(self.documents).resolve(self.questions, warnings=log)
            return items, tuple(log.entries)

        return self._load("resolved", self.questions_path, resolve)

    def evaluate(
        self,
        *,
        ks: Sequence[int] = DEFAULT_KS,
        metrics: Sequence[str] = BUILTIN_METRICS,
        warnings: WarningLog | None = None,
    ) -> WorkspaceResults:
        """Score every configuration with :func:`contextgrid.evaluate`.

        Parameters
        ----------
        ks, metrics, warnings
            As for :func:`contextgrid.evaluate`. ``warnings`` receives every
            configuration's entries; each :class:`RunResult` keeps its own.

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
        names = [metric.name for metric in resolve_metrics(metrics, function="Workspace.evaluate")]
        results = []
        for config in self.configs:
            log = WarningLog()
            scores = evaluate(self.qrels(config.name), self.run(config.name), ks=cutoffs, metrics=names, warnings=log)
            results.append(RunResult(config.name, scores, tuple(log.entries)))
            if warnings is not None:
                warnings.entries.extend(log.entries)
        labels = tuple(f"{metric}@{k}" for metric in names for k in cutoffs)
        return WorkspaceResults(self.configs, tuple(results), labels)

    def per_query(self, metric: str, k: int) -> pd.DataFrame:
        """``metric@k`` per question (rows, index ``question``) and configuration (columns).

        Scores come from :func:`contextgrid.per_query`; a question a
        configuration's qrels do not score is missing (``NaN``) in its column.

        Examples
        --------
        >>> from contextgrid.workspace import SAMPLE, load_workspace
        >>> load_workspace(SAMPLE.parent / "handmade").per_query("mrr", 5).loc["q02"].tolist()
        [0.0, 1.0, 0.2, 1.0]
        """
        import pandas as pd

        cutoff = check_k(k, function="Workspace.per_query")
        METRICS.get(metric)
        columns = {
            config.name: per_query(self.qrels(config.name), self.run(config.name), metric, cutoff)
            for config in self.configs
        }
        questions = list(dict.fromkeys(question for scores in columns.values() for question in scores))
        frame = pd.DataFrame(
            {name: [scores.get(question, float("nan")) for question in questions] for name, scores in columns.items()},
            index=pd.Index(questions, name="question"),
            dtype="float64",
        )
        frame.columns.name = "config"
        return frame


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
