"""The word rule over many texts at once (data.words.word_rows) against the rule applied to each text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from contextgrid.core.text import CITATION, WORD, words
from contextgrid.data.words import word_rows

# Letters and digits of several scripts, both apostrophes, citation markers, the separator word_rows joins texts
# with, case that folds to more than one letter (ß, ﬁ) and the dotted capital I whose fold is not a word.
PIECES = st.sampled_from(
    ["a", "Z", "7", "é", "ß", "ﬁ", "İ", "Σ", "日本", "٣", "'", "’", " ", "_", "-", ".", "[2]", "[1, 3]", "\x01", "\n"]
)
TEXTS = st.lists(st.lists(PIECES, max_size=12).map("".join), max_size=8)


def by_each_text(texts: list[str]) -> list[frozenset[str]]:
    return [words(text) for text in texts]


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.booleans())
def test_word_rows_are_each_texts_words(texts: list[str], ascii_only: bool) -> None:
    if ascii_only:
        texts = [text.encode("ascii", "ignore").decode("ascii") for text in texts]
    text, code, found = word_rows(texts)
    got: list[set[str]] = [set() for _ in texts]
    for position, word in zip(text.tolist(), code.tolist(), strict=True):
        got[position].add(found[word])
    assert [frozenset(each) for each in got] == by_each_text(texts)
    # Rows are distinct and sorted by text, then code; each spelling folds to one code.
    pairs = list(zip(text.tolist(), code.tolist(), strict=True))
    assert pairs == sorted(set(pairs))
    assert found.is_unique


def test_hand_checked_rows() -> None:
    text, code, found = word_rows(["Refunds: 30 days [2] -- don't wait!", "", "REFUNDS refunds"])
    assert [(t, found[c]) for t, c in zip(text.tolist(), code.tolist(), strict=True)] == [
        (0, "refunds"),
        (0, "30"),
        (0, "days"),
        (0, "don't"),
        (0, "wait"),
        (2, "refunds"),
    ]


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.booleans())
def test_words_are_coded_in_the_order_they_are_first_met(texts: list[str], ascii_only: bool) -> None:
    if ascii_only:
        texts = [text.encode("ascii", "ignore").decode("ascii") for text in texts]
    if any("\x01" in text for text in texts):
        # Texts that hold the separator are each split on their own, their words sorted.
        met = [word for text in texts for word in sorted(words(text))]
    else:
        # The ASCII texts are read first, then the others, each word as the rule's regex matches it.
        order = [text for text in texts if text.isascii()] + [text for text in texts if not text.isascii()]
        met = [match.casefold() for text in order for match in WORD.findall(CITATION.sub(" ", text.replace("’", "'")))]
    assert list(word_rows(texts)[2]) == list(dict.fromkeys(met))
