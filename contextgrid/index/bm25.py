"""BM25 over chunk text, scored by the bm25s package.

Tokenization is contextgrid's word rule (the one :func:`contextgrid.core.text.words`
uses): a word is a run of letters and digits, apostrophes inside a word kept,
compared case-insensitively. There is no stemming and no stop-word list, so
what matches is exactly what a reader would call the same word.

Scoring is bm25s's default variant, Lucene's BM25 (Kamphuis et al., ECIR 2020)::

    idf(t)       = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))
    score(q, d)  = sum over query words t of  idf(t) * tf(t, d) / (tf(t, d) + k1 * (1 - b + b * |d| / avgdl))

with ``N`` chunks, ``df(t)`` the chunks containing ``t``, ``|d|`` the chunk's
word count and ``avgdl`` the mean word count. A word repeated in the query
counts once per repetition, as in bm25s. Only chunks sharing at least one word
with the query are returned, so an empty query returns nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from contextgrid.core.checks import check_k
from contextgrid.core.errors import ContextGridError
from contextgrid.core.text import tokenize
from contextgrid.data.records import Chunk
from contextgrid.index.base import (
    RETRIEVERS,
    Ranked,
    check_chunks,
    check_non_negative,
    check_queries,
)
from contextgrid.index.ranking import RankedSearch, rank_blocks

__all__ = ["BM25Index", "tokenize"]


@RETRIEVERS.register("bm25")
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class BM25Index(RankedSearch):
    """A BM25 index over chunks (Lucene's variant, as bm25s scores it by default).

    Build it with :meth:`from_chunks`. Searching many queries is one sparse
    matrix product; ties are broken by chunk order.

    Examples
    --------
    >>> import contextgrid as cg
    >>> from contextgrid.index import BM25Index
    >>> chunks = [
    ...     cg.Chunk("c1", cg.Span("a.md", 0, 30), "Refunds take thirty days."),
    ...     cg.Chunk("c2", cg.Span("a.md", 30, 60), "Shipping is free over fifty dollars."),
    ... ]
    >>> index = BM25Index.from_chunks(chunks)
    >>> [hit.chunk_id for hit in index.search("how long do refunds take", 5)]
    ['c1']
    >>> index
    BM25Index(chunks=2, vocabulary=10, k1=1.5, b=0.75)
    """

    name: ClassVar[str] = "bm25"
    version: ClassVar[str] = "1"

    chunk_ids: tuple[str, ...]
    vocabulary: dict[str, int] = field(repr=False)
    weights: Any = field(repr=False)  # scipy.sparse CSR (vocabulary x chunks) of per-word BM25 scores
    k1: float = 1.5
    b: float = 0.75

    @classmethod
    def from_chunks(cls, chunks: Sequence[Chunk], *, k1: float = 1.5, b: float = 0.75) -> BM25Index:
        """Index the text of ``chunks`` with BM25 parameters ``k1`` (term-frequency saturation) and ``b``
        (length normalisation, 0 to 1)."""
        import bm25s  # type: ignore[import-untyped]
        import scipy.sparse  # type: ignore[import-untyped]

        function = "BM25Index.from_chunks"
        checked = check_chunks(chunks, function=function)
        k1 = check_non_negative(k1, function=function, parameter="k1")
        b = check_non_negative(b, function=function, parameter="b", upper=1.0)
        tokens = [tokenize(chunk.text) for chunk in checked]
        if not any(tokens):
            raise ContextGridError(
                f"{function}: none of the {len(checked)} chunks has a word in its text, so there is nothing to index"
            )
        retriever = bm25s.BM25(k1=k1, b=b, method="lucene")
        retriever.index(tokens, create_empty_token=False, show_progress=False)
        stored = retriever.scores
        # bm25s keeps one column per word and one row per chunk; transposed, a query's
        # word counts times this matrix is its BM25 score against every chunk.
        by_word = scipy.sparse.csc_matrix(
            (stored["data"], stored["indices"], stored["indptr"]),
            shape=(stored["num_docs"], len(retriever.vocab_dict)),
        ).T.tocsr()
        return cls(tuple(chunk.id for chunk in checked), dict(retriever.vocab_dict), by_word, k1, b)

    def _rank(self, queries: Sequence[str], k: int, *, function: str) -> list[Ranked]:
        import scipy.sparse

        checked = check_queries(queries, function=function)
        cutoff = check_k(k, function=function)
        rows: list[int] = []
        columns: list[int] = []
        for row, query in enumerate(checked):
            for word in tokenize(query):
                column = self.vocabulary.get(word)
                if column is not None:
                    rows.append(row)
                    columns.append(column)
        # Duplicate (row, column) entries are summed: a repeated query word counts each time.
        counts = scipy.sparse.csr_matrix(
            (np.ones(len(rows), dtype=np.float32), (rows, columns)),
            shape=(len(checked), len(self.vocabulary)),
        )

        def score_block(block: slice) -> tuple[NDArray[np.floating], NDArray[np.bool_]]:
            scores = np.asarray((counts[block] @ self.weights).toarray())
            return scores, scores > 0

        return rank_blocks(len(checked), len(self.chunk_ids), cutoff, score_block)

    def __repr__(self) -> str:
        return f"BM25Index(chunks={len(self.chunk_ids)}, vocabulary={len(self.vocabulary)}, k1={self.k1}, b={self.b})"
