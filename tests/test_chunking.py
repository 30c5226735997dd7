"""Chunkers: exact offsets, whole coverage, overlap as asked, no empty chunk; hand-checked cuts."""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contextgrid as cg
from contextgrid.chunking import (
    CHUNKERS,
    SENTENCE_END,
    Chunker,
    FixedCharChunker,
    FixedTokenChunker,
    RecursiveChunker,
    RegexTokenizer,
    SentenceChunker,
    available_chunkers,
    chunk_documents,
    get_chunker,
)
from contextgrid.core.errors import (
    ContextGridError,
    InvalidParameterError,
    UnknownPluginError,
)
from contextgrid.data.spans import union

# Words, punctuation, spaces, blank lines and a non-ASCII letter, so every kind of boundary comes up.
texts = st.lists(
    st.sampled_from(["Refund", "days", "30", "é", ".", "!", "?", ",", " ", "  ", "\n", "\n\n", "\t", "x" * 13]),
    max_size=60,
).map("".join)
sizes = st.integers(1, 40)


@st.composite
def size_and_overlap(draw: st.DrawFn) -> tuple[int, int]:
    size = draw(sizes)
    return size, draw(st.integers(0, size - 1))


@st.composite
def chunkers(draw: st.DrawFn) -> Chunker:
    size, overlap = draw(size_and_overlap())
    kind = draw(st.sampled_from([FixedCharChunker, FixedTokenChunker, SentenceChunker, RecursiveChunker]))
    chunker: Chunker = kind(size=size, overlap=overlap)
    return chunker


def shared(first: cg.Chunk, second: cg.Chunk) -> int:
    return max(0, min(first.span.end, second.span.end) - max(first.span.start, second.span.start))


# -- the laws every chunker keeps --------------------------------------------------------------------


@given(chunkers(), texts)
def test_chunks_have_exact_offsets_cover_the_document_and_none_is_empty(chunker: Chunker, text: str) -> None:
    chunks = chunker.chunk("doc", text)
    assert all(chunk.text == text[chunk.span.start : chunk.span.end] for chunk in chunks)
    assert all(chunk.span.doc_id == "doc" for chunk in chunks)
    assert all(len(chunk.span) > 0 for chunk in chunks)
    assert [chunk.id for chunk in chunks] == [f"doc#{index}" for index in range(len(chunks))]
    assert union(chunk.span for chunk in chunks) == ((cg.Span("doc", 0, len(text)),) if text else ())
    for before, after in pairwise(chunks):
        assert before.span.start < after.span.start
        assert before.span.end < after.span.end
    assert chunker.chunk("doc", text) == chunks


@given(size_and_overlap(), texts)
def test_fixed_chars_are_size_long_and_share_exactly_overlap(params: tuple[int, int], text: str) -> None:
    size, overlap = params
    chunks = FixedCharChunker(size=size, overlap=overlap).chunk("doc", text)
    assert all(len(chunk.span) == size for chunk in chunks[:-1])
    assert all(len(chunk.span) <= size for chunk in chunks[-1:])
    assert [shared(a, b) for a, b in pairwise(chunks)] == [overlap] * (len(chunks) - 1)


def word_tokens(text: str) -> list[tuple[int, int]]:
    return [match.span() for match in re.finditer(r"\w+|[^\w\s]", text)]


@given(size_and_overlap(), texts)
def test_fixed_tokens_hold_size_tokens_and_share_exactly_overlap(params: tuple[int, int], text: str) -> None:
    size, overlap = params
    chunks = FixedTokenChunker(size=size, overlap=overlap).chunk("doc", text)
    tokens = word_tokens(text)
    held = [{t for t in tokens if chunk.span.start <= t[0] < chunk.span.end} for chunk in chunks]
    # No token is cut: a token that starts in a chunk ends in it.
    assert all(
        chunk.span.start <= t[0] and t[1] <= chunk.span.end for chunk, ts in zip(chunks, held, strict=True) for t in ts
    )
    if tokens:
        assert [len(ts) for ts in held[:-1]] == [size] * (len(held) - 1)
        assert 1 <= len(held[-1]) <= size
        assert [len(a & b) for a, b in pairwise(held)] == [overlap] * (len(held) - 1)
    else:
        assert len(chunks) == (1 if text else 0)


def sentence_cuts(text: str) -> set[int]:
    return {0, len(text)} | {match.end() for match in SENTENCE_END.finditer(text)}


@given(size_and_overlap(), texts)
def test_sentence_chunks_are_whole_sentences_and_overlap_at_most_as_asked(params: tuple[int, int], text: str) -> None:
    size, overlap = params
    chunks = SentenceChunker(size=size, overlap=overlap).chunk("doc", text)
    cuts = sentence_cuts(text)
    for chunk in chunks:
        assert chunk.span.start in cuts
        assert chunk.span.end in cuts
        inside = [cut for cut in cuts if chunk.span.start < cut < chunk.span.end]
        assert len(chunk.span) <= size or inside == []  # only a lone sentence may be longer than size
    assert all(shared(a, b) <= overlap for a, b in pairwise(chunks))


@given(size_and_overlap(), texts)
def test_recursive_chunks_fit_in_size_and_overlap_at_most_as_asked(params: tuple[int, int], text: str) -> None:
    size, overlap = params
    chunks = RecursiveChunker(size=size, overlap=overlap).chunk("doc", text)
    assert all(len(chunk.span) <= size for chunk in chunks)
    assert all(shared(a, b) <= overlap for a, b in pairwise(chunks))


@given(texts)
def test_a_recursive_chunk_is_cut_inside_a_word_only_if_the_word_is_too_long(text: str) -> None:
    size = 15
    for chunk in RecursiveChunker(size=size).chunk("doc", text):
        cut = chunk.span.end
        if cut < len(text) and not text[cut - 1].isspace() and not text[cut].isspace():
            words = [match for match in re.finditer(r"\S+", text) if match.start() < cut < match.end()]
            assert len(words) == 1
            assert len(words[0].group()) > size


# -- hand-checked cuts -------------------------------------------------------------------------------


def bounds(chunks: tuple[cg.Chunk, ...]) -> list[tuple[int, int]]:
    return [(chunk.span.start, chunk.span.end) for chunk in chunks]


def test_fixed_chars_by_hand() -> None:
    assert bounds(FixedCharChunker(size=4, overlap=1).chunk("d", "abcdefghij")) == [(0, 4), (3, 7), (6, 10)]
    assert bounds(FixedCharChunker(size=4).chunk("d", "abcdefghij")) == [(0, 4), (4, 8), (8, 10)]
    assert bounds(FixedCharChunker(size=20).chunk("d", "abc")) == [(0, 3)]
    assert FixedCharChunker(size=5).chunk("d", "") == ()


def test_fixed_tokens_by_hand() -> None:
    text = "  Refunds: within 30 days."
    # Tokens: Refunds 2-9, ':' 9-10, within 11-17, 30 18-20, days 21-25, '.' 25-26.
    chunks = FixedTokenChunker(size=2, overlap=1).chunk("d", text)
    # The whitespace after a token goes with it.
    assert [c.text for c in chunks] == ["  Refunds: ", ": within ", "within 30 ", "30 days", "days."]
    whitespace = FixedTokenChunker(size=2, tokenizer=RegexTokenizer(r"\S+")).chunk("d", text)
    assert [c.text for c in whitespace] == ["  Refunds: within ", "30 days."]
    assert [c.text for c in FixedTokenChunker(size=3).chunk("d", "  \n ")] == ["  \n "]


def test_a_tokenizer_is_any_callable_returning_offsets() -> None:
    def characters(text: str) -> list[tuple[int, int]]:
        return [(i, i + 1) for i in range(len(text))]

    chunks = FixedTokenChunker(size=3, overlap=1, tokenizer=characters).chunk("d", "abcdefg")
    assert bounds(chunks) == bounds(FixedCharChunker(size=3, overlap=1).chunk("d", "abcdefg"))


@pytest.mark.parametrize(
    ("tokens", "message"),
    [
        ([(0, 3), (2, 5)], "token 1 of doc 'd' as (2, 5)"),
        ([(0, 3), (4, 4)], "token 1 of doc 'd' as (4, 4)"),
        ([(0, 30)], "token 0 of doc 'd' as (0, 30)"),
        ([(0, 1, 2)], "is not a list of (start, end) offsets"),
    ],
)
def test_bad_tokenizer_output_is_refused_naming_the_token(tokens: list[tuple[int, ...]], message: str) -> None:
    chunker = FixedTokenChunker(size=3, tokenizer=lambda text: tokens)
    with pytest.raises(ContextGridError) as error:
        chunker.chunk("d", "abcdefgh")
    assert message in str(error.value)


def test_sentences_by_hand() -> None:
    text = 'He said "Stop." Then left! Was it 3.5 km? Yes.\n\nNew paragraph without a stop\n\nEnd'
    sentences = SentenceChunker(size=1).chunk("d", text)
    assert [c.text for c in sentences] == [
        'He said "Stop." ',
        "Then left! ",
        "Was it 3.5 km? ",
        "Yes.\n\n",
        "New paragraph without a stop\n\n",
        "End",
    ]
    packed = SentenceChunker(size=42, overlap=15).chunk("d", text)
    assert [c.text for c in packed] == [
        'He said "Stop." Then left! Was it 3.5 km? ',
        "Was it 3.5 km? Yes.\n\n",
        "Yes.\n\nNew paragraph without a stop\n\nEnd",
    ]


def test_recursive_by_hand() -> None:
    text = "Short one.\n\nA longer paragraph. It has two sentences.\n\nTiny"
    chunks = RecursiveChunker(size=30).chunk("d", text)
    assert [c.text for c in chunks] == [
        "Short one.\n\n",
        "A longer paragraph. ",
        "It has two sentences.\n\n",
        "Tiny",
    ]
    assert [c.text for c in RecursiveChunker(size=70).chunk("d", text)] == [text]
    # "abcdefghij " is too long even as a word, so it is cut into 4-character windows; "kl" fits.
    assert [c.text for c in RecursiveChunker(size=4, overlap=1).chunk("d", "abcdefghij kl")] == [
        "abcd",
        "defg",
        "ghij",
        "j ",
        "kl",
    ]


# -- parameters and the registry ---------------------------------------------------------------------


OVERLAP = "The 'overlap' parameter of {} must be an int with 0 <= overlap < size=10. "


@pytest.mark.parametrize("kind", [FixedCharChunker, FixedTokenChunker, SentenceChunker, RecursiveChunker])
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"size": 0}, "The 'size' parameter of {} must be an int >= 1. Got 0 instead."),
        ({"size": 2.5}, "The 'size' parameter of {} must be an int >= 1. Got 2.5 instead."),
        ({"size": True}, "The 'size' parameter of {} must be an int >= 1. Got True instead."),
        (
            {"size": 10, "overlap": 10},
            "The 'overlap' parameter of {} must be an int with 0 <= overlap < size=10. Got 10 instead.",
        ),
        (
            {"size": 10, "overlap": -1},
            "The 'overlap' parameter of {} must be an int with 0 <= overlap < size=10. Got -1 instead.",
        ),
    ],
)
def test_parameters_are_checked(kind: Callable[..., Chunker], options: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidParameterError) as error:
        kind(**options)
    assert str(error.value) == message.format(kind.__name__)


def test_options_are_keyword_only_and_chunkers_are_frozen() -> None:
    with pytest.raises(TypeError):
        FixedCharChunker(100)  # type: ignore[misc]
    chunker = FixedCharChunker(size=100)
    with pytest.raises(AttributeError):
        chunker.size = 5  # type: ignore[misc]


def test_bad_documents_are_refused() -> None:
    with pytest.raises(ContextGridError, match="doc_id must be a non-empty str, got ''"):
        SentenceChunker().chunk("", "text")
    with pytest.raises(ContextGridError, match="the text of doc 'd' must be a str, got bytes"):
        RecursiveChunker().chunk("d", b"text")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="'tokenizer' parameter of FixedTokenChunker"):
        FixedTokenChunker(tokenizer="words")  # type: ignore[arg-type]
    with pytest.raises(ContextGridError, match="matches the empty string"):
        RegexTokenizer(r"\w*")


def test_the_registry_names_every_chunker() -> None:
    assert available_chunkers() == ("fixed_chars", "fixed_tokens", "recursive", "sentences")
    assert get_chunker("sentences", size=200, overlap=20) == SentenceChunker(size=200, overlap=20)
    assert all(isinstance(CHUNKERS.get(name)(), Chunker) for name in available_chunkers())
    with pytest.raises(UnknownPluginError, match=r"no chunker named 'tokens'\. Available: fixed_chars, fixed_tokens"):
        get_chunker("tokens")


def test_chunk_documents_goes_document_by_document() -> None:
    chunks = chunk_documents({"a": "abcdef", "b": "", "c": "xy"}, FixedCharChunker(size=4, overlap=2))
    assert [(c.id, c.text) for c in chunks] == [("a#0", "abcd"), ("a#1", "cdef"), ("c#0", "xy")]
    with pytest.raises(InvalidParameterError, match="'chunker' parameter of chunk_documents"):
        chunk_documents({"a": "x"}, "fixed_chars")  # type: ignore[arg-type]
