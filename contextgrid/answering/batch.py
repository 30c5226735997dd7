"""Every generated answer of a configuration scored, summarised per configuration, and drawn word by word.

Each answer's context is rebuilt from its ``context_chunk_ids`` (in passage
order) with the chunks of its configuration, and judged by
:func:`~contextgrid.score_answer`; its gold chunks are the chunks the
configuration's qrels grade above 0 for the question. The per-configuration
means of groundedness, citation accuracy and evidence overlap are over the
answers that did not abstain (a refusal asserts nothing to ground; refusals
are counted in the abstention columns instead), citation accuracy also
leaving out answers that cite nothing.

:func:`score_frame` scores a whole file of answers on columns, with no record
per answer (each chunk's words found once and coded as integers, each
answer's words looked up in its chunks' all at once); :func:`score_answers`
gives the same scores as records, each with its rebuilt context.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from contextgrid.answering.context import DEFAULT_TOKENIZER, ContextBuilder, context_from_chunks
from contextgrid.answering.lexical import answer_score, answer_scores
from contextgrid.chunking import Tokenizer
from contextgrid.core.errors import ContextGridError, InputFileError
from contextgrid.data.keys import distinct_pairs, expand_stretches, find_sorted, sorted_keys
from contextgrid.data.records import (
    Answer,
    AnswerRecord,
    AnswerScore,
    AssembledContext,
    Chunk,
    EvalItem,
)
from contextgrid.data.tables import QrelsTable
from contextgrid.data.words import word_rows
from contextgrid.io.answers import AnswerColumns

if TYPE_CHECKING:
    import pandas as pd

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

__all__ = [
    "ANSWER_COLUMNS",
    "SCORE_COLUMNS",
    "SUMMARY_COLUMNS",
    "ChunkWords",
    "ScoredAnswer",
    "abstention_matrix",
    "answers_frame",
    "chunk_words",
    "invalid_citations",
    "passages_frame",
    "score_answers",
    "score_frame",
    "summarize_answers",
    "worst_first",
]

ANSWER_COLUMNS = (
    "question",
    "answer",
    "passages",
    "citations",
    "invalid_citations",
    "groundedness",
    "citation_accuracy",
    "evidence_overlap",
    "abstained",
    "should_have_abstained",
    "abstention_correct",
    "problems",
    "warnings",
)
"""The columns of :func:`answers_frame`, one row per answer (index ``question_id``)."""

SCORE_COLUMNS = (
    "groundedness",
    "citation_accuracy",
    "evidence_overlap",
    "abstained",
    "should_have_abstained",
    "problems",
)
"""The columns of :func:`answers_frame` that score an answer: what a list of the worst answers shows first."""

SUMMARY_COLUMNS = (
    "answers",
    "answered",
    "groundedness",
    "citation_accuracy",
    "evidence_overlap",
    "abstained",
    "should_have_abstained",
    "correct_refusals",
    "wrong_refusals",
    "unwarranted_answers",
)
"""The columns of :func:`summarize_answers`: counts, and the means over the answers that did not abstain."""


@dataclass(frozen=True, slots=True)
class ScoredAnswer:
    """One answer with what it was judged against: its question, its rebuilt context and its gold chunks."""

    item: EvalItem
    record: AnswerRecord
    context: AssembledContext
    judgements: Mapping[str, int]
    score: AnswerScore

    def __post_init__(self) -> None:
        if self.item.id != self.record.question_id or self.score.item_id != self.item.id:
            raise ContextGridError(
                f"ScoredAnswer: the item {self.item.id!r}, the answer to {self.record.question_id!r} and the score "
                f"of {self.score.item_id!r} must be about one question"
            )

    @property
    def gold_chunk_ids(self) -> tuple[str, ...]:
        """The chunks the qrels grade above 0 for this question."""
        return tuple(chunk_id for chunk_id, grade in self.judgements.items() if grade > 0)


def _refuse(
    source: str | os.PathLike[str] | None, position: int, answers: AnswerColumns, expected: str
) -> ContextGridError:
    if source is None:
        return ContextGridError(f"answer {position + 1} (question {answers.question_id[position]!r}): {expected}")
    where = answers.where(position)
    if where is None:
        return InputFileError(source, None, None, expected)
    # The line the reader kept: the file is not read again to find it.
    return where.error(expected)


def _held(
    owner: IntArray,
    word: IntArray,
    starts: IntArray,
    lengths: IntArray,
    chunk: IntArray,
    keys: IntArray,
    size: int,
    n: int,
) -> IntArray:
    """For each of ``n`` answers, how many of its words (``owner``, ``word``) any of its chunks holds.

    Word row ``i``'s chunks are ``chunk[starts[i]:starts[i] + lengths[i]]``; ``keys`` are the chunks' (chunk,
    word) pairs as :attr:`ChunkWords.keys`, with ``size`` words; a code past them is a word no chunk has.
    """
    held = np.zeros(len(word), dtype=bool)
    # Past the chunks' words, a code would read as a word of the next chunk: it is held by none, so not searched.
    waiting = np.flatnonzero((word < size) & (lengths > 0))
    step = 0
    # Each row's chunks in turn, a word looked for in the next only while none before holds it: most of an answer's
    # words are in its first passages, so most are looked for once.
    while len(waiting):
        found = find_sorted(keys, chunk[starts[waiting] + step] * size + word[waiting], ascending=True)[1]
        held[waiting[found]] = True
        step += 1
        waiting = waiting[~found & (lengths[waiting] > step)]
    return np.bincount(owner[held], minlength=n).astype(np.int64)


@dataclass(frozen=True, slots=True)
class ChunkWords:
    """The chunks of one chunking with their words, found once and coded, for scoring any number of answers.

    ``chunks`` are distinct by id (the last of a repeated id kept, as a
    mapping keeps it); chunk ``i``'s words are ``vocabulary[code[j]]`` for
    ``j`` in ``start[i]`` to ``start[i] + size[i]``, ``code`` ascending within
    each chunk. Made by :func:`chunk_words`.
    """

    chunks: tuple[Chunk, ...]
    ids: pd.Index
    vocabulary: pd.Index
    code: IntArray
    start: IntArray
    size: IntArray

    def __post_init__(self) -> None:
        if not len(self.chunks) == len(self.ids) == len(self.start) == len(self.size):
            raise ContextGridError("ChunkWords: chunks, ids, start and size must be one per chunk")
        if int(self.size.sum()) != len(self.code):
            raise ContextGridError("ChunkWords: the sizes must add up to the codes")

    @property
    def keys(self) -> IntArray:
        """Each (chunk, word) pair as ``chunk * len(vocabulary) + code``, ascending."""
        owner = np.repeat(np.arange(len(self.chunks), dtype=np.int64), self.size)
        return owner * max(len(self.vocabulary), 1) + self.code


def chunk_words(chunks: Iterable[Chunk]) -> ChunkWords:
    """The words of every chunk of a chunking (``words(chunk.text)``), found in one pass and coded.

    Examples
    --------
    >>> import contextgrid as cg
    >>> days = cg.Chunk("b", cg.Span("d", 0, 4), "Days")
    >>> found = chunk_words([cg.Chunk("a", cg.Span("d", 0, 12), "Thirty days."), days])
    >>> list(found.vocabulary), found.code.tolist(), found.size.tolist()
    (['thirty', 'days'], [0, 1, 1], [2, 1])
    """
    import pandas as pd

    by_id = {chunk.id: chunk for chunk in chunks}
    given = tuple(by_id.values())
    owner, code, vocabulary = word_rows([chunk.text for chunk in given])
    size = np.bincount(owner, minlength=len(given)).astype(np.int64)
    start = (np.cumsum(size) - size).astype(np.int64)
    return ChunkWords(given, pd.Index(list(by_id), dtype="object"), vocabulary, code, start, size)


def score_frame(
    items: Iterable[EvalItem],
    answers: Iterable[AnswerRecord] | AnswerColumns,
    chunks: Iterable[Chunk] | ChunkWords,
    qrels: Mapping[str, Mapping[str, int]],
    *,
    source: str | os.PathLike[str] | None = None,
) -> pd.DataFrame:
    """Every answer scored on columns: :func:`answers_frame` of :func:`score_answers`, without a record per answer.

    Each answer's words are looked up in its context's chunks' words and its
    question's gold chunks' words, all coded as integers: the words of each
    chunk are found once (give ``chunks`` as :func:`chunk_words` made them to
    find them once for many calls), and the rules are
    :func:`~contextgrid.answering.lexical.answer_scores`.

    Parameters
    ----------
    items, chunks, qrels, source
        As for :func:`score_answers`.
    answers : iterable of AnswerRecord, or AnswerColumns
        As for :func:`score_answers`, or as
        :func:`~contextgrid.io.answers.read_answer_columns` reads them (no
        record per answer at all).

    Returns
    -------
    pandas.DataFrame
        One row per answer (index ``question_id``, in the order of
        ``answers``), columns :data:`ANSWER_COLUMNS`.

    Raises
    ------
    InputFileError
        (or :class:`ContextGridError` without ``source``) as :func:`score_answers`.

    Examples
    --------
    >>> import contextgrid as cg
    >>> from contextgrid.data.records import AnswerRecord
    >>> chunk = cg.Chunk("a", cg.Span("d", 0, 12), "Thirty days.")
    >>> record = AnswerRecord("q1", cg.Answer("Thirty days [1][4].", citations=(1, 4)), context_chunk_ids=("a",))
    >>> frame = score_frame([cg.EvalItem("q1", "How long?")], [record], [chunk], {"q1": {"a": 1}})
    >>> print(frame[["passages", "invalid_citations", "groundedness", "citation_accuracy"]].to_string())
                 passages invalid_citations  groundedness  citation_accuracy
    question_id
    q1                  1              (4,)           1.0                0.5
    """
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    given = answers if isinstance(answers, AnswerColumns) else AnswerColumns.from_records(tuple(answers))
    prepared = chunks if isinstance(chunks, ChunkWords) else chunk_words(chunks)
    by_question = {item.id: item for item in items}
    question_ids: list[str] = given.question_id.tolist()
    texts: list[str] = given.text.tolist()
    passages = given.passages
    known_questions = pd.Index(list(by_question), dtype="object")
    asked = known_questions.get_indexer(pd.Index(question_ids)).astype(np.int64)
    # Each passage of each context as a row: the answer's position and the chunk's.
    context_answer = np.repeat(np.arange(len(given), dtype=np.int64), passages)
    context_chunk = prepared.ids.get_indexer(pd.Index(given.chunk_id, dtype="object")).astype(np.int64)
    _check(given, asked, context_answer, context_chunk, prepared, by_question, source)

    # The gold chunks of each question answered: graded above 0 and among the chunks.
    table = QrelsTable.from_dict(qrels) if not isinstance(qrels, QrelsTable) else qrels
    graded = table.table
    # Each row's question found among the table's distinct questions (its rows are grouped by question, in the
    # order of question_array), and each row's chunk by pyarrow: no Python string made per row.
    gold_question = known_questions.get_indexer(table.question_array.to_numpy(zero_copy_only=False))[
        np.repeat(np.arange(len(table), dtype=np.int64), np.diff(table.starts))
    ]
    chunk_column = graded.column("chunk_id")
    gold_chunk = (
        pc.index_in(chunk_column, value_set=pa.array(prepared.ids.to_numpy(), type=chunk_column.type))
        .fill_null(-1)
        .to_numpy()
    )
    keep = (graded.column("grade").to_numpy() > 0) & (gold_chunk >= 0) & np.isin(gold_question, asked)
    gold_question, gold_chunk = gold_question[keep].astype(np.int64), gold_chunk[keep].astype(np.int64)

    # Every answer's words, coded with the chunks' vocabulary (a word no chunk has gets a code of its own).
    owner, answer_codes, answer_vocabulary = word_rows(texts)
    known = prepared.vocabulary.get_indexer(answer_vocabulary).astype(np.int64)
    unknown = known < 0
    known[unknown] = len(prepared.vocabulary) + np.arange(int(unknown.sum()), dtype=np.int64)
    word = known[answer_codes]
    size = max(len(prepared.vocabulary), 1)

    keys, n = prepared.keys, len(given)
    answer_words = np.bincount(owner, minlength=n).astype(np.int64)
    # Grounded: a word any chunk of the answer's context holds.
    starts = np.searchsorted(context_answer, np.arange(n))
    grounded = _held(owner, word, starts[owner], passages[owner], context_chunk, keys, size, n)

    # The gold words of an answer are its question's: a word any of its gold chunks holds.
    order = np.argsort(gold_question, kind="stable")
    gold_question, gold_chunk = gold_question[order], gold_chunk[order]
    gold_count = np.bincount(gold_question, minlength=len(by_question)).astype(np.int64)
    gold_start = np.searchsorted(gold_question, np.arange(len(by_question)))
    gold_used = _held(owner, word, gold_start[asked[owner]], gold_count[asked[owner]], gold_chunk, keys, size, n)
    # How many: one gold chunk's words are distinct already; the words of several are put together and counted.
    gold_words = np.zeros(len(by_question), dtype=np.int64)
    single = np.flatnonzero(gold_count == 1)
    gold_words[single] = prepared.size[gold_chunk[gold_start[single]]]
    several = np.flatnonzero(gold_count[gold_question] > 1)
    lengths = prepared.size[gold_chunk[several]]
    at, _ = expand_stretches(prepared.start[gold_chunk[several]], lengths)
    pairs = sorted_keys(np.repeat(gold_question[several] * size, lengths) + prepared.code[at])
    distinct = np.ones(len(pairs), dtype=bool)
    distinct[1:] = pairs[1:] != pairs[:-1]
    # Each question's distinct pairs counted between where its keys start and end: no key divided.
    bounds = np.searchsorted(pairs, np.arange(len(by_question) + 1, dtype=np.int64) * size)
    gold_words += np.diff(np.searchsorted(np.flatnonzero(distinct), bounds))

    # The distinct passage numbers each answer cites, and those its context has no passage for.
    cited_answer = np.repeat(np.arange(n, dtype=np.int64), np.diff(given.citation_offsets))
    cited_number = np.asarray(given.citation, dtype=np.int64)
    cited_answer, cited_number = distinct_pairs(cited_answer, cited_number, int(cited_number.max(initial=0)) + 1)
    outside = cited_number > passages[cited_answer]
    # One shared empty tuple for the many answers that miss nothing: no object made per answer.
    missing: list[tuple[int, ...]] = [()] * n
    for row, number in zip(cited_answer[outside].tolist(), cited_number[outside].tolist(), strict=True):
        missing[row] = (*missing[row], number)

    resolved = np.array([item.is_resolved for item in by_question.values()], dtype=bool)
    scores = answer_scores(
        question_ids,
        texts,
        words=answer_words,
        grounded=grounded,
        gold_words=gold_words[asked],
        gold_used=gold_used,
        cited=np.bincount(cited_answer, minlength=n).astype(np.int64),
        missing=missing,
        passages=passages,
        resolved=resolved[asked],
    )
    questions = [item.question for item in by_question.values()]
    return _laid_out(
        {
            "question": [questions[row] for row in asked.tolist()],
            "answer": texts,
            "passages": passages,
            "citations": given.citations(),
            "invalid_citations": missing,
            "groundedness": scores["groundedness"].to_numpy(),
            "citation_accuracy": scores["citation_accuracy"].to_numpy(),
            "evidence_overlap": scores["evidence_overlap"].to_numpy(),
            "abstained": scores["abstained"].to_numpy(),
            "should_have_abstained": scores["should_have_abstained"].to_numpy(),
            "abstention_correct": (scores["abstained"] == scores["should_have_abstained"]).to_numpy(),
            "problems": scores["warnings"].map(len).to_numpy(),
            "warnings": scores["warnings"].tolist(),
        },
        question_ids,
    )


def _laid_out(
    columns: Mapping[str, Sequence[object] | npt.NDArray[np.generic]], question_ids: list[str]
) -> pd.DataFrame:
    """The columns of :func:`answers_frame` as its frame, each column of its type."""
    import pandas as pd

    frame = pd.DataFrame(
        {name: columns[name] for name in ANSWER_COLUMNS},
        columns=pd.Index(ANSWER_COLUMNS),
        index=pd.Index(question_ids, name="question_id", dtype="object"),
    )
    types = dict.fromkeys(("groundedness", "citation_accuracy", "evidence_overlap"), "float64")
    types |= dict.fromkeys(("abstained", "should_have_abstained", "abstention_correct"), "bool")
    return frame.astype(types | {"passages": "int64", "problems": "int64"})


def _check(
    answers: AnswerColumns,
    asked: IntArray,
    context_answer: IntArray,
    context_chunk: IntArray,
    prepared: ChunkWords,
    by_question: Mapping[str, EvalItem],
    source: str | os.PathLike[str] | None,
) -> None:
    """Refuse the first answer to an unknown question or with a context that names an unknown chunk or one twice."""
    import pandas as pd

    repeated = pd.Series(context_answer * max(len(prepared.ids), 1) + context_chunk).duplicated().to_numpy()
    bad = np.union1d(np.flatnonzero(asked < 0), context_answer[(context_chunk < 0) | repeated])
    if not len(bad):
        return
    # The first bad answer is refused as the record path refuses it, check by check.
    position = int(bad[0])
    question_id, context = answers.question_id[position], answers.context_chunk_ids(position)
    if question_id not in by_question:
        raise _refuse(source, position, answers, f"answers question {question_id!r}, which is not a question")
    by_id = dict(zip(prepared.ids, prepared.chunks, strict=True))
    unknown = [chunk_id for chunk_id in context if chunk_id not in by_id]
    if unknown:
        raise _refuse(
            source,
            position,
            answers,
            f"the context names chunk(s) {', '.join(map(repr, unknown))}, which are not chunks of this "
            "configuration's chunking",
        )
    try:
        context_from_chunks(by_id[chunk_id] for chunk_id in context)
    except ContextGridError as error:
        raise _refuse(source, position, answers, str(error)) from None


def score_answers(
    items: Iterable[EvalItem],
    answers: Iterable[AnswerRecord],
    chunks: Iterable[Chunk] | ChunkWords,
    qrels: Mapping[str, Mapping[str, int]],
    *,
    source: str | os.PathLike[str] | None = None,
    tokenizer: Tokenizer = DEFAULT_TOKENIZER,
) -> tuple[ScoredAnswer, ...]:
    """Judge every answer against the context its chunk ids rebuild, with :func:`~contextgrid.score_answer`.

    The scores are :func:`score_frame`'s; each answer is given as a record
    with its rebuilt context. For many answers, :func:`score_frame` alone is
    much lighter: no context is rebuilt.

    Parameters
    ----------
    items : iterable of EvalItem
        The questions, resolved (``is_resolved`` decides whether an answer
        should have abstained).
    answers : iterable of AnswerRecord
        As :func:`~contextgrid.io.read_answers` returns them.
    chunks : iterable of Chunk, or ChunkWords
        The chunks of the configuration the answers were generated from (or
        their words, as :func:`chunk_words` found them).
    qrels : mapping
        ``{question_id: {chunk_id: grade}}`` for that chunking; the chunks
        graded above 0 are an answer's gold chunks.
    source : path, optional
        The answers file, so that an error names it, and the line of the
        answer when the record keeps it (``AnswerRecord.source``, which
        :func:`~contextgrid.io.read_answers` sets).
    tokenizer : callable, optional
        Counts each rebuilt context's tokens.

    Returns
    -------
    tuple of ScoredAnswer
        In the order of ``answers``.

    Raises
    ------
    InputFileError
        (or :class:`ContextGridError` without ``source``) for an answer to a
        question that is not among ``items``, or whose context names a
        chunk that is not among ``chunks``, or one chunk twice.
    """
    records = tuple(answers)
    given = tuple(items)
    prepared = chunks if isinstance(chunks, ChunkWords) else chunk_words(chunks)
    frame = score_frame(given, records, prepared, qrels, source=source)
    by_question = {item.id: item for item in given}
    by_id = dict(zip(prepared.ids, prepared.chunks, strict=True))
    # A QrelsTable finds each question's row by a search; its dict, built once, finds it by hash.
    judged = qrels.to_dict() if isinstance(qrels, QrelsTable) and len(records) > 1 else qrels
    build = ContextBuilder(tokenizer=tokenizer)
    scores = frame.assign(item_id=frame.index)
    return tuple(
        ScoredAnswer(
            by_question[record.question_id],
            record,
            build(by_id[chunk_id] for chunk_id in record.context_chunk_ids),
            dict(judged.get(record.question_id, {})),
            answer_score(row),
        )
        for record, row in zip(records, scores.itertuples(index=False), strict=True)
    )


def invalid_citations(answer: Answer, context: AssembledContext) -> tuple[int, ...]:
    """The distinct passage numbers ``answer`` cites that ``context`` does not have, ascending.

    Examples
    --------
    >>> import contextgrid as cg
    >>> chunk = cg.Chunk("a", cg.Span("d", 0, 12), "Thirty days.")
    >>> context = cg.AssembledContext(text="[1] Thirty days.", chunks=(chunk,), tokens=6)
    >>> invalid_citations(cg.Answer("Thirty days [1][4].", citations=(4, 1, 4)), context)
    (4,)
    """
    return tuple(sorted({number for number in answer.citations if number > len(context.chunks)}))


def answers_frame(scored: Sequence[ScoredAnswer]) -> pd.DataFrame:
    """One row per answer (index ``question_id``, in the order given), columns :data:`ANSWER_COLUMNS`.

    ``citation_accuracy`` is ``NaN`` where the answer cited nothing; ``problems``
    counts its warnings.
    """
    return _laid_out(
        {
            "question": [entry.item.question for entry in scored],
            "answer": [entry.record.answer.text for entry in scored],
            "passages": [len(entry.context.chunks) for entry in scored],
            "citations": [entry.record.answer.citations for entry in scored],
            "invalid_citations": [invalid_citations(entry.record.answer, entry.context) for entry in scored],
            "groundedness": [entry.score.groundedness for entry in scored],
            "citation_accuracy": [
                float("nan") if entry.score.citation_accuracy is None else entry.score.citation_accuracy
                for entry in scored
            ],
            "evidence_overlap": [entry.score.evidence_overlap for entry in scored],
            "abstained": [entry.score.abstained for entry in scored],
            "should_have_abstained": [entry.score.should_have_abstained for entry in scored],
            "abstention_correct": [entry.score.abstention_correct for entry in scored],
            "problems": [len(entry.score.warnings) for entry in scored],
            "warnings": [tuple(entry.score.warnings) for entry in scored],
        },
        [entry.record.question_id for entry in scored],
    )


def worst_first(frame: pd.DataFrame) -> pd.DataFrame:
    """Answers with the most warnings first; then wrong abstentions, low groundedness, low citation accuracy.

    Ties keep the order given.
    """
    return frame.sort_values(
        ["problems", "abstention_correct", "groundedness", "citation_accuracy"],
        ascending=[False, True, True, True],
        na_position="last",
        kind="stable",
    )


def summarize_answers(frames: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per configuration (index ``config``, in the order given), columns :data:`SUMMARY_COLUMNS`.

    ``answers`` counts every answer and ``answered`` those that did not
    abstain, over which ``groundedness``, ``citation_accuracy`` (leaving out
    answers citing nothing) and ``evidence_overlap`` are averaged; ``NaN``
    where nothing was left to average. ``correct_refusals`` abstained when
    they should have, ``wrong_refusals`` abstained when they should not,
    ``unwarranted_answers`` answered when there was nothing to answer from.
    """
    import pandas as pd

    names = list(frames)
    if not names:
        return pd.DataFrame(columns=pd.Index(SUMMARY_COLUMNS), index=pd.Index([], name="config", dtype="object"))
    every = pd.concat([frames[name] for name in names], keys=names, names=["config", "question_id"])
    config = every.index.get_level_values("config")
    abstained, should = every["abstained"], every["should_have_abstained"]
    given = every[~abstained]
    counts = pd.DataFrame(
        {
            "answers": 1,
            "answered": ~abstained,
            "abstained": abstained,
            "should_have_abstained": should,
            "correct_refusals": abstained & should,
            "wrong_refusals": abstained & ~should,
            "unwarranted_answers": ~abstained & should,
        },
        index=every.index,
    ).astype("int64")
    totals = counts.groupby(config, sort=False).sum()
    means = (
        given[["groundedness", "citation_accuracy", "evidence_overlap"]]
        .groupby(given.index.get_level_values("config"), sort=False)
        .mean()
    )
    summary = totals.join(means).reindex(pd.Index(names, name="config"))
    # A configuration with no answers at all has counts of 0, not missing ones.
    summary[list(counts.columns)] = summary[list(counts.columns)].fillna(0).astype("int64")
    return summary[list(SUMMARY_COLUMNS)]


def abstention_matrix(frame: pd.DataFrame) -> pd.DataFrame:
    """Counts of answers by whether they should have abstained (rows) and whether they did (columns).

    Examples
    --------
    >>> import pandas as pd
    >>> answers = pd.DataFrame({"abstained": [True, True, False, False, False],
    ...                         "should_have_abstained": [True, False, False, False, True]})
    >>> print(abstention_matrix(answers))
    abstained              yes  no
    should have abstained
    yes                      1   1
    no                       1   2
    """
    import pandas as pd

    labels = ["yes", "no"]
    cells = [
        [int((frame["should_have_abstained"].eq(should) & frame["abstained"].eq(did)).sum()) for did in (True, False)]
        for should in (True, False)
    ]
    return pd.DataFrame(
        cells,
        index=pd.Index(labels, name="should have abstained"),
        columns=pd.Index(labels, name="abstained"),
    )


def passages_frame(entry: ScoredAnswer) -> pd.DataFrame:
    """The context's passages (index ``passage``, from 1): chunk, place, grade, gold or not, cited or not, text."""
    import pandas as pd

    cited = set(entry.record.answer.citations)
    chunks = entry.context.chunks
    grades = [int(entry.judgements.get(chunk.id, 0)) for chunk in chunks]
    return pd.DataFrame(
        {
            "chunk_id": [chunk.id for chunk in chunks],
            "doc_id": [chunk.span.doc_id for chunk in chunks],
            "start": [chunk.span.start for chunk in chunks],
            "end": [chunk.span.end for chunk in chunks],
            "grade": grades,
            "gold": [grade > 0 for grade in grades],
            "cited": [number in cited for number in range(1, len(chunks) + 1)],
            "text": [chunk.text.strip() for chunk in chunks],
        },
        index=pd.Index(range(1, len(chunks) + 1), name="passage"),
    ).astype({"start": "int64", "end": "int64", "grade": "int64", "gold": "bool", "cited": "bool"})
