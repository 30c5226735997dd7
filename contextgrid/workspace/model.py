"""Workspaces: a folder of configurations to compare, described by a ``contextgrid.toml`` manifest.

The manifest names each configuration (a name, free-form parameters such as
chunker, size or retriever, and its run / qrels / chunks / answers files) and
what they share (qrels, or questions and documents). A configuration with
chunks but no qrels file is judged on the questions' gold spans, resolved onto
its chunks by a :class:`~contextgrid.evidence.resolver.GradeRule`, once per
chunking, as a sweep judges them. :func:`load_workspace`
checks the manifest and that every file it names exists; the files themselves
load lazily, once, the first time they are asked for. The dashboard and the
``contextgrid`` command both work from the one :class:`Workspace`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar

from contextgrid.core.checks import check_distinct, check_int, check_k, check_ks
from contextgrid.core.errors import ContextGridError, MissingWorkspaceInputError, UnknownConfigurationError
from contextgrid.core.log import LogEntry, WarningLog
from contextgrid.data.records import AnswerRecord, Chunk, EvalItem
from contextgrid.data.run_result import RunResult
from contextgrid.engine.grades import FloatArray, RankedGrades
from contextgrid.engine.scoring import (
    mean_scores,
    ranked_grades,
    resolve_metrics,
    score_questions,
)
from contextgrid.evidence.resolver import GradeRule, SpanResolver
from contextgrid.io.files import DEFAULT_MAX_BYTES, DEFAULT_MAX_RATIO
from contextgrid.metrics.base import BUILTIN_METRICS, DEFAULT_KS, METRICS
from contextgrid.workspace.configuration import Configuration, parameters_frame
from contextgrid.workspace.results import WorkspaceResults

if TYPE_CHECKING:
    import pandas as pd

    from contextgrid.data.tables import QrelsTable, RunTable
    from contextgrid.evidence.run_waste import ChunkingGold, GoldColumns
    from contextgrid.io.answers import AnswerColumns

__all__ = ["MANIFEST", "Workspace"]

MANIFEST = "contextgrid.toml"
"""The file that makes a folder a workspace."""


_T = TypeVar("_T")
_KEPT_DEPTH = max(DEFAULT_KS)
"""How deep the ranked-grade matrix a workspace keeps for each configuration is."""


@dataclass(frozen=True, slots=True, eq=False)
class Workspace:
    """A folder of configurations to compare; make one with :func:`load_workspace`.

    The files a workspace names load on first use and are kept, so asking
    twice reads once. Everything it returns is read-only. Each is read within
    ``max_bytes`` (what one file may hold, decompressed), ``max_ratio`` (how
    many times a gzip file may expand; ``None``: no limit) and ``max_line_bytes``
    (the longest line; ``None``: each reader's default), as
    :func:`~contextgrid.io.read_run` reads; a file past either is that file's
    :class:`~contextgrid.core.errors.InputFileError`, so :meth:`readable`
    leaves its configuration out. With ``within``, every file it reads must
    lie in one of those folders once its links are followed, documents inside
    a folder included (:func:`~contextgrid.io.files.confined`), checked as it
    is opened.

    A configuration without a qrels file (its ``qrels`` is ``None``) is
    judged on the shared questions' gold spans, resolved in the shared
    documents and graded onto its chunks by ``grade_rule`` (the default
    :class:`~contextgrid.evidence.resolver.GradeRule` unless given), as
    :func:`~contextgrid.workspace.sweep.sweep` writes its qrels; such a
    workspace needs questions and documents.
    """

    name: str
    root: Path
    configs: tuple[Configuration, ...]
    questions_path: Path | None = None
    documents_path: Path | None = None
    max_bytes: int = DEFAULT_MAX_BYTES
    max_line_bytes: int | None = None
    max_ratio: int | None = DEFAULT_MAX_RATIO
    grade_rule: GradeRule = field(default_factory=GradeRule)
    within: tuple[Path, ...] | None = None
    _cache: dict[tuple[Any, ...], Any] = field(default_factory=dict, init=False, repr=False)
    # One lock per cache key, so that different files load at once while each is read only once. Re-entrant:
    # a loader may load what it is built from (the resolved questions need the documents).
    _locks: dict[tuple[Any, ...], threading.RLock] = field(default_factory=dict, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "configs", tuple(self.configs))
        if self.within is not None:
            object.__setattr__(self, "within", tuple(Path(folder) for folder in self.within))
        names = [config.name for config in self.configs]
        if not names:
            raise ContextGridError(f"Workspace({self.name!r}): a workspace needs at least one configuration")
        check_distinct(names, function=f"Workspace({self.name!r})", what="configuration names", given="configs")
        check_int(self.max_bytes, function="Workspace", parameter="max_bytes", minimum=1)
        if self.max_line_bytes is not None:
            check_int(self.max_line_bytes, function="Workspace", parameter="max_line_bytes", minimum=1)
        if self.max_ratio is not None:
            check_int(self.max_ratio, function="Workspace", parameter="max_ratio", minimum=1)
        if not isinstance(self.grade_rule, GradeRule):
            raise ContextGridError(f"Workspace({self.name!r}): grade_rule must be a GradeRule, got {self.grade_rule!r}")
        from_gold = [config.name for config in self.configs if config.qrels is None]
        shared = (("questions", self.questions_path), ("documents", self.documents_path))
        lacking = [name for name, path in shared if path is None]
        if from_gold and lacking:
            raise MissingWorkspaceInputError(
                f"Workspace({self.name!r}): {', '.join(from_gold)} name no qrels, so they are judged on the questions' "
                f"gold spans, but the workspace names no {' and no '.join(lacking)} to resolve them in"
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

    def each_config(self, work: Callable[[Configuration], _T], *, names: Sequence[str] | None = None) -> list[_T]:
        """``work(config)`` for every configuration (or those ``names`` gives, in that order), in manifest order,
        on one thread per CPU.

        Reading files, building matrices and measuring runs are mostly pyarrow
        and numpy, which run outside the GIL. The first configuration (in
        order) that fails raises; those not yet started are not started.

        Examples
        --------
        >>> from contextgrid.workspace.manifest import load_workspace
        >>> workspace = load_workspace(HANDMADE)
        >>> workspace.each_config(lambda config: config.name.upper(), names=workspace.names[:2])
        ['BM25-FIXED-512', 'DENSE-FIXED-512']
        """
        configs = self.configs if names is None else tuple(self.config(name) for name in names)
        workers = min(_cpu_count(), len(configs))
        if workers <= 1:
            return [work(config) for config in configs]
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(workers, thread_name_prefix="contextgrid-workspace")
        try:
            return list(pool.map(work, configs))
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    @property
    def _limits(self) -> dict[str, Any]:
        """The keywords that read every file of this workspace within its limits."""
        return {
            "max_bytes": self.max_bytes,
            "max_line_bytes": self.max_line_bytes,
            "max_ratio": self.max_ratio,
            "within": self.within,
        }

    @property
    def names(self) -> tuple[str, ...]:
        """The configuration names, in manifest order."""
        return tuple(config.name for config in self.configs)

    def missing_evidence(self, configs: Sequence[str] | None = None) -> tuple[str, ...]:
        """What the character-level views (waste, causes) need and this workspace lacks, for ``configs``
        (default: all): ``documents``, ``questions``, and the chunks of configurations that name none.
        Empty when it has everything.

        Examples
        --------
        >>> from pathlib import Path
        >>> from contextgrid.workspace.configuration import Configuration
        >>> runs_only = Workspace("w", Path("."), (Configuration("bm25", {}, run=Path("r"), qrels=Path("q")),))
        >>> runs_only.missing_evidence()
        ('documents', 'questions', 'chunks (for bm25)')
        """
        names = self.names if configs is None else tuple(configs)
        shared = (("documents", self.documents_path), ("questions", self.questions_path))
        missing = [name for name, path in shared if path is None]
        without = [name for name in names if self.config(name).chunks is None]
        if without:
            missing.append(f"chunks (for {', '.join(without)})")
        return tuple(missing)

    def readable(self) -> tuple[Workspace, Mapping[str, ContextGridError]]:
        """This workspace without the configurations whose files cannot be read, and the error of each of those.

        Every configuration's run and qrels are read and its scores' matrix
        built (what scoring reads first), and its chunks read if it names
        them, so that what is left scores and draws every retrieval view. The
        files read are kept, and shared with the workspace returned. Its
        chunks are not checked when the shared documents themselves cannot be
        read: that is no one configuration's fault, and the views that need
        documents say so. Its answers are not read here: they concern only
        the answer views, which read them when asked and say what is wrong
        with them, and a first visit should not wait for them. When no
        configuration can be read, the first one's error is raised.

        Examples
        --------
        >>> from contextgrid.workspace.manifest import load_workspace
        >>> part, failed = load_workspace(HANDMADE).readable()
        >>> part.names, dict(failed)
        (('bm25-fixed-512', 'dense-fixed-512', 'bm25-fixed-256', 'dense-fixed-256'), {})
        """
        documents_read = self.documents_path is not None and self._attempt(lambda: self.documents) is None

        def read(config: Configuration) -> ContextGridError | None:
            def load() -> None:
                self.ranked_grades(config.name, _KEPT_DEPTH)
                if config.chunks is not None and (documents_read or self.documents_path is None):
                    self.chunks(config.name)

            return self._attempt(load)

        errors = dict(zip(self.names, self.each_config(read), strict=True))
        failed = {name: error for name, error in errors.items() if error is not None}
        if not failed:
            return self, MappingProxyType({})
        if len(failed) == len(self.configs):
            raise failed[self.names[0]]
        part = Workspace(
            self.name,
            self.root,
            tuple(config for config in self.configs if config.name not in failed),
            questions_path=self.questions_path,
            documents_path=self.documents_path,
            max_bytes=self.max_bytes,
            max_line_bytes=self.max_line_bytes,
            max_ratio=self.max_ratio,
            grade_rule=self.grade_rule,
            within=self.within,
        )
        for shared in ("_cache", "_locks", "_lock"):
            object.__setattr__(part, shared, getattr(self, shared))
        return part, MappingProxyType(failed)

    @staticmethod
    def _attempt(load: Callable[[], object]) -> ContextGridError | None:
        try:
            load()
        except ContextGridError as error:
            return error
        return None

    def parameters(self) -> pd.DataFrame:
        """One row per configuration (index ``config``, manifest order), one column per parameter;
        nothing is read but the manifest. A parameter a configuration lacks is missing.

        Examples
        --------
        >>> from contextgrid.workspace.manifest import load_workspace
        >>> print(load_workspace(HANDMADE).parameters())
                        chunker  size  overlap retriever
        config
        bm25-fixed-512    fixed   512       64      bm25
        dense-fixed-512   fixed   512       64     dense
        bm25-fixed-256    fixed   256       32      bm25
        dense-fixed-256   fixed   256       32     dense
        """
        return parameters_frame(self.configs)

    def params_by_config(self) -> dict[str, dict[str, object]]:
        """Each configuration's parameters as given in the manifest, by name: what figures encode in colour
        and symbol (:func:`contextgrid.render.style.marks`)."""
        return {config.name: dict(config.params) for config in self.configs}

    def config(self, name: str) -> Configuration:
        """The configuration called ``name``."""
        for config in self.configs:
            if config.name == name:
                return config
        raise UnknownConfigurationError(
            f"workspace {self.name!r} has no configuration named {name!r}. Available: {', '.join(self.names)}"
        )

    def run(self, name: str) -> RunTable:
        """The run of configuration ``name``, read on first use."""
        from contextgrid.io import read_run

        path = self.config(name).run
        return self._load(("run", path), lambda: read_run(path, **self._limits))

    def qrels(self, name: str) -> QrelsTable:
        """The qrels configuration ``name`` is scored against: its own file, else the shared one, else its
        chunks judged on the gold spans (:meth:`gold_qrels`)."""
        from contextgrid.io import read_qrels

        path = self.config(name).qrels
        if path is None:
            return self.gold_qrels(name)[0]
        return self._load(("qrels", path), lambda: read_qrels(path, **self._limits))

    def gold_qrels(self, name: str) -> tuple[QrelsTable, tuple[LogEntry, ...]]:
        """The chunks of configuration ``name`` judged on the questions' gold spans, and what that reported.

        The questions are resolved once per workspace (:attr:`resolved`), and
        graded onto each chunks file once by :attr:`grade_rule` with
        :meth:`SpanResolver.qrels_table <contextgrid.evidence.resolver.SpanResolver.qrels_table>`,
        the judgements a sweep writes as its qrels; configurations that share
        a chunks file share them. The entries are the gold spans no chunk
        holds, each naming the chunks file. Needs chunks, questions and
        documents; a configuration with a qrels file may be judged so too.

        Examples
        --------
        The sample workspace is a sweep's: the qrels it wrote are these judgements.

        >>> from contextgrid.workspace.manifest import load_workspace
        >>> from contextgrid.workspace.sample import SAMPLE
        >>> workspace = load_workspace(SAMPLE)
        >>> name = workspace.names[0]
        >>> judged, _ = workspace.gold_qrels(name)
        >>> judged.to_dict() == workspace.qrels(name).to_dict()
        True
        """
        path = self.config(name).chunks
        if path is None:
            raise MissingWorkspaceInputError(
                f"configuration {name!r} of workspace {self.name!r} names no chunks file to judge on the gold spans"
            )

        def judge() -> tuple[QrelsTable, tuple[LogEntry, ...]]:
            items, _ = self.resolved
            log = WarningLog()
            table = self._resolver.qrels_table(items, self.chunks(name), warnings=log)
            shown = _shown(path, self.root)
            entries = tuple(
                LogEntry(entry.severity, entry.stage, entry.subject, f"{shown}: {entry.message}") for entry in log
            )
            return table, entries

        return self._load(("gold qrels", path), judge)

    def gold_warnings(self) -> tuple[LogEntry, ...]:
        """What judging on the gold spans reported, for the configurations without a qrels file: the
        questions whose evidence was not found (:attr:`resolved`), once, then each chunks file's gold spans
        that no chunk holds. Empty when every configuration has a qrels file."""
        first_of: dict[Path | None, str] = {}
        for config in self.configs:
            if config.qrels is None:
                first_of.setdefault(config.chunks, config.name)
        if not first_of:
            return ()
        return self.resolved[1] + tuple(entry for name in first_of.values() for entry in self.gold_qrels(name)[1])

    def chunks(self, name: str) -> tuple[Chunk, ...]:
        """The chunks of configuration ``name``; an error if the manifest names none."""
        path = self.config(name).chunks
        if path is None:
            raise MissingWorkspaceInputError(f"configuration {name!r} of workspace {self.name!r} names no chunks file")
        from contextgrid.io import read_chunks

        def load() -> tuple[Chunk, ...]:
            documents = dict(self.documents) if self.documents_path is not None else None
            return read_chunks(path, documents=documents, **self._limits)

        return self._load(("chunks", path), load)

    def answers(self, name: str) -> tuple[AnswerRecord, ...]:
        """The generated answers of configuration ``name``, as records made from :meth:`answer_columns`."""
        columns = self.answer_columns(name)
        return self._load(("answers", self.config(name).answers), columns.records)

    def answer_columns(self, name: str) -> AnswerColumns:
        """The generated answers of configuration ``name`` as columns; an error if the manifest names none."""
        path = self.config(name).answers
        if path is None:
            raise MissingWorkspaceInputError(f"configuration {name!r} of workspace {self.name!r} names no answers file")
        from contextgrid.io.answers import read_answer_columns

        return self._load(("answer columns", path), lambda: read_answer_columns(path, **self._limits))

    @property
    def documents(self) -> Mapping[str, str]:
        """The shared documents, ``{doc_id: text}``; an error if the manifest names none."""
        path = self.documents_path
        if path is None:
            raise MissingWorkspaceInputError(_not_named(self.name, "documents"))
        from contextgrid.io import read_documents

        return self._load(("documents", path), lambda: MappingProxyType(read_documents(path, **self._limits)))

    @property
    def questions(self) -> tuple[EvalItem, ...]:
        """The shared questions; an error if the manifest names none."""
        return self._located_questions[0]

    @property
    def _located_questions(self) -> tuple[tuple[EvalItem, ...], Mapping[str, int]]:
        """The shared questions, and the line of the questions file each was read from."""
        path = self.questions_path
        if path is None:
            raise MissingWorkspaceInputError(_not_named(self.name, "questions"))
        from contextgrid.io.questions import read_located_questions

        return self._load(("questions", path), lambda: read_located_questions(path, **self._limits))

    @property
    def resolved(self) -> tuple[tuple[EvalItem, ...], tuple[LogEntry, ...]]:
        """The questions with their gold evidence found in the documents, and what could not be.

        Resolved once with :class:`~contextgrid.evidence.resolver.SpanResolver` and kept; needs
        both documents and questions in the manifest. What could not be is named with the questions
        file (from the workspace folder, as the manifest names it) and its line.
        """
        path = self.questions_path
        if path is None:
            raise MissingWorkspaceInputError(_not_named(self.name, "questions"))

        def resolve() -> tuple[tuple[EvalItem, ...], tuple[LogEntry, ...]]:
            log = WarningLog()
            questions, lines = self._located_questions
            shown = _shown(path, self.root)
            origins = {question: f"{shown}, line {line}" for question, line in lines.items()}
            items = self._resolver.resolve(questions, warnings=log, origins=origins)
            return items, tuple(log.entries)

        return self._load(("resolved", path), resolve)

    def shared(self, key: tuple[Hashable, ...], build: Callable[[], _T]) -> _T:
        """``build()``, once per ``key`` for this workspace: what many views or calls prepare alike (the
        questions' words, a chunking's layout), kept as long as the workspace and built by one thread while
        others wait.

        Examples
        --------
        >>> from contextgrid.workspace.manifest import load_workspace
        >>> workspace = load_workspace(HANDMADE)
        >>> first = workspace.shared(("example",), lambda: [len(workspace.names)])
        >>> workspace.shared(("example",), lambda: ["built again"]) is first
        True
        """
        return self._load(("shared", *key), build)

    @property
    def gold(self) -> GoldColumns:
        """The resolved questions' merged gold as columns (:func:`~contextgrid.evidence.run_waste.gold_columns`),
        built once and shared by every view that measures a run against the gold."""
        from contextgrid.evidence.run_waste import gold_columns

        return self._load(("gold columns",), lambda: gold_columns(self.resolved[0], f"workspace {self.name!r}"))

    def chunking_gold(self, name: str) -> ChunkingGold:
        """Configuration ``name``'s chunks laid out against :attr:`gold`
        (:func:`~contextgrid.evidence.run_waste.chunking_gold`), once per chunks file, however many
        configurations retrieve from it."""
        from contextgrid.evidence.run_waste import chunking_gold

        path = self.config(name).chunks
        return self._load(
            ("chunking gold", path), lambda: chunking_gold(self.gold, self.chunks(name), f"workspace {self.name!r}")
        )

    @property
    def _resolver(self) -> SpanResolver:
        """The one resolver of the shared documents, grading by :attr:`grade_rule`."""
        return self._load(("resolver",), lambda: SpanResolver(self.documents, grade_rule=self.grade_rule))

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
        self.check_alignment(name)
        if depth > _KEPT_DEPTH:
            return ranked_grades(qrels, run, depth)
        key = ("grades", config.run, config.qrels or ("gold", config.chunks))
        kept = self._load(key, lambda: _read_only(ranked_grades(qrels, run, _KEPT_DEPTH)))
        # A new matrix object around the kept arrays: what a caller derives from it (hits, dcg ...) is not kept.
        return RankedGrades(list(kept.question_ids), kept.gains, kept.ideal, kept.relevant)

    def check_alignment(self, name: str) -> None:
        """Refuse configuration ``name`` when its qrels or run do not belong to its chunks
        (:func:`~contextgrid.evidence.alignment.check_alignment`); checked once, where the workspace has
        questions and documents that can be read and the configuration names its chunks and qrels.

        Examples
        --------
        >>> from contextgrid.workspace.manifest import load_workspace
        >>> load_workspace(HANDMADE).check_alignment("bm25-fixed-512")
        """
        config = self.config(name)
        if config.chunks is None or config.qrels is None or self.questions_path is None or self.documents_path is None:
            return
        if self._attempt(lambda: self.resolved) is not None:
            return  # the views that need the gold say why it cannot be read
        from contextgrid.evidence.alignment import check_alignment

        def check() -> bool:
            where = f"configuration {name!r} of workspace {self.name!r}"
            check_alignment(self.gold, self.chunking_gold(name), self.run(name), self.qrels(name), function=where)
            return True

        self._load(_aligned_key(config), check)

    def aligned(self, name: str) -> bool:
        """Whether :meth:`check_alignment` has found configuration ``name``'s qrels and run to belong to its chunks
        on this workspace: ``False`` until it has checked them (it does not check a configuration that names no
        qrels), or when they failed.

        Examples
        --------
        >>> from contextgrid.workspace.manifest import load_workspace
        >>> from contextgrid.workspace.sample import SAMPLE
        >>> workspace = load_workspace(SAMPLE)
        >>> workspace.aligned("bm25-recursive-200-0")
        False
        >>> workspace.check_alignment("bm25-recursive-200-0")
        >>> workspace.aligned("bm25-recursive-200-0"), workspace.aligned("lsa-recursive-200-0")
        (True, False)
        >>> handmade = load_workspace(HANDMADE)  # no chunks: nothing to check
        >>> handmade.check_alignment("bm25-fixed-512"), handmade.aligned("bm25-fixed-512")
        (None, False)
        """
        return _aligned_key(self.config(name)) in self._cache

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
        >>> from contextgrid.workspace.manifest import load_workspace
        >>> results = load_workspace(HANDMADE).evaluate(ks=[5], metrics=["recall"])
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

        results = self.each_config(score)
        if warnings is not None:
            warnings.entries.extend(self.gold_warnings())
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
        >>> from contextgrid.workspace.manifest import load_workspace
        >>> load_workspace(HANDMADE).per_query("mrr", 5).loc["q02"].tolist()
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

        columns = self.each_config(score)
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


def _not_named(workspace: str, what: str) -> str:
    return f"workspace {workspace!r} names no {what} (in its {MANIFEST}, or {what}= of workspace_from_files)"


def _shown(path: Path, root: Path) -> str:
    """``path`` from the workspace folder when it lies inside it."""
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def _aligned_key(config: Configuration) -> tuple[Hashable, ...]:
    """Where :meth:`Workspace.check_alignment` keeps that ``config``'s files passed, which
    :meth:`Workspace.aligned` asks."""
    return ("aligned", config.run, config.qrels, config.chunks)


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
