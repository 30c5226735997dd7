"""Reading and writing what real pipelines produce: runs, qrels, documents, chunks, questions and answers.

Runs and qrels come in TREC text, JSON, JSON Lines, CSV/TSV and Parquet,
optionally gzip-compressed (``.gz``); the format is taken from the suffix or
from ``format=``. Every reader refuses a malformed file whole with an
:class:`~contextgrid.core.errors.InputFileError` naming the file, the line (or
row), the offending text and what was expected. No input file is modified.

Every reader reads within limits, refusing a file as soon as one is passed:
``max_bytes`` on what a file holds once decompressed (:data:`DEFAULT_MAX_BYTES`,
1 GiB), ``max_ratio`` on how many times a gzip file expands
(:data:`DEFAULT_MAX_RATIO`, 100) and ``max_line_bytes`` on each line of a file
read as lines (:data:`DEFAULT_MAX_LINE_BYTES`, 1 MiB;
:data:`DOCUMENT_MAX_LINE_BYTES`, 64 MiB, for documents and chunks). A JSON
value, parsed whole, may hold a 32nd of ``max_bytes``
(:data:`~contextgrid.io.files.JSON_SHARE`), and a Parquet file is held to its
rows and decoded columns (:data:`~contextgrid.io.parquet.ROW_BYTES`). With
``within=``, a file must lie in those folders once its links are followed.
"""

from __future__ import annotations

from contextgrid.io import delimited, jsonfile, jsonl, parquet, trec
from contextgrid.io.answers import read_answers
from contextgrid.io.corpus import write_chunks, write_documents, write_questions
from contextgrid.io.documents import read_chunks, read_documents
from contextgrid.io.files import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_RATIO, DOCUMENT_MAX_LINE_BYTES
from contextgrid.io.formats import FORMATS, SUFFIXES
from contextgrid.io.questions import read_questions
from contextgrid.io.runs import read_qrels, read_run, write_qrels, write_run

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINE_BYTES",
    "DEFAULT_MAX_RATIO",
    "DOCUMENT_MAX_LINE_BYTES",
    "FORMATS",
    "SUFFIXES",
    "read_answers",
    "read_chunks",
    "read_documents",
    "read_qrels",
    "read_questions",
    "read_run",
    "write_chunks",
    "write_documents",
    "write_qrels",
    "write_questions",
    "write_run",
]

del delimited, jsonfile, jsonl, parquet, trec
