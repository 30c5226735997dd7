"""Sets of words as columns: words coded as integers, each set two aligned arrays (owner, code), so that
"how many words of this set are in that one" is one membership test over all the pairs at once."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from contextgrid.data.keys import expand_stretches, find_sorted

__all__ = ["Vocabulary", "set_keys", "set_sizes", "shared_counts", "shared_with_keys"]

IntArray = npt.NDArray[np.int64]
WordSets = tuple[IntArray, IntArray]
"""Sets as ``(owner, code)``: for each distinct word of each set, the set's position and the word's code."""


class Vocabulary:
    """Words coded as integers, in the order first seen; every set coded by one vocabulary can be compared.

    Examples
    --------
    >>> vocabulary = Vocabulary()
    >>> owner, code = vocabulary.code([["refund", "days"], ["days"]])
    >>> owner.tolist(), sorted(code.tolist()), vocabulary.size
    ([0, 0, 1], [0, 0, 1], 2)
    """

    def __init__(self) -> None:
        self.codes: dict[str, int] = {}

    def code(self, sets: Sequence[Iterable[str]]) -> WordSets:
        """``sets`` as the position of the set each distinct word is in, and the word's code."""
        distinct = [frozenset(words_of) for words_of in sets]
        owner = np.repeat(np.arange(len(distinct), dtype=np.int64), [len(words_of) for words_of in distinct])
        codes = self.codes
        flat = [codes.setdefault(word, len(codes)) for words_of in distinct for word in sorted(words_of)]
        return owner, np.array(flat, dtype=np.int64)

    def code_words(self, words: Iterable[str]) -> IntArray:
        """The code of each of ``words``, learning the new ones in order: :meth:`code`'s of sets of one word each,
        without a set per word.

        Examples
        --------
        >>> vocabulary = Vocabulary()
        >>> vocabulary.code_words(["days", "refund", "days"]).tolist(), vocabulary.code([["refund"]])[1].tolist()
        ([0, 1, 0], [1])
        """
        codes = self.codes
        return np.fromiter((codes.setdefault(word, len(codes)) for word in words), dtype=np.int64)

    def copy(self) -> Vocabulary:
        """A vocabulary with the same codes, learning new words apart from this one: for texts coded on another
        thread, whose new words no other text coded with this one holds.

        Examples
        --------
        >>> vocabulary = Vocabulary()
        >>> vocabulary.code_words(["days"]).tolist()
        [0]
        >>> other = vocabulary.copy()
        >>> other.code_words(["refund", "days"]).tolist(), vocabulary.size, other.size
        ([1, 0], 1, 2)
        """
        copied = Vocabulary()
        copied.codes = dict(self.codes)
        return copied

    @property
    def size(self) -> int:
        """The multiplier of a (set, word) key: at least 1."""
        return max(len(self.codes), 1)


def set_sizes(sets: WordSets, n: int) -> IntArray:
    """The number of words of each of the ``n`` sets."""
    return np.bincount(sets[0], minlength=n).astype(np.int64)


def set_keys(sets: WordSets, size: int) -> IntArray:
    """``sets`` as the sorted keys ``owner * size + code`` that :func:`shared_with_keys` looks words up in: computed
    once for sets matched many times.

    Examples
    --------
    >>> import numpy as np
    >>> set_keys((np.array([0, 0, 1]), np.array([1, 0, 0])), 2).tolist()
    [0, 1, 2]
    """
    owner, codes = sets
    # A set holds each word once, so the keys are distinct already: sorting them is enough.
    return np.sort(owner * size + codes).astype(np.int64)


def shared_with_keys(sets: WordSets, row_set: IntArray, keys: IntArray, row_target: IntArray, size: int) -> IntArray:
    """For each row, how many words of set ``row_set[row]`` (of ``sets``) are in target set ``row_target[row]``,
    the targets given as their :func:`set_keys`: each row's words expanded as rows, one binary search over them
    all. Expand the smaller sets: the cost is their words, whatever the size of the targets. The lookups go in
    the order of the targets, so that they walk the keys forward (codes sorted within each set help too).

    Examples
    --------
    >>> import numpy as np
    >>> vocabulary = Vocabulary()
    >>> golds = vocabulary.code([["refund", "days", "take"]])
    >>> chunks = vocabulary.code([["refund", "days"], ["ship"]])
    >>> keys = set_keys(chunks, vocabulary.size)
    >>> shared_with_keys(golds, np.array([0, 0]), keys, np.array([1, 0]), vocabulary.size).tolist()
    [0, 2]
    """
    owner, codes = sets
    # Rows in target order: consecutive lookups land in the same stretch of the keys (cache), twice as fast.
    order = np.argsort(row_target, kind="stable")
    by_set, by_target = row_set[order], row_target[order]
    count = np.bincount(owner, minlength=int(row_set.max(initial=-1)) + 1).astype(np.int64)
    start = np.concatenate(([0], np.cumsum(count)[:-1])).astype(np.int64)
    lengths = count[by_set] if len(by_set) else np.zeros(0, dtype=np.int64)
    word_at, word_row = expand_stretches(start[by_set], lengths)
    wanted = by_target[word_row] * size + codes[word_at]
    inside = find_sorted(keys, wanted)[1]
    shared = np.zeros(len(row_set), dtype=np.int64)
    shared[order] = np.bincount(word_row[inside], minlength=len(row_set))
    return shared


def shared_counts(sets: WordSets, row_set: IntArray, targets: WordSets, row_target: IntArray, size: int) -> IntArray:
    """For each row, how many words of set ``row_set[row]`` (of ``sets``) are in set ``row_target[row]`` (of
    ``targets``): :func:`shared_with_keys` with the targets' keys made here. ``size`` is the
    vocabulary's :attr:`Vocabulary.size` once both were coded.

    Examples
    --------
    >>> import numpy as np
    >>> vocabulary = Vocabulary()
    >>> chunks = vocabulary.code([["refund", "days"], ["ship"]])
    >>> golds = vocabulary.code([["refund", "days", "take"]])
    >>> shared_counts(chunks, np.array([0, 1]), golds, np.array([0, 0]), vocabulary.size).tolist()
    [2, 0]
    """
    return shared_with_keys(sets, row_set, set_keys(targets, size), row_target, size)
