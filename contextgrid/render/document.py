"""A source document drawn with its gold evidence and the retrieved chunks over it, as HTML.

Every character of the document is escaped before it is wrapped in markup:
document text is untrusted and must show as written, tags, ``$`` signs and
all. Long documents collapse to the regions around the evidence and the
chunks, with the gaps summarised. Where a chunk starts and ends is marked
with its rank by CSS-generated content, so the markers never enter the
page's text (a copy of the passage is the passage).
"""

from __future__ import annotations

import html
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from contextgrid.core.errors import ContextGridError
from contextgrid.data.records import Chunk, EvalItem, Span
from contextgrid.data.spans import union
from contextgrid.evidence.character import gold_spans

__all__ = [
    "SPAN_CLASSES",
    "TABS_AT_MOST",
    "TAB_CHARACTERS",
    "Layers",
    "Picker",
    "Region",
    "configuration_picker",
    "document_html",
    "document_style",
    "legend_html",
    "question_layers",
    "regions",
]

SPAN_CLASSES: dict[str, str] = {
    "found": "gold evidence that was retrieved",
    "missed": "gold evidence that was never retrieved",
    "waste": "retrieved text that is not gold evidence",
    "repeat": "retrieved by more than one chunk",
}
"""The CSS classes a character can carry, and what each means (the legend)."""

_STYLE = """<style>
.cg-doc{font-family:ui-monospace,monospace;font-size:13px;white-space:pre-wrap;line-height:1.6;word-break:break-word}
.cg-doc .found{background:#b7e4c7}.cg-doc .missed{background:#f4a6a6;text-decoration:underline wavy #c0392b}
.cg-doc .waste{background:#e9ecef}.cg-doc .repeat{box-shadow:inset 0 -3px 0 #6c5ce7}
.cg-doc .gap{display:block;color:#888;font-style:italic;margin:6px 0}
.cg-doc .head{display:block;font-weight:bold;margin-bottom:4px}
.cg-doc .edge::before{content:attr(data-edge);font-size:9px;vertical-align:super;color:#6c5ce7;font-weight:bold}
</style>"""


def document_style() -> str:
    """The ``<style>`` every :func:`document_html` carries: what a page drawing a legend of its marks needs."""
    return _STYLE


@dataclass(frozen=True, slots=True)
class Region:
    """A stretch ``[start, end)`` of a document, shown in full or summarised as a gap."""

    start: int
    end: int
    shown: bool

    def __post_init__(self) -> None:
        if not (0 <= self.start <= self.end):
            raise ContextGridError(f"Region({self.start}, {self.end}): need 0 <= start <= end")


def regions(length: int, spans: Sequence[Span], *, margin: int = 300) -> tuple[Region, ...]:
    """Split ``[0, length)`` into shown regions (every span widened by ``margin``) and hidden gaps.

    Examples
    --------
    >>> from contextgrid import Span
    >>> from contextgrid.render.document import regions
    >>> [(r.start, r.end, r.shown) for r in regions(10_000, [Span("d", 5000, 5100)], margin=100)]
    [(0, 4900, False), (4900, 5200, True), (5200, 10000, False)]
    """
    if length < 0 or margin < 0:
        raise ContextGridError(f"regions: length and margin must be 0 or more, got {length} and {margin}")
    widened = [
        Span("doc", max(0, span.start - margin), min(length, span.end + margin))
        for span in spans
        if span.start < length
    ]
    out: list[Region] = []
    cursor = 0
    for shown in union(widened):
        if shown.start > cursor:
            out.append(Region(cursor, shown.start, False))
        out.append(Region(shown.start, shown.end, True))
        cursor = shown.end
    if cursor < length:
        out.append(Region(cursor, length, False))
    return tuple(out)


def _segments(start: int, end: int, gold: Sequence[Span], chunks: Sequence[tuple[int, Span]]) -> list[tuple[int, int]]:
    cuts = {start, end}
    for span in [*gold, *(span for _, span in chunks)]:
        cuts.update(point for point in (span.start, span.end) if start < point < end)
    points = sorted(cuts)
    return list(itertools.pairwise(points))


def _classes(start: int, end: int, gold: Sequence[Span], chunks: Sequence[tuple[int, Span]]) -> tuple[str, list[int]]:
    in_gold = any(span.start <= start and end <= span.end for span in gold)
    ranks = [rank for rank, span in chunks if span.start <= start and end <= span.end]
    names = []
    if in_gold:
        names.append("found" if ranks else "missed")
    elif ranks:
        names.append("waste")
    if len(ranks) > 1:
        names.append("repeat")
    return " ".join(names), ranks


def _edges(chunks: Sequence[tuple[int, Span]]) -> dict[int, str]:
    """Per offset, the markers of the chunks that end there, then of those that start there."""
    ends: dict[int, list[int]] = {}
    starts: dict[int, list[int]] = {}
    for rank, span in chunks:
        ends.setdefault(span.end, []).append(rank)
        starts.setdefault(span.start, []).append(rank)
    marks: dict[int, str] = {}
    for offset in sorted(ends.keys() | starts.keys()):
        labels = [f"{rank}]" for rank in sorted(ends.get(offset, ()))]
        labels += [f"[{rank}" for rank in sorted(starts.get(offset, ()))]
        marks[offset] = "".join(f'<span class="edge" data-edge="{label}"></span>' for label in labels)
    return marks


def document_html(
    doc_id: str,
    text: str,
    *,
    gold: Sequence[Span],
    chunks: Sequence[tuple[int, Span]],
    margin: int = 300,
    expanded: bool = False,
) -> str:
    """The document as escaped HTML, each character marked by the :data:`SPAN_CLASSES` it carries.

    ``gold`` and ``chunks`` (``(rank, span)`` pairs) of other documents are
    ignored. Hovering a marked stretch names the ranks of the chunks holding
    it; each chunk's start and end carry a ``[rank`` / ``rank]`` marker.
    Unless ``expanded``, only the regions within ``margin`` characters of a
    gold span or a chunk are shown.

    Examples
    --------
    >>> from contextgrid import Span
    >>> from contextgrid.render.document import document_html
    >>> page = document_html("d", "<b>$5</b> refund", gold=[Span("d", 10, 16)], chunks=[(1, Span("d", 0, 12))])
    >>> "&lt;b&gt;$5&lt;/b&gt;" in page and "<b>" not in page
    True
    >>> '<span class="found" title="rank 1">re</span>' in page
    True
    """
    if not isinstance(text, str):
        raise ContextGridError(f"document_html: text must be a str, got {type(text).__name__}")
    gold = [span for span in gold if span.doc_id == doc_id]
    chunks = [(rank, span) for rank, span in chunks if span.doc_id == doc_id]
    parts = [_STYLE, '<div class="cg-doc">', f'<span class="head">{html.escape(doc_id)}</span>']
    layout = (
        (Region(0, len(text), True),)
        if expanded
        else regions(len(text), [*gold, *(s for _, s in chunks)], margin=margin)
    )
    marks = _edges(chunks)
    for region in layout:
        if not region.shown:
            parts.append(f'<span class="gap">… {region.end - region.start:,} characters not shown …</span>')
            continue
        for start, end in _segments(region.start, region.end, gold, chunks):
            parts.append(marks.get(start, ""))
            piece = html.escape(text[start:end])
            names, ranks = _classes(start, end, gold, chunks)
            if not names:
                parts.append(piece)
                continue
            title = f"rank {', '.join(map(str, ranks))}" if ranks else "never retrieved"
            parts.append(f'<span class="{names}" title="{title}">{piece}</span>')
        # Shown regions never touch, so a marker at a region's end belongs to it alone.
        parts.append(marks.get(region.end, ""))
    parts.append("</div>")
    return "".join(parts)


def legend_html(colours: Mapping[str, str]) -> str:
    """A one-line legend of :data:`SPAN_CLASSES`, each meaning beside a swatch of ``colours[name]``; all escaped.

    Examples
    --------
    >>> from contextgrid.render.document import legend_html
    >>> legend_html({"found": "#2e9e5b"}).count("<span")
    1
    """
    return "&ensp;".join(
        f'<span style="background:{html.escape(colours[name])};padding:0 6px">&nbsp;</span> {html.escape(meaning)}'
        for name, meaning in SPAN_CLASSES.items()
        if name in colours
    )


@dataclass(frozen=True, slots=True)
class Layers:
    """What is drawn for one question: its gold evidence, each configuration's retrieved chunks as
    ``(rank, span)`` bands, and the documents either touches, those holding gold evidence first."""

    gold: tuple[Span, ...]
    bands: Mapping[str, tuple[tuple[int, Span], ...]]
    documents: tuple[str, ...]

    @property
    def gold_documents(self) -> frozenset[str]:
        """The documents holding gold evidence."""
        return frozenset(span.doc_id for span in self.gold)


def question_layers(item: EvalItem, retrieved: Mapping[str, Sequence[Chunk]]) -> Layers:
    """The :class:`Layers` of ``item`` (its gold evidence of grade above 0) and of what each configuration
    retrieved for it (``{config: chunks, best first}``).

    The documents come in the order they are first met: the gold evidence's,
    then each configuration's chunks by rank.

    Examples
    --------
    >>> import contextgrid as cg
    >>> from contextgrid.render.document import question_layers
    >>> item = cg.EvalItem(id="q1", question="?", gold=(cg.GoldSpan(cg.Span("b.md", 10, 40)),))
    >>> bm25 = [cg.Chunk("a1", cg.Span("a.md", 0, 50), ""), cg.Chunk("b1", cg.Span("b.md", 0, 30), "")]
    >>> layers = question_layers(item, {"bm25": bm25, "dense": [cg.Chunk("c1", cg.Span("c.md", 5, 9), "")]})
    >>> layers.documents
    ('b.md', 'a.md', 'c.md')
    >>> layers.bands["bm25"]
    ((1, Span(doc_id='a.md', start=0, end=50)), (2, Span(doc_id='b.md', start=0, end=30)))
    >>> sorted(layers.gold_documents)
    ['b.md']
    """
    bands: dict[str, tuple[tuple[int, Span], ...]] = {}
    for config, chunks in retrieved.items():
        for chunk in chunks:
            if not isinstance(chunk, Chunk):
                raise ContextGridError(f"question_layers: expected Chunk records for {config!r}, got {chunk!r}")
        bands[config] = tuple((rank, chunk.span) for rank, chunk in enumerate(chunks, 1))
    gold = tuple(gold_spans(item))
    met = [span.doc_id for span in gold] + [span.doc_id for band in bands.values() for _, span in band]
    return Layers(gold=gold, bands=bands, documents=tuple(dict.fromkeys(met)))


TABS_AT_MOST = 4
"""The most configurations offered as tabs over a document; more are offered in one list."""

TAB_CHARACTERS = 72
"""The most characters the tabs' names may hold together: past it they no longer fit side by side in the
drawing column, and tabs scroll or cut their names."""


@dataclass(frozen=True, slots=True)
class Picker:
    """How the reader picks the configuration whose chunks are drawn over a document: one tab each
    (``tabs``) or one list of full names, opened at ``configs[default]``."""

    configs: tuple[str, ...]
    tabs: bool
    default: int


def configuration_picker(configs: Sequence[str], chosen: str | None = None) -> Picker:
    """Tabs while the configurations are few and their names short (at most :data:`TABS_AT_MOST`,
    :data:`TAB_CHARACTERS` characters in all), so that every name reads in full; else one list, which holds
    any number of them, opened at ``chosen`` when it is among them, else at the first.

    Examples
    --------
    >>> from contextgrid.render.document import configuration_picker
    >>> configuration_picker(["bm25-200", "dense-200"])
    Picker(configs=('bm25-200', 'dense-200'), tabs=True, default=0)
    >>> picker = configuration_picker([f"config-{i:02d}" for i in range(50)], chosen="config-07")
    >>> picker.tabs, picker.default
    (False, 7)
    """
    names = tuple(configs)
    tabs = len(names) <= TABS_AT_MOST and sum(len(name) for name in names) <= TAB_CHARACTERS
    return Picker(names, tabs, names.index(chosen) if chosen in names else 0)
