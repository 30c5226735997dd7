"""sweep(): documents + questions + a grid of configurations -> a workspace folder.

Each configuration is a chunker (with its size and overlap), a retriever and
a depth. Chunkings are shared between the retrievers that use them, and the
gold evidence is resolved once and mapped onto each chunking, so
configurations with different chunkings are judged against the same
character spans.

Layout written into the folder::

    contextgrid.toml            the manifest load_workspace() reads
    documents.jsonl, questions.jsonl
    chunks/<chunking>.jsonl, qrels/<chunking>.trec, runs/<configuration>.trec

Runs hold each retriever's own scores (BM25 scores, cosines, fused RRF
scores). Read back, a run is ordered by score and equal scores by chunk id,
descending, as trec_eval orders them.

Chunks shorter than ``min_chunk`` characters (default :data:`MIN_CHUNK`, 50),
or than a quarter of the configuration's size where that is less, are merged
into the next chunk of their document (the last into the one before): see
:func:`contextgrid.chunking.merging.merge_small`. The minimum used is recorded
as the ``min_chunk`` parameter.

BM25 (``bm25``, and ``hybrid``'s BM25) stems with the English Snowball
stemmer and drops English stopwords unless ``bm25_stemmer`` or
``bm25_stopwords`` say otherwise; both are recorded as parameters.

Qrels and runs are TREC text, which trec_eval reads too, unless a question
or chunk id holds whitespace (a document ``my doc.md`` gives chunk ids such as
``my doc.md#0``), which TREC's whitespace-separated columns cannot hold: that
chunking's qrels and runs are then JSON Lines (``.jsonl``), which hold any id.

A configuration that fails is reported in the returned :class:`SweepReport`
(and in ``warnings``) and left out of the manifest; the others are still
written. One whose run holds no chunk for any question (say, no question shares
a word with the documents) fails so: its run would be an empty file, which
the workspace's readers refuse.

A sweep lists the files it wrote in ``.contextgrid-sweep.json``. It refuses
a folder that holds files but no such list unless ``force=True``; sweeping
again into its own folder replaces its files and removes those of its
earlier sweeps that the new manifest no longer names (only files on that
list). Any other file in the way is refused unless ``force=True``; files it
did not write are never deleted. The list names each file before the file
is written, and is replaced whole (as the manifest is), so a sweep stopped at
any point (an error, SIGINT, SIGTERM) leaves a folder the next sweep into it
takes up.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contextgrid.chunking import get_chunker
from contextgrid.chunking.merging import merge_small
from contextgrid.core.checks import check_distinct, check_int, is_whole, require
from contextgrid.core.errors import ContextGridError, InvalidParameterError, OutputExistsError
from contextgrid.core.log import Severity, WarningLog
from contextgrid.data.records import Chunk, EvalItem
from contextgrid.evidence.resolver import SpanResolver
from contextgrid.index import RETRIEVERS, available_retrievers, build_index, retrieve_scored, retriever_options
from contextgrid.index.dense import NEEDS_EMBEDDER
from contextgrid.index.embeddings import Embedder, FitsOnCorpus
from contextgrid.io import (
    write_chunks,
    write_documents,
    write_qrels,
    write_questions,
    write_run,
)
from contextgrid.io.files import write_output
from contextgrid.workspace.manifest import manifest_text
from contextgrid.workspace.model import MANIFEST

__all__ = ["MIN_CHUNK", "SweepConfig", "SweepReport", "sweep", "sweep_grid"]

MIN_CHUNK = 50
"""Chunks under this many characters (or a quarter of the configuration's size, if less) join a neighbour."""

USES_BM25: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "bm25": lambda analysis: analysis,
    "hybrid": lambda analysis: {"component_options": {"bm25": analysis}},
}
"""The retrievers whose BM25 the ``bm25_stemmer`` and ``bm25_stopwords`` of :func:`sweep` configure, and how
each takes BM25's ``stemmer`` and ``stopwords`` options."""

LEDGER = ".contextgrid-sweep.json"
"""The files a sweep wrote into its folder: only these may be replaced by the next sweep."""

WHITESPACE = re.compile(r"\s")
"""What TREC text separates its columns with (and more): an id holding any of it is written as JSON Lines."""


def _suffix(question_ids: Iterable[str], chunks: Sequence[Chunk]) -> str:
    """``.trec`` when every id fits TREC's whitespace-separated columns, else ``.jsonl``, which holds any id."""
    ids = itertools.chain(question_ids, (chunk.id for chunk in chunks))
    return ".jsonl" if any(WHITESPACE.search(i) for i in ids) else ".trec"


@dataclass(frozen=True, slots=True)
class SweepConfig:
    """One configuration: how to chunk, how to retrieve, how deep.

    Examples
    --------
    >>> from contextgrid.workspace.sweep import SweepConfig
    >>> SweepConfig("recursive", 500, 50, "bm25").name
    'bm25-recursive-500-50'
    """

    chunker: str
    size: int
    overlap: int
    retriever: str
    depth: int = 20

    def __post_init__(self) -> None:
        label = f"SweepConfig({self.chunker!r}, {self.size!r}, {self.overlap!r}, {self.retriever!r})"
        for name in ("chunker", "retriever"):
            value = getattr(self, name)
            require(isinstance(value, str) and value != "", label, f"{name} must be a non-empty str, got {value!r}")
        for name in ("size", "overlap", "depth"):
            value = getattr(self, name)
            require(is_whole(value, minimum=0), label, f"{name} must be a whole number, 0 or more, got {value!r}")
        require(self.depth >= 1 and self.size >= 1, label, "size and depth must be at least 1")

    @property
    def chunking(self) -> str:
        """The name of its chunking, shared with every configuration that chunks the same way."""
        return f"{self.chunker}-{self.size}-{self.overlap}"

    @property
    def name(self) -> str:
        return f"{self.retriever}-{self.chunking}"

    def min_chunk(self, minimum: int) -> int:
        """The smallest chunk kept on its own: ``minimum``, or a quarter of the size if that is less."""
        return min(minimum, self.size // 4)


def sweep_grid(
    *,
    chunkers: Sequence[str],
    sizes: Sequence[int],
    overlaps: Sequence[int],
    retrievers: Sequence[str],
    depths: Sequence[int] = (20,),
) -> tuple[SweepConfig, ...]:
    """Every combination, skipping overlaps not below their size.

    Examples
    --------
    >>> from contextgrid.workspace.sweep import sweep_grid
    >>> [c.name for c in sweep_grid(chunkers=["fixed_chars"], sizes=[200, 800], overlaps=[0], retrievers=["bm25"])]
    ['bm25-fixed_chars-200-0', 'bm25-fixed_chars-800-0']
    """
    combos = itertools.product(chunkers, sizes, overlaps, retrievers, depths)
    return tuple(SweepConfig(c, s, o, r, d) for c, s, o, r, d in combos if o < s)


@dataclass(frozen=True, slots=True)
class SweepReport:
    """What a sweep wrote and what failed.

    ``written`` names the configurations in the manifest; ``failed`` maps a
    configuration that could not be built to the reason. ``resolved`` names
    the questions whose gold evidence was found in the documents,
    ``unresolved`` maps each question whose evidence was not to the reason,
    and ``removed`` lists the files of earlier sweeps that were deleted.
    """

    root: Path
    written: tuple[str, ...]
    failed: Mapping[str, str] = field(default_factory=dict)
    resolved: tuple[str, ...] = ()
    unresolved: Mapping[str, str] = field(default_factory=dict)
    removed: tuple[str, ...] = ()

    def summary(self, *, reasons: int = 3) -> str:
        """What the sweep did, in a few lines: configurations written and failed, questions resolved and not,
        with the first ``reasons`` reasons.

        Examples
        --------
        >>> from pathlib import Path
        >>> from contextgrid.workspace.sweep import SweepReport
        >>> report = SweepReport(Path("out"), ("bm25-recursive-500-0",), resolved=("q1", "q2"),
        ...                      unresolved={"q3": "quote not found"})
        >>> print(report.summary())
        wrote 1 configuration to out
        questions: 2 resolved, 1 unresolved
          q3: quote not found
        """
        plural = "" if len(self.written) == 1 else "s"
        lines = [f"wrote {len(self.written)} configuration{plural} to {self.root}"]
        if self.failed:
            lines.append(f"{len(self.failed)} failed and left out: {', '.join(self.failed)}")
        if self.removed:
            lines.append(f"removed {len(self.removed)} files of earlier sweeps that the manifest no longer names")
        lines.append(f"questions: {len(self.resolved)} resolved, {len(self.unresolved)} unresolved")
        lines.extend(f"  {question}: {reason}" for question, reason in list(self.unresolved.items())[:reasons])
        if len(self.unresolved) > reasons:
            lines.append(f"  ... and {len(self.unresolved) - reasons} more (the warnings list every one)")
        return "\n".join(lines)


class _Ledger:
    """The files this folder's sweeps wrote; guards everything else in it."""

    def __init__(self, root: Path, *, force: bool) -> None:
        self.root = root
        self.force = force
        path = root / LEDGER
        if not path.is_file() and not force and root.is_dir() and any(root.iterdir()):
            raise OutputExistsError(
                f"{root} is not empty and was not written by contextgrid sweep (it has no {LEDGER}); "
                "pass --force (force=True) to write into it"
            )
        self.owned: set[str] = set(json.loads(path.read_text())) if path.is_file() else set()
        self.wrote: set[str] = set()

    def claim(self, relative: str) -> Path:
        target = self.root / relative
        if target.exists() and relative not in self.owned and not self.force:
            raise OutputExistsError(
                f"{target} exists and was not written by a sweep, so it is left alone; "
                "pass --force (force=True) to replace it, or sweep into another folder"
            )
        self.wrote.add(relative)
        self.save()  # listed before it is written: a sweep stopped while writing it leaves it on the list
        target.parent.mkdir(parents=True, exist_ok=True)
        target.unlink(missing_ok=True)
        return target

    def remove_stale(self) -> tuple[str, ...]:
        """Delete the files earlier sweeps wrote that this one did not, and any folder that leaves empty."""
        stale = sorted(self.owned - self.wrote)
        for relative in stale:
            target = self.root / relative
            target.unlink(missing_ok=True)
            if target.parent != self.root and target.parent.is_dir() and not any(target.parent.iterdir()):
                target.parent.rmdir()
        self.owned -= set(stale)
        self.save()
        return tuple(stale)

    def save(self) -> None:
        write_output(self.root / LEDGER, json.dumps(sorted(self.owned | self.wrote), indent=1) + "\n", overwrite=True)


def _qualified_name(embedder: object) -> str:
    """``module:qualname`` of a function or class instance, as ``--embedder`` takes it."""
    target = embedder if hasattr(embedder, "__qualname__") else type(embedder)
    return f"{getattr(target, '__module__', '?')}:{getattr(target, '__qualname__', type(embedder).__name__)}"


def sweep(
    documents: Mapping[str, str],
    items: Sequence[EvalItem],
    configs: Sequence[SweepConfig],
    root: str | Path,
    *,
    name: str = "sweep",
    warnings: WarningLog | None = None,
    progress: Callable[[str], None] | None = None,
    embedder: Embedder | FitsOnCorpus | None = None,
    bm25_stemmer: str | None = "english",
    bm25_stopwords: str | None = "en",
    min_chunk: int = MIN_CHUNK,
    force: bool = False,
    origins: Mapping[str, str] | None = None,
) -> SweepReport:
    """Chunk, resolve, retrieve and write a workspace for every configuration.

    The retrievers' embeddings use their fixed default seed, so the same
    inputs write the same files.

    Parameters
    ----------
    documents : mapping
        ``{doc_id: text}``.
    items : sequence of EvalItem
        The questions, gold evidence as anchors (quotes) or spans.
    configs : sequence of SweepConfig
        The grid, e.g. from :func:`sweep_grid`. Names must be distinct.
    root : path
        The workspace folder; created if missing. A folder holding files but
        no ``.contextgrid-sweep.json`` is refused unless ``force``.
    warnings : WarningLog, optional
        Receives the resolver's notes and every failed configuration.
    progress : callable, optional
        Called with a short message as each configuration starts.
    embedder : callable or object with ``fit``, optional
        The embedding model of every retriever that embeds (``dense``, ``dense_int8``, ``hybrid``'s dense
        component): a function from a list of texts to a matrix with one row per text, e.g. a
        sentence-transformers model's ``encode``. ``dense`` and ``dense_int8`` need one (no model is ever
        downloaded); ``lsa`` needs none. Its name (``module:qualname``) is recorded as the ``embedder``
        parameter of those configurations.
    bm25_stemmer, bm25_stopwords : str or None
        The Snowball stemmer and the stop list of BM25 (in ``bm25`` and ``hybrid``); ``None`` turns each
        off. Recorded as the ``stemmer`` and ``stopwords`` parameters (``"none"`` when off).
    min_chunk : int
        Chunks under this many characters, or a quarter of the size if that is less, are merged into a
        neighbour; 0 keeps every chunk as the chunker cut it.
    force : bool
        Write into a folder a sweep did not write, replacing files in the way.
    origins : mapping, optional
        Where each question was read, ``{question_id: "questions.jsonl, line 3"}`` (the lines from
        :func:`~contextgrid.io.questions.read_located_questions`): the reason a question's gold evidence was not
        found starts with it.

    Examples
    --------
    >>> import numpy as np
    >>> import contextgrid as cg
    >>> from contextgrid.workspace.sweep import sweep, sweep_grid
    >>> def letters(texts):  # a toy embedder: how often each letter a-z occurs
    ...     return np.array([[text.lower().count(chr(97 + i)) for i in range(26)] for text in texts], dtype=float)
    >>> documents = {"a.md": "Refunds take thirty days. Shipping is free over fifty dollars."}
    >>> gold = (cg.Anchor("a.md", "Refunds take thirty days."),)
    >>> items = [cg.EvalItem("q1", "How long do refunds take?", anchors=gold)]
    >>> grid = sweep_grid(chunkers=["sentences"], sizes=[40], overlaps=[0], retrievers=["dense"])
    >>> report = sweep(documents, items, grid, getfixture("tmp_path"), embedder=letters)
    >>> report.written
    ('dense-sentences-40-0',)
    >>> cg.load_workspace(report.root).config("dense-sentences-40-0").params["embedder"]
    'contextgrid.workspace.sweep:letters'
    """
    names = [config.name for config in configs]
    # An unknown retriever fails its own configurations below, not the whole sweep.
    known = set(available_retrievers())
    embeds = {c.retriever: c.retriever in known and "embedder" in retriever_options(c.retriever) for c in configs}
    if embedder is not None and not any(embeds.values()):
        raise ContextGridError(
            f"sweep: an embedder was given, but none of the retrievers {sorted(embeds)} embeds; "
            "use dense, dense_int8 or hybrid"
        )
    needing = sorted(r for r in embeds if r in known and getattr(RETRIEVERS.get(r), "needs_embedder", False))
    if embedder is None and needing:
        raise InvalidParameterError(f"sweep: the {' and '.join(needing)} retriever {NEEDS_EMBEDDER}")
    check_int(min_chunk, function="sweep", parameter="min_chunk", minimum=0)
    check_distinct(names, function="sweep", what="configuration names", given="configs")
    if not configs:
        raise ContextGridError("sweep: give at least one configuration")
    folder = Path(root)
    folder.mkdir(parents=True, exist_ok=True)
    ledger = _Ledger(folder, force=force)
    log = warnings if warnings is not None else WarningLog()
    options = _Options(embedder, embeds, bm25_stemmer, bm25_stopwords)

    resolver = SpanResolver(documents)
    resolving = WarningLog()
    resolved = resolver.resolve(items, warnings=resolving, origins=origins)
    for entry in resolving:
        log.add(entry.severity, entry.stage, entry.subject, entry.message)
    questions = {item.id: item.question for item in resolved}

    chunkings: dict[str, tuple[tuple[Chunk, ...], str]] = {}
    written: list[tuple[SweepConfig, str]] = []
    failed: dict[str, str] = {}
    try:
        write_documents(documents, ledger.claim("documents.jsonl"))
        write_questions(items, ledger.claim("questions.jsonl"))
        for config in configs:
            if progress is not None:
                progress(config.name)
            try:
                if config.chunking not in chunkings:
                    chunker = get_chunker(config.chunker, size=config.size, overlap=config.overlap)
                    cut = tuple(c for doc_id, text in documents.items() for c in chunker.chunk(doc_id, text))
                    new = merge_small(cut, documents, minimum=config.min_chunk(min_chunk))
                    qrels = resolver.qrels(resolved, new, warnings=log)
                    if not any(grade > 0 for judgements in qrels.values() for grade in judgements.values()):
                        raise ContextGridError("no question's gold evidence resolved onto this chunking")
                    suffix = _suffix(questions, new)
                    write_chunks(new, ledger.claim(f"chunks/{config.chunking}.jsonl"))
                    write_qrels(qrels, ledger.claim(f"qrels/{config.chunking}{suffix}"))
                    chunkings[config.chunking] = new, suffix
                chunks, suffix = chunkings[config.chunking]
                index = build_index(config.retriever, chunks, **options.build(config.retriever))
                run = retrieve_scored(index, questions, config.depth)
                if not any(run.values()):
                    raise ContextGridError(
                        "it retrieved no chunk for any question (do the questions share no word with the "
                        "documents?), and a run without a line is not a run the workspace could read"
                    )
                write_run(run, ledger.claim(f"runs/{config.name}{suffix}"), tag=config.name)
            except OutputExistsError:
                raise
            except Exception as error:  # one failing configuration must not sink the others
                failed[config.name] = f"{type(error).__name__}: {error}"
                log.caution("sweep", config.name, f"configuration left out of the workspace: {error}")
                continue
            written.append((config, suffix))
        if not written:
            raise ContextGridError(f"sweep: every configuration failed: {failed}")
        write_output(
            ledger.claim(MANIFEST),
            manifest_text(
                name,
                [
                    {
                        "name": config.name,
                        "run": f"runs/{config.name}{suffix}",
                        "qrels": f"qrels/{config.chunking}{suffix}",
                        "chunks": f"chunks/{config.chunking}.jsonl",
                        "params": {
                            "chunker": config.chunker,
                            "size": config.size,
                            "overlap": config.overlap,
                            "min_chunk": config.min_chunk(min_chunk),
                            "retriever": config.retriever,
                            "depth": config.depth,
                            **options.params(config.retriever),
                        },
                    }
                    for config, suffix in written
                ],
                comment="Written by contextgrid sweep.",
                documents="documents.jsonl",
                questions="questions.jsonl",
            ),
            overwrite=True,
        )
        removed = ledger.remove_stale()
    finally:
        ledger.save()
    reasons = {entry.subject: entry.message for entry in resolving if entry.severity is Severity.CAUTION}
    return SweepReport(
        folder,
        tuple(config.name for config, _ in written),
        failed,
        resolved=tuple(item.id for item in resolved if item.is_resolved),
        unresolved={
            item.id: reasons.get(item.id, "its gold evidence was not found in the documents")
            for item in resolved
            if item.is_answerable and not item.is_resolved
        },
        removed=removed,
    )


@dataclass(frozen=True, slots=True)
class _Options:
    """The options a sweep gives each retriever, and the parameters that record them."""

    embedder: Embedder | FitsOnCorpus | None
    embeds: Mapping[str, bool]
    stemmer: str | None
    stopwords: str | None

    def build(self, retriever: str) -> dict[str, Any]:
        """The keyword options of :func:`build_index` for ``retriever``."""
        options: dict[str, Any] = {}
        if self.embedder is not None and self.embeds[retriever]:
            options["embedder"] = self.embedder
        if retriever in USES_BM25:
            options.update(USES_BM25[retriever]({"stemmer": self.stemmer, "stopwords": self.stopwords}))
        return options

    def params(self, retriever: str) -> dict[str, str]:
        """The manifest parameters that record those options."""
        params: dict[str, str] = {}
        if self.embedder is not None and self.embeds[retriever]:
            params["embedder"] = _qualified_name(self.embedder)
        if retriever in USES_BM25:
            params["stemmer"] = self.stemmer or "none"
            params["stopwords"] = self.stopwords or "none"
        return params
