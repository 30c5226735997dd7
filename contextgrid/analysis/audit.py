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
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from contextgrid.analysis.word_sets import Vocabulary, WordSets, set_sizes, shared_counts
from contextgrid.core.checks import check_fraction
from contextgrid.core.errors import parameter_error
from contextgrid.core.text import WORD, tokenize
from contextgrid.data.chunk_checks import checked_items
from contextgrid.data.keys import distinct_sorted, expand_stretches, find_sorted
from contextgrid.data.records import Chunk, EvalItem
from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.data.words import ascii_word_runs, word_rows
from contextgrid.evidence.run_waste import (
    ChunkingGold,
    GoldColumns,
    RunRows,
    gold_columns,
    laid_out,
    run_chunk_positions,
    run_rows,
)

__all__ = [
    "FINDING_COLUMNS",
    "NEAR_DUPLICATE",
    "REPEATS_GOLD",
    "ChunkingRepeats",
    "DocumentWords",
    "GoldPassages",
    "JudgedGrades",
    "PairSets",
    "chunk_pair_sets",
    "chunking_repeats",
    "document_words",
    "gold_by_document",
    "gold_passages",
    "judged_grades",
    "missing_labels",
    "pair_sets",
    "passage_pairs",
    "repeated_questions",
    "run_labels",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

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
    limit = check_fraction(threshold, function="repeated_questions", parameter="threshold", low_open=True)
    questions = checked_items(items, function="repeated_questions")
    vocabulary = Vocabulary()
    sets = _word_sets([item.question for item in questions], vocabulary)
    n = len(questions)
    size = set_sizes(sets, n)
    first, second, both = _shared_pairs(sets, size, limit, vocabulary.size)
    similarity = both / (size[first] + size[second] - both)
    keep = (both > 0) & (similarity >= limit)
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
            "question": pd.Series(ids[second], dtype=object).array,
            "detail": pd.Series(detail, dtype=object).array,
            "other": pd.Series(ids[first], dtype=object).array,
            "similarity": similarity.astype(float),
        }
    )


def _word_sets(texts: Sequence[str], vocabulary: Vocabulary) -> WordSets:
    """The :func:`~contextgrid.core.text.words` of each of ``texts`` as sets ``(owner, code)``, coded with
    ``vocabulary`` (which learns the new ones), by owner then code: the word rule over all the texts at once
    (:func:`~contextgrid.data.words.word_rows`), not a Python set per text.

    Examples
    --------
    >>> vocabulary = Vocabulary()
    >>> owner, code = _word_sets(["Refunds, REFUNDS [2] take", "", "take"], vocabulary)
    >>> owner.tolist(), code.tolist(), sorted(vocabulary.codes.items())
    ([0, 0, 2], [0, 1, 1], [('refunds', 0), ('take', 1)])
    """
    text, code, found = word_rows(texts)
    codes = vocabulary.code_words(found)[code]
    size = vocabulary.size
    # The rows are distinct (text, word) pairs: recoded, they need only be put back in (owner, code) order.
    keys = np.sort(text * size + codes)
    return (keys // size).astype(np.int64), (keys % size).astype(np.int64)


def _shared_pairs(sets: WordSets, size: IntArray, limit: float, words: int) -> tuple[IntArray, IntArray, IntArray]:
    """Every pair of sets (earlier, later) whose Jaccard similarity may reach ``limit``, with the words they
    share (``words``: the vocabulary's size); some more pairs too.

    Prefix filtering: in one order of the words, rarest first, a pair sharing ``o`` words shares the first of
    them within each set's first ``|x| - o + 1`` words; reaching ``limit`` takes ``o >= limit * max(|a|, |b|)``,
    so prefixes of ``|x| - ceil(limit * |x|) + 2`` words (one more than needed: float rounding can move the
    ceiling by one, never more) share a word. Only rare words then pair sets, instead of every pair sharing
    "the". When the prefixes are long (a low ``limit``) and would pair more than :data:`_PAIRS_AT_ONCE` times,
    the candidates are every pair sharing a word, found with their counts by one sparse product."""
    owner, code = sets
    frequency = np.bincount(code, minlength=int(code.max(initial=-1)) + 1)
    order = np.lexsort((code, frequency[code], owner))
    owner, code = owner[order], code[order]
    start = np.concatenate(([0], np.cumsum(size)[:-1])).astype(np.int64)
    prefix = np.minimum(size - np.ceil(limit * size).astype(np.int64) + 2, size)
    position = np.arange(len(owner), dtype=np.int64) - start[owner]
    chosen = position < prefix[owner]
    # The sets of each prefix word, in set order; each with every later one of the same word.
    by_word = np.lexsort((owner[chosen], code[chosen]))
    word, member = code[chosen][by_word], owner[chosen][by_word]
    bounds = np.flatnonzero(np.diff(word, prepend=-1, append=-1))
    end = np.repeat(bounds[1:], np.diff(bounds))
    later = end - np.arange(len(word), dtype=np.int64) - 1
    if int(later.sum()) > _PAIRS_AT_ONCE:
        return _product_pairs(sets, size, limit, len(frequency))
    partner, at = expand_stretches(np.arange(1, len(word) + 1, dtype=np.int64), later)
    width = max(len(size), 1)
    pairs = distinct_sorted(member[at] * width + member[partner])
    first, second = (pairs // width).astype(np.int64), (pairs % width).astype(np.int64)
    return first, second, shared_counts(sets, first, sets, second, words)


_PAIRS_AT_ONCE = 2_000_000
"""The most (set, set) pairs :func:`repeated_questions` lists at once (some tens of MB): from the prefixes, or from
the sparse product of the sets, a block of sets at a time."""


def _product_pairs(
    sets: WordSets, size: IntArray, limit: float, words: int, *, pairs_at_once: int = _PAIRS_AT_ONCE
) -> tuple[IntArray, IntArray, IntArray]:
    """The pairs of sets (earlier, later) whose Jaccard similarity reaches ``limit``, with the words they share,
    found by the sparse product of the sets with themselves, a block of sets at a time: at a low ``limit`` most
    pairs share a word (10,000 questions sharing "what" are 50 million pairs, gigabytes as one product), and only
    those that reach it are kept of each block, judged as :func:`repeated_questions` judges them; a block holds
    about ``pairs_at_once`` pairs."""
    from scipy import sparse  # type: ignore[import-untyped]

    owner, code = sets
    matrix = sparse.csr_matrix((np.ones(len(owner)), (owner, code)), shape=(len(size), words))
    transposed = matrix.T.tocsr()
    rows = max(pairs_at_once // max(len(size), 1), 1)
    found: list[tuple[IntArray, IntArray, IntArray]] = []
    for low in range(0, len(size), rows):
        block = (matrix[low : low + rows] @ transposed).tocoo()
        first, second = block.row.astype(np.int64) + low, block.col.astype(np.int64)
        both = block.data.astype(np.int64)
        later = second > first
        first, second, both = first[later], second[later], both[later]
        reach = both / (size[first] + size[second] - both) >= limit
        found.append((first[reach], second[reach], both[reach]))
    if not found:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    first, second, both = (np.concatenate(part) for part in zip(*found, strict=True))
    return first, second, both


def gold_by_document(items: Iterable[EvalItem] | GoldColumns) -> pd.DataFrame:
    """Each document's share of the gold: index ``doc_id``, columns ``gold_characters``, ``share`` and
    ``questions`` (how many have gold there), largest share first, ties by document id.

    ``items`` may be their merged gold already (:func:`~contextgrid.evidence.run_waste.gold_columns`), the same
    table.

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
    merged = items if isinstance(items, GoldColumns) else gold_columns(items, "gold_by_document")
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


@dataclass(frozen=True, slots=True)
class PairSets:
    """Texts' distinct word pairs (:func:`passage_pairs`) as columns: the pairs of text ``i`` are
    ``key[start[i]:start[i + 1]]``, ascending. A key codes two words of one :class:`Vocabulary` (or one word, for a
    text of one word), so the sets of texts coded with the same vocabulary can be compared.

    Examples
    --------
    >>> sets = pair_sets(["Refunds take 30 days.", "Refunds!", ""], Vocabulary())
    >>> sets.sizes.tolist()
    [3, 1, 0]
    """

    start: IntArray
    key: IntArray

    def __post_init__(self) -> None:
        if len(self.start) == 0 or self.start[0] != 0 or self.start[-1] != len(self.key):
            raise parameter_error("PairSets", "start", "offsets from 0 to the number of keys", self.start)
        if (np.diff(self.start) < 0).any():
            raise parameter_error("PairSets", "start", "non-decreasing offsets", self.start)

    @property
    def sizes(self) -> IntArray:
        """The number of distinct pairs of each text."""
        return np.diff(self.start)

    @property
    def owner(self) -> IntArray:
        """The text of each key."""
        return np.repeat(np.arange(len(self.start) - 1, dtype=np.int64), self.sizes)


def pair_sets(texts: Sequence[str], vocabulary: Vocabulary) -> PairSets:
    """The distinct word pairs of each of ``texts`` (:func:`passage_pairs`) as :class:`PairSets`, the words coded
    with ``vocabulary`` (which learns the new ones): each distinct word folded and coded once, the pairs made as
    columns.

    Examples
    --------
    >>> vocabulary = Vocabulary()
    >>> first, second = pair_sets(["Refunds take 30 days."], vocabulary), pair_sets(["REFUNDS take"], vocabulary)
    >>> bool(np.isin(second.key, first.key).all()), len(first.key)
    (True, 3)
    """
    import pandas as pd

    # The apostrophes made one before the split (the word rule reads them alike): each match is then a word as
    # written, folded once per distinct spelling below.
    found = [WORD.findall(text.replace("’", "'")) for text in texts]
    lengths = np.fromiter(map(len, found), dtype=np.int64, count=len(found))
    flat = np.empty(int(lengths.sum()), dtype=object)
    flat[:] = list(itertools.chain.from_iterable(found))
    local, spellings = pd.factorize(flat)
    codes = vocabulary.code_words([word.casefold().replace("’", "'") for word in spellings])[local]
    return _pair_keys(codes, lengths)


def _pair_keys(codes: IntArray, lengths: IntArray) -> PairSets:
    """The :class:`PairSets` of texts given as their words' codes in order, ``lengths[i]`` words for text ``i``."""
    owner = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    same = owner[:-1] == owner[1:]
    lone = np.cumsum(lengths)[lengths == 1] - 1
    # A pair (a, b) is a * 2**32 + b + 1; a lone word a is a * 2**32, which no pair is (codes stay far below 2**31:
    # that many distinct words would not fit in memory). Sorted as a * bound + b + 1 and a * bound (``bound`` above
    # every b + 1), which keep that order in fewer bits: text * bound**2 plus that is one integer to sort, several
    # times faster than lexsort's two keys, unless it would not fit in 63 bits.
    bound = int(codes.max(initial=0)) + 2
    packed = np.concatenate((codes[:-1][same] * bound + codes[1:][same] + 1, codes[lone] * bound))
    owners = np.concatenate((owner[:-1][same], owner[lone]))
    if len(lengths) * bound**2 < 2**63:
        merged = np.sort(owners * bound**2 + packed)
        owners, packed = merged // bound**2, merged % bound**2
    else:
        order = np.lexsort((packed, owners))
        owners, packed = owners[order], packed[order]
    keep = np.ones(len(packed), dtype=bool)
    keep[1:] = (packed[1:] != packed[:-1]) | (owners[1:] != owners[:-1])
    keys = ((packed[keep] // bound) << 32) + packed[keep] % bound
    start = np.concatenate(([0], np.cumsum(np.bincount(owners[keep], minlength=len(lengths))))).astype(np.int64)
    return PairSets(start, keys.astype(np.int64))


@dataclass(frozen=True, slots=True)
class DocumentWords:
    """Every word of some documents (the word rule), found once, coded by one :class:`Vocabulary`: the words of
    document ``doc_ids[d]`` are ``first[d]:first[d + 1]`` of ``start``, ``end`` (its characters) and ``code``.
    :func:`document_words` builds it; :func:`chunking_repeats` reads the words of chunks that are slices of the
    documents from it instead of finding them again in each chunking. ``folded``, the ASCII documents' bytes end to
    end, letters lowercased, with ``ascii_at``, where each document starts in it (-1: not ASCII), lets the pieces of
    words a chunk's edges cut be read from the bytes too."""

    documents: Mapping[str, str]
    doc_ids: pd.Index
    first: IntArray
    start: IntArray
    end: IntArray
    code: IntArray
    folded: npt.NDArray[np.uint8] = field(default_factory=lambda: np.zeros(0, dtype=np.uint8), repr=False)
    ascii_at: IntArray | None = field(default=None, repr=False)
    reach: int = field(init=False, repr=False)
    start_key: IntArray = field(init=False, repr=False)
    end_key: IntArray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if len(self.first) != len(self.doc_ids) + 1 or not len(self.start) == len(self.end) == len(self.code):
            raise parameter_error("DocumentWords", "first", "offsets per document into one word per row", self.first)
        if self.ascii_at is not None and len(self.ascii_at) != len(self.doc_ids):
            raise parameter_error("DocumentWords", "ascii_at", "one offset per document", len(self.ascii_at))
        # One sorted key per word, document first (``reach`` past every document's end), where the words inside a
        # slice of a document are a range.
        reach = max(map(len, self.documents.values()), default=0) + 1
        doc_of = np.repeat(np.arange(len(self.doc_ids), dtype=np.int64), np.diff(self.first))
        object.__setattr__(self, "reach", reach)
        object.__setattr__(self, "start_key", doc_of * reach + self.start)
        object.__setattr__(self, "end_key", doc_of * reach + self.end)


_AROUND_WORDS = re.compile(f"({WORD.pattern})")
"""The word rule as a group: splitting a text by it keeps the words, between what lies around them."""


def document_words(documents: Mapping[str, str], vocabulary: Vocabulary) -> DocumentWords:
    """Every word of ``documents`` with its characters, coded with ``vocabulary`` (which learns the new ones).

    Examples
    --------
    >>> found = document_words({"d": "Refunds take 30 days."}, Vocabulary())
    >>> found.start.tolist(), found.end.tolist(), found.code.tolist()
    ([0, 8, 13, 16], [7, 12, 15, 20], [0, 1, 2, 3])
    """
    texts = list(documents.values())
    plain = np.fromiter((text.isascii() for text in texts), dtype=bool, count=len(texts))
    # The ASCII documents in one pass on their bytes, the others by the word rule's regex; each word's document
    # kept, to put them back in document order.
    ascii_rows, other_rows = np.flatnonzero(plain), np.flatnonzero(~plain)
    ascii_texts = [texts[row] for row in ascii_rows.tolist()]
    ascii_doc, ascii_start, ascii_end, ascii_found, folded = _ascii_document_words(ascii_texts)
    other_doc, other_start, other_end, other_found = _regex_document_words([texts[row] for row in other_rows.tolist()])
    doc = np.concatenate((ascii_rows[ascii_doc], other_rows[other_doc])).astype(np.int64)
    start, end = np.concatenate((ascii_start, other_start)), np.concatenate((ascii_end, other_end))
    found = pa.concat_arrays([ascii_found, pa.array(other_found, pa.large_string())])
    if len(other_rows) and len(ascii_rows):
        order = np.argsort(doc, kind="stable")  # each part is in document, then word order already
        doc, start, end, found = doc[order], start[order], end[order], found.take(pa.array(order))
    # Coded in order of first appearance, as the words are met: new words learn their codes in that order.
    coded = found.dictionary_encode()
    codes = vocabulary.code_words(coded.dictionary.to_pylist())[coded.indices.to_numpy(zero_copy_only=False)]
    counts = np.bincount(doc, minlength=len(texts))
    ascii_at = np.full(len(texts), -1, dtype=np.int64)
    lengths = np.fromiter(map(len, ascii_texts), dtype=np.int64, count=len(ascii_texts))
    ascii_at[ascii_rows] = np.cumsum(lengths + 1) - lengths - 1
    return DocumentWords(
        documents,
        pd.Index(list(documents), dtype=object),
        np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
        start.astype(np.int64),
        end.astype(np.int64),
        codes.astype(np.int64),
        folded,
        ascii_at,
    )


def _ascii_document_words(
    texts: Sequence[str],
) -> tuple[IntArray, IntArray, IntArray, pa.Array, npt.NDArray[np.uint8]]:
    """The words of the ASCII ``texts`` by the word rule (:func:`~contextgrid.data.words.ascii_word_runs`): each
    word's text, start and end (its characters), and the words folded, in order, as a pyarrow string array; and the
    texts' bytes joined by a space (no word runs from one text into the next), lowercased."""
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    begins = np.cumsum(lengths + 1) - lengths - 1
    joined = " ".join(texts).encode("ascii")
    start, end, found = ascii_word_runs(joined)
    text = np.searchsorted(begins, start, side="right") - 1
    folded = np.frombuffer(joined.lower(), dtype=np.uint8)
    return text.astype(np.int64), start - begins[text], end - begins[text], found, folded


def _regex_document_words(texts: Sequence[str]) -> tuple[IntArray, IntArray, IntArray, list[str]]:
    """:func:`_ascii_document_words` of any ``texts``, by the word rule's regex, the words folded as a list."""
    # Split around the words, a text's pieces alternate: what lies before the first word, a word, what lies
    # between it and the next, ...: their lengths add up to each word's end, and to its start before it, with no
    # match object per word.
    starts, ends, found = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)], []
    for text in texts:
        pieces = _AROUND_WORDS.split(text.replace("’", "'"))
        reach = np.cumsum(np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces)))
        ends.append(reach[1::2])
        starts.append(reach[:-1:2])
        found.append(pieces[1::2])
    counts = np.fromiter(map(len, found), dtype=np.int64, count=len(found))
    flat = np.empty(int(counts.sum()), dtype=object)
    flat[:] = list(itertools.chain.from_iterable(found))
    # Each distinct spelling folded once.
    local, spellings = pd.factorize(flat)
    folded = np.array([word.casefold() for word in spellings], dtype=object)[local]  # "’" made "'" before the split
    owner = np.repeat(np.arange(len(texts), dtype=np.int64), counts)
    return owner, np.concatenate(starts).astype(np.int64), np.concatenate(ends).astype(np.int64), folded.tolist()


def chunk_pair_sets(values: Sequence[Chunk], words: DocumentWords, vocabulary: Vocabulary) -> PairSets | None:
    """:func:`pair_sets` of the texts of ``values``, read from ``words`` (coded by ``vocabulary``): the document's
    words inside each chunk, and the words of the pieces a chunk's edges cut from a word found again. ``None``
    unless every chunk's text is its span of its document (a chunker that rewrites text).

    Examples
    --------
    >>> import contextgrid as cg
    >>> text = "Refunds take 30 days."
    >>> chunks = [cg.Chunk("c0", cg.Span("d", 0, 10), text[0:10]), cg.Chunk("c1", cg.Span("d", 10, 21), text[10:])]
    >>> vocabulary = Vocabulary()
    >>> read = chunk_pair_sets(chunks, document_words({"d": text}, vocabulary), vocabulary)
    >>> found = pair_sets([chunk.text for chunk in chunks], vocabulary)
    >>> read.start.tolist() == found.start.tolist(), read.key.tolist() == found.key.tolist(), read.sizes.tolist()
    (True, True, [1, 2])
    >>> chunk_pair_sets([cg.Chunk("c", cg.Span("d", 0, 7), "Rewritten")], document_words({"d": text}, vocabulary),
    ...                 vocabulary) is None
    True
    """
    begin = np.fromiter((chunk.span.start for chunk in values), dtype=np.int64, count=len(values))
    finish = np.fromiter((chunk.span.end for chunk in values), dtype=np.int64, count=len(values))
    doc_ids = [chunk.span.doc_id for chunk in values]
    return _slice_pair_sets(doc_ids, begin, finish, [chunk.text for chunk in values], words, vocabulary)


def _slice_pair_sets(
    doc_ids: Sequence[str],
    begin: IntArray,
    finish: IntArray,
    values: Sequence[str],
    words: DocumentWords,
    vocabulary: Vocabulary,
) -> PairSets | None:
    """:func:`chunk_pair_sets` of texts ``values``, text ``i`` said to be ``[begin[i], finish[i])`` of document
    ``doc_ids[i]``: ``None`` unless each is."""
    read = _slice_words(doc_ids, begin, finish, values, words, vocabulary)
    if read is None:
        return None
    pieces = read.piece >= 0
    lengths = pieces[:, 0] + read.inner + pieces[:, 1]
    offsets = np.cumsum(lengths) - lengths
    codes = np.empty(int(lengths.sum()), dtype=np.int64)
    # Each text's whole words, from its document's words, go after its front piece.
    source, chunk = expand_stretches(read.low, read.inner)
    codes[(offsets + pieces[:, 0] - read.low)[chunk] + source] = words.code[source]
    # The pieces' words (text 0's front, text 0's back, text 1's front, ...), each where it goes.
    piece_starts = np.column_stack((offsets, offsets + pieces[:, 0] + read.inner)).ravel()
    codes[expand_stretches(piece_starts, pieces.ravel().astype(np.int64))[0]] = read.piece[pieces]
    return _pair_keys(codes, lengths)


@dataclass(frozen=True, slots=True)
class _SliceWords:
    """The words of slices of documents: slice ``i`` holds the documents' words ``low[i]`` to
    ``low[i] + inner[i]`` whole, after the word of the piece its start cuts from a word, ``piece[i, 0]``, and
    before that of the piece its end cuts, ``piece[i, 1]`` (codes; -1 for none); ``code``, the documents' words'
    codes (:attr:`DocumentWords.code`)."""

    low: IntArray
    inner: IntArray
    piece: IntArray
    code: IntArray


def _are_slices(
    docs: IntArray,
    doc_ids: Sequence[str],
    begin: IntArray,
    finish: IntArray,
    values: Sequence[str],
    documents: Mapping[str, str],
) -> bool:
    """Whether each text ``values[i]`` is ``[begin[i], finish[i])`` of document ``doc_ids[i]`` (``docs[i]``, its
    position).

    Texts of the right lengths that follow one another in a document are compared as one run with one slice of
    it: a chunking that cuts the documents end to end is a few comparisons, not one per chunk.
    """
    lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    if (lengths != finish - begin).any():
        return False
    if not len(values):
        return True
    follows = np.zeros(len(values), dtype=bool)
    follows[1:] = (docs[1:] == docs[:-1]) & (begin[1:] == finish[:-1])
    heads = np.flatnonzero(~follows)
    tails = np.append(heads[1:], len(values)) - 1
    reach = np.cumsum(lengths)
    joined = "".join(values)
    runs = zip(heads.tolist(), begin[heads].tolist(), finish[tails].tolist(), (reach - lengths)[heads].tolist(),
               reach[tails].tolist(), strict=True)  # fmt: skip
    return all(documents[doc_ids[h]][lo:hi] == joined[at:to] for h, lo, hi, at, to in runs)


def _slice_words(
    doc_ids: Sequence[str],
    begin: IntArray,
    finish: IntArray,
    values: Sequence[str],
    words: DocumentWords,
    vocabulary: Vocabulary,
    docs: IntArray | None = None,
) -> _SliceWords | None:
    """The words of texts ``values``, text ``i`` said to be ``[begin[i], finish[i])`` of document ``doc_ids[i]``
    (``docs[i]``, its position in ``words.doc_ids``, when known), read from ``words``: ``None`` unless each is."""
    if docs is None:
        docs = words.doc_ids.get_indexer(pd.Index(doc_ids, dtype=object))
    if (docs < 0).any():
        return None
    if not _are_slices(docs, doc_ids, begin, finish, values, words.documents):
        return None
    piece = np.full((len(values), 2), -1, dtype=np.int64)
    if not len(words.code):  # no word anywhere: none in any text
        empty = np.zeros(len(values), dtype=np.int64)
        return _SliceWords(empty, empty.copy(), piece, words.code)
    # The words of each text's document inside it are a range of the words' keys (no text ends past its
    # document's end: each is its slice).
    reach = words.reach
    low = np.searchsorted(words.start_key, docs * reach + begin, side="left")
    high = np.searchsorted(words.end_key, docs * reach + finish, side="right")
    # A word cut by the chunk's start, or by its end (one word may be cut by both): its piece read again.
    before = low - 1
    front = (before >= words.first[docs]) & (words.end[np.maximum(before, 0)] > begin)
    after = np.minimum(high, max(len(words.code) - 1, 0))
    back = (high < words.first[docs + 1]) & (words.start[after] < finish) & ~(front & (before == high))
    # The pieces of the cut words in order (chunk 0's front, chunk 0's back, chunk 1's front, ...), as parts of
    # the chunks' texts. A piece is part of one word, which the word rule makes of letters and digits with
    # apostrophes inside: its one word, if any, is the piece without an apostrophe at either end.
    slot = np.flatnonzero(np.column_stack((front, back)).ravel())
    owner, at_back = slot // 2, slot % 2 == 1
    word_start = np.maximum(words.start[after[owner]], begin[owner])
    word_end = np.minimum(words.end[np.maximum(before, 0)[owner]], finish[owner])
    piece_start = np.where(at_back, word_start, begin[owner]) - begin[owner]
    piece_end = np.where(at_back, finish[owner], word_end) - begin[owner]
    found = _piece_words(owner, piece_start, piece_end, docs[owner], begin[owner], values, words)
    # Coded in order of first appearance, as pair_sets codes its words.
    kept = pc.utf8_length(found).to_numpy(zero_copy_only=False) > 0
    coded = found.filter(pa.array(kept)).dictionary_encode()
    codes = vocabulary.code_words(coded.dictionary.to_pylist())
    piece.ravel()[slot[kept]] = codes[coded.indices.to_numpy(zero_copy_only=False)]
    return _SliceWords(low.astype(np.int64), np.maximum(high - low, 0).astype(np.int64), piece, words.code)


def _piece_words(
    owner: IntArray,
    piece_start: IntArray,
    piece_end: IntArray,
    doc: IntArray,
    begin: IntArray,
    values: Sequence[str],
    words: DocumentWords,
) -> pa.Array:
    """The word of each piece ``values[owner[i]][piece_start[i]:piece_end[i]]`` (its text being ``[begin[i], ...)``
    of document ``doc[i]`` of ``words``), folded, as a pyarrow string array: empty where the piece holds none.

    A piece is part of one word, which the word rule makes of letters and digits with apostrophes inside: its
    word, if any, is the piece without an apostrophe at either end. The pieces of ASCII documents are read from
    their bytes (:attr:`DocumentWords.folded`) by the word rule on bytes
    (:func:`~contextgrid.data.words.ascii_word_runs`), the others' from the texts.
    """
    at = np.full(len(owner), -1, dtype=np.int64) if words.ascii_at is None else words.ascii_at[doc]
    plain = np.flatnonzero(at >= 0)
    other = np.flatnonzero(at < 0)
    # The ASCII pieces' bytes end to end, a space after each: being part of one word, each holds one word at most.
    lengths = (piece_end - piece_start)[plain]
    where = np.cumsum(lengths + 1) - lengths - 1
    joined = np.full(int((lengths + 1).sum()), ord(" "), dtype=np.uint8)
    low = (at + begin + piece_start)[plain]
    joined[expand_stretches(where, lengths)[0]] = words.folded[expand_stretches(low, lengths)[0]]
    start, _, runs = ascii_word_runs(joined.tobytes())
    run = np.full(len(plain), -1, dtype=np.int64)
    run[np.searchsorted(where, start, side="right") - 1] = np.arange(len(start), dtype=np.int64)
    plain_words = runs.take(pa.array(run, mask=run < 0)).fill_null("")
    other_words = [
        values[i][a:b].replace("’", "'").strip("'").casefold()
        for i, a, b in zip(owner[other].tolist(), piece_start[other].tolist(), piece_end[other].tolist(), strict=True)
    ]
    found = pa.concat_arrays([plain_words, pa.array(other_words, pa.large_string())])
    if not len(other) or not len(plain):
        return found
    return found.take(pa.array(np.argsort(np.concatenate((plain, other)), kind="stable")))


@dataclass(frozen=True, slots=True)
class GoldPassages:
    """The questions' merged gold (:func:`~contextgrid.evidence.run_waste.gold_columns`) with each passage's word
    pairs, ``pairs`` one set per ``gold.spans``: made once, shared by every chunking searched for its copies.

    ``distinct`` (the passages' distinct pair keys, ascending) and ``distinct_at`` (each of ``pairs.key``'s position
    in it) are derived: each chunking's pairs are counted by their position in ``distinct``; so is ``keys``, each
    passage's pairs as ``passage * len(distinct) + position``, ascending, where a chunk's pairs are looked up.
    With the documents'
    ``words`` (those the passages were read from), ``word_pairs`` is derived too: for each of their words, the
    position in ``distinct`` of the pair it makes with the next word of its document (-1: no passage's, or none),
    so that the pairs inside a chunking's chunks are read, not made and looked up again. ``searched`` keeps, per
    threshold, the pairs :func:`chunking_repeats` searches each chunking's chunks by (:func:`_searched_pairs`);
    ``lookup``, ``distinct`` as an index, whose hash table finds pairs among them.
    """

    gold: GoldColumns
    pairs: PairSets
    words: DocumentWords | None = None
    distinct: IntArray = field(init=False, repr=False)
    distinct_at: IntArray = field(init=False, repr=False)
    keys: IntArray = field(init=False, repr=False)
    word_pairs: IntArray = field(init=False, repr=False)
    lookup: pd.Index = field(init=False, repr=False)
    searched: dict[float, _SearchedPairs] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.pairs.start) != len(self.gold.spans) + 1:
            raise parameter_error("GoldPassages", "pairs", "one set per gold passage", len(self.pairs.start) - 1)
        distinct, at = np.unique(self.pairs.key, return_inverse=True)
        object.__setattr__(self, "distinct", distinct.astype(np.int64))
        object.__setattr__(self, "lookup", pd.Index(self.distinct))
        object.__setattr__(self, "distinct_at", at.ravel().astype(np.int64))
        # Ascending: by passage, then key (each passage's keys are), whose positions in ``distinct`` keep its order.
        object.__setattr__(self, "keys", self.pairs.owner * max(len(distinct), 1) + self.distinct_at)
        word_pairs = np.full(0 if self.words is None else len(self.words.code), -1, dtype=np.int64)
        if self.words is not None and len(word_pairs):
            code, first = self.words.code, self.words.first
            # A hash lookup of every word's pair among the distinct ones: twice a sorted search's speed here.
            word_pairs[:-1] = self.lookup.get_indexer(pd.Index((code[:-1] << 32) + code[1:] + 1))
            word_pairs[first[1:][first[1:] > 0] - 1] = -1  # each document's last word: no next word
        object.__setattr__(self, "word_pairs", word_pairs)


def gold_passages(
    items: Iterable[EvalItem] | GoldColumns,
    documents: Mapping[str, str],
    vocabulary: Vocabulary,
    *,
    function: str = "gold_passages",
    words: DocumentWords | None = None,
) -> GoldPassages:
    """The merged gold of ``items`` (or that gold given, :func:`~contextgrid.evidence.run_waste.gold_columns`)
    and the word pairs of each passage of it in ``documents``.

    ``words``, the documents' :func:`document_words` (coded with ``vocabulary``), spares finding the passages'
    words again, as :func:`chunk_pair_sets` reads a chunking's: the same pairs.

    Examples
    --------
    >>> import contextgrid as cg
    >>> item = cg.EvalItem("q", "?", (cg.GoldSpan(cg.Span("d", 0, 21)),))
    >>> gold_passages([item], {"d": "Refunds take 30 days. Call."}, Vocabulary()).pairs.sizes.tolist()
    [3]
    """
    gold = items if isinstance(items, GoldColumns) else gold_columns(items, function)
    texts = [documents[s.doc_id][s.start : s.end] for s in gold.spans]
    doc_ids = [s.doc_id for s in gold.spans]
    read = None if words is None else _slice_pair_sets(doc_ids, gold.start, gold.end, texts, words, vocabulary)
    if read is None:
        return GoldPassages(gold, pair_sets(texts, vocabulary))
    return GoldPassages(gold, read, words)


@dataclass(frozen=True, slots=True)
class ChunkingRepeats:
    """One chunking against the gold passages, what every run over it shares: ``chunk_ids``; ``overlapping``, the
    sorted keys ``question * width + chunk`` (``width`` the number of chunks, at least 1) of the chunks overlapping
    each question's gold; and every (chunk, gold passage) where the chunk holds at least ``threshold`` of the
    passage's pairs, as ``key`` (the passage's question and the chunk, so keyed), ``passage`` (a position in
    ``gold.spans``) and ``held`` (the share), sorted by key, then passage."""

    gold: GoldColumns
    chunk_ids: pd.Index
    overlapping: IntArray
    key: IntArray
    passage: IntArray
    held: FloatArray
    threshold: float

    def __post_init__(self) -> None:
        if not len(self.key) == len(self.passage) == len(self.held):
            raise parameter_error("ChunkingRepeats", "key", "one key per passage and share", len(self.key))

    @property
    def width(self) -> int:
        """The multiplier of a (question, chunk) key."""
        return max(len(self.chunk_ids), 1)


def chunking_repeats(
    passages: GoldPassages,
    chunks: Mapping[str, Chunk] | Iterable[Chunk] | ChunkingGold,
    vocabulary: Vocabulary,
    *,
    threshold: float = REPEATS_GOLD,
    function: str = "chunking_repeats",
    words: DocumentWords | None = None,
    elsewhere: bool = False,
) -> ChunkingRepeats:
    """The chunks of ``chunks`` holding at least ``threshold`` of a gold passage's pairs (``passages`` coded with
    ``vocabulary``), each distinct chunk's text read once, whichever runs retrieve it.

    ``words``, the documents' :func:`document_words` (coded with ``vocabulary``), spares finding the words of
    chunks that are slices of the documents again (:func:`chunk_pair_sets`): the same pairs. ``chunks`` laid out
    against the passages' gold already (a :class:`~contextgrid.evidence.run_waste.ChunkingGold` built from
    ``passages.gold``) spares finding which chunks overlap it again. ``elsewhere`` keeps only the chunks that
    overlap none of their passage's question's gold, the only ones :func:`run_labels` can find (the same labels):
    the chunks holding a passage where it is, most of those found, are not counted.

    A chunk holding a share ``threshold`` of a passage's ``n`` pairs holds at least one of any ``n - m + 1`` of
    them (``m`` the fewest pairs making that share): only the chunks holding one of the passage's ``n - m + 1``
    pairs held by the fewest chunks are counted in full.

    Examples
    --------
    >>> import contextgrid as cg
    >>> text = "Refunds take 30 days. Shipping is free. Refunds take 30 days from delivery."
    >>> chunks = [cg.Chunk("c0", cg.Span("d", 0, 21), text[0:21]), cg.Chunk("c1", cg.Span("d", 40, 75), text[40:75])]
    >>> vocabulary = Vocabulary()
    >>> passages = gold_passages([cg.EvalItem("q", "?", (cg.GoldSpan(cg.Span("d", 0, 21)),))], {"d": text}, vocabulary)
    >>> repeats = chunking_repeats(passages, chunks, vocabulary)
    >>> repeats.key.tolist(), repeats.held.tolist(), repeats.overlapping.tolist()
    ([0, 1], [1.0, 1.0], [0])
    >>> chunking_repeats(passages, chunks, vocabulary, elsewhere=True).key.tolist()
    [1]
    """
    import pandas as pd

    limit = check_fraction(threshold, function=function, parameter="threshold", low_open=True)
    gold, gold_pairs = passages.gold, passages.pairs
    laid = laid_out(gold, chunks, function)
    values = laid.columns.chunks
    width = max(len(values), 1)
    passage_owner, size = gold_pairs.owner, gold_pairs.sizes
    at = passages.distinct_at
    many = max(len(size), 1)
    read = _chunk_words(passages, laid, vocabulary, words)
    if read is None:
        # Each (passage pair, chunk) held, as pair * width + chunk (the pair a position in ``passages.distinct``),
        # sorted: how many chunks hold each pair, and which, grouped.
        holding = _text_pairs(passages, values, vocabulary, words)
        holding_pair, holding_chunk = holding // width, holding % width
        holders = np.bincount(holding_pair, minlength=len(passages.distinct)).astype(np.int64)
        # Each passage searched by its pairs held by the fewest chunks (those held by none left out).
        chosen = _fewest_first(passages, limit, holders[at])
        chosen = chosen[holders[at[chosen]] > 0]
    else:
        # The chunks' words are the documents': each passage searched by the pairs that start the fewest of the
        # documents' words (any n - m + 1 pairs do), the same for every chunking; the chunks holding those found
        # from where the pairs are in the documents (whole words inside a chunk) and from the chunks' edges.
        searched = _searched_pairs(passages, limit)
        chosen, starts = searched.chosen, searched.starts
        low, inside = read.low, np.maximum(read.inner - 1, 0)
        first_start = np.searchsorted(starts, low)
        entry, chunk = expand_stretches(first_start, np.searchsorted(starts, low + inside) - first_start)
        edge_pair, edge_chunk = _edge_pairs(passages, read, np.arange(len(values), dtype=np.int64))
        edge = searched.wanted[edge_pair]
        holding = distinct_sorted(
            np.concatenate(
                (passages.word_pairs[starts[entry]] * width + chunk, edge_pair[edge] * width + edge_chunk[edge])
            )
        )
        holding_pair, holding_chunk = holding // width, holding % width
        holders = np.bincount(holding_pair, minlength=len(passages.distinct)).astype(np.int64)
    # The chunks holding each chosen pair, from its group.
    first = np.cumsum(holders) - holders
    held_at, hit = expand_stretches(first[at[chosen]], holders[at[chosen]])
    pairs = distinct_sorted(holding_chunk[held_at] * many + passage_owner[chosen][hit])
    in_chunk, passage = pairs // many, pairs % many
    if elsewhere:
        beside = ~find_sorted(laid.holding.keys, gold.item[passage] * width + in_chunk)[1]
        in_chunk, passage = in_chunk[beside], passage[beside]
    # The pairs the candidates' chunks hold: of all the chunks' pairs, or read for those chunks only.
    if read is None:
        candidate = np.zeros(width, dtype=bool)
        candidate[in_chunk] = True
        holding = holding[candidate[holding_chunk]]
    else:
        holding = _read_pairs(passages, read, np.unique(in_chunk), width)
    holding_pair, holding_chunk = holding // width, holding % width
    # The pairs a candidate's passage and chunk share (a candidate's passage has pairs: it had a prefix), counted
    # from the smaller side: the passage's pairs looked up among the chunk's (chunk, pair) keys, or the chunk's held
    # pairs among the passage's (passage, pair) keys; both sets distinct, the same count. Each side's candidates
    # in the order of the keys searched (chunk, then passage): the searches walk them forward.
    counts = size[passage]
    span = max(len(passages.distinct), 1)
    table = np.sort(holding_chunk * span + holding_pair)
    per_chunk = np.bincount(holding_chunk, minlength=width).astype(np.int64)
    from_chunk = per_chunk[in_chunk] < counts
    held = np.zeros(len(passage), dtype=np.int64)
    side = np.flatnonzero(~from_chunk)
    word, row = expand_stretches(gold_pairs.start[passage[side]], counts[side])
    inside = find_sorted(table, in_chunk[side][row] * span + at[word])[1]
    held[side] = np.bincount(row[inside], minlength=len(side))
    side = np.flatnonzero(from_chunk)
    side = side[np.argsort(passage[side], kind="stable")]
    entry, row = expand_stretches((np.cumsum(per_chunk) - per_chunk)[in_chunk[side]], per_chunk[in_chunk[side]])
    inside = find_sorted(passages.keys, passage[side][row] * span + table[entry] % span)[1]
    held[side] = np.bincount(row[inside], minlength=len(side))
    share = held / counts
    keep = share >= limit
    key = gold.item[passage[keep]] * width + in_chunk[keep]
    order = np.lexsort((passage[keep], key))
    return ChunkingRepeats(
        gold=gold,
        chunk_ids=pd.Index(laid.columns.ids, dtype=object),
        overlapping=laid.holding.keys,
        key=key[order].astype(np.int64),
        passage=passage[keep][order].astype(np.int64),
        held=share[keep][order],
        threshold=limit,
    )


def _chunk_words(
    passages: GoldPassages, chunking: ChunkingGold, vocabulary: Vocabulary, words: DocumentWords | None
) -> _SliceWords | None:
    """The words of ``chunking``'s chunks read from ``words``, the documents' words the passages were read from:
    ``None`` without them, or unless every chunk's text is its span of its document."""
    if words is None or passages.words is not words:
        return None
    columns = chunking.columns
    texts = [chunk.text for chunk in columns.chunks]
    # Each distinct document looked up once, by the layout's codes of the chunks' documents.
    distinct, first = np.unique(columns.doc_code, return_index=True)
    docs = np.full(len(distinct), -1, dtype=np.int64)
    docs[distinct] = words.doc_ids.get_indexer(pd.Index(columns.doc[first], dtype=object))
    doc_ids = columns.doc.tolist()
    return _slice_words(doc_ids, columns.start, columns.end, texts, words, vocabulary, docs[columns.doc_code])


def _text_pairs(
    passages: GoldPassages, values: Sequence[Chunk], vocabulary: Vocabulary, words: DocumentWords | None
) -> IntArray:
    """The distinct ``pair * width + chunk`` (``pair`` a position in ``passages.distinct``, ``width`` as
    :attr:`ChunkingRepeats.width`) of the passages' pairs the chunks ``values`` hold, sorted, found in their
    texts (or read from ``words``, by :func:`chunk_pair_sets`)."""
    width = max(len(values), 1)
    sets = None if words is None else chunk_pair_sets(values, words, vocabulary)
    sets = pair_sets([chunk.text for chunk in values], vocabulary) if sets is None else sets
    found, here = find_sorted(passages.distinct, sets.key, ascending=True)
    return np.sort(found[here] * width + sets.owner[here])  # distinct: each chunk's pairs are


def _read_pairs(passages: GoldPassages, read: _SliceWords, chunks: IntArray, width: int) -> IntArray:
    """:func:`_text_pairs` of the chunks at positions ``chunks`` (ascending) of a chunking, their words ``read``
    from the documents' words the passages were read from (:func:`_chunk_words`)."""
    # The pairs of whole words inside each chunk, read from the documents' (word, next word) pairs.
    position, at = expand_stretches(read.low[chunks], np.maximum(read.inner[chunks] - 1, 0))
    edge_pair, edge_chunk = _edge_pairs(passages, read, chunks)
    pair = np.concatenate((passages.word_pairs[position], edge_pair))
    chunk = np.concatenate((chunks[at], edge_chunk))
    return distinct_sorted(pair[pair >= 0] * width + chunk[pair >= 0])


def _edge_pairs(passages: GoldPassages, read: _SliceWords, chunks: IntArray) -> tuple[IntArray, IntArray]:
    """The passages' pairs (positions in ``passages.distinct``) that the pieces the edges of the chunks at
    positions ``chunks`` cut from a word make with the whole words beside them (or with the other piece, with none
    between), and the one word of a chunk of one word, each with its chunk, in ``chunks`` order."""
    code = read.code
    if not len(code):  # no word anywhere: no pair in any chunk
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    low, inner, piece = read.low[chunks], read.inner[chunks], read.piece[chunks]
    front, back = piece[:, 0] >= 0, piece[:, 1] >= 0
    last = np.minimum(low + inner - 1, len(code) - 1)
    lone = front.astype(np.int64) + inner + back == 1
    edges = (front & (inner > 0), back & (inner > 0), front & back & (inner == 0), lone)
    only = np.where(front, piece[:, 0], np.where(back, piece[:, 1], code[np.minimum(low, len(code) - 1)]))
    keys = (
        (piece[edges[0], 0] << 32) + code[low[edges[0]]] + 1,
        (code[last[edges[1]]] << 32) + piece[edges[1], 1] + 1,
        (piece[edges[2], 0] << 32) + piece[edges[2], 1] + 1,
        only[edges[3]] << 32,
    )
    found = passages.lookup.get_indexer(pd.Index(np.concatenate(keys)))
    chunk = np.concatenate([chunks[np.flatnonzero(edge)] for edge in edges])
    return found[found >= 0].astype(np.int64), chunk[found >= 0].astype(np.int64)


@dataclass(frozen=True, slots=True)
class _SearchedPairs:
    """The pairs each passage is searched by at one threshold: ``chosen``, positions in ``pairs.key`` of the
    passages; ``wanted``, whether each of ``distinct`` is one of them; ``starts``, the positions of the documents'
    words that start one (with the next word), ascending."""

    chosen: IntArray
    wanted: npt.NDArray[np.bool_]
    starts: IntArray


def _searched_pairs(passages: GoldPassages, limit: float) -> _SearchedPairs:
    """:func:`_choose_pairs` of ``passages`` at ``limit``, made once per threshold and kept in
    ``passages.searched``."""
    with _SEARCHING:  # one thread makes them while the others, which ask them for their chunkings, wait
        known = passages.searched.get(limit)
        if known is None:
            known = passages.searched[limit] = _choose_pairs(passages, limit)
    return known


def _choose_pairs(passages: GoldPassages, limit: float) -> _SearchedPairs:
    """Each passage's ``n - m + 1`` pairs (of ``n``; ``m`` the fewest making a share ``limit``) that start the
    fewest of the documents' words, ties in key order: a chunk holding that share of the passage holds one of them."""
    word_pairs = passages.word_pairs
    paired = np.flatnonzero(word_pairs >= 0)
    frequency = np.bincount(word_pairs[paired], minlength=len(passages.distinct))[passages.distinct_at]
    chosen = _fewest_first(passages, limit, frequency)
    wanted = np.zeros(len(passages.distinct), dtype=bool)
    wanted[passages.distinct_at[chosen]] = True
    starts = paired[wanted[word_pairs[paired]]].astype(np.int64)
    return _SearchedPairs(chosen, wanted, starts)


def _fewest_first(passages: GoldPassages, limit: float, frequency: IntArray) -> IntArray:
    """Each passage's ``n - m + 1`` pairs (of ``n``; ``m`` the fewest making a share ``limit``) of lowest
    ``frequency`` (one per pair of ``passages.pairs.key``), ties in key order, as positions in ``pairs.key``."""
    owner, size = passages.pairs.owner, passages.pairs.sizes
    # m is at least ceil(limit * n) - 1 (float division can only round a share down by far less than 1 / n) and
    # at least 1 (a share of 0 is below any threshold): a shorter prefix could miss a chunk.
    fewest = np.maximum(np.ceil(limit * size).astype(np.int64) - 1, 1)
    prefix = np.maximum(size - fewest + 1, 0)
    # By passage, then frequency, then key: one stable sort, the keys ascending within each passage already.
    order = np.argsort(owner * (int(frequency.max(initial=0)) + 1) + frequency, kind="stable")
    position = np.arange(len(order), dtype=np.int64) - passages.pairs.start[owner[order]]
    chosen: IntArray = order[position < prefix[owner[order]]].astype(np.int64)
    return chosen


_SEARCHING = threading.Lock()
"""Held while :func:`_searched_pairs` looks for or makes the pairs of some passages."""


@dataclass(frozen=True, slots=True)
class JudgedGrades:
    """Qrels against the chunking of ``repeats``: ``keys``, the sorted ``question * width + chunk`` of the judged
    (question, chunk) pairs of the chunking's chunks and the gold's questions with a repeat in ``repeats`` (the only
    grades :func:`run_labels` asks), and ``grades``, the first grade of each. :func:`judged_grades` builds it once
    for every run judged by the same qrels over that chunking."""

    repeats: ChunkingRepeats
    keys: IntArray
    grades: IntArray

    def __post_init__(self) -> None:
        if len(self.keys) != len(self.grades):
            raise parameter_error("JudgedGrades", "grades", "one grade per key", len(self.grades))


def judged_grades(repeats: ChunkingRepeats, qrels: Mapping[str, Mapping[str, int]]) -> JudgedGrades:
    """``qrels`` against the chunking of ``repeats``: pass it as the ``qrels`` of :func:`run_labels`, for every run
    over that chunking judged by them.

    Examples
    --------
    >>> import contextgrid as cg
    >>> chunks = [cg.Chunk("c0", cg.Span("d", 0, 7), "Refunds"), cg.Chunk("c1", cg.Span("d", 8, 12), "take")]
    >>> vocabulary = Vocabulary()
    >>> passages = gold_passages([cg.EvalItem("q", "?", (cg.GoldSpan(cg.Span("d", 0, 7)),))], {"d": "Refunds take"},
    ...                          vocabulary)
    >>> repeats = chunking_repeats(passages, chunks, vocabulary)
    >>> judged = judged_grades(repeats, {"q": {"c1": 0, "c0": 2}, "q9": {"c0": 1}})
    >>> judged.keys.tolist(), judged.grades.tolist()
    ([0, 1], [2, 0])
    """
    import pandas as pd

    gold, chunk_ids, width = repeats.gold, repeats.chunk_ids, repeats.width
    judged = QrelsTable.from_dict(qrels)
    starts = np.asarray(judged.starts, dtype=np.int64)
    judged_item = np.repeat(gold.ids.get_indexer(pd.Index(judged.question_ids, dtype=object)), np.diff(starts))
    # Only the rows of questions with a repeat: run_labels asks no other grade. Arrow's hash lookup on their part of
    # the string column as it is (no Python str per judged row), as run_rows does.
    asked = np.isin(judged_item, repeats.key // width)
    judged_chunk = np.asarray(
        pc.index_in(
            judged.table.column("chunk_id").cast(pa.string()).filter(pa.array(asked)),
            value_set=pa.array(chunk_ids, type=pa.string()),
        ).fill_null(-1),
        dtype=np.int64,
    )
    known = judged_chunk >= 0
    judged_key = judged_item[asked][known].astype(np.int64) * width + judged_chunk[known]
    judged_grade = np.asarray(judged.table.column("grade").to_numpy(), dtype=np.int64)[asked][known]
    # The first grade of each (question, chunk), its keys sorted.
    by_key = np.argsort(judged_key, kind="stable")
    first = np.ones(len(by_key), dtype=bool)
    first[1:] = judged_key[by_key][1:] != judged_key[by_key][:-1]
    return JudgedGrades(repeats, judged_key[by_key][first], judged_grade[by_key][first])


def _grades_of(judged: JudgedGrades, key: IntArray) -> npt.NDArray[np.float64]:
    """The grade of each (question, chunk) ``key`` in ``judged``, NaN where it is not judged."""
    at, graded = find_sorted(judged.keys, key)
    grade: npt.NDArray[np.float64] = np.where(graded, judged.grades[at] if len(judged.keys) else 0, np.nan)
    return grade


def run_labels(
    repeats: ChunkingRepeats,
    run: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Mapping[str, int]] | JudgedGrades,
    *,
    function: str = "run_labels",
    aligned: bool = False,
) -> pd.DataFrame:
    """:func:`missing_labels` of one run over the chunking of ``repeats``: its retrieved rows, graded 0 or not
    judged, not overlapping the question's gold, looked up among the chunking's repeats of the gold.

    ``qrels`` may be given as :func:`judged_grades` of ``repeats`` (the same grades), once for many runs.
    ``aligned``: every chunk the run returns is known to be among the chunks (the run passed
    :func:`~contextgrid.evidence.alignment.check_alignment` against them), which spares testing each row; the
    same rows are found.

    Examples
    --------
    >>> import contextgrid as cg
    >>> text = "Refunds take 30 days. Shipping is free. Refunds take 30 days from delivery."
    >>> chunks = [cg.Chunk("c0", cg.Span("d", 0, 21), text[0:21]), cg.Chunk("c1", cg.Span("d", 40, 75), text[40:75])]
    >>> vocabulary = Vocabulary()
    >>> passages = gold_passages([cg.EvalItem("q", "?", (cg.GoldSpan(cg.Span("d", 0, 21)),))], {"d": text}, vocabulary)
    >>> repeats = chunking_repeats(passages, chunks, vocabulary)
    >>> run_labels(repeats, {"q": ["c1", "c0"]}, {"q": {"c1": 0}})
      question chunk_id  rank  grade  held      passage
    0        q       c1     1      0   1.0  d [0, 21)
    >>> run_labels(repeats, {"q": ["c1", "c0"]}, {"q": {"c1": 0}}, aligned=True).equals(_)
    True
    """
    import pandas as pd

    gold, chunk_ids, width = repeats.gold, repeats.chunk_ids, repeats.width
    if isinstance(qrels, JudgedGrades) and qrels.repeats is not repeats:
        raise parameter_error(function, "qrels", "judged_grades of repeats", "judged_grades of other repeats")
    table = RunTable.from_dict(run)
    # Grades of the retrieved rows: missing when not judged.
    judged = qrels if isinstance(qrels, JudgedGrades) else judged_grades(repeats, qrels)
    # Only a question with a repeat graded 0 or not judged that overlaps none of its gold can have a row found
    # below: when every chunk the run returns is among the chunks (known, or found there: the positions kept with
    # the run, which run_rows reads too), the rows of the other questions are not aligned. Otherwise every row is,
    # which refuses the first unknown one.
    open_key = repeats.key[~(_grades_of(judged, repeats.key) > 0) & ~find_sorted(repeats.overlapping, repeats.key)[1]]
    if not aligned and (run_chunk_positions(table, chunk_ids) < 0).any():
        rows = run_rows(table, gold.ids, chunk_ids, None, function)
    else:
        asked = np.unique(open_key // width)
        rows = run_rows(table, gold.ids[asked], chunk_ids, None, function) if len(asked) else _NO_ROWS
        rows = RunRows(asked[rows.item], rows.rank, rows.chunk)
    row_key = rows.item * width + rows.chunk
    # Each row against its question's repeats (a stretch of the sorted keys, few per question), kept where the
    # chunk is the row's: a row's repeats in key order, then passage order, as a search of its key would find them.
    per_question = np.bincount(repeats.key // width, minlength=len(gold.ids))
    entry, row = expand_stretches((np.cumsum(per_question) - per_question)[rows.item], per_question[rows.item])
    same = repeats.key[entry] == row_key[row]
    entry, row = entry[same], row[same]
    # Of those, the rows graded 0 or not judged that overlap none of the question's gold.
    grade = _grades_of(judged, row_key[row])
    candidate = ~(grade > 0) & ~find_sorted(repeats.overlapping, row_key[row])[1]
    entry, row, found_grade = entry[candidate], row[candidate], grade[candidate]
    spans = [gold.spans[i] for i in repeats.passage[entry]]
    return pd.DataFrame(
        {
            "question": pd.array([gold.items[i].id for i in rows.item[row]], dtype=object),
            "chunk_id": pd.Series(np.asarray(chunk_ids, dtype=object)[rows.chunk[row]], dtype=object).array,
            "rank": rows.rank[row].astype(np.int64),
            "grade": pd.arrays.IntegerArray(np.nan_to_num(found_grade).astype(np.int64), np.isnan(found_grade)),
            "held": repeats.held[entry].astype(float),
            "passage": pd.Series([f"{s.doc_id} [{s.start}, {s.end})" for s in spans], dtype=object).array,
        }
    )


_NO_ROWS = RunRows(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
"""The rows of no question: a run's rows of none of the questions, without reading it."""


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
    vocabulary = Vocabulary()
    passages = gold_passages(items, documents, vocabulary, function=function)
    repeats = chunking_repeats(passages, chunks, vocabulary, threshold=limit, function=function)
    return run_labels(repeats, run, qrels, function=function)
