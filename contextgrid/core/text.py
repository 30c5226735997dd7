"""contextgrid's word rule, shared by BM25, LSA and every lexical answer score.

A word is a run of letters and digits, with apostrophes inside it kept ("don't" is one word), compared
case-insensitively with the typographic apostrophe read as the plain one. The rule itself neither stems nor drops
stopwords: what matches is exactly what a reader would call the same word. BM25 then drops stopwords and stems the
words this rule finds (:class:`contextgrid.index.bm25.Analyzer`), so it has no split of its own. Citation markers
(``[2]``, ``[1, 3]``) name passages; they are not words of an answer.
"""

from __future__ import annotations

import re

__all__ = ["CITATION", "WORD", "tokenize", "words"]

WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
"""A word: letters and digits, with apostrophes inside it (the word rule of every lexical score here)."""

CITATION = re.compile(r"\[\s*\d+(?:\s*[,;]\s*\d+)*\s*\]")
"""A citation marker, ``[2]`` or ``[1, 3]``: it names passages, it is not one of the answer's words."""


def _normal(word: str) -> str:
    return word.casefold().replace("’", "'")


def tokenize(text: str) -> list[str]:
    """The words of ``text`` in order, lowercased, repeats kept.

    Examples
    --------
    >>> tokenize("Refunds: 30 days -- don't wait, REFUNDS!")
    ['refunds', '30', 'days', "don't", 'wait', 'refunds']
    """
    return [_normal(match) for match in WORD.findall(text)]


def words(text: str) -> frozenset[str]:
    """The set of lowercased words in ``text``, citation markers such as ``[2]`` left out.

    Examples
    --------
    >>> sorted(words("Refunds: 30 days [2] -- don't wait!"))
    ['30', 'days', "don't", 'refunds', 'wait']
    """
    # The apostrophes are made one before the split (the word rule treats them alike, and no character
    # case-folds to either), and each distinct match is folded once: the same set, a third of the work.
    found = set(WORD.findall(CITATION.sub(" ", text.replace("’", "'"))))
    return frozenset(map(str.casefold, found))
