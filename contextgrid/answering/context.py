"""assemble_context: the retrieved chunks as the numbered passages a generator reads, under a token budget.

The passage format: passage ``n`` is ``[n]``, a space and the chunk's text
with surrounding whitespace stripped; passages are separated by a blank
line. An answer that cites ``[n]`` cites passage ``n``, which is
``context.chunks[n - 1]``::

    [1] Refunds are available within 30 days of purchase.

    [2] Store credit is offered after 30 days.

Passages are added in the order given (best first) while the whole text
stays within the budget; assembly stops at the first chunk that does not
fit, and that chunk and every one after it are reported as cut, so the
context is always a prefix of the ranking.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from contextgrid.chunking import RegexTokenizer, Tokenizer
from contextgrid.core.checks import check_int, is_whole
from contextgrid.core.errors import ContextGridError, parameter_error
from contextgrid.data.chunk_checks import checked_chunks
from contextgrid.data.records import AssembledContext, Chunk

__all__ = [
    "DEFAULT_TOKENIZER",
    "PASSAGE_SEPARATOR",
    "BudgetedContext",
    "ContextBuilder",
    "assemble_context",
    "context_from_chunks",
    "count_tokens",
    "passage",
]

PASSAGE_SEPARATOR = "\n\n"
"""What separates one passage from the next in an assembled context."""

DEFAULT_TOKENIZER: Tokenizer = RegexTokenizer()
"""The tokenizer budgets are counted with unless another is given (the one token-based chunking uses)."""


def passage(number: int, chunk: Chunk) -> str:
    """Passage ``number`` as it appears in a context: ``[number] text``.

    Examples
    --------
    >>> from contextgrid import Chunk, Span
    >>> passage(2, Chunk("c9", Span("refund.md", 0, 20), "  Within 30 days.\\n"))
    '[2] Within 30 days.'
    """
    return f"[{number}] {chunk.text.strip()}"


def count_tokens(text: str, tokenizer: Tokenizer) -> int:
    """How many tokens ``tokenizer`` finds in ``text``.

    Examples
    --------
    >>> from contextgrid.chunking import RegexTokenizer
    >>> count_tokens("[1] Refunds: 30 days.", RegexTokenizer())
    8
    """
    return sum(1 for _ in tokenizer(text))


@dataclass(frozen=True, slots=True)
class BudgetedContext(AssembledContext):
    """An :class:`~contextgrid.AssembledContext` built under a token budget, with what did not fit.

    ``chunks`` are the passages kept, in passage order; ``cut`` the chunks
    left out, in the order they were given; ``budget_tokens`` the budget.
    ``tokens`` is the tokenizer's count for ``text``, never above the budget.
    A ``BudgetedContext`` is an ``AssembledContext``, so it goes straight to
    :func:`~contextgrid.score_answer`.
    """

    cut: tuple[Chunk, ...] = ()
    budget_tokens: int = field(default=0, kw_only=True)

    def __post_init__(self) -> None:
        # slots=True rebuilds the class, which breaks zero-argument super(); name the parent instead.
        AssembledContext.__post_init__(self)
        label = f"BudgetedContext(tokens={self.tokens!r}, budget_tokens={self.budget_tokens!r})"
        if not isinstance(self.cut, tuple) or not all(isinstance(chunk, Chunk) for chunk in self.cut):
            raise ContextGridError(f"{label}: cut must be a tuple of Chunk, got {self.cut!r}")
        if not is_whole(self.budget_tokens):
            raise ContextGridError(f"{label}: budget_tokens must be an int")
        if self.tokens > self.budget_tokens:
            raise ContextGridError(f"{label}: the context is over its budget")


_ONCE = "a context holds each chunk once, so de-duplicate the ranking first, keeping each chunk at its best position"


def assemble_context(
    chunks: Iterable[Chunk],
    budget_tokens: int,
    *,
    tokenizer: Tokenizer = DEFAULT_TOKENIZER,
) -> BudgetedContext:
    """Number ``chunks`` as passages, best first, until the next would take the text over ``budget_tokens``.

    Parameters
    ----------
    chunks : iterable of Chunk
        Retrieved chunks, best first, each once.
    budget_tokens : int
        The most tokens the assembled text may hold (at least 1). The count
        covers the whole text, passage labels and separators included.
    tokenizer : callable, optional
        Text to token offsets, as for
        :class:`~contextgrid.chunking.FixedTokenChunker`; the default is
        :class:`~contextgrid.chunking.RegexTokenizer`.

    Returns
    -------
    BudgetedContext
        ``text`` in the passage format (see the module docstring),
        ``chunks`` the passages kept, ``cut`` the chunks left out and
        ``tokens`` the tokenizer's count for ``text``.

    Raises
    ------
    InvalidParameterError
        ``budget_tokens`` is not an int >= 1, or a chunk is not a Chunk.
    DuplicateChunkError
        A chunk id is given twice.

    Examples
    --------
    >>> from contextgrid import Chunk, Span
    >>> chunks = [
    ...     Chunk("a", Span("refund.md", 0, 51), "Refunds are available within 30 days of purchase."),
    ...     Chunk("b", Span("refund.md", 52, 90), "Store credit is offered after 30 days."),
    ... ]
    >>> context = assemble_context(chunks, 20)
    >>> print(context.text)
    [1] Refunds are available within 30 days of purchase.
    >>> context.tokens, [c.id for c in context.cut]
    (12, ['b'])
    >>> assemble_context(chunks, 40).tokens
    23
    """
    given = checked_chunks(chunks, function="assemble_context", hint=_ONCE)
    check_int(budget_tokens, function="assemble_context", parameter="budget_tokens", minimum=1)
    if not callable(tokenizer):
        raise parameter_error("assemble_context", "tokenizer", "a callable from text to token offsets", tokenizer)
    budget = int(budget_tokens)
    text, tokens, kept = "", 0, 0
    for number, chunk in enumerate(given, 1):
        candidate = passage(number, chunk) if not text else text + PASSAGE_SEPARATOR + passage(number, chunk)
        # Counted on the whole candidate text, not summed per passage: a tokenizer may merge across the seam.
        counted = count_tokens(candidate, tokenizer)
        if counted > budget:
            break
        text, tokens, kept = candidate, counted, number
    return BudgetedContext(text, given[:kept], tokens, given[kept:], budget_tokens=budget)


def context_from_chunks(chunks: Iterable[Chunk], *, tokenizer: Tokenizer = DEFAULT_TOKENIZER) -> AssembledContext:
    """Every chunk as a numbered passage, with no budget: the context an answer was logged with.

    Examples
    --------
    >>> from contextgrid import Chunk, Span
    >>> context = context_from_chunks([Chunk("a", Span("d", 0, 8), "30 days."), Chunk("b", Span("d", 9, 14), "Unused")])
    >>> print(context.text)
    [1] 30 days.
    <BLANKLINE>
    [2] Unused
    >>> context.tokens
    10
    """
    given = checked_chunks(chunks, function="context_from_chunks", hint=_ONCE)
    text = PASSAGE_SEPARATOR.join(passage(number, chunk) for number, chunk in enumerate(given, 1))
    return AssembledContext(text, given, count_tokens(text, tokenizer))


class ContextBuilder:
    """:func:`context_from_chunks` for many contexts of one chunking, each chunk's text counted once.

    With the default tokenizer (:class:`~contextgrid.chunking.RegexTokenizer`'s
    own pattern, whose tokens never hold whitespace nor reach across it) a
    context's count is the sum of its passages' counts, since passages are
    separated by whitespace: each chunk's stripped text is counted the first
    time it is met, and its ``[n]`` label once per number. Any other tokenizer
    may merge tokens across a seam, so its contexts are counted whole, as
    :func:`context_from_chunks` does. A chunk is known by its id: one builder
    serves one chunking, whose ids name one text each.

    Examples
    --------
    >>> from contextgrid import Chunk, Span
    >>> build = ContextBuilder()
    >>> chunks = [Chunk("a", Span("d", 0, 8), "30 days."), Chunk("b", Span("d", 9, 14), "Unused")]
    >>> build(chunks) == context_from_chunks(chunks)
    True
    >>> build(chunks[::-1]).tokens
    10
    """

    __slots__ = ("_counts", "_labels", "_pattern", "_tokenizer")

    def __init__(self, *, tokenizer: Tokenizer = DEFAULT_TOKENIZER) -> None:
        if not callable(tokenizer):
            raise parameter_error("ContextBuilder", "tokenizer", "a callable from text to token offsets", tokenizer)
        self._tokenizer = tokenizer
        # Counting the pattern's matches is the tokenizer's count without building its offsets.
        self._pattern = (
            re.compile(tokenizer.pattern)
            if isinstance(tokenizer, RegexTokenizer)
            and type(tokenizer) is RegexTokenizer
            and tokenizer.pattern == RegexTokenizer().pattern
            else None
        )
        self._counts: dict[str, int] = {}
        self._labels: list[int] = []

    def _label(self, number: int) -> int:
        while len(self._labels) < number:
            self._labels.append(count_tokens(f"[{len(self._labels) + 1}]", self._tokenizer))
        return self._labels[number - 1]

    def __call__(self, chunks: Iterable[Chunk]) -> AssembledContext:
        """The context of ``chunks``, equal to ``context_from_chunks(chunks, tokenizer=...)``."""
        given = checked_chunks(chunks, function="context_from_chunks", hint=_ONCE)
        text = PASSAGE_SEPARATOR.join(passage(number, chunk) for number, chunk in enumerate(given, 1))
        if self._pattern is None:
            return AssembledContext(text, given, count_tokens(text, self._tokenizer))
        tokens = 0
        for number, chunk in enumerate(given, 1):
            counted = self._counts.get(chunk.id)
            if counted is None:
                counted = self._counts[chunk.id] = len(self._pattern.findall(chunk.text.strip()))
            tokens += self._label(number) + counted
        return AssembledContext(text, given, tokens)
