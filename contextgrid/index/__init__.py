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
from contextgrid.index.bm25 import Analyzer, BM25Index, stemmers, tokenize
from contextgrid.index.dense import DenseIndex, LSAIndex
from contextgrid.index.embeddings import (
    Embedder,
    FitsOnCorpus,
    TfidfSvdEmbedder,
    TfidfSvdEmbedding,
)
from contextgrid.index.hybrid import HybridIndex
from contextgrid.index.quantized import QuantizedIndex
from contextgrid.index.runs import retrieve, retrieve_scored

__all__ = [
    "RETRIEVERS",
    "Analyzer",
    "BM25Index",
    "DenseIndex",
    "Embedder",
    "FitsOnCorpus",
    "HybridIndex",
    "Index",
    "LSAIndex",
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
    "retrieve_scored",
    "retriever_options",
    "stemmers",
    "tokenize",
]
