"""Why did a question fail? One cause per (configuration, question), and the signals behind it.

The causes, in rule order; the first rule that applies names the cause
(:data:`CAUSES`):

1. ``no_gold``: the question has no gold evidence at all, neither a gold span nor
   an anchor of grade above 0 (grade 0 is judged irrelevant, so it is no
   evidence). Not answerable; not a failure.
2. ``unresolved``: it has gold evidence, but its gold spans of grade above 0
   cover no character of the documents (the anchors were not found in this
   parse): a data problem.
3. ``hit``: a chunk graded above 0 in the configuration's qrels is in the top k.
4. ``split``: no single chunk of the configuration's chunking holds at least
   ``split_threshold`` of the question's gold characters (gold spans of grade
   above 0, overlaps counted once): the evidence is scattered over chunks that
   each hold too little of it.
5. ``ranked_low``: a chunk graded above 0 is in the ranking, below rank k.
6. ``not_retrieved``: otherwise; nothing relevant anywhere in the ranking.

:func:`question_causes` works from plain inputs (the questions, one
configuration's chunks, run and qrels, and the documents) on columns: the
records become arrays once, and every rule is an array operation over all the
questions together. :func:`contextgrid.workspace.causes.failure_causes` runs it
for every configuration of a workspace.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd

from contextgrid.core.checks import check_fraction, check_k
from contextgrid.core.errors import ContextGridError, UnknownConfigurationError
from contextgrid.core.text import words
from contextgrid.data.records import Chunk, EvalItem, Span
from contextgrid.data.spans import overlap_pairs, union
from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.evidence.character import gold_spans
from contextgrid.evidence.run_waste import question_waste

__all__ = [
    "CAUSES",
    "CAUSE_COLUMNS",
    "CAUSE_DTYPE",
    "STOP_WORDS",
    "cause_counts",
    "cause_transitions",
    "check_split_threshold",
    "configurations_with",
    "content_words",
    "explain_cause",
    "question_causes",
    "transition_sentence",
]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

CAUSES = ("no_gold", "unresolved", "hit", "split", "ranked_low", "not_retrieved")
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
)
"""The columns of :func:`question_causes`, in order."""

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


def check_split_threshold(value: object, *, function: str) -> float:
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
    return check_fraction(value, function=function, parameter="split_threshold", low_open=True)


def _distinct_items(items: Iterable[EvalItem], function: str) -> tuple[EvalItem, ...]:
    questions = tuple(items)
    for position, item in enumerate(questions):
        if not isinstance(item, EvalItem):
            raise ContextGridError(f"{function}: items[{position}] must be an EvalItem, got {item!r}")
    ids = pd.Index([item.id for item in questions])
    if ids.has_duplicates:
        raise ContextGridError(
            f"{function}: question ids must be distinct, repeated: {sorted(set(ids[ids.duplicated()]))}"
        )
    return questions


def _distinct_chunks(chunks: Mapping[str, Chunk] | Iterable[Chunk], function: str) -> tuple[Chunk, ...]:
    values = tuple(chunks.values()) if isinstance(chunks, Mapping) else tuple(chunks)
    for position, chunk in enumerate(values):
        if not isinstance(chunk, Chunk):
            raise ContextGridError(f"{function}: chunks[{position}] must be a Chunk, got {chunk!r}")
    ids = pd.Index([chunk.id for chunk in values])
    if ids.has_duplicates:
        raise ContextGridError(
            f"{function}: chunk ids must be distinct, repeated: {sorted(set(ids[ids.duplicated()]))}"
        )
    return values


def _row_questions(table: RunTable | QrelsTable, ids: pd.Index) -> IntArray:
    """Position in ``ids`` of each row's question, -1 for a question not among them."""
    per_question = ids.get_indexer(pd.Index(table.question_ids, dtype=object)).astype(np.int64)
    starts = table.starts.astype(np.int64)
    return np.repeat(per_question, starts[1:] - starts[:-1])


def _column(table: RunTable | QrelsTable, name: str) -> npt.NDArray[np.object_]:
    return np.asarray(table.table.column(name).to_numpy(zero_copy_only=False), dtype=object)


def _word_codes(sets: Sequence[frozenset[str]], vocabulary: dict[str, int]) -> tuple[IntArray, IntArray]:
    """``sets`` as two aligned columns: the position of the set each word is in, and the word's code."""
    owner = np.repeat(np.arange(len(sets), dtype=np.int64), [len(words) for words in sets])
    codes = np.array([vocabulary.setdefault(word, len(vocabulary)) for words in sets for word in words], dtype=np.int64)
    return owner, codes


def _gold_words(gold: Sequence[tuple[Span, ...]], documents: Mapping[str, str]) -> list[frozenset[str]]:
    """Each question's gold passage as content words: the union over its merged gold spans of the span's text's."""
    return [frozenset().union(*(content_words(documents[s.doc_id][s.start : s.end]) for s in spans)) for spans in gold]


def question_causes(
    items: Iterable[EvalItem],
    chunks: Mapping[str, Chunk] | Iterable[Chunk],
    run: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Mapping[str, int]],
    documents: Mapping[str, str],
    *,
    k: int = 5,
    split_threshold: float = 0.5,
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

    Returns
    -------
    pandas.DataFrame
        One row per item, columns :data:`CAUSE_COLUMNS`:

        - ``question``: the id.
        - ``cause``: of :data:`CAUSES` by the rules of this module, dtype :data:`CAUSE_DTYPE`.
        - ``first_relevant_rank``: the rank of the first chunk graded above 0
          anywhere in the ranking; missing when there is none.
        - ``best_chunk_share``: the largest share of the question's gold
          characters (gold spans of grade above 0, overlaps counted once) that
          one chunk of ``chunks`` holds, retrieved or not; missing for
          ``no_gold`` and ``unresolved``. ``split`` is ``best_chunk_share <
          split_threshold``.
        - ``vocabulary_gap`` (``not_retrieved`` only): true when the question
          shares no content word (:func:`content_words`) with the gold passage,
          whose content words are those of the text of each of the question's
          merged gold spans, taken together.
        - ``distractor``, ``distractor_rank``, ``distractor_similarity``
          (``ranked_low`` and ``not_retrieved`` only): of the chunks ranked
          above the first relevant one (for ``not_retrieved``, the whole
          ranking) and not graded above 0, the one whose text is closest to
          the gold passage, its rank and its closeness: the Jaccard
          similarity of the two sets of content words (shared words over all
          words of either). Ties go to the better rank; a chunk sharing no
          content word with the gold is no distractor, so all three are
          missing when no chunk above the gold shares one.
        - ``gold_share_of_top_k`` (``hit`` only): of the distinct characters
          of the top-k chunks, the share that is gold (their
          ``character_precision``, as :func:`contextgrid.evidence.run_waste.question_waste` measures it).

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
    >>> print(frame[["question", "cause", "first_relevant_rank", "best_chunk_share"]].to_string(index=False))
    question      cause  first_relevant_rank  best_chunk_share
          q1        hit                    1               1.0
          q2 ranked_low                    3               1.0
          q3    no_gold                 <NA>              <NA>
    >>> frame["gold_share_of_top_k"].round(3).tolist()
    [0.429, <NA>, <NA>]
    """
    function = "question_causes"
    cutoff = check_k(k, function=function)
    threshold = check_split_threshold(split_threshold, function=function)
    questions = _distinct_items(items, function)
    chunking = _distinct_chunks(chunks, function)
    ranking, judged = RunTable.from_dict(run), QrelsTable.from_dict(qrels)
    n, n_chunks = len(questions), len(chunking)
    ids = pd.Index([item.id for item in questions], dtype=object)
    chunk_ids = pd.Index([chunk.id for chunk in chunking], dtype=object)

    # The gold as merged spans (overlaps counted once), and what each question has of it.
    gold = [union(gold_spans(item)) for item in questions]
    gold_item = np.repeat(np.arange(n, dtype=np.int64), [len(spans) for spans in gold])
    gold_list = [span for spans in gold for span in spans]
    gold_length = np.array([len(span) for span in gold_list], dtype=np.int64)
    gold_characters = np.bincount(gold_item, weights=gold_length, minlength=n).astype(np.int64)
    evidence = np.array(
        [bool(gold_spans(item)) or any(anchor.grade > 0 for anchor in item.anchors) for item in questions], dtype=bool
    )
    resolved = gold_characters > 0
    elsewhere = next((span for span in gold_list if span.doc_id not in documents), None)
    if elsewhere is not None:
        question = ids[gold_item[gold_list.index(elsewhere)]]
        raise ContextGridError(
            f"{function}: question {question!r} has gold evidence in document {elsewhere.doc_id!r}, which is not "
            "among the documents given"
        )

    # The run's rows of these questions, each with its chunk's position in the chunking.
    row_item = _row_questions(ranking, ids)
    keep = row_item >= 0
    row_item = row_item[keep]
    row_rank = np.asarray(ranking.table.column("rank").to_numpy(), dtype=np.int64)[keep]
    row_chunk_id = _column(ranking, "chunk_id")[keep]
    row_chunk = chunk_ids.get_indexer(pd.Index(row_chunk_id, dtype=object)).astype(np.int64)
    if (row_chunk < 0).any():
        row = int(np.flatnonzero(row_chunk < 0)[0])
        raise ContextGridError(
            f"{function}: the run for question {ids[row_item[row]]!r} returns chunk {row_chunk_id[row]!r} at rank "
            f"{row_rank[row]}, which is not among the {n_chunks} chunks given; the run and the chunks must come from "
            "the same chunking"
        )
    width = max(n_chunks, 1)
    row_key = row_item * width + row_chunk

    # Relevant rows: (question, chunk) graded above 0. A judged chunk outside the chunking is never ranked.
    judged_item = _row_questions(judged, ids)
    judged_chunk = chunk_ids.get_indexer(pd.Index(_column(judged, "chunk_id"), dtype=object)).astype(np.int64)
    graded = (judged_item >= 0) & (judged_chunk >= 0) & (np.asarray(judged.table.column("grade").to_numpy()) > 0)
    relevant = np.isin(row_key, judged_item[graded] * width + judged_chunk[graded])
    first = np.full(n, _NONE, dtype=np.int64)
    np.minimum.at(first, row_item[relevant], row_rank[relevant])
    ranked = first < _NONE

    # What each chunk holds of each question's gold; merged gold spans are disjoint, so their parts add up.
    pairs = overlap_pairs(gold_list, [chunk.span for chunk in chunking])
    keys, inverse = np.unique(gold_item[pairs.target] * width + pairs.span, return_inverse=True)
    held = np.bincount(inverse, weights=pairs.length, minlength=len(keys)).astype(np.int64)
    best = np.zeros(n, dtype=np.int64)
    np.maximum.at(best, keys // width, held)
    share = np.divide(best, gold_characters, out=np.full(n, np.nan), where=resolved)

    code = np.select(
        [~evidence, ~resolved, ranked & (first <= cutoff), share < threshold, ranked],
        [0, 1, 2, 3, 4],
        default=5,
    ).astype(np.int64)
    low, missing = code == CAUSES.index("ranked_low"), code == CAUSES.index("not_retrieved")

    # Word signals, for the questions they explain only: content words coded as integers, pairs as int keys.
    explained = np.flatnonzero(low | missing)
    vocabulary: dict[str, int] = {}
    passage_words = [frozenset[str]()] * n
    for position, words_of in zip(explained, _gold_words([gold[i] for i in explained], documents), strict=True):
        passage_words[position] = words_of
    gold_owner, gold_code = _word_codes(passage_words, vocabulary)
    question_owner, question_code = _word_codes(
        [content_words(item.question) if missing[i] else frozenset() for i, item in enumerate(questions)], vocabulary
    )
    # Every key below is owner * size + word code, computed once the vocabulary is complete.
    # Above the first relevant rank every chunk is not relevant (for not_retrieved: the whole ranking).
    candidate = (low | missing)[row_item] & (row_rank < first[row_item])
    candidate_row = np.flatnonzero(candidate)
    seen_chunks = np.unique(row_chunk[candidate_row])
    chunk_position = np.full(n_chunks, -1, dtype=np.int64)
    chunk_position[seen_chunks] = np.arange(len(seen_chunks), dtype=np.int64)
    chunk_owner, chunk_code = _word_codes([content_words(chunking[c].text) for c in seen_chunks], vocabulary)
    size = max(len(vocabulary), 1)
    gold_keys = gold_owner * size + gold_code

    shares_word = np.isin(question_owner * size + question_code, gold_keys)
    gap = np.bincount(question_owner[shares_word], minlength=n) == 0

    # Jaccard of each candidate row's chunk words with its question's gold words, every word of the chunk a row.
    chunk_count = np.bincount(chunk_owner, minlength=len(seen_chunks)).astype(np.int64)
    chunk_start = np.concatenate(([0], np.cumsum(chunk_count)[:-1])).astype(np.int64)
    row_seen = chunk_position[row_chunk[candidate_row]]
    lengths = chunk_count[row_seen]
    word_row = np.repeat(np.arange(len(candidate_row), dtype=np.int64), lengths)
    word_at = np.repeat(chunk_start[row_seen] - (np.cumsum(lengths) - lengths), lengths) + np.arange(
        int(lengths.sum()), dtype=np.int64
    )
    item_of = row_item[candidate_row]
    shared_word = np.isin(item_of[word_row] * size + chunk_code[word_at], gold_keys)
    shared = np.bincount(word_row[shared_word], minlength=len(candidate_row)).astype(np.int64)
    gold_size = np.bincount(gold_owner, minlength=n).astype(np.int64)[item_of]
    either = lengths + gold_size - shared
    similarity = np.divide(shared, either, out=np.zeros(len(candidate_row)), where=either > 0)
    close = shared > 0
    order = np.lexsort((row_rank[candidate_row][close], -similarity[close], item_of[close]))
    chosen_rows = np.flatnonzero(close)[order]
    firsts = np.unique(item_of[chosen_rows], return_index=True)[1]
    chosen = chosen_rows[firsts]
    has_distractor = np.zeros(n, dtype=bool)
    distractor_rank = np.zeros(n, dtype=np.int64)
    distractor_similarity = np.zeros(n)
    distractor = np.full(n, None, dtype=object)
    target = item_of[chosen]
    has_distractor[target] = True
    distractor_rank[target] = row_rank[candidate_row][chosen]
    distractor_similarity[target] = similarity[chosen]
    distractor[target] = row_chunk_id[candidate_row][chosen]

    hit = code == CAUSES.index("hit")
    gold_share = np.zeros(n)
    if hit.any():
        waste = question_waste([questions[i] for i in np.flatnonzero(hit)], ranking, chunking, cutoff)
        gold_share[hit] = waste["character_precision"].to_numpy()

    return pd.DataFrame(
        {
            "question": pd.array(list(ids), dtype=object),
            "cause": pd.Categorical.from_codes(code, dtype=CAUSE_DTYPE),
            "first_relevant_rank": pd.arrays.IntegerArray(np.where(ranked, first, 0), ~ranked),
            "best_chunk_share": pd.arrays.FloatingArray(np.nan_to_num(share), ~resolved),
            "vocabulary_gap": pd.arrays.BooleanArray(gap & missing, ~missing),
            "distractor": pd.array(list(distractor), dtype="string"),
            "distractor_rank": pd.arrays.IntegerArray(distractor_rank, ~has_distractor),
            "distractor_similarity": pd.arrays.FloatingArray(distractor_similarity, ~has_distractor),
            "gold_share_of_top_k": pd.arrays.FloatingArray(gold_share, ~hit),
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
    cause   no_gold  unresolved  hit  split  ranked_low  not_retrieved
    config
    b             0           0    1      1           0              0
    a             0           0    1      0           0              0
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


def explain_cause(
    row: Mapping[str, object] | pd.Series, *, k: int, split_threshold: float = 0.5, gold_chunk: str | None = None
) -> str:
    """One sentence on what happened to a question, from its row of :func:`question_causes` (or of
    :func:`contextgrid.workspace.causes.failure_causes`) computed at ``k`` and ``split_threshold``.

    ``gold_chunk`` names the first relevant chunk of the ranking (see
    :func:`contextgrid.analysis.questions.first_relevant_chunk`), which the row does not hold. The
    sentence is plain text: escape it for the markup it goes into.

    Examples
    --------
    >>> from contextgrid.analysis.causes import explain_cause
    >>> explain_cause({"cause": "ranked_low", "first_relevant_rank": 9, "distractor": "faq.md#2",
    ...                "distractor_rank": 1, "distractor_similarity": 0.42}, k=5, gold_chunk="returns-policy.md#14")
    'The gold passage is in returns-policy.md#14, ranked 9th, below the top 5; the chunk above it closest to the \
gold is faq.md#2 (ranked 1st, 42% of content words shared).'
    >>> explain_cause({"cause": "split", "best_chunk_share": 0.3, "first_relevant_rank": None}, k=5)
    'No single chunk holds half of the gold evidence (the best holds 30%): it is scattered over chunks too small \
for it, and no relevant chunk was retrieved.'
    """
    cutoff = check_k(k, function="explain_cause")
    threshold = check_split_threshold(split_threshold, function="explain_cause")
    cause = _value(row, "cause")
    if cause not in CAUSES:
        raise ContextGridError(f"explain_cause: unknown cause {cause!r}. Known: {', '.join(CAUSES)}")
    rank = _number(row, "first_relevant_rank")
    where = "the first relevant chunk" if gold_chunk is None else f"the first relevant chunk, {gold_chunk},"
    ranked = "not retrieved" if rank is None else f"ranked {_ordinal(int(rank))}"
    distractor = _value(row, "distractor")
    closest = (
        None
        if distractor is None
        else f"{distractor} (ranked {_ordinal(int(_number(row, 'distractor_rank') or 0))}, "
        f"{_number(row, 'distractor_similarity') or 0.0:.0%} of content words shared)"
    )
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
    if cause == "split":
        best = _number(row, "best_chunk_share") or 0.0
        part = "half" if threshold == 0.5 else f"{threshold:.0%}"
        found = ", and no relevant chunk was retrieved" if rank is None else f"; {where} is {ranked}"
        return (
            f"No single chunk holds {part} of the gold evidence (the best holds {best:.0%}): it is scattered over "
            f"chunks too small for it{found}."
        )
    if cause == "ranked_low":
        passage = "The gold passage" if gold_chunk is None else f"The gold passage is in {gold_chunk},"
        opening = f"{passage} {ranked}" if gold_chunk is not None else f"{passage} is {ranked}"
        above = (
            "no chunk above it shares a content word with the gold"
            if closest is None
            else f"the chunk above it closest to the gold is {closest}"
        )
        return f"{opening}, below the top {cutoff}; {above}."
    words_shared = (
        "the question shares no content word with the gold passage (a vocabulary gap a lexical retriever cannot cross)"
        if bool(_value(row, "vocabulary_gap"))
        else "the question shares words with the gold passage"
    )
    retrieved = "" if closest is None else f"; the retrieved chunk closest to the gold is {closest}"
    return f"Nothing relevant was retrieved at any depth: {words_shared}{retrieved}."
