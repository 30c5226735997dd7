"""Audit the gold: what in the questions and their gold makes scores lie, found on columns and listed, never
fixed or re-scored in silence.

The rules (each a function; :func:`contextgrid.workspace.audit.audit_workspace` runs them all):

- :func:`repeated_questions`: two questions are ``duplicate_question`` when their texts have the same set of
  words (the library's word rule: lowercased, punctuation and citation markers dropped), and
  ``near_duplicate_question`` when the Jaccard similarity of those sets (shared words over the words of
  either) is at least ``threshold`` (default :data:`NEAR_DUPLICATE`).
- :func:`gold_by_document`: each document's share of the gold characters (every question's merged gold spans
  graded above 0, added up), and how many questions have gold in it.
- :func:`missing_labels`: a ``possible_missing_label`` is a retrieved chunk, graded 0 or not judged for the
  question, that overlaps none of the question's gold spans, yet holds at least ``threshold`` (default
  :data:`REPEATS_GOLD`) of one gold passage's distinct word pairs (consecutive words by the word rule; its
  words, for a passage of one word): it contains the gold passage, or closely repeats it elsewhere.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from contextgrid.analysis.word_sets import Vocabulary, set_sizes, shared_counts
from contextgrid.core.checks import check_fraction
from contextgrid.core.text import tokenize, words
from contextgrid.data.chunk_checks import checked_chunks, checked_items
from contextgrid.data.records import Chunk, EvalItem
from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.evidence.run_waste import chunk_gold, gold_columns, run_rows

__all__ = [
    "FINDING_COLUMNS",
    "NEAR_DUPLICATE",
    "REPEATS_GOLD",
    "gold_by_document",
    "missing_labels",
    "passage_pairs",
    "repeated_questions",
]

NEAR_DUPLICATE = 0.8
"""Questions whose word sets have at least this Jaccard similarity are near-duplicates."""

REPEATS_GOLD = 0.8
"""A chunk holding at least this share of a gold passage's distinct word pairs repeats it."""

FINDING_COLUMNS = ("kind", "question", "detail")
"""The columns every finding has (the rules add their own numbers after them)."""


def passage_pairs(text: str) -> frozenset[str]:
    """The distinct pairs of consecutive words of ``text`` (the word rule), its words when it has only one.

    Examples
    --------
    >>> sorted(passage_pairs("Refunds take 30 days."))
    ['30 days', 'refunds take', 'take 30']
    >>> sorted(passage_pairs("Refunds!"))
    ['refunds']
    """
    tokens = tokenize(text)
    if len(tokens) < 2:
        return frozenset(tokens)
    return frozenset(f"{a} {b}" for a, b in itertools.pairwise(tokens))


def repeated_questions(items: Iterable[EvalItem], *, threshold: float = NEAR_DUPLICATE) -> pd.DataFrame:
    """Pairs of questions whose texts repeat each other (the rule of this module), one row per pair.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`FINDING_COLUMNS` (``question`` is the later of the two, in ``items`` order), then
        ``other`` (the earlier) and ``similarity``; pairs in ``items`` order of the later question, then of
        the earlier.

    Examples
    --------
    >>> import contextgrid as cg
    >>> items = [cg.EvalItem("q1", "How long do refunds take?"), cg.EvalItem("q2", "how long do refunds take"),
    ...          cg.EvalItem("q3", "How long do refunds usually take?"), cg.EvalItem("q4", "Who founded it?")]
    >>> repeated_questions(items)[["kind", "question", "other", "similarity"]]
                          kind question other  similarity
    0          duplicate_question       q2    q1    1.000000
    1     near_duplicate_question       q3    q1    0.833333
    2     near_duplicate_question       q3    q2    0.833333
    """
    from scipy import sparse  # type: ignore[import-untyped]

    limit = check_fraction(threshold, function="repeated_questions", parameter="threshold", low_open=True)
    questions = checked_items(items, function="repeated_questions")
    vocabulary = Vocabulary()
    owner, code = vocabulary.code([words(item.question) for item in questions])
    n = len(questions)
    matrix = sparse.csr_matrix((np.ones(len(owner)), (owner, code)), shape=(n, vocabulary.size))
    # Shared words of every pair that shares any: one sparse product, the upper triangle kept.
    shared = sparse.triu(matrix @ matrix.T, k=1).tocoo()
    size = set_sizes((owner, code), n)
    first, second, both = shared.row.astype(np.int64), shared.col.astype(np.int64), shared.data.astype(np.int64)
    similarity = both / (size[first] + size[second] - both)
    keep = similarity >= limit
    first, second, similarity = first[keep], second[keep], similarity[keep]
    order = np.lexsort((first, second))
    first, second, similarity = first[order], second[order], similarity[order]
    exact = similarity == 1.0
    ids = np.array([item.id for item in questions], dtype=object)
    kind = np.where(exact, "duplicate_question", "near_duplicate_question")
    detail = [
        f"repeats {other!r}" + ("" if same else f" (word similarity {value:.2f})")
        for other, same, value in zip(ids[first], exact, similarity, strict=True)
    ]
    return pd.DataFrame(
        {
            "kind": pd.Series(kind, dtype=object).array,
            "question": pd.array(ids[second], dtype=object),
            "detail": pd.Series(detail, dtype=object).array,
            "other": pd.array(ids[first], dtype=object),
            "similarity": similarity.astype(float),
        }
    )


def gold_by_document(items: Iterable[EvalItem]) -> pd.DataFrame:
    """Each document's share of the gold: index ``doc_id``, columns ``gold_characters``, ``share`` and
    ``questions`` (how many have gold there), largest share first, ties by document id.

    Examples
    --------
    >>> import contextgrid as cg
    >>> gold = lambda doc, start, end: cg.GoldSpan(cg.Span(doc, start, end))
    >>> items = [cg.EvalItem("q1", "?", (gold("a", 0, 30), gold("b", 0, 10))),
    ...          cg.EvalItem("q2", "?", (gold("a", 0, 60),))]
    >>> gold_by_document(items)
            gold_characters  share  questions
    doc_id
    a                    90    0.9          2
    b                    10    0.1          1
    """
    merged = gold_columns(items, "gold_by_document")
    docs = pd.Index([span.doc_id for span in merged.spans], dtype=object)
    frame = pd.DataFrame({"doc_id": docs, "item": merged.item, "length": merged.end - merged.start})
    grouped = frame.groupby("doc_id", sort=True)
    table = pd.DataFrame(
        {"gold_characters": grouped["length"].sum().astype(np.int64), "questions": grouped["item"].nunique()}
    )
    total = int(table["gold_characters"].sum())
    table.insert(1, "share", table["gold_characters"] / total if total else 0.0)
    table = table[table["gold_characters"] > 0]
    order = np.lexsort((np.arange(len(table)), -table["gold_characters"].to_numpy()))
    return table.iloc[order]


def missing_labels(
    items: Iterable[EvalItem],
    chunks: Mapping[str, Chunk] | Iterable[Chunk],
    run: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Mapping[str, int]],
    documents: Mapping[str, str],
    *,
    threshold: float = REPEATS_GOLD,
) -> pd.DataFrame:
    """Retrieved chunks that may be unlabelled copies of a question's gold (the rule of this module).

    Returns
    -------
    pandas.DataFrame
        One row per (question, chunk, gold passage) found, in question then rank order: ``question``,
        ``chunk_id``, ``rank``, ``grade`` (missing when not judged), ``held`` (the share of the passage's word
        pairs the chunk holds) and ``passage`` (the gold span, ``doc [start, end)``). Nothing is re-scored.

    Examples
    --------
    >>> import contextgrid as cg
    >>> text = "Refunds take 30 days. Shipping is free. Refunds take 30 days from delivery."
    >>> chunks = [cg.Chunk("c0", cg.Span("d", 0, 21), text[0:21]), cg.Chunk("c1", cg.Span("d", 40, 75), text[40:75])]
    >>> item = cg.EvalItem("q", "How long?", (cg.GoldSpan(cg.Span("d", 0, 21)),))
    >>> missing_labels([item], chunks, {"q": ["c1", "c0"]}, {"q": {"c0": 1}}, {"d": text})
      question chunk_id  rank  grade  held      passage
    0        q       c1     1   <NA>   1.0  d [0, 21)
    """
    function = "missing_labels"
    limit = check_fraction(threshold, function=function, parameter="threshold", low_open=True)
    values = checked_chunks(chunks, function=function)
    chunk_ids = pd.Index([chunk.id for chunk in values], dtype=object)
    gold = gold_columns(items, function)
    rows = run_rows(RunTable.from_dict(run), gold.ids, chunk_ids, None, function)
    width = max(len(values), 1)
    # Grades of the retrieved rows: missing when not judged.
    judged = QrelsTable.from_dict(qrels)
    starts = np.asarray(judged.starts, dtype=np.int64)
    judged_item = np.repeat(gold.ids.get_indexer(pd.Index(judged.question_ids, dtype=object)), np.diff(starts))
    judged_chunk = chunk_ids.get_indexer(
        pd.Index(np.asarray(judged.table.column("chunk_id").to_numpy(zero_copy_only=False), dtype=object))
    )
    grades = pd.Series(
        np.asarray(judged.table.column("grade").to_numpy(), dtype=np.int64),
        index=judged_item.astype(np.int64) * width + judged_chunk,
    )
    grades = grades[(judged_item >= 0) & (judged_chunk >= 0)]
    grades = grades[~grades.index.duplicated()]
    row_key = rows.item * width + rows.chunk
    grade = grades.reindex(row_key).to_numpy(dtype=float)
    overlaps = np.isin(row_key, chunk_gold(gold, [chunk.span for chunk in values]).keys)
    candidate = np.flatnonzero(~(grade > 0) & ~overlaps & (gold.total[rows.item] > 0))
    # Every (candidate row, gold passage of its question) pair: the passage's word pairs held by the chunk.
    vocabulary = Vocabulary()
    passages = vocabulary.code([passage_pairs(documents[s.doc_id][s.start : s.end]) for s in gold.spans])
    seen, row_seen = np.unique(rows.chunk[candidate], return_inverse=True)
    chunk_pairs = vocabulary.code([passage_pairs(values[c].text) for c in seen])
    per_item = np.bincount(gold.item, minlength=len(gold.items))
    first_span = np.concatenate(([0], np.cumsum(per_item)[:-1])).astype(np.int64)
    counts = per_item[rows.item[candidate]]
    pair_row = np.repeat(np.arange(len(candidate), dtype=np.int64), counts)
    pair_span = np.repeat(first_span[rows.item[candidate]] - (np.cumsum(counts) - counts), counts) + np.arange(
        int(counts.sum()), dtype=np.int64
    )
    held = shared_counts(passages, pair_span, chunk_pairs, row_seen[pair_row], vocabulary.size)
    size = set_sizes(passages, len(gold.spans))[pair_span]
    share = np.divide(held, size, out=np.zeros(len(held)), where=size > 0)
    found = np.flatnonzero((share >= limit) & (size > 0))
    row = candidate[pair_row[found]]
    spans = [gold.spans[i] for i in pair_span[found]]
    found_grade = grade[row]
    return pd.DataFrame(
        {
            "question": pd.array([gold.items[i].id for i in rows.item[row]], dtype=object),
            "chunk_id": pd.Series(np.asarray(chunk_ids, dtype=object)[rows.chunk[row]], dtype=object).array,
            "rank": rows.rank[row].astype(np.int64),
            "grade": pd.arrays.IntegerArray(np.nan_to_num(found_grade).astype(np.int64), np.isnan(found_grade)),
            "held": share[found],
            "passage": pd.Series([f"{s.doc_id} [{s.start}, {s.end})" for s in spans], dtype=object).array,
        }
    )
