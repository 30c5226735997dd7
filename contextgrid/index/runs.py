"""retrieve(): search every question and hand back a run that evaluate() scores as it is."""

from __future__ import annotations

from collections.abc import Mapping

from contextgrid.core.checks import check_k
from contextgrid.core.errors import ContextGridError, parameter_error
from contextgrid.index.base import Index, RanksPositions

__all__ = ["retrieve", "retrieve_scored"]


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
    >>> run = retrieve(BM25Index.from_chunks(chunks), {"q1": "return policy?", "q2": "is shipping free"}, k=3)
    >>> run
    {'q1': [], 'q2': ['c2']}
    >>> cg.evaluate({"q1": {"c1": 2}, "q2": {"c2": 2}}, run, ks=[3], metrics=["recall"])
    {'recall@3': 0.5}
    """
    return {question_id: list(ranking) for question_id, ranking in retrieve_scored(index, questions, k).items()}


def retrieve_scored(index: Index, questions: Mapping[str, str], k: int) -> dict[str, dict[str, float]]:
    """:func:`retrieve` with the index's own scores: ``{question_id: {chunk_id: score}}``, best first.

    Written with :func:`contextgrid.io.write_run`, the scores go into the
    run file as they are. Read back, a run is ordered by score and equal
    scores by chunk id, descending (trec_eval's rule), which can order a tie
    otherwise than the index did (by chunk order).

    Examples
    --------
    >>> import contextgrid as cg
    >>> from contextgrid.index import BM25Index, retrieve_scored
    >>> chunks = [
    ...     cg.Chunk("c1", cg.Span("a.md", 0, 9), "red apple"),
    ...     cg.Chunk("c2", cg.Span("a.md", 9, 20), "green pear"),
    ... ]
    >>> retrieve_scored(BM25Index.from_chunks(chunks), {"q1": "pears"}, k=3)  # ln(2) / 2.5, as in build_index
    {'q1': {'c2': 0.27725...}}
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
    ranked: list[dict[str, float]]
    if isinstance(index, RanksPositions):
        # Straight from positions to ids, without a Scored object per hit.
        chunk_ids = index.chunk_ids
        ranked = [
            dict(zip((chunk_ids[at] for at in positions.tolist()), scores.tolist(), strict=True))
            for positions, scores in index.rank_many(texts, cutoff)
        ]
    else:
        ranked = [{hit.chunk_id: hit.score for hit in ranking} for ranking in index.search_many(texts, cutoff)]
    return dict(zip(questions, ranked, strict=True))
