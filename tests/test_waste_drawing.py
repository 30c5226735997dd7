"""The document drawn as HTML: escaped, marked character by character, collapsed around the spans, on a
megabyte too (bench/bench_waste.py times it)."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contextgrid as cg
from contextgrid.core.errors import ContextGridError
from contextgrid.render.document import document_html, question_layers, regions
from contextgrid.render.waste_figures import span_map

HOSTILE = '<script>alert(1)</script> <img src=x onerror="x()"> **b** [l](http://x) $x^2$ $5 &amp;'


class Marks(HTMLParser):
    """Each character of the drawn text with the classes of the spans around it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.chars: list[tuple[str, frozenset[str]]] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.stack.append(dict(attrs).get("class") or "")

    def handle_endtag(self, tag: str) -> None:
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        if self.stack and self.stack[0] == "":  # inside <style>: not document text
            return
        classes = frozenset(name for entry in self.stack for name in entry.split() if name)
        self.chars.extend((char, classes) for char in data)


def drawn(page: str) -> Marks:
    parser = Marks()
    parser.feed(page.split("</style>", 1)[1])
    return parser


def test_every_character_carries_the_classes_of_the_spans_over_it() -> None:
    text = "abcdefghijklmnopqrstuvwxyz" * 4
    gold = [cg.Span("d", 10, 30), cg.Span("d", 60, 70)]
    chunks = [(1, cg.Span("d", 5, 20)), (2, cg.Span("d", 15, 40))]
    marks = drawn(document_html("d", text, gold=gold, chunks=chunks, expanded=True))
    body = [(char, classes) for char, classes in marks.chars if "head" not in classes]
    assert "".join(char for char, _ in body) == text
    for offset, (_, classes) in enumerate(body):
        in_gold = any(s.start <= offset < s.end for s in gold)
        ranks = [r for r, s in chunks if s.start <= offset < s.end]
        expected = {"cg-doc"}
        if in_gold:
            expected.add("found" if ranks else "missed")
        elif ranks:
            expected.add("waste")
        if len(ranks) > 1:
            expected.add("repeat")
        assert classes == expected, offset


def test_untrusted_text_is_escaped_and_reads_back_as_written() -> None:
    text = f"Intro. {HOSTILE} Outro."
    page = document_html(
        "<doc>", text, gold=[cg.Span("<doc>", 7, 7 + len(HOSTILE))], chunks=[(1, cg.Span("<doc>", 0, 20))]
    )
    marks = drawn(page)
    assert set(marks.tags) <= {"div", "span"}
    assert "".join(char for char, classes in marks.chars if "head" not in classes and "gap" not in classes) == text
    assert "&lt;doc&gt;" in page
    assert "<script>" not in page


def test_rank_markers_sit_at_chunk_edges_outside_the_text() -> None:
    page = document_html("d", "0123456789", gold=[], chunks=[(1, cg.Span("d", 2, 5)), (2, cg.Span("d", 5, 10))])
    edges = re.findall(r'data-edge="([^"]+)"', page)
    assert edges == ["[1", "1]", "[2", "2]"]
    assert page.index('data-edge="1]"') < page.index('data-edge="[2"') < page.index(">56789<")


def test_long_documents_collapse_around_the_spans() -> None:
    text = "x" * 100_000
    page = document_html("d", text, gold=[cg.Span("d", 50_000, 50_010)], chunks=[], margin=100)
    assert "… 49,900 characters not shown …" in page
    assert "… 49,890 characters not shown …" in page
    shown = [(r.start, r.end) for r in regions(100_000, [cg.Span("d", 50_000, 50_010)], margin=100) if r.shown]
    assert shown == [(49_900, 50_110)]
    body = [char for char, classes in drawn(page).chars if not classes & {"head", "gap"}]
    assert body == ["x"] * 210


def test_a_megabyte_document_with_fifty_chunks_draws_every_chunk_and_collapses_the_rest() -> None:
    # How long this takes is measured by bench/bench_waste.py (a test asserts no wall-clock time).
    text = ("Refunds <b>within</b> $5 **days**. " * 30_000)[:1_000_000]
    gold = [cg.Span("big", start, start + 300) for start in range(40_000, 1_000_000, 97_000)][:10]
    chunks = [
        (rank, cg.Span("big", start, start + 1200)) for rank, start in enumerate(range(5_000, 990_000, 19_700), 1)
    ]
    assert (len(text), len(gold), len(chunks)) == (1_000_000, 10, 50)
    figure = span_map("big", len(text), gold=gold, bands={"a": chunks})
    assert figure.to_json()
    collapsed = document_html("big", text, gold=gold, chunks=chunks)
    expanded = document_html("big", text, gold=gold, chunks=chunks, expanded=True)
    every_edge = [edge for rank, _ in chunks for edge in (f"[{rank}", f"{rank}]")]
    for page in (collapsed, expanded):
        assert sorted(re.findall(r'data-edge="([^"]+)"', page)) == sorted(every_edge)
        assert "<b>" not in page
    assert "characters not shown" in collapsed
    assert "characters not shown" not in expanded
    assert text in html.unescape(re.sub(r"<[^>]+>", "", expanded.split("</style>", 1)[1]))  # the whole text, as written
    assert len(collapsed) < len(expanded) / 4


def test_the_legend_escapes_its_colours_and_meanings() -> None:
    from contextgrid.render.document import SPAN_CLASSES, legend_html

    page = legend_html({"found": '"><script>x</script>', "missed": "#d7301f"})
    assert "<script>" not in page
    assert "&lt;script&gt;" in page
    assert page.count("<span") == 2
    assert all(meaning in page for name, meaning in SPAN_CLASSES.items() if name in ("found", "missed"))


layer_spans = st.builds(
    lambda doc, start, length: cg.Span(doc, start, start + length),
    st.sampled_from(["a.md", "b.md", "c.md", "d.md"]),
    st.integers(0, 50),
    st.integers(0, 20),
)


@given(
    st.lists(st.tuples(layer_spans, st.integers(0, 2)), max_size=4),
    st.dictionaries(st.sampled_from(["bm25", "dense", "hybrid"]), st.lists(layer_spans, max_size=5), max_size=3),
)
def test_question_layers_orders_documents_gold_first_then_by_rank(
    gold: list[tuple[cg.Span, int]], retrieved_spans: dict[str, list[cg.Span]]
) -> None:
    item = cg.EvalItem(id="q", question="?", gold=tuple(cg.GoldSpan(span, grade) for span, grade in gold))
    retrieved = {
        config: [cg.Chunk(f"{config}-{rank}", span, "") for rank, span in enumerate(spans, 1)]
        for config, spans in retrieved_spans.items()
    }
    layers = question_layers(item, retrieved)
    evidence = [span for span, grade in gold if grade > 0]
    assert layers.gold == tuple(evidence)
    assert layers.gold_documents == {span.doc_id for span in evidence}
    assert {config: [span for _, span in band] for config, band in layers.bands.items()} == retrieved_spans
    assert all([rank for rank, _ in band] == list(range(1, len(band) + 1)) for band in layers.bands.values())
    # Each document once, where it is first met: the gold's first, then each configuration's by rank.
    met: list[str] = []
    for doc_id in [span.doc_id for span in evidence] + [s.doc_id for spans in retrieved_spans.values() for s in spans]:
        if doc_id not in met:
            met.append(doc_id)
    assert list(layers.documents) == met


def test_question_layers_refuses_what_is_not_a_chunk() -> None:
    item = cg.EvalItem(id="q", question="?", gold=())
    with pytest.raises(ContextGridError, match=r"question_layers: expected Chunk records for 'bm25', got 'c1'"):
        question_layers(item, {"bm25": ["c1"]})  # type: ignore[list-item]
