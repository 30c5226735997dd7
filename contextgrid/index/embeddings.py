"""Embedders: texts in, one float32 row per text out.

An :class:`Embedder` is any callable from a sequence of texts to a 2-D array
with one row per text: a pre-trained model's ``encode`` wrapped in a function
works as it is. An embedder that must first learn from the corpus (like
:class:`TfidfSvdEmbedder`, the ``lsa`` retriever's) has a ``fit`` method instead, which returns
the fitted embedder and leaves itself unchanged, so one configuration can be
fitted on many corpora.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from contextgrid.core.checks import check_int
from contextgrid.core.errors import ContextGridError, parameter_error
from contextgrid.index.bm25 import tokenize

__all__ = [
    "Embedder",
    "FitsOnCorpus",
    "TfidfSvdEmbedder",
    "TfidfSvdEmbedding",
    "embed",
    "fitted",
]

FloatMatrix = NDArray[np.float32]


class Embedder(Protocol):
    """A callable from texts to a float matrix with one row per text."""

    def __call__(self, texts: Sequence[str]) -> NDArray[np.floating]: ...


@runtime_checkable
class FitsOnCorpus(Protocol):
    """An embedder that learns from the corpus first: ``fit`` returns the fitted :class:`Embedder`."""

    def fit(self, texts: Sequence[str]) -> Embedder: ...


def fitted(embedder: Embedder | FitsOnCorpus, texts: Sequence[str], *, function: str) -> Embedder:
    """``embedder`` ready to embed: fitted on ``texts`` if it fits on a corpus, else as it is."""
    if isinstance(embedder, FitsOnCorpus):
        return embedder.fit(texts)
    if not callable(embedder):
        expected = "a callable from texts to a matrix, or an object with fit()"
        raise parameter_error(function, "embedder", expected, embedder)
    return embedder


def embed(embedder: Embedder, texts: Sequence[str], *, dim: int | None = None) -> FloatMatrix:
    """``embedder(texts)`` as a float32 matrix, checked: one finite row per text, ``dim`` columns if given."""
    produced = embedder(list(texts))
    try:
        matrix = np.asarray(produced, dtype=np.float32)
    except (TypeError, ValueError) as error:
        raise ContextGridError(
            f"embedder {embedder!r} returned something that is not a numeric matrix: {error}"
        ) from None
    if matrix.ndim != 2 or matrix.shape[0] != len(texts):
        raise ContextGridError(
            f"embedder {embedder!r} returned an array of shape {matrix.shape} for {len(texts)} texts; "
            f"expected one row per text, shape ({len(texts)}, dim)"
        )
    if dim is not None and matrix.shape[1] != dim:
        raise ContextGridError(
            f"embedder {embedder!r} returned {matrix.shape[1]} columns where the index holds {dim}-dimensional vectors"
        )
    bad = np.flatnonzero(~np.isfinite(matrix).all(axis=1))
    if bad.size:
        raise ContextGridError(
            f"embedder {embedder!r} returned a non-finite value (nan or inf) for text {int(bad[0])}: "
            f"{texts[int(bad[0])][:80]!r}"
        )
    return matrix


@dataclass(frozen=True, slots=True)
class TfidfSvdEmbedder:
    """TF-IDF over words, reduced to ``dim`` dimensions by truncated SVD: latent semantic analysis (``lsa``).

    Needs no download. Words follow :func:`contextgrid.index.bm25.tokenize`;
    TF-IDF is scikit-learn's default (smoothed idf, l2-normalised rows), and
    the SVD is randomized with ``random_state=seed``, so the same corpus and
    seed give the same vectors. The fitted embedding has ``min(dim, chunks,
    vocabulary)`` dimensions: a corpus cannot have more directions than that.

    Examples
    --------
    >>> embedding = TfidfSvdEmbedder(dim=2, seed=0).fit(["red apple", "green apple", "green pear"])
    >>> embedding(["apple", "banana"]).shape
    (2, 2)
    >>> embedding(["banana"]).tolist()  # no known word: the zero vector
    [[0.0, 0.0]]
    """

    dim: int = 128
    seed: int = 0

    def __post_init__(self) -> None:
        for parameter in ("dim", "seed"):
            value = getattr(self, parameter)
            check_int(value, function="TfidfSvdEmbedder", parameter=parameter, minimum=1 if parameter == "dim" else 0)

    def fit(self, texts: Sequence[str]) -> TfidfSvdEmbedding:
        """Learn the vocabulary, its idf and the SVD from ``texts``; return the fitted embedding."""
        from sklearn.decomposition import TruncatedSVD  # type: ignore[import-untyped]
        from sklearn.feature_extraction.text import TfidfVectorizer  # type: ignore[import-untyped]

        vocabulary = {word for text in texts for word in tokenize(text)}
        if len(vocabulary) < 2:
            raise ContextGridError(
                f"TfidfSvdEmbedder needs at least two distinct words across the texts to find a direction in; "
                f"the {len(texts)} texts hold {sorted(vocabulary)}"
            )
        vectorizer = TfidfVectorizer(tokenizer=tokenize, token_pattern=None, lowercase=False, dtype=np.float64)
        tfidf = vectorizer.fit_transform(texts)
        svd = TruncatedSVD(n_components=min(self.dim, len(texts), len(vocabulary)), random_state=self.seed)
        # Identical texts have zero variance; only the explained-variance ratio, which is never used, divides by it.
        with np.errstate(invalid="ignore", divide="ignore"):
            svd.fit(tfidf)
        return TfidfSvdEmbedding(self, vectorizer, svd)


@dataclass(frozen=True, slots=True, eq=False)
class TfidfSvdEmbedding:
    """A :class:`TfidfSvdEmbedder` fitted on a corpus; call it on texts to embed them."""

    config: TfidfSvdEmbedder
    vectorizer: Any = field(repr=False)
    svd: Any = field(repr=False)

    @property
    def dim(self) -> int:
        """The number of dimensions of the vectors it produces."""
        return int(self.svd.n_components)

    def __call__(self, texts: Sequence[str]) -> FloatMatrix:
        """One float32 row per text; a text with no word the corpus had is the zero vector."""
        return np.asarray(self.svd.transform(self.vectorizer.transform(list(texts))), dtype=np.float32)
