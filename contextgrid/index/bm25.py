"""BM25 over chunk text, scored by the bm25s package.

Chunks and queries go through the same :class:`Analyzer`. It splits text by
contextgrid's word rule (:func:`contextgrid.core.text.tokenize`: a word is a
run of letters and digits, apostrophes inside a word kept, compared
case-insensitively), drops English stopwords and stems what is left with the
English Snowball stemmer (PyStemmer's ``english``, Porter2), so "running" and
"runs" match. That is the BM25 baseline Pyserini and Anserini users compare
with: the stop list is Lucene's 33 English words (bm25s's ``STOPWORDS_EN``),
the one Anserini's default analyzer uses. ``stemmer=None`` and
``stopwords=None`` turn each off; then what matches is exactly what a reader
would call the same word.

Scoring is bm25s's default variant, Lucene's BM25 (Kamphuis et al., ECIR 2020)::

    idf(t)       = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))
    score(q, d)  = sum over query words t of  idf(t) * tf(t, d) / (tf(t, d) + k1 * (1 - b + b * |d| / avgdl))

with ``N`` chunks, ``df(t)`` the chunks containing ``t``, ``|d|`` the chunk's
word count and ``avgdl`` the mean word count. A word repeated in the query
counts once per repetition, as in bm25s. Only chunks sharing at least one word
with the query are returned, so an empty query returns nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from contextgrid.core.checks import check_k
from contextgrid.core.errors import ContextGridError, parameter_error
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

__all__ = ["Analyzer", "BM25Index", "stemmers", "tokenize"]


def _english() -> tuple[str, ...]:
    """bm25s's ``STOPWORDS_EN``, read from its stopwords module alone: importing the bm25s package loads numba
    and llvmlite, a third of a second, for a list of 33 words that a dashboard's first look at causes needs."""
    import importlib.util
    import sys

    package = sys.modules.get("bm25s")
    if package is not None:
        return tuple(package.stopwords.STOPWORDS_EN)
    found = importlib.util.find_spec("bm25s")  # locates the package without running it
    folder = None if found is None or not found.submodule_search_locations else found.submodule_search_locations[0]
    spec = (
        None
        if folder is None
        else importlib.util.spec_from_file_location("bm25s_stopwords", Path(folder) / "stopwords.py")
    )
    if spec is None or spec.loader is None:
        raise ContextGridError("the English stop list needs bm25s (pip install bm25s), which is not installed")
    words = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(words)
    return tuple(words.STOPWORDS_EN)


STOPWORDS: dict[str, Callable[[], tuple[str, ...]]] = {"en": _english}
"""Stop lists by name, loaded when first used: ``en`` is Lucene's English stop set, as bm25s holds it."""


def stemmers() -> tuple[str, ...]:
    """The Snowball stemmers PyStemmer has (``english``, ``porter``, ``french``, ...), by name."""
    import Stemmer  # type: ignore[import-not-found]

    return tuple(Stemmer.algorithms())


@dataclass(frozen=True, slots=True)
class Analyzer:
    """How BM25 turns a text into terms: the word rule, then stopwords dropped, then stemming.

    Stopwords are dropped before stemming (as Lucene's analyzers do), so a
    stop list is matched against whole words. ``stemmer`` names a Snowball
    stemmer (see :func:`stemmers`) or is ``None``; ``stopwords`` names a stop
    list (``en``) or is ``None``.

    Examples
    --------
    >>> from contextgrid.index.bm25 import Analyzer
    >>> Analyzer()("The runner was running, and runs!")
    ['runner', 'run', 'run']
    >>> Analyzer(stemmer=None, stopwords=None)("The runner was running")
    ['the', 'runner', 'was', 'running']
    >>> Analyzer(stemmer="klingon")
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.InvalidParameterError: The 'stemmer' parameter of Analyzer must be None or one of ...
    """

    stemmer: str | None = "english"
    stopwords: str | None = "en"
    stop: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.stemmer is not None and self.stemmer not in stemmers():
            raise parameter_error("Analyzer", "stemmer", f"None or one of {', '.join(stemmers())}", self.stemmer)
        if self.stopwords is not None and self.stopwords not in STOPWORDS:
            raise parameter_error("Analyzer", "stopwords", f"None or one of {', '.join(STOPWORDS)}", self.stopwords)
        object.__setattr__(self, "stop", frozenset(STOPWORDS[self.stopwords]() if self.stopwords else ()))

    def __call__(self, text: str) -> list[str]:
        """The terms of ``text``, in order, repeats kept."""
        return self.many([text])[0]

    def many(self, texts: Sequence[str]) -> list[list[str]]:
        """The terms of each text."""
        kept = [[word for word in tokenize(text) if word not in self.stop] for text in texts]
        if self.stemmer is None:
            return kept
        import Stemmer

        # A stemmer of its own per call: PyStemmer's objects are not safe to share between threads.
        stem = Stemmer.Stemmer(self.stemmer).stemWords
        return [list(stem(words)) for words in kept]

    def word_terms(self, words: Sequence[str]) -> list[str | None]:
        """The term of each word already found and folded by the word rule (as
        :func:`~contextgrid.core.text.tokenize` gives it), ``None`` for a stopword: a text's terms are its
        words' terms, in order, ``None`` left out. The words are not split again (a fold that adds a combining
        mark would split one).

        Examples
        --------
        >>> Analyzer().word_terms(["the", "running", "runs"])
        [None, 'run', 'run']
        """
        terms = list(words)
        if self.stemmer is not None:
            import Stemmer

            terms = Stemmer.Stemmer(self.stemmer).stemWords(terms)  # a stemmer of its own, as in many()
        return [None if word in self.stop else term for word, term in zip(words, terms, strict=True)]


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
    >>> [hit.chunk_id for hit in index.search("how long does a refund take", 5)]
    ['c1']
    >>> index
    BM25Index(chunks=2, vocabulary=9, k1=1.5, b=0.75, stemmer='english', stopwords='en')
    """

    name: ClassVar[str] = "bm25"
    version: ClassVar[str] = "1"

    chunk_ids: tuple[str, ...]
    vocabulary: dict[str, int] = field(repr=False)
    weights: Any = field(repr=False)  # scipy.sparse CSR (vocabulary x chunks) of per-word BM25 scores
    k1: float = 1.5
    b: float = 0.75
    analyzer: Analyzer = field(default_factory=Analyzer)

    @classmethod
    def from_chunks(
        cls,
        chunks: Sequence[Chunk],
        *,
        k1: float = 1.5,
        b: float = 0.75,
        stemmer: str | None = "english",
        stopwords: str | None = "en",
    ) -> BM25Index:
        """Index the text of ``chunks`` with BM25 parameters ``k1`` (term-frequency saturation) and ``b``
        (length normalisation, 0 to 1); ``stemmer`` and ``stopwords`` configure the :class:`Analyzer`
        that chunks and queries both go through (``None`` turns each off)."""
        import bm25s  # type: ignore[import-untyped]
        import scipy.sparse  # type: ignore[import-untyped]

        function = "BM25Index.from_chunks"
        checked = check_chunks(chunks, function=function)
        k1 = check_non_negative(k1, function=function, parameter="k1")
        b = check_non_negative(b, function=function, parameter="b", upper=1.0)
        analyzer = Analyzer(stemmer=stemmer, stopwords=stopwords)
        tokens = analyzer.many([chunk.text for chunk in checked])
        if not any(tokens):
            raise ContextGridError(
                f"{function}: none of the {len(checked)} chunks has a word in its text that is not a stopword, "
                "so there is nothing to index"
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
        # bm25s numbers words in set order, which changes with the interpreter's hash seed, and a query's
        # words are summed in that order: numbered alphabetically and summed in float64, the same chunks
        # give the same scores to the last digit in every process.
        words = sorted(retriever.vocab_dict)
        by_word = by_word[[retriever.vocab_dict[word] for word in words]].astype(np.float64)
        vocabulary = {word: number for number, word in enumerate(words)}
        return cls(tuple(chunk.id for chunk in checked), vocabulary, by_word, k1, b, analyzer)

    def _rank(self, queries: Sequence[str], k: int, *, function: str) -> list[Ranked]:
        import scipy.sparse

        checked = check_queries(queries, function=function)
        cutoff = check_k(k, function=function)
        rows: list[int] = []
        columns: list[int] = []
        for row, terms in enumerate(self.analyzer.many(checked)):
            for word in terms:
                column = self.vocabulary.get(word)
                if column is not None:
                    rows.append(row)
                    columns.append(column)
        # Duplicate (row, column) entries are summed: a repeated query word counts each time.
        counts = scipy.sparse.csr_matrix(
            (np.ones(len(rows), dtype=np.float64), (rows, columns)),
            shape=(len(checked), len(self.vocabulary)),
        )

        def score_block(block: slice) -> tuple[NDArray[np.floating], NDArray[np.bool_]]:
            scores = np.asarray((counts[block] @ self.weights).toarray())
            return scores, scores > 0

        return rank_blocks(len(checked), len(self.chunk_ids), cutoff, score_block)

    def __repr__(self) -> str:
        return (
            f"BM25Index(chunks={len(self.chunk_ids)}, vocabulary={len(self.vocabulary)}, k1={self.k1}, b={self.b}, "
            f"stemmer={self.analyzer.stemmer!r}, stopwords={self.analyzer.stopwords!r})"
        )
