"""Every generated answer of a configuration scored, summarised per configuration, and drawn word by word.

Each answer's context is rebuilt from its ``context_chunk_ids`` (in passage
order) with the chunks of its configuration, and judged by
:func:`~contextgrid.score_answer`; its gold chunks are the chunks the
configuration's qrels grade above 0 for the question. The per-configuration
means of groundedness, citation accuracy and evidence overlap are over the
answers that did not abstain (a refusal asserts nothing to ground; refusals
are counted in the abstention columns instead), citation accuracy also
leaving out answers that cite nothing.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from contextgrid.answering.context import DEFAULT_TOKENIZER, ContextBuilder

# WORD is score_answer's word rule: marking reuses it so that marking and scoring agree word for word.
from contextgrid.answering.lexical import score_answer_words
from contextgrid.chunking import Tokenizer
from contextgrid.core.errors import ContextGridError, InputFileError
from contextgrid.core.text import words
from contextgrid.data.records import (
    Answer,
    AnswerRecord,
    AnswerScore,
    AssembledContext,
    Chunk,
    EvalItem,
)
from contextgrid.data.tables import QrelsTable

if TYPE_CHECKING:
    import pandas as pd


__all__ = [
    "ANSWER_COLUMNS",
    "SCORE_COLUMNS",
    "SUMMARY_COLUMNS",
    "ScoredAnswer",
    "abstention_matrix",
    "answers_frame",
    "invalid_citations",
    "passages_frame",
    "score_answers",
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
    source: str | os.PathLike[str] | None, position: int, record: AnswerRecord, expected: str
) -> ContextGridError:
    if source is None:
        return ContextGridError(f"answer {position + 1} (question {record.question_id!r}): {expected}")
    if record.source is None:
        return InputFileError(source, None, None, expected)
    # The line the reader kept: the file is not read again to find it.
    return record.source.error(expected)


def score_answers(
    items: Iterable[EvalItem],
    answers: Iterable[AnswerRecord],
    chunks: Iterable[Chunk],
    qrels: Mapping[str, Mapping[str, int]],
    *,
    source: str | os.PathLike[str] | None = None,
    tokenizer: Tokenizer = DEFAULT_TOKENIZER,
) -> tuple[ScoredAnswer, ...]:
    """Judge every answer against the context its chunk ids rebuild, with :func:`~contextgrid.score_answer`.

    Parameters
    ----------
    items : iterable of EvalItem
        The questions, resolved (``is_resolved`` decides whether an answer
        should have abstained).
    answers : iterable of AnswerRecord
        As :func:`~contextgrid.io.read_answers` returns them.
    chunks : iterable of Chunk
        The chunks of the configuration the answers were generated from.
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
        question that is not among ``items``, or whose context names a chunk
        that is not among ``chunks``.
    """
    by_question = {item.id: item for item in items}
    by_id = {chunk.id: chunk for chunk in chunks}
    # A QrelsTable finds each question's row by a search; its dict, built once, finds it by hash.
    judged = qrels.to_dict() if isinstance(qrels, QrelsTable) else qrels
    build = ContextBuilder(tokenizer=tokenizer)
    # Each chunk's words are found once, however many contexts and gold sets hold it.
    chunk_words: dict[str, frozenset[str]] = {}

    def words_of(chunk: Chunk) -> frozenset[str]:
        found = chunk_words.get(chunk.id)
        if found is None:
            found = chunk_words[chunk.id] = words(chunk.text)
        return found

    scored = []
    for position, record in enumerate(answers):
        item = by_question.get(record.question_id)
        if item is None:
            raise _refuse(source, position, record, f"answers question {record.question_id!r}, which is not a question")
        unknown = [chunk_id for chunk_id in record.context_chunk_ids if chunk_id not in by_id]
        if unknown:
            raise _refuse(
                source,
                position,
                record,
                f"the context names chunk(s) {', '.join(map(repr, unknown))}, which are not chunks of this "
                "configuration's chunking",
            )
        try:
            context = build(by_id[chunk_id] for chunk_id in record.context_chunk_ids)
        except ContextGridError as error:
            raise _refuse(source, position, record, str(error)) from None
        judgements = dict(judged.get(record.question_id, {}))
        gold = [words_of(by_id[chunk_id]) for chunk_id, grade in judgements.items() if grade > 0 and chunk_id in by_id]
        score = score_answer_words(
            item,
            record.answer,
            context,
            # The [n] labels are citation markers and whitespace parts the passages: the context's words are its
            # chunks' words.
            context_words=[words_of(chunk) for chunk in context.chunks],
            gold_words=gold[0] if len(gold) == 1 else frozenset().union(*gold),
        )
        scored.append(ScoredAnswer(item, record, context, judgements, score))
    return tuple(scored)


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
    import pandas as pd

    rows = [
        (
            entry.item.question,
            entry.record.answer.text,
            len(entry.context.chunks),
            entry.record.answer.citations,
            invalid_citations(entry.record.answer, entry.context),
            entry.score.groundedness,
            float("nan") if entry.score.citation_accuracy is None else entry.score.citation_accuracy,
            entry.score.evidence_overlap,
            entry.score.abstained,
            entry.score.should_have_abstained,
            entry.score.abstention_correct,
            len(entry.score.warnings),
            tuple(entry.score.warnings),
        )
        for entry in scored
    ]
    frame = pd.DataFrame(
        rows,
        columns=pd.Index(ANSWER_COLUMNS),
        index=pd.Index([entry.record.question_id for entry in scored], name="question_id", dtype="object"),
    )
    types = dict.fromkeys(("groundedness", "citation_accuracy", "evidence_overlap"), "float64")
    types |= dict.fromkeys(("abstained", "should_have_abstained", "abstention_correct"), "bool")
    return frame.astype(types | {"passages": "int64", "problems": "int64"})


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
