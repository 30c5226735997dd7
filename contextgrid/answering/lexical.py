"""score_answer: judge a generated answer by its words, with no second model.

An answer, a context or a chunk is reduced to the set of its words
(:mod:`contextgrid.core.text`'s word rule); word *sets* are compared, so
repetition neither helps nor hurts.
"""

from __future__ import annotations

from collections.abc import Iterable, Set

from contextgrid.core.errors import ContextGridError
from contextgrid.core.text import words
from contextgrid.data.records import Answer, AnswerScore, AssembledContext, Chunk, EvalItem

__all__ = ["ABSTENTION_PHRASES", "GROUNDEDNESS_FLOOR", "is_abstention", "score_answer", "score_answer_words"]


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


def is_abstention(text: str) -> bool:
    """Whether the answer declines to answer (see :data:`ABSTENTION_PHRASES`)."""
    normalised = " ".join(text.casefold().replace("’", "'").split())
    return any(phrase in normalised for phrase in ABSTENTION_PHRASES)


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
    return score_answer_words(item, answer, context, context_words=[words(context.text)], gold_words=gold_words)


def score_answer_words(
    item: EvalItem,
    answer: Answer,
    context: AssembledContext,
    *,
    context_words: Iterable[Set[str]],
    gold_words: Set[str],
) -> AnswerScore:
    """:func:`score_answer` with the words of the context and of the gold chunks already found.

    For a caller that reads each chunk's words once and scores many answers
    whose contexts share chunks (:func:`~contextgrid.answering.batch.score_answers`):
    ``context_words`` are sets of words whose union is
    ``words(context.text)`` (each passage's, or that one set),
    ``gold_words`` is the union of the gold chunks' words. The arguments are
    not checked again.

    Examples
    --------
    >>> import contextgrid as cg
    >>> from contextgrid.core.text import words
    >>> item = cg.EvalItem(id="q1", question="How long?")
    >>> chunk = cg.Chunk("a", cg.Span("d", 0, 12), "Thirty days.")
    >>> context = cg.AssembledContext(text="[1] Thirty days.", chunks=(chunk,), tokens=6)
    >>> answer = cg.Answer("Thirty days [1].", citations=(1,))
    >>> found = words(chunk.text)
    >>> fast = score_answer_words(item, answer, context, context_words=[found], gold_words=found)
    >>> fast == cg.score_answer(item, answer, context, gold_chunks=[chunk])
    True
    """
    answer_words = words(answer.text)
    # Set differences walk the answer's few words, not the context's many.
    unfound = answer_words
    for found in context_words:
        unfound = unfound - found
    groundedness = (len(answer_words) - len(unfound)) / len(answer_words) if answer_words else 0.0

    cited = sorted(set(answer.citations))
    missing = [number for number in cited if number > len(context.chunks)]
    citation_accuracy = (len(cited) - len(missing)) / len(cited) if cited else None

    evidence_overlap = len(answer_words & gold_words) / len(gold_words) if gold_words else 0.0

    abstained = is_abstention(answer.text)
    should_have_abstained = not item.is_resolved or not context.chunks

    warnings = []
    if not abstained and groundedness < GROUNDEDNESS_FLOOR:
        warnings.append(
            f"only {groundedness:.0%} of the answer's words appear in the context it was given, "
            "so most of it came from somewhere else"
        )
    if missing:
        warnings.append(f"cited passage(s) that were not in the context: {missing}")
    if abstained and not should_have_abstained:
        warnings.append("declined to answer although the context held passages and the gold evidence was resolved")
    if should_have_abstained and not abstained:
        reasons = []
        if not item.is_resolved:
            reasons.append("no gold evidence was resolved in this parse")
        if not context.chunks:
            reasons.append("the context held no passages")
        warnings.append("answered although there was nothing to answer from: " + " and ".join(reasons))
    return AnswerScore(
        item_id=item.id,
        groundedness=groundedness,
        citation_accuracy=citation_accuracy,
        evidence_overlap=evidence_overlap,
        abstained=abstained,
        should_have_abstained=should_have_abstained,
        warnings=warnings,
    )
