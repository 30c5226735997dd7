"""retrieve(): search every question and hand back a run that evaluate() scores as it is."""

from __future__ import annotations

from collections.abc import Mapping

from contextgrid.core.checks import check_k
from contextgrid.core.errors import ContextGridError, parameter_error
from contextgrid.index.base import Index, RanksPositions

__all__ = ["retrieve"]


def retrieve(index: Index, questions: Mapping[str, str], k: int) -> dict[str, list[str]]:
    """Search ``index`` for every question and return the run ``{question_id: [chunk_id, ...]}``.

    Every ranking is at most ``k`` distinct chunk ids, best first, in the order
    the questions were given; all questions go to the index in one
    ``search_many`` call. A question that matched nothing gets an empty
    ranking, which :func:`contextgrid.evaluate` scores as a miss.

    Examples
    --------
    >>> import contextgrid as cg
    >>> from contextgrid.index import BM25Index, retrieve
    >>> chunks = [
    ...     cg.Chunk("c1", cg.Span("a.md", 0, 30), "Refunds take thirty days."),
    ...     cg.Chunk("c2", cg.Span("a.md", 30, 60), "Shipping is free over fifty dollars."),
    ... ]
    >>> run = retrieve(BM25Index.from_chunks(chunks), {"q1": "refund time?", "q2": "is shipping free"}, k=3)
    >>> run
    {'q1': [], 'q2': ['c2']}
    >>> cg.evaluate({"q1": {"c1": 2}, "q2": {"c2": 2}}, run, ks=[3], metrics=["recall"])
    {'recall@3': 0.5}
    """
    if not isinstance(index, Index):
        raise parameter_error("retrieve", "index", "an index (with chunk_ids, search and search_many)", index)
    if not isinstance(questions, Mapping):
        raise parameter_error("retrieve", "questions", "a mapping of question id to question text", questions)
    cutoff = check_k(k, function="retrieve")
    for question_id, text in questions.items():
        if not isinstance(question_id, str) or not isinstance(text, str):
            raise ContextGridError(
                f"retrieve: questions must map a str id to a str question, got {question_id!r}: {text!r}"
            )
    texts = list(questions.values())
    if isinstance(index, RanksPositions):
        # Straight from positions to ids, without a Scored object per hit.
        chunk_ids = index.chunk_ids
        ranked = [[chunk_ids[at] for at in positions.tolist()] for positions, _ in index.rank_many(texts, cutoff)]
    else:
        ranked = [[hit.chunk_id for hit in ranking] for ranking in index.search_many(texts, cutoff)]
    return dict(zip(questions, ranked, strict=True))
