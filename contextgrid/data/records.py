"""The records contextgrid passes around: spans, gold evidence, chunks, questions,
contexts and answers.

Every record is a frozen, slotted dataclass that checks its own fields, so a
bad value is refused where it is made, with the value in the message, rather
than surfacing later as a wrong number. A record names itself only when it
refuses a value: the reprs in its name would cost more than its checks, and
readers make hundreds of thousands of valid records.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from numbers import Integral
from operator import le
from typing import Any

from contextgrid.core.checks import is_fraction, is_whole, require
from contextgrid.core.errors import InvalidParameterError
from contextgrid.data.provenance import SourceLine

__all__ = [
    "MAX_PASSAGE",
    "Anchor",
    "Answer",
    "AnswerRecord",
    "AnswerScore",
    "AssembledContext",
    "Chunk",
    "EvalItem",
    "GoldSpan",
    "Span",
]


def _kind_name(kind: type) -> str:
    return "int" if kind is Integral else kind.__name__


def _tuple_of(record: Callable[[], str], name: str, values: Iterable[Any], kind: type) -> tuple[Any, ...]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise InvalidParameterError(f"{record()}: {name} must be a sequence of {_kind_name(kind)}, got {values!r}")
    items = tuple(values)
    for position, item in enumerate(items):
        # Worded only for a bad item: the repr of a good one (a whole chunk's text) is not built to be dropped.
        if not isinstance(item, kind):
            require(False, record, f"{name}[{position}] must be of type {_kind_name(kind)}, got {item!r}")
    return items


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open range ``[start, end)`` of character offsets in one document.

    Examples
    --------
    >>> from contextgrid import Span
    >>> span = Span("refund.md", 100, 200)
    >>> len(span)
    100
    >>> Span("refund.md", 5, 3)
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.InvalidParameterError: Span('refund.md', 5, 3): end must not be before start
    """

    doc_id: str
    start: int
    end: int

    def __post_init__(self) -> None:
        # The common span (a str and two ints in order) passes at once: readers make hundreds of thousands.
        if (
            type(self.doc_id) is str
            and self.doc_id
            and type(self.start) is type(self.end) is int
            and self.end >= self.start >= 0
        ):
            return

        def label() -> str:
            return f"Span({self.doc_id!r}, {self.start!r}, {self.end!r})"

        require(isinstance(self.doc_id, str) and self.doc_id != "", label, "doc_id must be a non-empty str")
        require(is_whole(self.start) and is_whole(self.end), label, "start and end must be int")
        require(self.start >= 0, label, "start must be 0 or more")
        require(self.end >= self.start, label, "end must not be before start")
        object.__setattr__(self, "start", int(self.start))
        object.__setattr__(self, "end", int(self.end))

    def __len__(self) -> int:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class GoldSpan:
    """A span of gold evidence and its relevance grade.

    ``grade`` follows the IR convention: 2 fully relevant, 1 partially
    relevant, 0 irrelevant. ``quote`` is the passage the span was resolved
    from, when the evidence was given as a quotation rather than as offsets.
    """

    span: Span
    grade: int = 2
    quote: str | None = None

    def __post_init__(self) -> None:
        # The common gold span passes at once, as the common span does.
        if (
            type(self.span) is Span
            and type(self.grade) is int
            and self.grade >= 0
            and (self.quote is None or type(self.quote) is str)
        ):
            return

        def label() -> str:
            return f"GoldSpan({self.span!r}, grade={self.grade!r})"

        require(isinstance(self.span, Span), label, "span must be a Span")
        require(is_whole(self.grade) and self.grade >= 0, label, "grade must be an int, 0 or more")
        require(self.quote is None or isinstance(self.quote, str), label, "quote must be a str or None")


@dataclass(frozen=True, slots=True)
class Anchor:
    """Gold evidence as the question's author gave it: a quoted passage of a document.

    An anchor becomes a :class:`GoldSpan` once it is found in a parse of the
    document; one that a parse lost stays an anchor only.
    """

    doc_id: str
    quote: str
    grade: int = 2

    def __post_init__(self) -> None:
        # The common anchor passes at once (a quote of more than whitespace), as the common span does.
        if (
            type(self.doc_id) is str
            and self.doc_id
            and type(self.quote) is str
            and not self.quote.isspace()
            and self.quote
            and type(self.grade) is int
            and self.grade >= 0
        ):
            return

        def label() -> str:
            return f"Anchor({self.doc_id!r}, {self.quote!r}, grade={self.grade!r})"

        require(isinstance(self.doc_id, str) and self.doc_id != "", label, "doc_id must be a non-empty str")
        require(isinstance(self.quote, str) and self.quote.strip() != "", label, "quote must be a non-empty str")
        require(is_whole(self.grade) and self.grade >= 0, label, "grade must be an int, 0 or more")


@dataclass(frozen=True, slots=True)
class Chunk:
    """A retrievable piece of a document.

    ``text`` is what the parser produced and ``span`` is where it sits in the
    document; the two may differ in length (a parser that normalises
    whitespace, say), so neither is checked against the other.
    """

    id: str
    span: Span
    text: str

    def __post_init__(self) -> None:
        # The common chunk passes at once, as the common span does.
        if type(self.id) is str and self.id and type(self.span) is Span and type(self.text) is str:
            return

        def label() -> str:
            return f"Chunk(id={self.id!r}, span={self.span!r})"

        require(isinstance(self.id, str) and self.id != "", label, "id must be a non-empty str")
        require(isinstance(self.span, Span), label, "span must be a Span")
        require(isinstance(self.text, str), label, f"text must be a str, got {type(self.text).__name__}")

    @staticmethod
    def common_columns(ids: list[Any], doc_ids: list[Any], starts: list[Any], ends: list[Any]) -> bool:
        """Whether every chunk of these columns has the common chunk's id and span (the first test of
        :class:`Span`'s and :class:`Chunk`'s ``__post_init__``), tested over whole columns: non-empty ``str``
        ids and document ids, ``int`` offsets (exactly: not a bool) with ``0 <= start <= end``.

        Examples
        --------
        >>> Chunk.common_columns(["c1"], ["a.md"], [0], [7]), Chunk.common_columns(["c1"], ["a.md"], [True], [7])
        (True, False)
        """
        return (
            {*map(type, ids), *map(type, doc_ids)} <= {str}
            and {*map(type, starts), *map(type, ends)} <= {int}
            and all(ids)
            and all(doc_ids)
            and min(starts, default=0) >= 0
            and all(map(le, starts, ends))
        )

    @classmethod
    def from_columns(
        cls,
        ids: Sequence[str],
        doc_ids: Sequence[str],
        starts: Sequence[int],
        ends: Sequence[int],
        texts: Sequence[str],
    ) -> tuple[Chunk, ...]:
        """``Chunk(ids[i], Span(doc_ids[i], starts[i], ends[i]), texts[i])`` for every ``i``, in order: the checks
        of both records made once over whole columns, then the records made without checking each again (a reader
        makes hundreds of thousands, and most of their time went to making them). Columns that fail a check are
        made into records one by one instead, so that the first bad one is refused as it is alone.

        Examples
        --------
        >>> Chunk.from_columns(["c1"], ["a.md"], [0], [7], ["Refunds"])
        (Chunk(id='c1', span=Span(doc_id='a.md', start=0, end=7), text='Refunds'),)
        >>> Chunk.from_columns(["c1", "c2"], ["a.md", "a.md"], [0, 9], [7, 3], ["Refunds", ""])
        Traceback (most recent call last):
        ...
        contextgrid.core.errors.InvalidParameterError: Span('a.md', 9, 3): end must not be before start
        """
        columns = (list(ids), list(doc_ids), list(starts), list(ends), list(texts))
        if len({len(column) for column in columns}) > 1:
            raise InvalidParameterError(
                "Chunk.from_columns: ids, doc_ids, starts, ends and texts must be one per chunk, got lengths "
                f"{[len(column) for column in columns]}"
            )
        ids, doc_ids, starts, ends, texts = columns
        if not (cls is Chunk and Chunk.common_columns(ids, doc_ids, starts, ends) and {*map(type, texts)} <= {str}):
            return tuple(map(cls, ids, map(Span, doc_ids, starts, ends), texts))
        count = len(ids)
        spans = list(map(object.__new__, repeat(Span, count)))
        chunks = list(map(object.__new__, repeat(Chunk, count)))
        # Each field set through its slot, a column at a time: what the frozen __init__ does one record at a time.
        for records, kind, name, column in (
            (spans, Span, "doc_id", doc_ids),
            (spans, Span, "start", starts),
            (spans, Span, "end", ends),
            (chunks, Chunk, "id", ids),
            (chunks, Chunk, "span", spans),
            (chunks, Chunk, "text", texts),
        ):
            deque(map(vars(kind)[name].__set__, records, column), maxlen=0)
        return tuple(chunks)


@dataclass(frozen=True, slots=True)
class EvalItem:
    """One evaluation question and its gold evidence.

    ``gold`` holds the evidence found in this parse of the documents;
    ``anchors`` holds the evidence as its author gave it (quoted passages),
    resolved or not; ``unplaced`` holds gold given as offsets alone that is
    not gold in this parse (past a document's end, in a document it does not
    have, or left out with the rest of an unresolved question's evidence), so
    that the question still counts as having evidence, unresolved.

    Examples
    --------
    >>> from contextgrid import Anchor, EvalItem
    >>> lost = EvalItem(id="q7", question="Who signs?", anchors=(Anchor("c.md", "the Director"),))
    >>> lost.is_answerable, lost.is_resolved
    (True, False)
    """

    id: str
    question: str
    gold: tuple[GoldSpan, ...] = ()
    anchors: tuple[Anchor, ...] = ()
    reference_answer: str | None = None
    unplaced: tuple[GoldSpan, ...] = ()

    def __post_init__(self) -> None:
        # The common item, tuples of records of exactly their classes, passes at once, as the common span does.
        if (
            type(self.id) is str
            and self.id
            and type(self.question) is str
            and (self.reference_answer is None or type(self.reference_answer) is str)
            and type(self.gold) is tuple
            and type(self.anchors) is tuple
            and type(self.unplaced) is tuple
            and {*map(type, self.gold), *map(type, self.unplaced)} <= {GoldSpan}
            and {*map(type, self.anchors)} <= {Anchor}
        ):
            return

        def label() -> str:
            return f"EvalItem(id={self.id!r})"

        require(isinstance(self.id, str) and self.id != "", label, "id must be a non-empty str")
        require(isinstance(self.question, str), label, "question must be a str")
        object.__setattr__(self, "gold", _tuple_of(label, "gold", self.gold, GoldSpan))
        object.__setattr__(self, "anchors", _tuple_of(label, "anchors", self.anchors, Anchor))
        object.__setattr__(self, "unplaced", _tuple_of(label, "unplaced", self.unplaced, GoldSpan))
        require(
            self.reference_answer is None or isinstance(self.reference_answer, str),
            label,
            "reference_answer must be a str or None",
        )

    @property
    def is_answerable(self) -> bool:
        """The item has gold evidence at all, found in this parse or not."""
        return bool(self.gold) or bool(self.anchors) or bool(self.unplaced)

    @property
    def is_resolved(self) -> bool:
        """The gold evidence was found in this parse of the documents."""
        return bool(self.gold)


@dataclass(frozen=True, slots=True)
class AssembledContext:
    """The text handed to a generator, and the chunks it was built from.

    Passage ``n`` of the context (as an answer cites it, ``[n]``) is
    ``chunks[n - 1]``.
    """

    text: str
    chunks: tuple[Chunk, ...]
    tokens: int

    def __post_init__(self) -> None:
        def label() -> str:
            return f"AssembledContext(tokens={self.tokens!r})"

        require(isinstance(self.text, str), label, "text must be a str")
        object.__setattr__(self, "chunks", _tuple_of(label, "chunks", self.chunks, Chunk))
        require(is_whole(self.tokens) and self.tokens >= 0, label, "tokens must be an int, 0 or more")


MAX_PASSAGE = 2**63 - 1
"""The largest passage number a citation may give: the largest a 64-bit integer holds, far past any context."""


@dataclass(frozen=True, slots=True)
class Answer:
    """A generated answer and the passage numbers it cites (1-based)."""

    text: str
    citations: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        def label() -> str:
            return f"Answer(text={self.text!r}, citations={self.citations!r})"

        require(isinstance(self.text, str), label, "text must be a str")
        citations = _tuple_of(label, "citations", self.citations, Integral)
        require(
            all(not isinstance(c, bool) and c >= 1 for c in citations),
            label,
            "every citation must be a passage number, 1 or more",
        )
        require(
            all(c <= MAX_PASSAGE for c in citations),
            label,
            "every citation must be a passage number up to 2**63 - 1: no context holds more",
        )
        object.__setattr__(self, "citations", tuple(int(c) for c in citations))


@dataclass(frozen=True, slots=True)
class AnswerScore:
    """How one generated answer did, judged lexically (see :func:`score_answer`)."""

    item_id: str
    groundedness: float
    citation_accuracy: float | None
    evidence_overlap: float
    abstained: bool
    should_have_abstained: bool
    warnings: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        def label() -> str:
            return f"AnswerScore(item_id={self.item_id!r})"

        require(is_fraction(self.groundedness), label, f"groundedness must be in [0, 1], got {self.groundedness!r}")
        require(
            self.citation_accuracy is None or is_fraction(self.citation_accuracy),
            label,
            f"citation_accuracy must be None or in [0, 1], got {self.citation_accuracy!r}",
        )
        require(
            is_fraction(self.evidence_overlap),
            label,
            f"evidence_overlap must be in [0, 1], got {self.evidence_overlap!r}",
        )
        require(
            isinstance(self.abstained, bool) and isinstance(self.should_have_abstained, bool),
            label,
            "abstained and should_have_abstained must be bool",
        )
        require(all(isinstance(w, str) for w in self.warnings), label, "warnings must be a list of str")

    @property
    def abstention_correct(self) -> bool:
        """The answer declined exactly when there was nothing to answer from."""
        return self.abstained == self.should_have_abstained


@dataclass(frozen=True, slots=True)
class AnswerRecord:
    """A generated answer as a pipeline logged it: for which question, and from which chunks.

    ``context_chunk_ids`` are the chunks of the context the answer was
    generated from, in passage order (citation ``[n]`` is the ``n``-th).
    ``source`` is the line of the answers file it was read from (``None``
    for a record made in code); it is neither shown nor compared, so a record
    read from a file equals the same record made by hand.

    Examples
    --------
    >>> from contextgrid.data.records import Answer, AnswerRecord
    >>> AnswerRecord("q1", Answer("Within 30 days [1].", citations=(1,)), context_chunk_ids=("c4",))
    AnswerRecord(question_id='q1', answer=Answer(text='Within 30 days [1].', citations=(1,)), context_chunk_ids=('c4',))
    """

    question_id: str
    answer: Answer
    context_chunk_ids: tuple[str, ...] = ()
    source: SourceLine | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        def label() -> str:
            return f"AnswerRecord(question_id={self.question_id!r})"

        require(
            isinstance(self.question_id, str) and self.question_id != "",
            label,
            "question_id must be a non-empty str",
        )
        require(isinstance(self.answer, Answer), label, f"answer must be an Answer, got {self.answer!r}")
        ids = _tuple_of(label, "context_chunk_ids", self.context_chunk_ids, str)
        require(all(ids), label, "context_chunk_ids must not hold an empty id")
        require(
            self.source is None or isinstance(self.source, SourceLine),
            label,
            f"source must be a SourceLine or None, got {self.source!r}",
        )
        object.__setattr__(self, "context_chunk_ids", ids)
