"""Why did a question fail? One cause per (configuration, question), the signals behind it, and what would
have fixed it.

The causes, in rule order; the first rule that applies names the cause
(:data:`CAUSES`):

1. ``no_gold``: the question has no gold evidence at all, neither a gold span nor
   an anchor of grade above 0 (grade 0 is judged irrelevant, so it is no
   evidence). Not answerable; not a failure.
2. ``unresolved``: it has gold evidence, but its gold spans of grade above 0
   cover no character of the documents (the anchors were not found in this
   parse, or its offsets lie past a document's end or in a document not
   there: ``EvalItem.unplaced``): a data problem.
3. ``hit``: a chunk graded above 0 in the configuration's qrels is in the top k,
   and the top k holds at least ``partial_threshold`` of the question's gold
   characters (gold spans of grade above 0, overlaps counted once).
4. ``partial``: a chunk graded above 0 is in the top k, but the top k holds less
   than ``partial_threshold`` of the gold characters: a sliver of the evidence.
5. ``split``: no single chunk of the configuration's chunking holds at least
   ``split_threshold`` of the question's gold characters: the evidence is
   scattered over chunks that each hold too little of it.
6. ``ranked_low``: a chunk graded above 0 is in the ranking, below rank k.
7. ``not_retrieved``: otherwise; nothing relevant in the ranking.

:func:`question_causes` works from plain inputs (the questions, one
configuration's chunks, run and qrels, and the documents) on columns, one
function per stage: the inputs checked and aligned (the run's rows with the
chunking by :func:`~contextgrid.evidence.run_waste.run_rows`, the alignment
:mod:`~contextgrid.evidence.run_waste` uses too), the gold each chunk holds, the
top k's share of the gold, the rules, then the signals of a miss and what would
have fixed it. :func:`contextgrid.workspace.causes.failure_causes` runs it for
every configuration of a workspace.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from contextgrid.analysis.word_sets import Vocabulary, set_sizes, shared_counts
from contextgrid.core.checks import check_fraction, check_k
from contextgrid.core.errors import ContextGridError, UnknownConfigurationError, parameter_error
from contextgrid.core.text import words
from contextgrid.data.chunk_checks import checked_chunks, checked_items
from contextgrid.data.records import Chunk, EvalItem
from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.evidence.run_waste import GoldColumns, RunRows, chunk_gold, gold_columns, question_waste, run_rows

__all__ = [
    "CAUSES",
    "CAUSE_COLUMNS",
    "CAUSE_DTYPE",
    "DILUTION_THRESHOLD",
    "REPEAT_THRESHOLD",
    "STOP_WORDS",
    "Analyzer",
    "CauseOracle",
    "cause_counts",
    "cause_oracle",
    "cause_transitions",
    "check_split_threshold",
    "configurations_with",
    "content_words",
    "explain_cause",
    "question_causes",
    "transition_sentence",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

Analyzer = Callable[[str], Iterable[str]]
"""A lexical retriever's analyzer: a text to its terms (:class:`contextgrid.index.bm25.Analyzer` is one)."""

CAUSES = ("no_gold", "unresolved", "hit", "partial", "split", "ranked_low", "not_retrieved")
"""The causes in rule order: the first rule that applies to a question names its cause."""

CAUSE_DTYPE = pd.CategoricalDtype(list(CAUSES), ordered=True)
"""The ``cause`` column's dtype: an ordered categorical over :data:`CAUSES`, so sorting follows the rules."""

CAUSE_COLUMNS = (
    "question",
    "cause",
    "first_relevant_rank",
    "best_chunk_share",
    "vocabulary_gap",
    "distractor",
    "distractor_rank",
    "distractor_similarity",
    "gold_share_of_top_k",
    "gold_recall_at_k",
    "retrieved",
    "gold_density",
    "diluted",
    "distractors",
    "smallest_k",
    "smallest_budget",
)
"""The columns of :func:`question_causes`, in order."""

DILUTION_THRESHOLD = 0.25
"""A miss is ``diluted`` when gold is less than this share of the characters of the chunk holding most of it."""

REPEAT_THRESHOLD = 0.8
"""A chunk whose content words have at least this Jaccard similarity with the gold passage's nearly repeats it."""

_STOP_WORDS = """
    a about above after again against all am an and any are as at be because been before being below between
    both but by can could did do does doing down during each few for from further had has have having he her here
    hers herself him himself his how i if in into is it its itself just may me might more most must my myself no
    nor not now of off on once only or other our ours ourselves out over own same shall she should so some such
    than that the their theirs them themselves then there these they this those through to too under until up
    upon us very was we were what when where which while who whom why will with would you your yours yourself
    yourselves i'm i've i'd i'll you're you've we're we've they're it's don't doesn't didn't can't won't isn't
    aren't wasn't weren't
    """

STOP_WORDS = frozenset(_STOP_WORDS.split())
"""Words too common to tell passages apart; :func:`content_words` leaves them out (compared lowercased)."""

_NONE = np.iinfo(np.int64).max
"""The rank of a relevant chunk a ranking does not hold: below every real rank."""


def content_words(text: str) -> frozenset[str]:
    """The words of ``text`` by the library's word rule (lowercased runs of letters and digits,
    apostrophes inside a word kept, citation markers dropped), minus :data:`STOP_WORDS`.

    Examples
    --------
    >>> sorted(content_words("How long do I have to return it? Returns take 45 days."))
    ['45', 'days', 'long', 'return', 'returns', 'take']
    """
    return words(text) - STOP_WORDS


def check_split_threshold(value: object, *, function: str, parameter: str = "split_threshold") -> float:
    """Return ``value`` as a float, or raise if it is not a fraction in (0, 1].

    Examples
    --------
    >>> check_split_threshold(0.5, function="f")
    0.5
    >>> check_split_threshold(0, function="f")
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.InvalidParameterError: The 'split_threshold' parameter of f must be a number in (0, 1]...
    """
    return check_fraction(value, function=function, parameter=parameter, low_open=True)


# -- stage 1: the inputs checked and aligned ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Inputs:
    """The questions and the chunking, with their ids as indexes (positions shared by every later array)."""

    questions: tuple[EvalItem, ...]
    chunking: tuple[Chunk, ...]
    ids: pd.Index
    chunk_ids: pd.Index

    @property
    def width(self) -> int:
        """The multiplier of a (question, chunk) key: ``question * width + chunk``."""
        return max(len(self.chunking), 1)


def _inputs(items: Iterable[EvalItem], chunks: Mapping[str, Chunk] | Iterable[Chunk], function: str) -> _Inputs:
    questions = checked_items(items, function=function)
    chunking = checked_chunks(chunks, function=function)
    return _Inputs(
        questions,
        chunking,
        pd.Index([item.id for item in questions], dtype=object),
        pd.Index([chunk.id for chunk in chunking], dtype=object),
    )


@dataclass(frozen=True, slots=True)
class _Ranking:
    """The whole ranking's rows (:class:`RunRows`), which are relevant, and per question the first relevant
    rank (:data:`_NONE` for none) and how many chunks were retrieved."""

    rows: RunRows
    relevant: BoolArray
    first: IntArray
    depth: IntArray

    @property
    def ranked(self) -> BoolArray:
        return self.first < _NONE


def _ranking(inputs: _Inputs, ranking: RunTable, judged: QrelsTable, function: str) -> _Ranking:
    n = len(inputs.questions)
    rows = run_rows(ranking, inputs.ids, inputs.chunk_ids, None, function)
    # Relevant rows: (question, chunk) graded above 0. A judged chunk outside the chunking is never ranked.
    starts: IntArray = np.asarray(judged.starts, dtype=np.int64)
    judged_item = np.repeat(
        inputs.ids.get_indexer(pd.Index(judged.question_ids, dtype=object)).astype(np.int64), starts[1:] - starts[:-1]
    )
    judged_chunk = inputs.chunk_ids.get_indexer(
        pd.Index(np.asarray(judged.table.column("chunk_id").to_numpy(zero_copy_only=False), dtype=object))
    ).astype(np.int64)
    graded = (judged_item >= 0) & (judged_chunk >= 0) & (np.asarray(judged.table.column("grade").to_numpy()) > 0)
    width = inputs.width
    relevant = np.isin(rows.item * width + rows.chunk, judged_item[graded] * width + judged_chunk[graded])
    first = np.full(n, _NONE, dtype=np.int64)
    np.minimum.at(first, rows.item[relevant], rows.rank[relevant])
    depth = np.bincount(rows.item, minlength=n).astype(np.int64)
    return _Ranking(rows, relevant, first, depth)


# -- stage 2: the gold and what each chunk holds of it ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Gold:
    """The merged gold (:class:`GoldColumns`, over the questions that have any), ``owner`` each of its questions'
    position among all the questions, and per question: gold characters, whether it has gold evidence at all,
    and the chunk holding the most of its gold (-1 for none) with what it holds."""

    columns: GoldColumns
    owner: IntArray
    characters: IntArray
    evidence: BoolArray
    best_chunk: IntArray
    best_held: IntArray

    @property
    def resolved(self) -> BoolArray:
        return self.characters > 0

    @property
    def share(self) -> FloatArray:
        """The best chunk's share of the gold, NaN where there is none."""
        share: FloatArray = np.divide(
            self.best_held, self.characters, out=np.full(len(self.characters), np.nan), where=self.resolved
        )
        return share


def _gold(inputs: _Inputs, documents: Mapping[str, str], function: str) -> _Gold:
    n = len(inputs.questions)
    merged = gold_columns(inputs.questions, function)
    owner = inputs.ids.get_indexer(merged.ids).astype(np.int64)
    elsewhere = next((i for i, span in enumerate(merged.spans) if span.doc_id not in documents), None)
    if elsewhere is not None:
        raise ContextGridError(
            f"{function}: question {merged.ids[merged.item[elsewhere]]!r} has gold evidence in document "
            f"{merged.spans[elsewhere].doc_id!r}, which is not among the documents given"
        )
    characters = np.zeros(n, dtype=np.int64)
    characters[owner] = merged.total
    evidence = np.fromiter(
        (
            any(g.grade > 0 for g in (*item.gold, *item.unplaced)) or any(a.grade > 0 for a in item.anchors)
            for item in inputs.questions
        ),
        dtype=np.bool_,
        count=len(inputs.questions),
    )
    held = chunk_gold(merged, [chunk.span for chunk in inputs.chunking])
    # The best chunk: most gold held, ties to the first in the chunking.
    question, chunk = owner[held.keys // inputs.width], held.keys % inputs.width
    order = np.lexsort((chunk, -held.held, question))
    firsts = order[np.unique(question[order], return_index=True)[1]]
    best_chunk = np.full(n, -1, dtype=np.int64)
    best_held = np.zeros(n, dtype=np.int64)
    best_chunk[question[firsts]] = chunk[firsts]
    best_held[question[firsts]] = held.held[firsts]
    return _Gold(merged, owner, characters, evidence, best_chunk, best_held)


# -- stage 3: the top k's share of the gold --------------------------------------------------------------------


def _top_k(inputs: _Inputs, gold: _Gold, ranking: RunTable, cutoff: int) -> tuple[FloatArray, FloatArray]:
    """Per question, the share of its gold characters the top k holds (character recall) and the share of
    the top k's distinct characters that is gold (character precision); NaN for questions without gold."""
    n = len(inputs.questions)
    recall, precision = np.full(n, np.nan), np.full(n, np.nan)
    waste = question_waste(gold.columns, ranking, inputs.chunking, cutoff)
    recall[gold.owner] = waste["character_recall"].to_numpy()
    precision[gold.owner] = waste["character_precision"].to_numpy()
    return recall, precision


# -- stage 4: the rules ----------------------------------------------------------------------------------------


def _rules(gold: _Gold, found: _Ranking, recall: FloatArray, cutoff: int, split: float, partial: float) -> IntArray:
    """Each question's cause as its position in :data:`CAUSES`: the first rule that applies."""
    in_top = found.ranked & (found.first <= cutoff)
    enough = np.nan_to_num(recall) >= partial
    return np.select(
        [~gold.evidence, ~gold.resolved, in_top & enough, in_top, gold.share < split, found.ranked],
        [0, 1, 2, 3, 4, 5],
        default=6,
    ).astype(np.int64)


# -- stage 5: the signals of a miss ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Signals:
    gap: BoolArray
    gap_known: BoolArray
    density: FloatArray
    distractors: IntArray
    closest: IntArray
    closest_rank: IntArray
    closest_similarity: FloatArray


def _passages(inputs: _Inputs, gold: _Gold, documents: Mapping[str, str], chosen: IntArray) -> list[list[str]]:
    """The text of each chosen question's merged gold spans (resolved questions only)."""
    texts: list[list[str]] = [[] for _ in range(len(inputs.questions))]
    columns = gold.columns
    for span, question in zip(columns.spans, gold.owner[columns.item], strict=True):
        texts[question].append(documents[span.doc_id][span.start : span.end])
    return [texts[i] for i in chosen]


def _lexical_gap(
    inputs: _Inputs, passages: list[list[str]], explained: IntArray, analyzer: Analyzer | None
) -> tuple[BoolArray, BoolArray]:
    """Per question, whether no term of the question (by the retriever's own ``analyzer``) is a term of its gold
    passage, and whether that was asked (a miss of a lexical retriever)."""
    n = len(inputs.questions)
    gap, known = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    if analyzer is None or not len(explained):
        return gap, known
    vocabulary = Vocabulary()
    question_terms = vocabulary.code([analyzer(inputs.questions[i].question) for i in explained])
    passage_terms = vocabulary.code([[term for text in texts for term in analyzer(text)] for texts in passages])
    positions = np.arange(len(explained), dtype=np.int64)
    shared = shared_counts(question_terms, positions, passage_terms, positions, vocabulary.size)
    gap[explained] = shared == 0
    known[explained] = True
    return gap, known


def _signals(
    inputs: _Inputs,
    gold: _Gold,
    found: _Ranking,
    documents: Mapping[str, str],
    explained: IntArray,
    analyzer: Analyzer | None,
    repeat: float,
) -> _Signals:
    """The lexical gap, dilution and distractors of the questions of ``explained`` (ranked_low, not_retrieved)."""
    n = len(inputs.questions)
    passages = _passages(inputs, gold, documents, explained)
    gap, gap_known = _lexical_gap(inputs, passages, explained, analyzer)

    # Dilution: the gold's share of the chunk that holds the most of it.
    density = np.full(n, np.nan)
    best = gold.best_chunk[explained]
    lengths = np.array([len(inputs.chunking[c].span) for c in best], dtype=np.int64)
    density[explained] = np.divide(gold.best_held[explained], lengths, out=np.zeros(len(best)), where=lengths > 0)

    # Distractors: rows above the first relevant rank (the whole ranking when there is none).
    rows = found.rows
    is_explained = np.zeros(n, dtype=bool)
    is_explained[explained] = True
    candidate = np.flatnonzero(is_explained[rows.item] & (rows.rank < found.first[rows.item]))
    row_item, row_chunk, row_rank = rows.item[candidate], rows.chunk[candidate], rows.rank[candidate]
    seen, row_seen = np.unique(np.concatenate([row_chunk, best]), return_inverse=True)
    row_seen, best_seen = row_seen[: len(candidate)], row_seen[len(candidate) :]
    local = np.full(n, -1, dtype=np.int64)
    local[explained] = np.arange(len(explained), dtype=np.int64)
    vocabulary = Vocabulary()
    chunk_words = vocabulary.code([content_words(inputs.chunking[c].text) for c in seen])
    passage_words = vocabulary.code([frozenset().union(*map(content_words, texts)) for texts in passages])
    question_words = vocabulary.code([content_words(inputs.questions[i].question) for i in explained])
    size = vocabulary.size
    row_question = local[row_item]
    with_gold = shared_counts(chunk_words, row_seen, passage_words, row_question, size)
    with_question = shared_counts(chunk_words, row_seen, question_words, row_question, size)
    gold_with_question = shared_counts(chunk_words, best_seen, question_words, np.arange(len(explained)), size)
    either = set_sizes(chunk_words, len(seen))[row_seen] + set_sizes(passage_words, len(explained))[row_question]
    either = either - with_gold
    similarity = np.divide(with_gold, either, out=np.zeros(len(candidate)), where=either > 0)
    distracting = (with_question > gold_with_question[row_question]) | (similarity >= repeat)
    distractors = np.bincount(row_item[distracting], minlength=n).astype(np.int64)

    # The closest to the gold passage: highest similarity, ties to the better rank; sharing no word is no distractor.
    close = np.flatnonzero(with_gold > 0)
    order = close[np.lexsort((row_rank[close], -similarity[close], row_item[close]))]
    chosen = order[np.unique(row_item[order], return_index=True)[1]]
    closest = np.full(n, -1, dtype=np.int64)
    closest_rank = np.zeros(n, dtype=np.int64)
    closest_similarity = np.zeros(n)
    closest[row_item[chosen]] = row_chunk[chosen]
    closest_rank[row_item[chosen]] = row_rank[chosen]
    closest_similarity[row_item[chosen]] = similarity[chosen]
    return _Signals(gap, gap_known, density, distractors, closest, closest_rank, closest_similarity)


# -- stage 6: what would have fixed it -------------------------------------------------------------------------


def _smallest_budget(inputs: _Inputs, found: _Ranking) -> IntArray:
    """Per question, the characters of its ranking down to the first relevant chunk (each chunk's text length,
    repeats included): the smallest context budget at which it is a hit, by the rule of
    :mod:`contextgrid.analysis.budget` (a budget takes the ranking's longest prefix that fits)."""
    rows = found.rows
    lengths = np.fromiter((len(chunk.text) for chunk in inputs.chunking), dtype=np.int64, count=len(inputs.chunking))
    cost = lengths[rows.chunk]
    total = np.cumsum(cost)
    starts = np.searchsorted(rows.item, rows.item, side="left")
    before = np.where(starts > 0, total[np.maximum(starts - 1, 0)], 0)
    running = total - before
    smallest = np.full(len(inputs.questions), _NONE, dtype=np.int64)
    np.minimum.at(smallest, rows.item[found.relevant], running[found.relevant])
    return smallest


# -- the whole -------------------------------------------------------------------------------------------------


def _threshold(value: object, function: str, parameter: str) -> float:
    return check_split_threshold(value, function=function, parameter=parameter)


def question_causes(
    items: Iterable[EvalItem],
    chunks: Mapping[str, Chunk] | Iterable[Chunk],
    run: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Mapping[str, int]],
    documents: Mapping[str, str],
    *,
    k: int = 5,
    split_threshold: float = 0.5,
    partial_threshold: float = 0.5,
    analyzer: Analyzer | None = None,
    dilution_threshold: float = DILUTION_THRESHOLD,
    repeat_threshold: float = REPEAT_THRESHOLD,
) -> pd.DataFrame:
    """The cause of each question's failure (or success) under one configuration, with its signals.

    Parameters
    ----------
    items : iterable of EvalItem
        The questions, resolved against ``documents``; one row each, in this order.
    chunks : mapping of id to Chunk, or iterable of Chunk
        The configuration's chunking; every chunk the run returns for one of
        ``items`` must be here.
    run : mapping
        ``{question_id: [chunk_id, ...]}`` best first (a :class:`~contextgrid.data.tables.RunTable` too).
        A question it does not answer has an empty ranking.
    qrels : mapping
        ``{question_id: {chunk_id: grade}}`` (a :class:`~contextgrid.data.tables.QrelsTable` too);
        a chunk is relevant when graded above 0.
    documents : mapping
        ``{doc_id: text}``: the gold passages' text, for the word signals.
    k : int, keyword-only
        The cut-off, at least 1.
    split_threshold : float, keyword-only
        The share of the gold one chunk must hold for the question not to be
        ``split``, in (0, 1]; a chunk holding exactly this share is enough.
    partial_threshold : float, keyword-only
        The share of the gold the top k must hold for a question with a
        relevant chunk in the top k to be a ``hit`` rather than ``partial``, in (0, 1].
    analyzer : callable, keyword-only
        The configuration's retriever's analyzer (text to terms) when it is
        lexical (BM25, or hybrid's BM25 part): it decides the lexical gap.
        ``None`` (a retriever that does not match words) leaves
        ``vocabulary_gap`` missing.
    dilution_threshold, repeat_threshold : float, keyword-only
        The rules of ``diluted`` and of a distractor that repeats the gold, in (0, 1].

    Returns
    -------
    pandas.DataFrame
        One row per item, columns :data:`CAUSE_COLUMNS`:

        - ``question``: the id.
        - ``cause``: of :data:`CAUSES` by the rules of this module, dtype :data:`CAUSE_DTYPE`.
        - ``first_relevant_rank``: the rank of the first chunk graded above 0
          anywhere in the ranking; missing when there is none.
        - ``best_chunk_share``: the largest share of the question's gold
          characters that one chunk of ``chunks`` holds, retrieved or not;
          missing for ``no_gold`` and ``unresolved``.
        - ``vocabulary_gap`` (``ranked_low`` and ``not_retrieved`` of a lexical
          retriever only): the lexical gap, true when no term of the question
          (by ``analyzer``) is a term of the gold passage (the text of each of
          the question's merged gold spans, together).
        - ``distractor``, ``distractor_rank``, ``distractor_similarity``
          (``ranked_low`` and ``not_retrieved`` only): of the chunks ranked
          above the first relevant one (for ``not_retrieved``, the whole
          ranking), the one whose content words (:func:`content_words`) are
          closest to the gold passage's, its rank and the Jaccard similarity
          (shared words over the words of either). Ties go to the better rank;
          a chunk sharing no content word with the gold is no distractor.
        - ``gold_share_of_top_k`` (``hit`` and ``partial``): the share of the
          top-k chunks' distinct characters that is gold (their character precision).
        - ``gold_recall_at_k`` (``hit`` and ``partial``): the share of the
          question's gold characters the top k holds; ``partial`` is below
          ``partial_threshold``.
        - ``retrieved``: how many chunks the ranking holds (every row).
        - ``gold_density``, ``diluted`` (``ranked_low`` and ``not_retrieved``):
          the gold's share of the characters of the chunk holding the most
          of it (ties to the first in ``chunks``), and whether it is below
          ``dilution_threshold``.
        - ``distractors`` (``ranked_low`` and ``not_retrieved``): how many
          chunks ranked above the first relevant one share more content words
          with the question than the chunk holding the most gold does, or
          nearly repeat the gold passage (similarity at least ``repeat_threshold``).
        - ``smallest_k``, ``smallest_budget`` (``split``, ``ranked_low``: every
          miss with a relevant chunk in the ranking): the smallest k at which
          it would be a hit (the first relevant rank) and the smallest context
          budget in characters (the texts of the ranking down to that chunk).

        A signal that does not apply to a row's cause is missing (``<NA>``), never 0.

    Examples
    --------
    >>> import contextgrid as cg
    >>> from contextgrid.analysis.causes import question_causes
    >>> documents = {"d": "Refunds take 30 days. Shipping is free over $50. Returns need a receipt."}
    >>> chunks = [cg.Chunk(f"d#{i}", cg.Span("d", a, b), documents["d"][a:b]) for i, (a, b) in
    ...           enumerate([(0, 22), (22, 49), (49, 73)])]
    >>> items = [
    ...     cg.EvalItem("q1", "How long do refunds take?", (cg.GoldSpan(cg.Span("d", 0, 21)),)),
    ...     cg.EvalItem("q2", "What does a return require?", (cg.GoldSpan(cg.Span("d", 49, 73)),)),
    ...     cg.EvalItem("q3", "Who founded the company?"),
    ... ]
    >>> qrels = {"q1": {"d#0": 2}, "q2": {"d#2": 2}}
    >>> run = {"q1": ["d#0", "d#1"], "q2": ["d#1", "d#0", "d#2"]}
    >>> frame = question_causes(items, chunks, run, qrels, documents, k=2)
    >>> shown = ["question", "cause", "first_relevant_rank", "smallest_k", "smallest_budget"]
    >>> print(frame[shown].to_string(index=False))
    question      cause  first_relevant_rank  smallest_k  smallest_budget
          q1        hit                    1        <NA>             <NA>
          q2 ranked_low                    3           3               72
          q3    no_gold                 <NA>        <NA>             <NA>
    >>> frame["gold_share_of_top_k"].round(3).tolist()
    [0.429, <NA>, <NA>]
    """
    function = "question_causes"
    cutoff = check_k(k, function=function)
    split = _threshold(split_threshold, function, "split_threshold")
    partial = _threshold(partial_threshold, function, "partial_threshold")
    dilution = _threshold(dilution_threshold, function, "dilution_threshold")
    repeat = _threshold(repeat_threshold, function, "repeat_threshold")
    if analyzer is not None and not callable(analyzer):
        raise parameter_error(function, "analyzer", "None or a callable from text to terms", analyzer)
    inputs = _inputs(items, chunks, function)
    ranking, judged = RunTable.from_dict(run), QrelsTable.from_dict(qrels)
    gold = _gold(inputs, documents, function)
    found = _ranking(inputs, ranking, judged, function)
    recall, precision = _top_k(inputs, gold, ranking, cutoff)
    code = _rules(gold, found, recall, cutoff, split, partial)

    explained = np.flatnonzero(code >= CAUSES.index("ranked_low"))
    signals = _signals(inputs, gold, found, documents, explained, analyzer, repeat)
    is_explained = np.zeros(len(code), dtype=bool)
    is_explained[explained] = True
    in_top = (code == CAUSES.index("hit")) | (code == CAUSES.index("partial"))
    fixable = (code >= CAUSES.index("split")) & found.ranked
    budget = _smallest_budget(inputs, found)
    has_closest = signals.closest >= 0
    closest = np.full(len(code), None, dtype=object)
    closest[has_closest] = np.asarray(inputs.chunk_ids, dtype=object)[signals.closest[has_closest]]
    return pd.DataFrame(
        {
            "question": pd.array(list(inputs.ids), dtype=object),
            "cause": pd.Categorical.from_codes(code, dtype=CAUSE_DTYPE),
            "first_relevant_rank": pd.arrays.IntegerArray(np.where(found.ranked, found.first, 0), ~found.ranked),
            "best_chunk_share": pd.arrays.FloatingArray(np.nan_to_num(gold.share), ~gold.resolved),
            "vocabulary_gap": pd.arrays.BooleanArray(signals.gap, ~signals.gap_known),
            "distractor": pd.array(list(closest), dtype="string"),
            "distractor_rank": pd.arrays.IntegerArray(signals.closest_rank, ~has_closest),
            "distractor_similarity": pd.arrays.FloatingArray(signals.closest_similarity, ~has_closest),
            "gold_share_of_top_k": pd.arrays.FloatingArray(np.nan_to_num(precision), ~in_top),
            "gold_recall_at_k": pd.arrays.FloatingArray(np.nan_to_num(recall), ~in_top),
            "retrieved": pd.array(found.depth, dtype="Int64"),
            "gold_density": pd.arrays.FloatingArray(np.nan_to_num(signals.density), ~is_explained),
            "diluted": pd.arrays.BooleanArray(np.nan_to_num(signals.density) < dilution, ~is_explained),
            "distractors": pd.arrays.IntegerArray(signals.distractors, ~is_explained),
            "smallest_k": pd.arrays.IntegerArray(np.where(fixable, found.first, 0), ~fixable),
            "smallest_budget": pd.arrays.IntegerArray(np.where(fixable, budget, 0), ~fixable),
        }
    )


def cause_counts(table: pd.DataFrame) -> pd.DataFrame:
    """Questions per configuration and cause: index ``config`` (in the order of ``table``), one column per
    cause of :data:`CAUSES` in rule order, zeros included.

    ``table`` has a ``config`` and a ``cause`` column, as
    :func:`contextgrid.workspace.causes.failure_causes` returns.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.analysis.causes import cause_counts
    >>> table = pd.DataFrame({"config": ["b", "b", "a"], "cause": ["hit", "split", "hit"]})
    >>> cause_counts(table)
    cause   no_gold  unresolved  hit  partial  split  ranked_low  not_retrieved
    config
    b             0           0    1        0      1           0              0
    a             0           0    1        0      0           0              0
    """
    absent = [column for column in ("config", "cause") if column not in table.columns]
    if absent:
        raise ContextGridError(
            f"cause_counts: the table has no {' or '.join(map(repr, absent))} column. Available: "
            f"{', '.join(map(str, table.columns))}"
        )
    known = table["cause"].isin(CAUSES)
    if not known.all():
        unknown = sorted(set(table["cause"][~known].astype(str)))
        raise ContextGridError(f"cause_counts: unknown causes {unknown}. Known: {', '.join(CAUSES)}")
    causes = pd.Categorical(table["cause"], dtype=CAUSE_DTYPE)
    config_code, configs = pd.factorize(table["config"], sort=False)
    counts = np.bincount(config_code * len(CAUSES) + causes.codes, minlength=len(configs) * len(CAUSES))
    return pd.DataFrame(
        counts.reshape(len(configs), len(CAUSES)).astype(np.int64),
        index=pd.Index(list(configs), name="config", dtype=object),
        columns=pd.Index(list(CAUSES), name="cause"),
    )


def _columns(table: pd.DataFrame, needed: Sequence[str], function: str) -> None:
    absent = [column for column in needed if column not in table.columns]
    if absent:
        raise ContextGridError(
            f"{function}: the table has no {' or '.join(map(repr, absent))} column. Available: "
            f"{', '.join(map(str, table.columns))}"
        )


def configurations_with(table: pd.DataFrame, question: str, cause: str = "hit") -> list[str]:
    """The configurations of ``table`` (as :func:`contextgrid.workspace.causes.failure_causes` returns)
    under which ``question`` has ``cause``, in the order of ``table``: by default those that get it right.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.analysis.causes import configurations_with
    >>> table = pd.DataFrame({"config": ["a", "b", "c"], "question": ["q1"] * 3, "cause": ["split", "hit", "hit"]})
    >>> configurations_with(table, "q1")
    ['b', 'c']
    """
    _columns(table, ("config", "question", "cause"), "configurations_with")
    if cause not in CAUSES:
        raise ContextGridError(f"configurations_with: unknown cause {cause!r}. Known: {', '.join(CAUSES)}")
    chosen = (table["question"] == question) & (table["cause"] == cause)
    return [str(config) for config in dict.fromkeys(table.loc[chosen, "config"])]


@dataclass(frozen=True, slots=True)
class CauseOracle:
    """The questions each answered by its best configuration (:func:`cause_oracle` builds it).

    ``questions`` are the answerable ones (neither ``no_gold`` nor ``unresolved``), ``oracle`` how many of
    them some configuration makes a ``hit``, ``best`` how many the best single one does (``best_config``,
    the first in table order among equals; ``None`` for no configuration) and ``never_found`` the questions
    no configuration gets a relevant chunk into the top k for (neither ``hit`` nor ``partial`` anywhere).
    """

    questions: int
    oracle: int
    best: int
    best_config: str | None
    never_found: tuple[str, ...]

    def __post_init__(self) -> None:
        for name in ("questions", "oracle", "best"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise parameter_error("CauseOracle", name, "a whole number, 0 or more", value)
        if not self.best <= self.oracle <= self.questions or len(self.never_found) > self.questions - self.oracle:
            raise ContextGridError(
                f"CauseOracle: expected best <= oracle <= questions and at most questions - oracle never found, got "
                f"best={self.best}, oracle={self.oracle}, questions={self.questions}, "
                f"never_found={len(self.never_found)}"
            )

    def sentence(self, k: int, *, limit: int = 10) -> str:
        """The oracle in words, naming at most ``limit`` of the questions no configuration finds.

        Examples
        --------
        >>> CauseOracle(10, 8, 6, "bm25", ("q9",)).sentence(5)
        'Each question answered by its best configuration: 8 of 10 answerable questions find gold in the top 5 \
(80%), against 6 (60%) for the best single configuration, bm25; 1 question no configuration finds: q9.'
        >>> CauseOracle(10, 7, 6, "bm25", ("q1", "q2", "q3")).sentence(5, limit=2).split("; ")[1]
        '3 questions no configuration finds: q1, q2 and 1 more.'
        """
        if not self.questions:
            return "No answerable question: none has gold evidence found in the documents."
        never = len(self.never_found)
        missed = (
            "every question is found by some configuration"
            if not never
            else f"{never} question{'s' if never != 1 else ''} no configuration finds: "
            + ", ".join(self.never_found[:limit])
            + (f" and {never - limit} more" if never > limit else "")
        )
        best = "" if self.best_config is None else f", {self.best_config}"
        return (
            f"Each question answered by its best configuration: {self.oracle:,} of {self.questions:,} answerable "
            f"questions find gold in the top {k} ({self.oracle / self.questions:.0%}), against {self.best:,} "
            f"({self.best / self.questions:.0%}) for the best single configuration{best}; {missed}."
        )


def cause_oracle(table: pd.DataFrame) -> CauseOracle:
    """The oracle of a table of causes (``config``, ``question``, ``cause``, as
    :func:`contextgrid.workspace.causes.failure_causes` returns): each question answered by its best configuration.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.analysis.causes import cause_oracle
    >>> table = pd.DataFrame({"config": ["a"] * 3 + ["b"] * 3, "question": ["q1", "q2", "q3"] * 2,
    ...                       "cause": ["hit", "split", "no_gold", "ranked_low", "partial", "no_gold"]})
    >>> cause_oracle(table)
    CauseOracle(questions=2, oracle=1, best=1, best_config='a', never_found=())
    """
    _columns(table, ("config", "question", "cause"), "cause_oracle")
    known = table["cause"].isin(CAUSES)
    if not known.all():
        unknown = sorted(set(table["cause"][~known].astype(str)))
        raise ContextGridError(f"cause_oracle: unknown causes {unknown}. Known: {', '.join(CAUSES)}")
    code = pd.Categorical(table["cause"], dtype=CAUSE_DTYPE).codes.astype(np.int64)
    question_code, questions = pd.factorize(table["question"], sort=False)
    config_code, configs = pd.factorize(table["config"], sort=False)
    answerable = np.zeros(len(questions), dtype=bool)
    np.logical_or.at(answerable, question_code, code >= CAUSES.index("hit"))
    hit = code == CAUSES.index("hit")
    found = hit | (code == CAUSES.index("partial"))
    hit_any = np.bincount(question_code[hit], minlength=len(questions)) > 0
    found_any = np.bincount(question_code[found], minlength=len(questions)) > 0
    per_config = np.bincount(config_code[hit], minlength=len(configs))
    best = int(np.argmax(per_config)) if len(configs) else -1
    return CauseOracle(
        questions=int(answerable.sum()),
        oracle=int((hit_any & answerable).sum()),
        best=int(per_config[best]) if best >= 0 else 0,
        best_config=None if best < 0 else str(configs[best]),
        never_found=tuple(str(question) for question in questions[answerable & ~found_any]),
    )


def cause_transitions(table: pd.DataFrame, before: str, after: str) -> pd.DataFrame:
    """How the causes of the questions move from configuration ``before`` to ``after``.

    ``table`` has ``config``, ``question`` and ``cause`` columns, as
    :func:`contextgrid.workspace.causes.failure_causes` returns; questions
    either configuration lacks are left out.

    Returns
    -------
    pandas.DataFrame
        One row per pair of different causes that some question moved between:
        ``from`` (its cause under ``before``), ``to`` (under ``after``), ``count``
        and ``questions`` (their ids, a tuple in the order of ``table``). Largest
        count first, ties in the rule order of ``from``, then of ``to``. A
        question whose cause stays the same is in no row.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.analysis.causes import cause_transitions
    >>> table = pd.DataFrame({
    ...     "config": ["a"] * 4 + ["b"] * 4,
    ...     "question": ["q1", "q2", "q3", "q4"] * 2,
    ...     "cause": ["split", "split", "hit", "hit", "hit", "hit", "ranked_low", "hit"],
    ... })
    >>> cause_transitions(table, "a", "b")
        from          to  count questions
    0  split         hit      2  (q1, q2)
    1    hit  ranked_low      1     (q3,)
    """
    function = "cause_transitions"
    _columns(table, ("config", "question", "cause"), function)
    for name in (before, after):
        if not (table["config"] == name).any():
            known = ", ".join(map(str, dict.fromkeys(table["config"])))
            raise UnknownConfigurationError(
                f"{function}: no configuration named {name!r} in the table. Available: {known}"
            )
    if before == after:
        raise ContextGridError(f"{function}: compare two different configurations, got {before!r} twice")
    start = table.loc[table["config"] == before, ["question", "cause"]]
    end = table.loc[table["config"] == after, ["question", "cause"]]
    pairs = start.merge(end, on="question", suffixes=("_from", "_to"), sort=False)
    source = pd.Categorical(pairs["cause_from"], dtype=CAUSE_DTYPE).codes.astype(np.int64)
    target = pd.Categorical(pairs["cause_to"], dtype=CAUSE_DTYPE).codes.astype(np.int64)
    moved = source != target
    grouped: dict[tuple[int, int], list[str]] = {}
    for question, a, b in zip(pairs["question"][moved], source[moved], target[moved], strict=True):
        grouped.setdefault((int(a), int(b)), []).append(str(question))
    ordered = sorted(grouped.items(), key=lambda entry: (-len(entry[1]), entry[0]))
    return pd.DataFrame(
        {
            "from": pd.Categorical([CAUSES[a] for (a, _), _ in ordered], dtype=CAUSE_DTYPE),
            "to": pd.Categorical([CAUSES[b] for (_, b), _ in ordered], dtype=CAUSE_DTYPE),
            "count": pd.array([len(questions) for _, questions in ordered], dtype=np.int64),
            "questions": [tuple(questions) for _, questions in ordered],
        }
    )


def transition_sentence(transitions: pd.DataFrame, *, limit: int | None = None) -> str:
    """:func:`cause_transitions` in words, largest first: "37 questions went from split to hit, 4 from hit
    to ranked_low". ``limit`` keeps the first that many and counts the rest.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.analysis.causes import transition_sentence
    >>> moves = pd.DataFrame({"from": ["split", "hit", "hit"], "to": ["hit", "ranked_low", "split"],
    ...                       "count": [37, 4, 1]})
    >>> transition_sentence(moves)
    '37 questions went from split to hit, 4 from hit to ranked_low, 1 from hit to split.'
    >>> transition_sentence(moves, limit=1)
    '37 questions went from split to hit; 5 more moved in 2 other ways.'
    >>> transition_sentence(moves.iloc[:0])
    'No question changed cause.'
    """
    _columns(transitions, ("from", "to", "count"), "transition_sentence")
    rows = list(zip(transitions["from"], transitions["to"], transitions["count"], strict=True))
    if not rows:
        return "No question changed cause."
    shown = rows if limit is None else rows[: check_k(limit, function="transition_sentence", parameter="limit")]
    parts = [f"{int(count)} from {a} to {b}" for a, b, count in shown]
    first = shown[0]
    parts[0] = f"{int(first[2])} question{'s' if int(first[2]) != 1 else ''} went from {first[0]} to {first[1]}"
    rest = rows[len(shown) :]
    if not rest:
        return ", ".join(parts) + "."
    others = sum(int(count) for _, _, count in rest)
    return f"{', '.join(parts)}; {others} more moved in {len(rest)} other way{'s' if len(rest) != 1 else ''}."


def _ordinal(number: int) -> str:
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def _value(row: Mapping[str, object] | pd.Series, column: str) -> object:
    """The row's value under ``column``, ``None`` when it is absent or missing (``<NA>``, NaN)."""
    value = row.get(column)
    return None if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)) else value


def _number(row: Mapping[str, object] | pd.Series, column: str) -> float | None:
    value = _value(row, column)
    return None if value is None else float(value)  # type: ignore[arg-type]


def _fixes(row: Mapping[str, object] | pd.Series, elsewhere: Sequence[str], cutoff: int) -> list[str]:
    """What would have fixed a miss: a deeper k (and budget) for this configuration, other configurations."""
    said = []
    smallest = _number(row, "smallest_k")
    if smallest is not None:
        budget = _number(row, "smallest_budget")
        spent = "" if budget is None else f" (a context budget of {int(budget):,} characters)"
        said.append(f"this configuration would get it at k = {int(smallest)}{spent}")
    if elsewhere:
        shown = ", ".join(elsewhere[:3]) + (f" and {len(elsewhere) - 3} more" if len(elsewhere) > 3 else "")
        said.append(f"{shown} get{'s' if len(elsewhere) == 1 else ''} it right at k = {cutoff}")
    else:
        count = _number(row, "hit_elsewhere")
        if count:
            said.append(f"{int(count)} other configuration{'s' if count != 1 else ''} get it right at k = {cutoff}")
        elif count is not None:
            said.append(f"no other configuration gets it right at k = {cutoff}")
    return said


def _reasons(row: Mapping[str, object] | pd.Series, closest: str | None, above: str) -> list[str]:
    """The signals of a miss in words, each only where it applies (see :func:`question_causes`)."""
    said = []
    if _value(row, "vocabulary_gap") is True:
        said.append(
            "no word of the question, stemmed as this retriever stems it, is in the gold passage (a lexical gap: "
            "rephrase the question or add a dense retriever)"
        )
    density = _number(row, "gold_density")
    if _value(row, "diluted") is True and density is not None:
        said.append(
            f"the gold is only {density:.0%} of the chunk that holds it (diluted: smaller chunks would concentrate it)"
        )
    count = _number(row, "distractors")
    if count:
        said.append(
            f"{int(count)} chunk{'s' if count != 1 else ''} {above} share{'' if count != 1 else 's'} more of the "
            "question's words than the gold's chunk or nearly repeat the gold"
            + ("" if closest is None else f"; the closest to the gold is {closest}")
        )
    elif closest is not None:
        said.append(f"the chunk {above} closest to the gold is {closest}")
    return said


def explain_cause(
    row: Mapping[str, object] | pd.Series,
    *,
    k: int,
    split_threshold: float = 0.5,
    gold_chunk: str | None = None,
    partial_threshold: float = 0.5,
    elsewhere: Sequence[str] = (),
) -> str:
    """One sentence on what happened to a question, from its row of :func:`question_causes` (or of
    :func:`contextgrid.workspace.causes.failure_causes`) computed at ``k`` and the thresholds: the cause, the
    signals of a miss that apply to it, and what would have fixed it.

    ``gold_chunk`` names the first relevant chunk of the ranking (see
    :func:`contextgrid.analysis.questions.first_relevant_chunk`) and ``elsewhere`` the other configurations
    that get it right (see :func:`configurations_with`), which the row does not hold. The sentence is plain
    text: escape it for the markup it goes into.

    Examples
    --------
    >>> from contextgrid.analysis.causes import explain_cause
    >>> explain_cause({"cause": "ranked_low", "first_relevant_rank": 9, "retrieved": 20, "distractor": "faq.md#2",
    ...                "distractor_rank": 1, "distractor_similarity": 0.42, "distractors": 0, "smallest_k": 9,
    ...                "smallest_budget": 1800}, k=5, gold_chunk="returns-policy.md#14", elsewhere=["bm25-300"])
    'The gold passage is in returns-policy.md#14, ranked 9th of the 20 retrieved, below the top 5: the chunk \
above it closest to the gold is faq.md#2 (ranked 1st, 42% of content words shared). What would fix it: this \
configuration would get it at k = 9 (a context budget of 1,800 characters); bm25-300 gets it right at k = 5.'
    >>> explain_cause({"cause": "split", "best_chunk_share": 0.3, "first_relevant_rank": None}, k=5)
    'No single chunk holds half of the gold evidence (the best holds 30%): it is scattered over chunks too small \
for it, and no relevant chunk was retrieved.'
    >>> explain_cause({"cause": "partial", "first_relevant_rank": 2, "gold_recall_at_k": 0.1}, k=5)
    'A relevant chunk is ranked 2nd, within the top 5, but the top 5 holds only 10% of the gold evidence \
(less than half): a sliver of it.'
    """
    cutoff = check_k(k, function="explain_cause")
    threshold = check_split_threshold(split_threshold, function="explain_cause")
    partial = check_split_threshold(partial_threshold, function="explain_cause", parameter="partial_threshold")
    cause = _value(row, "cause")
    if cause not in CAUSES:
        raise ContextGridError(f"explain_cause: unknown cause {cause!r}. Known: {', '.join(CAUSES)}")
    rank = _number(row, "first_relevant_rank")
    depth = _number(row, "retrieved")
    where = "the first relevant chunk" if gold_chunk is None else f"the first relevant chunk, {gold_chunk},"
    of = "" if depth is None else f" of the {int(depth)} retrieved"
    ranked = "not retrieved" if rank is None else f"ranked {_ordinal(int(rank))}"
    distractor = _value(row, "distractor")
    closest = (
        None
        if distractor is None
        else f"{distractor} (ranked {_ordinal(int(_number(row, 'distractor_rank') or 0))}, "
        f"{_number(row, 'distractor_similarity') or 0.0:.0%} of content words shared)"
    )
    fixes = _fixes(row, elsewhere, cutoff)
    fixed = "" if not fixes else " What would fix it: " + "; ".join(fixes) + "."
    if cause == "no_gold":
        return "This question has no gold evidence, so there is nothing to retrieve: it is not a failure."
    if cause == "unresolved":
        return (
            "Its gold evidence was not found in the documents, so retrieval cannot be judged: fix the gold "
            "(the quote, the document id or the parse that lost it)."
        )
    if cause == "hit":
        share = _number(row, "gold_share_of_top_k")
        gold = "" if share is None else f"; {share:.0%} of the top-{cutoff} text is gold"
        first = "A relevant chunk" if gold_chunk is None else f"The first relevant chunk, {gold_chunk},"
        return f"{first} is {ranked}, within the top {cutoff}{gold}."
    if cause == "partial":
        held = _number(row, "gold_recall_at_k") or 0.0
        first = "A relevant chunk" if gold_chunk is None else f"The first relevant chunk, {gold_chunk},"
        part = "half" if partial == 0.5 else f"{partial:.0%}"
        return (
            f"{first} is {ranked}, within the top {cutoff}, but the top {cutoff} holds only {held:.0%} of the gold "
            f"evidence (less than {part}): a sliver of it.{fixed}"
        )
    if cause == "split":
        best = _number(row, "best_chunk_share") or 0.0
        part = "half" if threshold == 0.5 else f"{threshold:.0%}"
        found = ", and no relevant chunk was retrieved" if rank is None else f"; {where} is {ranked}{of}"
        return (
            f"No single chunk holds {part} of the gold evidence (the best holds {best:.0%}): it is scattered over "
            f"chunks too small for it{found}.{fixed}"
        )
    if cause == "ranked_low":
        passage = "The gold passage is" if gold_chunk is None else f"The gold passage is in {gold_chunk},"
        reasons = _reasons(row, closest, "above it") or ["no chunk above it shares a content word with the gold"]
        return f"{passage} {ranked}{of}, below the top {cutoff}: {'; '.join(reasons)}.{fixed}"
    reasons = _reasons(row, closest, "retrieved")
    top = "in the ranking" if depth is None else f"in the top {int(depth)} retrieved"
    because = "" if not reasons else ": " + "; ".join(reasons)
    return f"Nothing relevant {top}{because}.{fixed}"
