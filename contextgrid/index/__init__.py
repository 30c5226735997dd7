"""Search indexes over chunks, the runs they produce, and what they return.

Importing this package is cheap: bm25s, scipy and scikit-learn are imported
only when an index is built or searched.
"""

from contextgrid.index.base import (
    RETRIEVERS,
    Index,
    Ranked,
    RanksPositions,
    Scored,
    available_retrievers,
    build_index,
    recall_against_exact,
    retriever_options,
)
from contextgrid.index.bm25 import BM25Index, tokenize
from contextgrid.index.dense import DenseIndex
from contextgrid.index.embeddings import (
    Embedder,
    FitsOnCorpus,
    TfidfSvdEmbedder,
    TfidfSvdEmbedding,
)
from contextgrid.index.hybrid import HybridIndex
from contextgrid.index.quantized import QuantizedIndex
from contextgrid.index.runs import retrieve

__all__ = [
    "RETRIEVERS",
    "BM25Index",
    "DenseIndex",
    "Embedder",
    "FitsOnCorpus",
    "HybridIndex",
    "Index",
    "QuantizedIndex",
    "Ranked",
    "RanksPositions",
    "Scored",
    "TfidfSvdEmbedder",
    "TfidfSvdEmbedding",
    "available_retrievers",
    "build_index",
    "recall_against_exact",
    "retrieve",
    "retriever_options",
    "tokenize",
]
