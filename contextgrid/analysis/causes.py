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
function per stage: the questions and the chunking prepared (the gold merged,
what each chunk holds of it, the content words of questions, gold passages and
chunks coded as word sets), the run's rows aligned with the chunking by
:func:`~contextgrid.evidence.run_waste.run_rows` (the alignment
:mod:`~contextgrid.evidence.run_waste` uses too), the top k's share of the gold,
the rules, then the signals of a miss and what would have fixed it. The
preparing is what configurations share: :func:`cause_questions` once for all of
them, :func:`cause_chunking` once per chunking, :func:`lexical_gaps` once per
analyzer, their records passed to :func:`question_causes` in place of the plain
inputs; :func:`contextgrid.workspace.causes.failure_causes` does so for every
configuration of a workspace. Counting the configurations that get a question right
needs only whether each makes it a ``hit``: :func:`question_hits` reads that from the
top k alone, with each qrels prepared once per chunking by :func:`cause_qrels`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from contextgrid.analysis.word_sets import (
    Vocabulary,
    WordSets,
    set_sizes,
    shared_counts,
    shared_with_keys,
)
from contextgrid.core.checks import check_fraction, check_k
from contextgrid.core.errors import ContextGridError, UnknownConfigurationError, parameter_error
from contextgrid.core.text import CITATION, tokenize, words
from contextgrid.data.chunk_checks import checked_items
from contextgrid.data.keys import distinct_pairs, find_sorted
from contextgrid.data.records import Chunk, EvalItem
from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.data.words import word_rows
from contextgrid.evidence.run_waste import (
    ChunkingGold,
    GoldColumns,
    RunRows,
    gold_columns,
    laid_out,
    question_waste,
    ranked_evidence,
    rows_evidence,
    run_rows,
)

if TYPE_CHECKING:
    from contextgrid.index.bm25 import Analyzer as BM25Analyzer

__all__ = [
    "CAUSES",
    "CAUSE_COLUMNS",
    "CAUSE_DTYPE",
    "DILUTION_THRESHOLD",
    "REPEAT_THRESHOLD",
    "STOP_WORDS",
    "Analyzer",
    "CauseChunking",
    "CauseOracle",
    "CauseQrels",
    "CauseQuestions",
    "LexicalGaps",
    "cause_chunking",
    "cause_counts",
    "cause_oracle",
    "cause_qrels",
    "cause_questions",
    "cause_transitions",
    "check_split_threshold",
    "configurations_with",
    "content_words",
    "explain_cause",
    "lexical_gaps",
    "question_causes",
    "question_causes_only",
    "question_hits",
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


# -- stage 1: the questions and the chunking, prepared once for many configurations ---------------------------


def _content(code: IntArray, found: pd.Index) -> BoolArray:
    """Whether each word code of ``found`` is of a content word (:func:`content_words`: not in :data:`STOP_WORDS`)."""
    if not len(code):
        return np.zeros(0, dtype=bool)
    content: BoolArray = ~np.asarray(found.isin(list(STOP_WORDS)), dtype=bool)[code]
    return content


def _content_rows(texts: list[str]) -> tuple[IntArray, IntArray, pd.Index]:
    """Each distinct content word (:func:`content_words`) of each text: the text's position and the word's code,
    sorted by text, then code, and the words the codes index (stopwords among them, with no row)."""
    text, code, found = word_rows(texts)
    content = _content(code, found)
    return text[content], code[content], found


@dataclass(frozen=True, slots=True)
class CauseQuestions:
    """The questions as every configuration explaining them shares them (:func:`cause_questions` builds it).

    ``questions`` are checked, ``ids`` their ids; ``gold`` their merged gold
    (:class:`~contextgrid.evidence.run_waste.GoldColumns`, over the questions
    that have any) and ``owner`` each of its questions' position among
    ``questions``. Per question: ``characters`` of gold, ``evidence`` (whether
    it has gold evidence at all) and ``passages`` (the text of each merged gold
    span). ``question_words`` and ``passage_words`` are the content words
    (:func:`content_words`) of each question and of its gold passage as word
    sets (see :mod:`~contextgrid.analysis.word_sets`) coded by ``vocabulary``:
    found when first read, as only the signals of a miss read them (counting
    causes or hits does not).
    """

    questions: tuple[EvalItem, ...]
    ids: pd.Index
    gold: GoldColumns
    owner: IntArray
    characters: IntArray
    evidence: BoolArray
    passages: tuple[tuple[str, ...], ...]
    _words: dict[str, object] = field(default_factory=dict, init=False, repr=False, compare=False)
    """The words, found when first read (:meth:`word_rows`, :meth:`word_sets`)."""

    def __post_init__(self) -> None:
        n = len(self.questions)
        if not len(self.ids) == len(self.characters) == len(self.evidence) == len(self.passages) == n:
            raise parameter_error("CauseQuestions", "ids", f"one id, count and passage per question ({n})", self.ids)
        if len(self.owner) != len(self.gold.items):
            raise parameter_error("CauseQuestions", "owner", "one position per question with gold", self.owner)

    def texts(self) -> list[str]:
        """The questions, then their passages in order: the texts whose words :meth:`word_rows` finds."""
        return [item.question for item in self.questions] + [text for each in self.passages for text in each]

    def word_rows(self) -> tuple[IntArray, IntArray, pd.Index]:
        """Each distinct word of each of :meth:`texts` (:func:`~contextgrid.data.words.word_rows`, citation markers
        left out): the text's position, the word's code, and the words. Found once, when first asked for."""
        rows = self._words.get("rows")
        if rows is None:
            # setdefault: of two threads finding them at once, both keep the first one's.
            rows = self._words.setdefault("rows", word_rows(self.texts()))
        return rows  # type: ignore[return-value]

    def passage_question(self) -> IntArray:
        """The question of each passage, in the order of :meth:`word_rows`' texts after the questions."""
        counts = [len(each) for each in self.passages]
        return np.repeat(np.arange(len(self.passages), dtype=np.int64), counts)

    def word_sets(self) -> tuple[pd.Index, WordSets, WordSets]:
        """``vocabulary``, ``question_words`` and ``passage_words``, found once, when first asked for."""
        content = self._words.get("content")
        if content is None:
            n = len(self.questions)
            text, code, vocabulary = self.word_rows()
            kept = _content(code, vocabulary)
            text, code = text[kept], code[kept]
            asked = text < n
            # A passage's words are its question's.
            passage_words = distinct_pairs(self.passage_question()[text[~asked] - n], code[~asked], len(vocabulary))
            content = self._words.setdefault("content", (vocabulary, (text[asked], code[asked]), passage_words))
        return content  # type: ignore[return-value]

    @property
    def vocabulary(self) -> pd.Index:
        """The words :meth:`word_rows` found (stopwords among them), which ``question_words`` and
        ``passage_words`` code."""
        return self.word_sets()[0]

    @property
    def question_words(self) -> WordSets:
        """Each question's content words, a word set per question."""
        return self.word_sets()[1]

    @property
    def passage_words(self) -> WordSets:
        """Each question's gold passage's content words, a word set per question."""
        return self.word_sets()[2]

    @property
    def size(self) -> int:
        """The multiplier of a (set, word) key (:func:`~contextgrid.analysis.word_sets.set_keys`)."""
        return max(len(self.vocabulary), 1)


def cause_questions(
    items: Iterable[EvalItem],
    documents: Mapping[str, str],
    *,
    gold: GoldColumns | None = None,
    function: str = "cause_questions",
) -> CauseQuestions:
    """``items`` prepared for :func:`question_causes` once, whatever the number of configurations explaining them:
    pass the record as its ``items`` (and to :func:`cause_chunking`).

    ``gold`` is :func:`~contextgrid.evidence.run_waste.gold_columns` of the same ``items`` when it was built
    already; ``function`` names the caller in errors.

    Examples
    --------
    >>> import contextgrid as cg
    >>> documents = {"d": "Refunds take 30 days. Shipping is free."}
    >>> prepared = cause_questions([cg.EvalItem("q1", "How long do refunds take?",
    ...                                         (cg.GoldSpan(cg.Span("d", 0, 21)),))], documents)
    >>> prepared.passages, prepared.characters.tolist()
    ((('Refunds take 30 days.',),), [21])
    """
    questions = checked_items(items, function=function)
    ids = pd.Index([item.id for item in questions], dtype=object)
    merged = gold_columns(questions, function) if gold is None else gold
    owner = ids.get_indexer(merged.ids).astype(np.int64)
    if (owner < 0).any():
        raise parameter_error(function, "gold", "the gold columns of the same questions", merged)
    elsewhere = next((i for i, span in enumerate(merged.spans) if span.doc_id not in documents), None)
    if elsewhere is not None:
        raise ContextGridError(
            f"{function}: question {merged.ids[merged.item[elsewhere]]!r} has gold evidence in document "
            f"{merged.spans[elsewhere].doc_id!r}, which is not among the documents given"
        )
    n = len(questions)
    characters = np.zeros(n, dtype=np.int64)
    characters[owner] = merged.total
    evidence = np.fromiter(
        (
            any(g.grade > 0 for g in (*item.gold, *item.unplaced)) or any(a.grade > 0 for a in item.anchors)
            for item in questions
        ),
        dtype=np.bool_,
        count=n,
    )
    texts: list[list[str]] = [[] for _ in range(n)]
    for span, question in zip(merged.spans, owner[merged.item], strict=True):
        texts[question].append(documents[span.doc_id][span.start : span.end])
    passages = tuple(tuple(question_texts) for question_texts in texts)
    return CauseQuestions(questions, ids, merged, owner, characters, evidence, passages)


@dataclass(frozen=True, slots=True)
class CauseChunking:
    """A chunking as every configuration retrieving from it shares it, against :class:`CauseQuestions`
    (:func:`cause_chunking` builds it).

    ``chunking`` is the chunking laid out against the questions' gold
    (:class:`~contextgrid.evidence.run_waste.ChunkingGold`); per question,
    ``best_chunk`` is the chunk holding the most of its gold (ties to the first
    in the chunking, -1 for none) and ``best_held`` what it holds. Per chunk,
    ``word_count`` is the number of its content words; ``word_keys`` are those
    of them in the questions' vocabulary as sorted keys
    (:func:`~contextgrid.analysis.word_sets.set_keys`).
    """

    questions: CauseQuestions
    chunking: ChunkingGold
    best_chunk: IntArray
    best_held: IntArray
    word_keys: IntArray
    word_count: IntArray

    def __post_init__(self) -> None:
        if self.chunking.gold is not self.questions.gold:
            raise parameter_error("CauseChunking", "chunking", "a ChunkingGold of the questions' gold", self.chunking)
        n = len(self.questions.questions)
        if not len(self.best_chunk) == len(self.best_held) == n:
            raise parameter_error("CauseChunking", "best_chunk", f"one chunk per question ({n})", self.best_chunk)
        if len(self.word_count) != len(self.chunking.columns.ids):
            raise parameter_error("CauseChunking", "word_count", "one count per chunk", self.word_count)

    @property
    def width(self) -> int:
        """The multiplier of a (question, chunk) key: ``question * width + chunk``."""
        return max(len(self.chunking.columns.ids), 1)


def _best(questions: CauseQuestions, chunking: ChunkingGold) -> tuple[IntArray, IntArray]:
    """Per question, the chunk holding the most of its gold (ties to the first in the chunking, -1 for none) and
    what it holds."""
    n = len(questions.questions)
    held, width = chunking.holding, max(len(chunking.columns.ids), 1)
    question, chunk = questions.owner[held.keys // width], held.keys % width
    # The most held per question, then the first chunk holding it: two unordered reductions, no sort.
    best_held = np.zeros(n, dtype=np.int64)
    np.maximum.at(best_held, question, held.held)
    top = held.held == best_held[question]
    best_chunk = np.full(n, width, dtype=np.int64)
    np.minimum.at(best_chunk, question[top], chunk[top])
    best_chunk[best_chunk == width] = -1
    return best_chunk, best_held


def cause_chunking(
    questions: CauseQuestions,
    chunks: Mapping[str, Chunk] | Iterable[Chunk] | ChunkingGold,
    *,
    function: str = "cause_chunking",
) -> CauseChunking:
    """``chunks`` prepared for :func:`question_causes` against ``questions`` once, whatever the number of
    configurations retrieving from them: pass the record as its ``chunks``. ``chunks`` may be a
    :func:`~contextgrid.evidence.run_waste.chunking_gold` of ``questions.gold`` built already.

    Examples
    --------
    >>> import contextgrid as cg
    >>> documents = {"d": "Refunds take 30 days. Shipping is free."}
    >>> questions = cause_questions([cg.EvalItem("q1", "How long do refunds take?",
    ...                                          (cg.GoldSpan(cg.Span("d", 0, 21)),))], documents)
    >>> chunks = [cg.Chunk("d#0", cg.Span("d", 0, 12), "Refunds take"), cg.Chunk("d#1", cg.Span("d", 12, 39),
    ...           " 30 days. Shipping is free.")]
    >>> prepared = cause_chunking(questions, chunks)
    >>> prepared.best_chunk.tolist(), prepared.best_held.tolist(), prepared.word_count.tolist()
    ([0], [12], [2, 4])
    """
    chunking = laid_out(questions.gold, chunks, function)
    best_chunk, best_held = _best(questions, chunking)
    chunk, code, found = _content_rows([each.text for each in chunking.columns.chunks])
    counts = np.bincount(chunk, minlength=len(chunking.columns.ids)).astype(np.int64)
    # Coded by the questions' words: a word they lack can match nothing of theirs.
    known = np.asarray(questions.vocabulary.get_indexer(found), dtype=np.int64)[code]
    keys = np.sort(chunk[known >= 0] * questions.size + known[known >= 0])
    return CauseChunking(questions, chunking, best_chunk, best_held, keys, counts)


@dataclass(frozen=True, slots=True)
class LexicalGaps:
    """Per question of ``questions``, whether no term of it (by one analyzer) is a term of its gold passage
    (``gap``; false for a question without gold): what :func:`question_causes` reads the lexical gap from, built
    once per analyzer by :func:`lexical_gaps` for every configuration using it."""

    questions: CauseQuestions
    gap: BoolArray

    def __post_init__(self) -> None:
        if len(self.gap) != len(self.questions.questions):
            raise parameter_error("LexicalGaps", "gap", "one value per question", self.gap)


def lexical_gaps(questions: CauseQuestions, analyzer: Analyzer) -> LexicalGaps:
    """The lexical gap of every question of ``questions`` with gold under ``analyzer``; pass it as the
    ``analyzer`` of :func:`question_causes` for every configuration whose retriever analyzes so.

    Examples
    --------
    >>> import contextgrid as cg
    >>> documents = {"d": "Refunds take 30 days."}
    >>> questions = cause_questions([cg.EvalItem("q1", "How long?", (cg.GoldSpan(cg.Span("d", 0, 21)),)),
    ...                              cg.EvalItem("q2", "Refund time?", (cg.GoldSpan(cg.Span("d", 0, 21)),))],
    ...                             documents)
    >>> lexical_gaps(questions, str.split).gap.tolist()
    [True, True]
    >>> lexical_gaps(questions, lambda text: [word.strip("?.s").lower() for word in text.split()]).gap.tolist()
    [True, False]
    """
    from contextgrid.index.bm25 import Analyzer as BM25Analyzer

    gap = np.zeros(len(questions.questions), dtype=bool)
    resolved = questions.owner
    if len(resolved) and isinstance(analyzer, BM25Analyzer):
        gap[resolved] = _bm25_gaps(questions, analyzer)
    elif len(resolved):
        vocabulary = Vocabulary()
        question_terms = vocabulary.code([analyzer(questions.questions[i].question) for i in resolved])
        texts = [text for i in resolved for text in questions.passages[i]]
        counts = np.fromiter((len(questions.passages[i]) for i in resolved), dtype=np.int64, count=len(resolved))
        terms = iter([analyzer(text) for text in texts])
        passage_terms = vocabulary.code(
            [[term for _ in range(count) for term in next(terms)] for count in counts.tolist()]
        )
        positions = np.arange(len(resolved), dtype=np.int64)
        gap[resolved] = shared_counts(question_terms, positions, passage_terms, positions, vocabulary.size) == 0
    return LexicalGaps(questions, gap)


def _bm25_gaps(questions: CauseQuestions, analyzer: BM25Analyzer) -> BoolArray:
    """The lexical gaps of the questions with gold (in ``questions.owner`` order) under BM25's analyzer, whose
    terms are each word's (by :data:`~contextgrid.core.text.WORD`) own: a stopword is dropped, any other word
    folded and stemmed alone. So the distinct words of each text (:meth:`CauseQuestions.word_rows`, which the
    content words are read from too) are enough, each distinct word is analyzed once, and the texts' terms are
    compared as codes."""
    n = len(questions.questions)
    text, code, found = questions.word_rows()
    # The word rows leave citation markers out, as content words do; the analyzer reads their numbers as words.
    cited, spelled = _citation_words(questions)
    words_of = list(found) + spelled
    code = np.concatenate((code, len(found) + np.arange(len(spelled), dtype=np.int64)))
    text = np.concatenate((text, cited))
    # Each distinct word is one term or none (a stopword): its term coded, -1 for none.
    term_code, _ = pd.factorize(np.array(analyzer.word_terms(words_of), dtype=object))
    term = np.asarray(term_code, dtype=np.int64)[code]
    size = max(int(term_code.max(initial=0)) + 1, 1)
    text_question = np.concatenate((np.arange(n, dtype=np.int64), questions.passage_question()))
    keys = text_question[text] * size + term
    kept, asked = term >= 0, text < n
    question_keys, passage_keys = keys[kept & asked], keys[kept & ~asked]
    # The questions' (few) keys sorted, each passage key looked up among them: a question sharing a term has
    # no gap.
    ordered = np.sort(question_keys)
    position, shared = find_sorted(ordered, passage_keys)
    gap: BoolArray = np.bincount(ordered[position[shared]] // size, minlength=n) == 0
    return gap[questions.owner]


def _citation_words(questions: CauseQuestions) -> tuple[IntArray, list[str]]:
    """The words inside the citation markers (``[2]``) of :meth:`CauseQuestions.texts`, which the
    word rows leave out and BM25's word rule reads: each one's text and the word, folded as
    :func:`~contextgrid.core.text.tokenize` folds it."""
    owner: list[int] = []
    spelled: list[str] = []
    for position, text in enumerate(questions.texts()):
        if "[" in text:  # no marker without one; most texts have none
            for marker in CITATION.findall(text):
                for word in tokenize(marker):
                    owner.append(position)
                    spelled.append(word)
    return np.array(owner, dtype=np.int64), spelled


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


def _ranking(
    questions: CauseQuestions, chunking: ChunkingGold, ranking: RunTable, judged: CauseQrels, function: str
) -> _Ranking:
    ids = questions.ids
    n = len(ids)
    rows = run_rows(ranking, ids, chunking.columns.ids, None, function)
    width = max(len(chunking.columns.ids), 1)
    relevant = _relevant(judged.keys, width, rows.item, rows.chunk)
    first = np.full(n, _NONE, dtype=np.int64)
    # The rows are sorted by question, then rank: a question's first relevant row holds its first relevant rank
    # (read where the question changes; minimum.at pays per element).
    at = np.flatnonzero(relevant)
    leading = np.ones(len(at), dtype=bool)
    leading[1:] = rows.item[at[1:]] != rows.item[at[:-1]]
    first[rows.item[at[leading]]] = rows.rank[at[leading]]
    depth = np.bincount(rows.item, minlength=n).astype(np.int64)
    return _Ranking(rows, relevant, first, depth)


def _gold_rows(questions: CauseQuestions, rows: RunRows, cutoff: int) -> RunRows:
    """The rows of ``rows`` (aligned with every question) ranked ``cutoff`` or better of the questions with gold,
    their questions as positions in the gold: as :func:`~contextgrid.evidence.run_waste.run_rows` aligns them with
    the gold."""
    in_gold = np.full(len(questions.questions), -1, dtype=np.int64)
    in_gold[questions.owner] = np.arange(len(questions.owner), dtype=np.int64)
    item = in_gold[rows.item]
    keep = (item >= 0) & (rows.rank <= cutoff)
    item, rank, chunk = item[keep], rows.rank[keep], rows.chunk[keep]
    if len(item) > 1 and (np.diff(questions.owner) < 0).any():  # gold in another order than the questions
        order = np.argsort(item * (int(rank.max()) + 1) + rank, kind="stable")
        item, rank, chunk = item[order], rank[order], chunk[order]
    return RunRows(item, rank, chunk)


def _graded(ids: pd.Index, chunk_ids: pd.Index, judged: QrelsTable) -> IntArray:
    """The sorted keys ``question * width + chunk`` (``question`` a position in ``ids``, ``chunk`` one in
    ``chunk_ids``, ``width`` their count) of the pairs graded above 0 in ``judged``; a judged chunk outside the
    chunking is left out, as it is never ranked."""
    starts: IntArray = np.asarray(judged.starts, dtype=np.int64)
    judged_item = np.repeat(
        ids.get_indexer(pd.Index(judged.question_ids, dtype=object)).astype(np.int64), starts[1:] - starts[:-1]
    )
    # Arrow's hash lookup on the string column as it is (no Python str per row), as run_rows does.
    judged_chunk = np.asarray(
        pc.index_in(
            judged.table.column("chunk_id").cast(pa.string()), value_set=pa.array(chunk_ids, type=pa.string())
        ).fill_null(-1),
        dtype=np.int64,
    )
    graded = (judged_item >= 0) & (judged_chunk >= 0) & (np.asarray(judged.table.column("grade").to_numpy()) > 0)
    # Looked up by binary search, which finds a repeated key all the same: sorted, not made unique (a hash of them
    # all, four times slower).
    keys: IntArray = np.sort(judged_item[graded] * max(len(chunk_ids), 1) + judged_chunk[graded])
    return keys


def _relevant(graded: IntArray, width: int, item: IntArray, chunk: IntArray) -> BoolArray:
    """Whether each row's (question, chunk) key ``item * width + chunk`` is among the sorted ``graded`` keys
    (few: each row is looked up, not sorted with them)."""
    return find_sorted(graded, item * width + chunk)[1]


@dataclass(frozen=True, slots=True)
class CauseQrels:
    """A configuration's qrels as :func:`question_hits` reads them, against :class:`CauseQuestions` and a
    chunking (:func:`cause_qrels` builds it): ``keys`` are the sorted ``question * width + chunk`` of the pairs
    graded above 0 (``question`` a position among the questions, ``chunk`` one in the chunking, ``width`` the
    chunking's size). Configurations judged by the same qrels on the same chunking share it."""

    questions: CauseQuestions
    chunking: ChunkingGold
    keys: IntArray

    def __post_init__(self) -> None:
        if self.chunking.gold is not self.questions.gold:
            raise parameter_error("CauseQrels", "chunking", "a ChunkingGold of the questions' gold", self.chunking)


def cause_qrels(
    questions: CauseQuestions, chunks: ChunkingGold | CauseChunking, qrels: Mapping[str, Mapping[str, int]]
) -> CauseQrels:
    """``qrels`` prepared for :func:`question_hits` against ``questions`` and a chunking laid out against them,
    once for every configuration judged by them on that chunking: pass the record as its ``qrels``.

    Examples
    --------
    >>> import contextgrid as cg
    >>> from contextgrid.evidence.run_waste import chunking_gold
    >>> documents = {"d": "Refunds take 30 days. Shipping is free."}
    >>> questions = cause_questions([cg.EvalItem("q1", "How long do refunds take?",
    ...                                          (cg.GoldSpan(cg.Span("d", 0, 21)),))], documents)
    >>> chunks = [cg.Chunk("d#0", cg.Span("d", 0, 21), "Refunds take 30 days."),
    ...           cg.Chunk("d#1", cg.Span("d", 21, 39), " Shipping is free.")]
    >>> cause_qrels(questions, chunking_gold(questions.gold, chunks), {"q1": {"d#0": 1, "d#1": 0}}).keys.tolist()
    [0]
    """
    chunking = chunks.chunking if isinstance(chunks, CauseChunking) else laid_out(questions.gold, chunks, "cause_qrels")
    keys = _graded(questions.ids, chunking.columns.ids, QrelsTable.from_dict(qrels))
    return CauseQrels(questions, chunking, keys)


def _questions(
    items: Iterable[EvalItem] | CauseQuestions,
    chunks: Mapping[str, Chunk] | Iterable[Chunk] | ChunkingGold | CauseChunking,
    documents: Mapping[str, str],
    function: str,
) -> CauseQuestions:
    """``items`` as :class:`CauseQuestions`: as given, or prepared now; a :class:`CauseChunking` given as ``chunks``
    must be of them."""
    if isinstance(chunks, CauseChunking) and chunks.questions is not items:
        raise parameter_error(function, "chunks", "a CauseChunking of the CauseQuestions given as items", chunks)
    return items if isinstance(items, CauseQuestions) else cause_questions(items, documents, function=function)


def _judged(
    questions: CauseQuestions,
    chunking: ChunkingGold,
    qrels: Mapping[str, Mapping[str, int]] | CauseQrels,
    function: str,
) -> CauseQrels:
    """``qrels`` as a :class:`CauseQrels` of ``questions`` and ``chunking``: as given (refused when of others), or
    prepared now."""
    if not isinstance(qrels, CauseQrels):
        return cause_qrels(questions, chunking, qrels)
    if qrels.questions is not questions or qrels.chunking is not chunking:
        raise parameter_error(function, "qrels", "a CauseQrels of the CauseQuestions and chunking given", qrels)
    return qrels


# -- stage 2: the top k's share of the gold --------------------------------------------------------------------


def _top_k(prepared: CauseChunking, ranking: RunTable, cutoff: int) -> tuple[FloatArray, FloatArray]:
    """Per question, the share of its gold characters the top k holds (character recall) and the share of
    the top k's distinct characters that is gold (character precision); NaN for questions without gold."""
    n, owner = len(prepared.questions.questions), prepared.questions.owner
    recall, precision = np.full(n, np.nan), np.full(n, np.nan)
    waste = question_waste(prepared.questions.gold, ranking, prepared.chunking, cutoff)
    recall[owner] = waste["character_recall"].to_numpy()
    precision[owner] = waste["character_precision"].to_numpy()
    return recall, precision


# -- stage 3: the rules ----------------------------------------------------------------------------------------


def _best_share(questions: CauseQuestions, best_held: IntArray) -> FloatArray:
    """The best chunk's share of each question's gold, NaN where there is none."""
    characters = questions.characters
    share: FloatArray = np.divide(best_held, characters, out=np.full(len(characters), np.nan), where=characters > 0)
    return share


def _hit(evidence: BoolArray, resolved: BoolArray, in_top: BoolArray, recall: FloatArray, partial: float) -> BoolArray:
    """The ``hit`` rule, the one copy :func:`question_causes` and :func:`question_hits` apply: gold evidence, found
    in the documents, a relevant chunk in the top k and at least ``partial`` of the gold's characters there (a
    sliver of gold is no hit)."""
    hit: BoolArray = evidence & resolved & in_top & (np.nan_to_num(recall) >= partial)
    return hit


def _rules(
    questions: CauseQuestions,
    best_held: IntArray,
    found: _Ranking,
    recall: FloatArray,
    cutoff: int,
    split: float,
    partial: float,
) -> IntArray:
    """Each question's cause as its position in :data:`CAUSES`: the first rule that applies."""
    in_top = found.ranked & (found.first <= cutoff)
    resolved = questions.characters > 0
    return np.select(
        [
            ~questions.evidence,
            ~resolved,
            _hit(questions.evidence, resolved, in_top, recall, partial),
            in_top,
            _best_share(questions, best_held) < split,
            found.ranked,
        ],
        [0, 1, 2, 3, 4, 5],
        default=6,
    ).astype(np.int64)


# -- stage 4: the signals of a miss ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Signals:
    gap: BoolArray
    gap_known: BoolArray
    density: FloatArray
    distractors: IntArray
    closest: IntArray
    closest_rank: IntArray
    closest_similarity: FloatArray


def _signals(
    prepared: CauseChunking, found: _Ranking, explained: IntArray, gaps: LexicalGaps | None, repeat: float
) -> _Signals:
    """The lexical gap, dilution and distractors of the questions of ``explained`` (ranked_low, not_retrieved)."""
    questions, columns = prepared.questions, prepared.chunking.columns
    n = len(questions.questions)
    gap, gap_known = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    if gaps is not None:
        gap[explained] = gaps.gap[explained]
        gap_known[explained] = True

    # Dilution: the gold's share of the chunk that holds the most of it.
    density = np.full(n, np.nan)
    best = prepared.best_chunk[explained]
    lengths = (columns.end - columns.start)[best]
    density[explained] = np.divide(prepared.best_held[explained], lengths, out=np.zeros(len(best)), where=lengths > 0)

    # Distractors: rows above the first relevant rank (the whole ranking when there is none).
    rows = found.rows
    is_explained = np.zeros(n, dtype=bool)
    is_explained[explained] = True
    candidate = np.flatnonzero(is_explained[rows.item] & (rows.rank < found.first[rows.item]))
    row_item, row_chunk, row_rank = rows.item[candidate], rows.chunk[candidate], rows.rank[candidate]
    # The question's and the passage's words (few) looked up among each chunk's (many), as sorted keys.
    keys, size = prepared.word_keys, questions.size
    with_gold = shared_with_keys(questions.passage_words, row_item, keys, row_chunk, size)
    with_question = shared_with_keys(questions.question_words, row_item, keys, row_chunk, size)
    gold_with_question = np.zeros(n, dtype=np.int64)
    gold_with_question[explained] = shared_with_keys(questions.question_words, explained, keys, best, size)
    either = prepared.word_count[row_chunk] + set_sizes(questions.passage_words, n)[row_item] - with_gold
    similarity = np.divide(with_gold, either, out=np.zeros(len(candidate)), where=either > 0)
    distracting = (with_question > gold_with_question[row_item]) | (similarity >= repeat)
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


# -- stage 5: what would have fixed it -------------------------------------------------------------------------


def _smallest_budget(prepared: CauseChunking, found: _Ranking) -> IntArray:
    """Per question, the characters of its ranking down to the first relevant chunk (each chunk's text length,
    repeats included): the smallest context budget at which it is a hit, by the rule of
    :mod:`contextgrid.analysis.budget` (a budget takes the ranking's longest prefix that fits)."""
    rows = found.rows
    lengths = prepared.chunking.columns.length
    cost = lengths[rows.chunk]
    total = np.cumsum(cost)
    starts = np.searchsorted(rows.item, rows.item, side="left")
    before = np.where(starts > 0, total[np.maximum(starts - 1, 0)], 0)
    running = total - before
    smallest = np.full(len(prepared.questions.questions), _NONE, dtype=np.int64)
    np.minimum.at(smallest, rows.item[found.relevant], running[found.relevant])
    return smallest


# -- the whole -------------------------------------------------------------------------------------------------


def _threshold(value: object, function: str, parameter: str) -> float:
    return check_split_threshold(value, function=function, parameter=parameter)


def question_causes(
    items: Iterable[EvalItem] | CauseQuestions,
    chunks: Mapping[str, Chunk] | Iterable[Chunk] | CauseChunking,
    run: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Mapping[str, int]] | CauseQrels,
    documents: Mapping[str, str],
    *,
    k: int = 5,
    split_threshold: float = 0.5,
    partial_threshold: float = 0.5,
    analyzer: Analyzer | LexicalGaps | None = None,
    dilution_threshold: float = DILUTION_THRESHOLD,
    repeat_threshold: float = REPEAT_THRESHOLD,
) -> pd.DataFrame:
    """The cause of each question's failure (or success) under one configuration, with its signals.

    Parameters
    ----------
    items : iterable of EvalItem, or CauseQuestions
        The questions, resolved against ``documents``; one row each, in this order.
        Many configurations explaining the same questions prepare them once
        with :func:`cause_questions`.
    chunks : mapping of id to Chunk, iterable of Chunk, or CauseChunking
        The configuration's chunking; every chunk the run returns for one of
        ``items`` must be here. Many configurations retrieving from one chunking
        prepare it once with :func:`cause_chunking` (of the ``items`` record).
    run : mapping
        ``{question_id: [chunk_id, ...]}`` best first (a :class:`~contextgrid.data.tables.RunTable` too).
        A question it does not answer has an empty ranking.
    qrels : mapping or CauseQrels
        ``{question_id: {chunk_id: grade}}`` (a :class:`~contextgrid.data.tables.QrelsTable` too);
        a chunk is relevant when graded above 0. :func:`cause_qrels`' record of them, built once for the
        configurations they judge on one chunking, is used as it is.
    documents : mapping
        ``{doc_id: text}``: the gold passages' text, for the word signals
        (read by :func:`cause_questions`: unused when ``items`` is its record).
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
        ``vocabulary_gap`` missing. Many configurations sharing an analyzer pass
        its :func:`lexical_gaps` instead.
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
    if analyzer is not None and not isinstance(analyzer, LexicalGaps) and not callable(analyzer):
        raise parameter_error(function, "analyzer", "None or a callable from text to terms", analyzer)
    questions = _questions(items, chunks, documents, function)
    prepared = chunks if isinstance(chunks, CauseChunking) else cause_chunking(questions, chunks, function=function)
    if isinstance(analyzer, LexicalGaps) and analyzer.questions is not questions:
        raise parameter_error(function, "analyzer", "LexicalGaps of the CauseQuestions given as items", analyzer)
    gaps = analyzer if analyzer is None or isinstance(analyzer, LexicalGaps) else lexical_gaps(questions, analyzer)
    ranking = RunTable.from_dict(run)
    judged = _judged(questions, prepared.chunking, qrels, function)
    found = _ranking(questions, prepared.chunking, ranking, judged, function)
    recall, precision = _top_k(prepared, ranking, cutoff)
    code = _rules(questions, prepared.best_held, found, recall, cutoff, split, partial)

    explained = np.flatnonzero(code >= CAUSES.index("ranked_low"))
    signals = _signals(prepared, found, explained, gaps, repeat)
    is_explained = np.zeros(len(code), dtype=bool)
    is_explained[explained] = True
    in_top = (code == CAUSES.index("hit")) | (code == CAUSES.index("partial"))
    fixable = (code >= CAUSES.index("split")) & found.ranked
    budget = _smallest_budget(prepared, found)
    has_closest = signals.closest >= 0
    closest = np.full(len(code), None, dtype=object)
    closest[has_closest] = np.asarray(prepared.chunking.columns.ids, dtype=object)[signals.closest[has_closest]]
    resolved = questions.characters > 0
    return pd.DataFrame(
        {
            "question": questions.ids.to_numpy(dtype=object, copy=True),
            "cause": pd.Categorical.from_codes(code, dtype=CAUSE_DTYPE),
            "first_relevant_rank": pd.arrays.IntegerArray(np.where(found.ranked, found.first, 0), ~found.ranked),
            "best_chunk_share": pd.arrays.FloatingArray(
                np.nan_to_num(_best_share(questions, prepared.best_held)), ~resolved
            ),
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


def question_causes_only(
    items: Iterable[EvalItem] | CauseQuestions,
    chunks: Mapping[str, Chunk] | Iterable[Chunk] | ChunkingGold | CauseChunking,
    run: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Mapping[str, int]] | CauseQrels,
    documents: Mapping[str, str],
    *,
    k: int = 5,
    split_threshold: float = 0.5,
    partial_threshold: float = 0.5,
) -> pd.DataFrame:
    """The ``question`` and ``cause`` columns of :func:`question_causes` (same arguments), without the signals of
    a miss: what counting causes, or finding the configurations that get a question right, needs.

    The chunks' words, which only the signals read, are never gathered: ``chunks`` may be a
    :func:`~contextgrid.evidence.run_waste.chunking_gold` of ``items``' gold (laid out once for many runs) as
    well as a :class:`CauseChunking`, and ``qrels`` a :func:`cause_qrels` of them.

    Examples
    --------
    >>> import contextgrid as cg
    >>> from contextgrid.analysis.causes import question_causes_only
    >>> documents = {"d": "Refunds take 30 days. Shipping is free over $50. Returns need a receipt."}
    >>> chunks = [cg.Chunk(f"d#{i}", cg.Span("d", a, b), documents["d"][a:b]) for i, (a, b) in
    ...           enumerate([(0, 22), (22, 49), (49, 73)])]
    >>> items = [
    ...     cg.EvalItem("q1", "How long do refunds take?", (cg.GoldSpan(cg.Span("d", 0, 21)),)),
    ...     cg.EvalItem("q2", "What does a return require?", (cg.GoldSpan(cg.Span("d", 49, 73)),)),
    ...     cg.EvalItem("q3", "Who founded the company?"),
    ... ]
    >>> run = {"q1": ["d#0", "d#1"], "q2": ["d#1", "d#0", "d#2"]}
    >>> question_causes_only(items, chunks, run, {"q1": {"d#0": 2}, "q2": {"d#2": 2}}, documents, k=2)
      question       cause
    0       q1         hit
    1       q2  ranked_low
    2       q3     no_gold
    """
    function = "question_causes_only"
    cutoff = check_k(k, function=function)
    split = _threshold(split_threshold, function, "split_threshold")
    partial = _threshold(partial_threshold, function, "partial_threshold")
    questions = _questions(items, chunks, documents, function)
    if isinstance(chunks, CauseChunking):
        chunking, best_held = chunks.chunking, chunks.best_held
    else:
        chunking = laid_out(questions.gold, chunks, function)
        best_held = _best(questions, chunking)[1]
    ranking = RunTable.from_dict(run)
    found = _ranking(questions, chunking, ranking, _judged(questions, chunking, qrels, function), function)
    # The top k's share of the gold as question_waste reads it (character recall), without the rest of the waste:
    # from the ranking aligned once.
    evidence = rows_evidence(chunking, _gold_rows(questions, found.rows, cutoff))
    recall = np.full(len(questions.questions), np.nan)
    recall[questions.owner] = evidence.gold_recall
    code = _rules(questions, best_held, found, recall, cutoff, split, partial)
    return pd.DataFrame(
        {
            "question": questions.ids.to_numpy(dtype=object, copy=True),
            "cause": pd.Categorical.from_codes(code, dtype=CAUSE_DTYPE),
        }
    )


def question_hits(
    items: Iterable[EvalItem] | CauseQuestions,
    chunks: Mapping[str, Chunk] | Iterable[Chunk] | ChunkingGold | CauseChunking,
    run: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Mapping[str, int]] | CauseQrels,
    documents: Mapping[str, str],
    *,
    k: int = 5,
    partial_threshold: float = 0.5,
) -> BoolArray:
    """Whether each question is a ``hit`` at ``k`` (the ``cause`` of :func:`question_causes_only` is ``hit``;
    same arguments, and a split needs no threshold here): what counting the configurations that get a question
    right needs, read from the top ``k`` alone. ``qrels`` may be :func:`cause_qrels`' record of them, built once
    for the configurations they judge on one chunking.

    A hit has gold evidence, a chunk graded above 0 in the top ``k`` and at least ``partial_threshold`` of its
    gold characters there: only the top ``k`` rows of the questions with gold are aligned (a chunk the run
    returns below ``k``, or for a question without gold, is not checked against ``chunks``), and the best
    chunk of each question, which only ``split`` reads, is never looked for.

    Returns
    -------
    numpy.ndarray
        One bool per question of ``items``, in order.

    Examples
    --------
    >>> import contextgrid as cg
    >>> from contextgrid.analysis.causes import question_hits
    >>> documents = {"d": "Refunds take 30 days. Shipping is free over $50. Returns need a receipt."}
    >>> chunks = [cg.Chunk(f"d#{i}", cg.Span("d", a, b), documents["d"][a:b]) for i, (a, b) in
    ...           enumerate([(0, 22), (22, 49), (49, 73)])]
    >>> items = [
    ...     cg.EvalItem("q1", "How long do refunds take?", (cg.GoldSpan(cg.Span("d", 0, 21)),)),
    ...     cg.EvalItem("q2", "What does a return require?", (cg.GoldSpan(cg.Span("d", 49, 73)),)),
    ...     cg.EvalItem("q3", "Who founded the company?"),
    ... ]
    >>> run = {"q1": ["d#0", "d#1"], "q2": ["d#1", "d#0", "d#2"]}
    >>> question_hits(items, chunks, run, {"q1": {"d#0": 2}, "q2": {"d#2": 2}}, documents, k=2).tolist()
    [True, False, False]
    """
    function = "question_hits"
    cutoff = check_k(k, function=function)
    partial = _threshold(partial_threshold, function, "partial_threshold")
    questions = _questions(items, chunks, documents, function)
    gold = questions.gold
    chunking = chunks.chunking if isinstance(chunks, CauseChunking) else laid_out(gold, chunks, function)
    judged = _judged(questions, chunking, qrels, function)
    # The top k rows of the questions with gold (positions in gold.items), as question_causes_only's recall reads them.
    evidence = ranked_evidence(gold, RunTable.from_dict(run), chunking, cutoff, function)
    width = max(len(chunking.columns.ids), 1)
    relevant = _relevant(judged.keys, width, questions.owner[evidence.item], evidence.chunk)
    in_top = np.bincount(evidence.item[relevant], minlength=len(gold.items)) > 0
    hit = np.zeros(len(questions.questions), dtype=bool)
    hit[questions.owner] = _hit(
        questions.evidence[questions.owner], gold.total > 0, in_top, evidence.gold_recall, partial
    )
    return hit


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
    _columns(table, ("config", "cause"), "cause_counts")
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
    answerable = np.bincount(question_code[code >= CAUSES.index("hit")], minlength=len(questions)) > 0
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
