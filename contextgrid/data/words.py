"""contextgrid's word rule (:mod:`contextgrid.core.text`) over many texts at once, as columns: each distinct
word of each text as a (text, word code) row, the texts matched in one pass instead of one
:func:`~contextgrid.core.text.words` call each."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from contextgrid.core.text import CITATION, WORD, words
from contextgrid.data.keys import distinct_pairs

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

__all__ = ["ascii_word_runs", "word_rows"]

IntArray = npt.NDArray[np.int64]

_SEPARATOR = "\x01"
"""What joins texts to be split into words in one pass: no word, no citation marker and no whitespace holds it."""

_WORD_OR_SEPARATOR = re.compile(f"{WORD.pattern}|{_SEPARATOR}")

_ASCII_WORD_BYTES = bytes(
    ord(chr(byte).lower()) if (chr(byte).isascii() and chr(byte).isalnum()) or chr(byte) == "'" else ord(" ")
    for byte in range(256)
)
"""Each ASCII letter or digit folded (an ASCII word's fold is its lowercase), an apostrophe kept, every other byte
made a space (``bytes.translate``)."""


def ascii_word_runs(data: bytes) -> tuple[IntArray, IntArray, pa.Array]:
    """The words of the ASCII bytes ``data`` by the word rule (:data:`~contextgrid.core.text.WORD`): where each
    starts and ends, and each folded (an ASCII word's fold is its lowercase), as a pyarrow string array.

    On ASCII text a word is a run of letters and digits, with an apostrophe between two of them: the runs are found
    on the bytes, and the words laid end to end, with no Python string per word (four times the rule's regex).

    Examples
    --------
    >>> start, end, found = ascii_word_runs(b"Don't 'quote' me_2")
    >>> start.tolist(), end.tolist(), found.to_pylist()
    ([0, 7, 14, 17], [5, 12, 16, 18], ["don't", 'quote', 'me', '2'])
    """
    import pyarrow as pa

    mapped = data.translate(_ASCII_WORD_BYTES)
    chars = np.frombuffer(mapped, dtype=np.uint8)
    inside = chars != ord(" ")
    apostrophe = np.flatnonzero(chars == ord("'"))
    inside[apostrophe] = False
    # An apostrophe is a word's between two letters or digits (both sides read before any is set).
    inner = apostrophe[(apostrophe > 0) & (apostrophe < len(chars) - 1)]
    inside[inner] = inside[inner - 1] & inside[inner + 1]
    # Where each run of word bytes starts and where it ends, alternately (diff of booleans: where they change).
    edges = np.flatnonzero(np.diff(inside, prepend=False, append=False))
    start, end = edges[0::2].astype(np.int64), edges[1::2].astype(np.int64)
    offsets = np.concatenate(([0], np.cumsum(end - start))).astype(np.int64)
    # The words' bytes end to end: the apostrophes no word holds made spaces, then the spaces deleted.
    lone = apostrophe[~inside[apostrophe]]
    spaced: bytes | bytearray = mapped
    if len(lone):
        spaced = bytearray(mapped)
        np.frombuffer(spaced, dtype=np.uint8)[lone] = ord(" ")
    found = pa.LargeStringArray.from_buffers(
        len(start), pa.py_buffer(offsets), pa.py_buffer(spaced.translate(None, b" "))
    )
    return start, end, found


def _ascii_words(texts: Sequence[str]) -> tuple[IntArray, pa.Array]:
    """Every word of the ASCII ``texts`` (that do not hold the separator, which no word holds), citation markers
    left out, folded (:func:`ascii_word_runs`), and the position of its text."""
    joined = CITATION.sub(" ", f" {_SEPARATOR} ".join(texts)).encode("ascii")
    start, _, found = ascii_word_runs(joined)
    # A word's text: how many separators come before it.
    separators = np.flatnonzero(np.frombuffer(joined, dtype=np.uint8) == ord(_SEPARATOR))
    return np.searchsorted(separators, start).astype(np.int64), found


def _other_words(texts: Sequence[str]) -> tuple[IntArray, npt.NDArray[np.object_]]:
    """Every word of ``texts`` (that do not hold the separator) as ``words`` matches it, folded, and the position
    of its text: the rule's regex, for texts that are not ASCII."""
    import pandas as pd

    joined = CITATION.sub(" ", f" {_SEPARATOR} ".join(texts).replace("’", "'"))
    matches = np.array(_WORD_OR_SEPARATOR.findall(joined), dtype=object)
    separator = matches == _SEPARATOR
    raw, spelled = pd.factorize(matches[~separator])
    # Each distinct match folded once.
    folded = np.array([word.casefold() for word in spelled], dtype=object)
    return np.cumsum(separator, dtype=np.int64)[~separator], folded[raw]


def word_rows(texts: Sequence[str]) -> tuple[IntArray, IntArray, pd.Index]:
    """Each distinct word of each text (:func:`~contextgrid.core.text.words`' rule): the text's position, the
    word's code and the words.

    Rows are sorted by text, then by code; codes index the returned words, lowercased as ``words`` gives them.

    Examples
    --------
    >>> text, code, found = word_rows(["Thirty days [2].", "DAYS, days", "don’t"])
    >>> text.tolist(), [found[c] for c in code]
    ([0, 0, 1, 2], ['thirty', 'days', 'days', "don't"])
    """
    import pandas as pd

    if any(_SEPARATOR in text for text in texts):
        # A text that holds the separator itself is split on its own, as words() splits it.
        found = [sorted(words(text)) for text in texts]
        owner = np.repeat(np.arange(len(texts), dtype=np.int64), [len(each) for each in found])
        flat: list[str] = [word for each in found for word in each]
        codes, vocabulary = pd.factorize(np.array(flat, dtype=object))
        return (*distinct_pairs(owner, codes.astype(np.int64), len(vocabulary)), pd.Index(vocabulary, dtype="object"))
    import pyarrow as pa

    # The ASCII texts take the fast way; a few others do not slow them down.
    plain = np.array([text.isascii() for text in texts], dtype=bool)
    ascii_rows, other_rows = np.flatnonzero(plain), np.flatnonzero(~plain)
    ascii_owner, ascii_found = _ascii_words([texts[row] for row in ascii_rows.tolist()])
    owners, found = [ascii_rows[ascii_owner]], [ascii_found]
    if len(other_rows):
        other_owner, other_found = _other_words([texts[row] for row in other_rows.tolist()])
        owners.append(other_rows[other_owner])
        found.append(pa.array(other_found, pa.large_string()))
    # Coded in order of first appearance, as the words are met; spellings that fold alike ("Days", "days") are one
    # word already.
    coded = pa.chunked_array(found, pa.large_string()).combine_chunks().dictionary_encode()
    codes = coded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    vocabulary = pd.Index(coded.dictionary.to_pylist(), dtype="object")
    return (*distinct_pairs(np.concatenate(owners), codes, len(vocabulary)), vocabulary)
