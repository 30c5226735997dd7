"""contextgrid: why retrieval fails, and whether a change really helped."""

from __future__ import annotations

from contextgrid.answering.context import BudgetedContext, assemble_context
from contextgrid.answering.lexical import score_answer
from contextgrid.chunking import CHUNKERS, available_chunkers, chunk_documents, get_chunker
from contextgrid.core.errors import (
    AccessDeniedError,
    ContextGridError,
    DuplicateChunkError,
    InputFileError,
    InvalidParameterError,
    MissingWorkspaceInputError,
    NameTakenError,
    OutputExistsError,
    OutputFileError,
    QuestionMismatchError,
    UnknownConfigurationError,
    UnknownPluginError,
    UnknownScoreError,
)
from contextgrid.core.log import LogEntry, Severity, WarningLog
from contextgrid.data.frames import FrameColumns
from contextgrid.data.records import (
    Anchor,
    Answer,
    AnswerRecord,
    AnswerScore,
    AssembledContext,
    Chunk,
    EvalItem,
    GoldSpan,
    Span,
)
from contextgrid.data.run_result import RunResult
from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.engine.scoring import (
    evaluate,
    first_relevant_ranks,
    mean_rank_of_first_relevant,
    per_query,
)
from contextgrid.evidence.character import (
    character_f1,
    character_precision,
    character_recall,
    coverage_fraction,
    gold_coverage_by_chunk,
    retrieved_character_count,
)
from contextgrid.evidence.resolver import GradeRule, SpanResolver
from contextgrid.index.base import recall_against_exact
from contextgrid.metrics import (
    DEFAULT_K,
    DEFAULT_KS,
    METRICS,
    Metric,
    Qrels,
    Run,
    available_metrics,
    get_metric,
)
from contextgrid.significance import (
    ComparisonTable,
    PairedComparison,
    PairwiseComparisons,
    compare_all_pairs,
    compare_configurations,
    compare_pair,
    compare_pairs,
    correct_p_values,
)
from contextgrid.significance.gate import GateResult, gate
from contextgrid.workspace.configuration import Configuration
from contextgrid.workspace.gate import GateReport, gate_files, gate_workspace
from contextgrid.workspace.live import evaluate_retriever
from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.model import Workspace
from contextgrid.workspace.results import WorkspaceResults

__version__ = "0.1.0"

__all__ = [
    "CHUNKERS",
    "DEFAULT_K",
    "DEFAULT_KS",
    "METRICS",
    "AccessDeniedError",
    "Anchor",
    "Answer",
    "AnswerRecord",
    "AnswerScore",
    "AssembledContext",
    "BudgetedContext",
    "Chunk",
    "ComparisonTable",
    "Configuration",
    "ContextGridError",
    "DuplicateChunkError",
    "EvalItem",
    "FrameColumns",
    "GateReport",
    "GateResult",
    "GoldSpan",
    "GradeRule",
    "InputFileError",
    "InvalidParameterError",
    "LogEntry",
    "Metric",
    "MissingWorkspaceInputError",
    "NameTakenError",
    "OutputExistsError",
    "OutputFileError",
    "PairedComparison",
    "PairwiseComparisons",
    "Qrels",
    "QrelsTable",
    "QuestionMismatchError",
    "Run",
    "RunResult",
    "RunTable",
    "Severity",
    "Span",
    "SpanResolver",
    "UnknownConfigurationError",
    "UnknownPluginError",
    "UnknownScoreError",
    "WarningLog",
    "Workspace",
    "WorkspaceResults",
    "assemble_context",
    "available_chunkers",
    "available_metrics",
    "character_f1",
    "character_precision",
    "character_recall",
    "chunk_documents",
    "compare_all_pairs",
    "compare_configurations",
    "compare_pair",
    "compare_pairs",
    "correct_p_values",
    "coverage_fraction",
    "evaluate",
    "evaluate_retriever",
    "first_relevant_ranks",
    "gate",
    "gate_files",
    "gate_workspace",
    "get_chunker",
    "get_metric",
    "gold_coverage_by_chunk",
    "load_workspace",
    "mean_rank_of_first_relevant",
    "per_query",
    "recall_against_exact",
    "retrieved_character_count",
    "score_answer",
]
