"""score_answer: judge a generated answer by its words, with no second model.

An answer, a context or a chunk is reduced to the set of its words
(:mod:`contextgrid.core.text`'s word rule); word *sets* are compared, so
repetition neither helps nor hurts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from contextgrid.core.errors import ContextGridError
from contextgrid.core.text import words
from contextgrid.data.records import Answer, AnswerScore, AssembledContext, Chunk, EvalItem

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ABSTENTION_PHRASES",
    "GROUNDEDNESS_FLOOR",
    "abstentions",
    "answer_score",
    "answer_scores",
    "is_abstention",
    "score_answer",
]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


ABSTENTION_PHRASES: tuple[str, ...] = (
    "do not contain",
    "does not contain",
    "don't contain",
    "doesn't contain",
    "not enough information",
    "insufficient information",
    "no information",
    "cannot answer",
    "can't answer",
    "unable to answer",
    "cannot be answered",
    "cannot be determined",
    "not mentioned",
    "not provided",
    "i don't know",
    "i do not know",
)
"""An answer that contains one of these (case-insensitive, whitespace collapsed) declined to answer."""

GROUNDEDNESS_FLOOR = 0.5
"""Below this groundedness, most of an answer came from outside its context, and a warning says so."""


_PHRASE = re.compile("|".join(map(re.escape, ABSTENTION_PHRASES)))

_SEPARATOR = "\x01"
"""What joins answers to be read in one pass: no phrase holds it, and it is not whitespace."""


def _normalised(text: str) -> str:
    return " ".join(text.casefold().replace("’", "'").split())


def is_abstention(text: str) -> bool:
    """Whether the answer declines to answer (see :data:`ABSTENTION_PHRASES`)."""
    return _PHRASE.search(_normalised(text)) is not None


def abstentions(texts: Sequence[str]) -> BoolArray:
    """:func:`is_abstention` of each of ``texts``, read in one pass.

    Examples
    --------
    >>> abstentions(["It was Ada.", "I DON’T   know."]).tolist()
    [False, True]
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    joined = _SEPARATOR.join(texts)
    if joined.count(_SEPARATOR) != max(len(texts) - 1, 0):
        # A text holding the separator itself is read on its own.
        return np.array([is_abstention(text) for text in texts], dtype=bool)
    # Folding and collapsing whitespace go character by character, so the joined text is the texts' normalised
    # forms joined (the separator stays, with at most a space beside it), and no phrase reaches across it.
    try:
        data = _normalised(joined).encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate, which no pyarrow string holds: each text is read on its own.
        return np.array([is_abstention(text) for text in texts], dtype=bool)
    if not texts:
        return np.zeros(0, dtype=bool)
    # Each text's normalised form (and the separator after it) as one string of a pyarrow array, cut where the
    # separators are, and searched by pyarrow's regex engine: no Python string or match made per text.
    cuts = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord(_SEPARATOR)) + 1
    offsets = np.concatenate(([0], cuts, [len(data)])).astype(np.int64)
    column = pa.LargeStringArray.from_buffers(len(texts), pa.py_buffer(offsets), pa.py_buffer(data))
    said: BoolArray = pc.match_substring_regex(column, _PHRASE.pattern).to_numpy(zero_copy_only=False)
    return said


def score_answer(
    item: EvalItem,
    answer: Answer,
    context: AssembledContext,
    gold_chunks: Iterable[Chunk] = (),
) -> AnswerScore:
    """Judge one generated answer against the context it was given.

    Parameters
    ----------
    item : EvalItem
        The question; ``item.is_resolved`` decides whether there was gold
        evidence to answer from.
    answer : Answer
        The generated text and the passage numbers it cites (1-based).
    context : AssembledContext
        What the generator was given; passage ``n`` is ``context.chunks[n - 1]``.
    gold_chunks : iterable of Chunk, optional
        The chunks holding the gold evidence; without them
        ``evidence_overlap`` is 0.0.

    Returns
    -------
    AnswerScore
        ``groundedness``: share of the answer's words found in the context.
        ``citation_accuracy``: share of the distinct cited numbers that name a
        passage of the context, ``None`` without citations.
        ``evidence_overlap``: share of the gold chunks' words the answer used.
        ``should_have_abstained``: the item is not resolved, or the context
        holds no chunk. ``warnings``: a groundedness below
        :data:`GROUNDEDNESS_FLOOR` (not for a refusal), citations of missing
        passages, a refusal when there was evidence, an answer when there was
        none.

    Examples
    --------
    >>> import contextgrid as cg
    >>> item = cg.EvalItem(id="q1", question="Who?")
    >>> empty = cg.AssembledContext(text="", chunks=(), tokens=0)
    >>> score = cg.score_answer(item, cg.Answer(text="It was Ada."), empty)
    >>> score.abstention_correct
    False
    >>> print(score.warnings[-1])
    answered although there was nothing to answer from: no gold evidence was resolved in this parse and the
    context held no passages
    """
    checks: tuple[tuple[object, type, str], ...] = (
        (item, EvalItem, "item"),
        (answer, Answer, "answer"),
        (context, AssembledContext, "context"),
    )
    for value, kind, name in checks:
        if not isinstance(value, kind):
            raise ContextGridError(f"score_answer: {name} must be of type {kind.__name__}, got {value!r}")
    gold_words = frozenset().union(*(words(chunk.text) for chunk in gold_chunks))
    answer_words = words(answer.text)
    cited = set(answer.citations)
    (row,) = answer_scores(
        [item.id],
        [answer.text],
        words=np.array([len(answer_words)]),
        grounded=np.array([len(answer_words & words(context.text))]),
        gold_words=np.array([len(gold_words)]),
        gold_used=np.array([len(answer_words & gold_words)]),
        cited=np.array([len(cited)]),
        missing=[sorted(number for number in cited if number > len(context.chunks))],
        passages=np.array([len(context.chunks)]),
        resolved=np.array([item.is_resolved]),
    ).itertuples(index=False)
    return answer_score(row)


def answer_score(row: Any) -> AnswerScore:
    """One row of :func:`answer_scores` (a named tuple, as ``itertuples`` gives) as an :class:`AnswerScore`."""
    return AnswerScore(
        item_id=row.item_id,
        groundedness=float(row.groundedness),
        citation_accuracy=None if np.isnan(row.citation_accuracy) else float(row.citation_accuracy),
        evidence_overlap=float(row.evidence_overlap),
        abstained=bool(row.abstained),
        should_have_abstained=bool(row.should_have_abstained),
        warnings=list(row.warnings),
    )


def answer_scores(
    item_ids: Sequence[str],
    texts: Sequence[str],
    *,
    words: IntArray,
    grounded: IntArray,
    gold_words: IntArray,
    gold_used: IntArray,
    cited: IntArray,
    missing: Sequence[Sequence[int]],
    passages: IntArray,
    resolved: BoolArray,
) -> pd.DataFrame:
    """:func:`score_answer`'s rules on columns, one row per answer, from the counts of word sets.

    The one copy of the rules: :func:`score_answer` counts one answer's
    words with sets, :func:`~contextgrid.answering.batch.score_frame` counts
    many on coded columns, and both end here.

    Parameters
    ----------
    item_ids, texts : sequence of str
        Each answer's question id and text.
    words : int array
        How many distinct words each answer has.
    grounded : int array
        How many of them the context holds.
    gold_words : int array
        How many distinct words the gold chunks hold.
    gold_used : int array
        How many of those the answer has.
    cited : int array
        How many distinct passage numbers the answer cites.
    missing : sequence of sequences of int
        The cited numbers the context has no passage for, ascending.
    passages : int array
        How many passages the context holds.
    resolved : bool array
        Whether the question's gold evidence was resolved.

    Returns
    -------
    pandas.DataFrame
        Columns ``item_id``, ``groundedness``, ``citation_accuracy`` (``NaN``
        without citations), ``evidence_overlap``, ``abstained``,
        ``should_have_abstained`` and ``warnings`` (a tuple of str per answer).

    Examples
    --------
    >>> import numpy as np
    >>> scores = answer_scores(["q1"], ["Thirty days [1][4]."], words=np.array([2]), grounded=np.array([1]),
    ...                        gold_words=np.array([0]), gold_used=np.array([0]), cited=np.array([2]), missing=[[4]],
    ...                        passages=np.array([1]), resolved=np.array([True]))
    >>> scores[["groundedness", "citation_accuracy", "evidence_overlap"]].to_numpy().tolist()
    [[0.5, 0.5, 0.0]]
    >>> scores["warnings"].iloc[0]
    ('cited passage(s) that were not in the context: [4]',)
    """
    import pandas as pd

    words, grounded, gold_words, gold_used, cited, passages = (
        np.asarray(column, dtype=np.int64) for column in (words, grounded, gold_words, gold_used, cited, passages)
    )
    resolved = np.asarray(resolved, dtype=bool)
    # Divisions only where the count is above 0: the others are 0.0 (or no citation accuracy at all).
    groundedness = np.divide(grounded, words, out=np.zeros(len(words)), where=words > 0)
    missed = np.array([len(numbers) for numbers in missing], dtype=np.int64)
    citation_accuracy = np.divide(cited - missed, cited, out=np.full(len(cited), np.nan), where=cited > 0)
    evidence_overlap = np.divide(gold_used, gold_words, out=np.zeros(len(gold_words)), where=gold_words > 0)
    abstained = abstentions(texts)
    should_have_abstained = ~resolved | (passages == 0)
    warned = (~abstained & (groundedness < GROUNDEDNESS_FLOOR)) | (missed > 0) | (abstained != should_have_abstained)
    warnings: list[tuple[str, ...]] = [()] * len(words)
    # Only the answers with something to say are worded, one by one.
    for row in np.flatnonzero(warned).tolist():
        warnings[row] = _warnings(
            float(groundedness[row]),
            missing[row],
            abstained=bool(abstained[row]),
            should=bool(should_have_abstained[row]),
            resolved=bool(resolved[row]),
            passages=int(passages[row]),
        )
    return pd.DataFrame(
        {
            "item_id": pd.Series(list(item_ids), dtype="object"),
            "groundedness": groundedness,
            "citation_accuracy": citation_accuracy,
            "evidence_overlap": evidence_overlap,
            "abstained": abstained,
            "should_have_abstained": should_have_abstained,
            "warnings": pd.Series(warnings, dtype="object"),
        }
    )


def _warnings(
    groundedness: float, missing: Sequence[int], *, abstained: bool, should: bool, resolved: bool, passages: int
) -> tuple[str, ...]:
    """What went wrong with one answer, in words."""
    warnings = []
    if not abstained and groundedness < GROUNDEDNESS_FLOOR:
        warnings.append(
            f"only {groundedness:.0%} of the answer's words appear in the context it was given, "
            "so most of it came from somewhere else"
        )
    if missing:
        warnings.append(f"cited passage(s) that were not in the context: {list(missing)}")
    if abstained and not should:
        warnings.append("declined to answer although the context held passages and the gold evidence was resolved")
    if should and not abstained:
        reasons = []
        if not resolved:
            reasons.append("no gold evidence was resolved in this parse")
        if not passages:
            reasons.append("the context held no passages")
        warnings.append("answered although there was nothing to answer from: " + " and ".join(reasons))
    return tuple(warnings)
