"""Scoring a live retriever, a function from a question to its ranked chunks, without writing any file.

The questions' gold evidence is resolved on the documents and judged on the chunks, as a sweep does; each
retriever is asked every question once; the scores come back as :meth:`Workspace.evaluate` returns them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from contextgrid.core.checks import check_int, require
from contextgrid.core.errors import ContextGridError, parameter_error
from contextgrid.core.frozenmap import FrozenMap
from contextgrid.core.log import WarningLog
from contextgrid.data.chunk_checks import checked_chunks
from contextgrid.data.records import Chunk, EvalItem
from contextgrid.data.run_result import RunResult
from contextgrid.engine.scoring import evaluate, resolve_metrics
from contextgrid.evidence.resolver import SpanResolver
from contextgrid.metrics.base import BUILTIN_METRICS, DEFAULT_KS
from contextgrid.workspace.configuration import ParamValue, is_param_value
from contextgrid.workspace.results import WorkspaceResults

__all__ = ["LiveRetriever", "Retrieve", "evaluate_retriever"]

Retrieve = Callable[[str, int], Sequence[object]]
"""A retriever: ``retrieve(question, k)`` returns up to ``k`` chunk ids (or Chunks, or ``Scored``), best first."""


@dataclass(frozen=True, slots=True)
class LiveRetriever:
    """The name and parameters of a retriever scored live, as a row of :class:`WorkspaceResults` is labelled."""

    name: str
    params: Mapping[str, ParamValue] = field(default_factory=dict)

    def __post_init__(self) -> None:
        require(
            isinstance(self.name, str) and bool(self.name), "LiveRetriever", f"name must be a str, got {self.name!r}"
        )
        label = f"LiveRetriever({self.name!r})"
        require(isinstance(self.params, Mapping), label, f"params must be a mapping, got {self.params!r}")
        for key, value in self.params.items():
            require(isinstance(key, str) and is_param_value(value), label, f"parameter {key!r}: got {value!r}")
        object.__setattr__(self, "params", FrozenMap(dict(self.params)))


def _chunk_id(hit: object, question: str, known: Mapping[str, Chunk], name: str) -> str:
    found = hit.id if isinstance(hit, Chunk) else getattr(hit, "chunk_id", hit)
    if not isinstance(found, str):
        raise ContextGridError(f"retriever {name!r} returned {hit!r} for question {question!r}; expected a chunk id")
    if found not in known:
        raise ContextGridError(
            f"retriever {name!r} returned chunk {found!r} for question {question!r}, which is not among the "
            f"{len(known)} chunks given: it could not be judged"
        )
    return found


def evaluate_retriever(
    retrieve: Retrieve | Mapping[str, Retrieve],
    questions: Sequence[EvalItem],
    documents: Mapping[str, str],
    chunks: Sequence[Chunk],
    *,
    ks: Sequence[int] = DEFAULT_KS,
    metrics: Sequence[str] = BUILTIN_METRICS,
    depth: int = 20,
    warnings: WarningLog | None = None,
) -> WorkspaceResults:
    """Score one retriever, or several by name, on ``questions`` whose gold evidence lies in ``documents``.

    Parameters
    ----------
    retrieve : callable or mapping of name to callable
        ``retrieve(question, k)`` returns the retrieved chunk ids (or Chunks, or ``Scored``), best first.
    questions, documents, chunks
        The questions with their gold evidence (quotes or spans), ``{doc_id: text}``, and the chunking the
        retriever returns chunks of.
    ks, metrics, warnings
        As for :func:`contextgrid.evaluate`; ``warnings`` also receives what the resolver could not find.
    depth : int, default 20
        The ``k`` each retriever is asked for.

    Examples
    --------
    >>> import contextgrid as cg
    >>> documents = {"a.md": "Refunds take thirty days. Shipping is free."}
    >>> chunks = [cg.Chunk("c1", cg.Span("a.md", 0, 26), "Refunds take thirty days. "),
    ...           cg.Chunk("c2", cg.Span("a.md", 26, 43), "Shipping is free.")]
    >>> gold = (cg.Anchor("a.md", "Shipping is free."),)
    >>> questions = [cg.EvalItem("q1", "Is shipping free?", anchors=gold)]
    >>> results = evaluate_retriever({"first": lambda q, k: ["c1", "c2"][:k], "second": lambda q, k: ["c2"]},
    ...                              questions, documents, chunks, ks=[1], metrics=["recall"])
    >>> results["first"]["recall@1"], results["second"]["recall@1"]
    (0.0, 1.0)
    """
    function = "evaluate_retriever"
    retrievers = dict(retrieve) if isinstance(retrieve, Mapping) else {"retriever": retrieve}
    if not retrievers or not all(callable(each) for each in retrievers.values()):
        raise parameter_error(function, "retrieve", "a callable, or a mapping of name to callable", retrieve)
    cutoff = check_int(depth, function=function, parameter="depth", minimum=1)
    resolve_metrics(metrics, function=function)  # refuse an unknown metric before any retriever is asked
    log = WarningLog()
    resolver = SpanResolver(documents)
    items = resolver.resolve(questions, warnings=log)
    given = checked_chunks(chunks, function=function, nonempty=True)
    qrels = resolver.qrels(items, given, warnings=log)
    known = {chunk.id: chunk for chunk in given}
    described, results = [], []
    for name, each in retrievers.items():
        run = {item.id: [_chunk_id(hit, item.id, known, name) for hit in each(item.question, cutoff)] for item in items}
        run_log = WarningLog()
        scores = evaluate(qrels, run, ks=ks, metrics=metrics, warnings=run_log)
        described.append(LiveRetriever(name, {"depth": cutoff}))
        results.append(RunResult(name, scores, tuple(run_log.entries)))
    if warnings is not None:
        warnings.entries.extend(log.entries)
        for result in results:
            warnings.entries.extend(result.warnings)
    labels = tuple(f"{metric}@{k}" for metric in dict.fromkeys(metrics) for k in dict.fromkeys(ks))
    return WorkspaceResults(tuple(described), tuple(results), labels)
