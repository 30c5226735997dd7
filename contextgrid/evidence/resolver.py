"""Gold evidence as character spans: find it in a parse, then grade a chunking against it.

Gold evidence is kept as character spans of the source documents, which do not
change when the chunking does. :class:`SpanResolver` checks that evidence
against one parse of the documents (:meth:`SpanResolver.resolve`), then maps
it onto any chunking of that parse as qrels (:meth:`SpanResolver.qrels`),
grading each chunk by a :class:`GradeRule`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType

import numpy as np
import numpy.typing as npt

from contextgrid.core.checks import check_int, is_fraction
from contextgrid.core.errors import ContextGridError, parameter_error
from contextgrid.core.log import WarningLog
from contextgrid.data.chunk_checks import checked_chunks, checked_items
from contextgrid.data.records import Anchor, Chunk, EvalItem, GoldSpan, Span
from contextgrid.data.spans import overlap_pairs
from contextgrid.data.tables import QrelsTable

__all__ = ["GradeRule", "SpanResolver", "locate_quote"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

_STAGE = "resolve"
_SHOWN_OFFSETS = 5


@dataclass(frozen=True, slots=True)
class GradeRule:
    """How a chunk is graded against one gold span it overlaps.

    The fraction measured is the share of the *gold span's* characters that
    lie inside the chunk: ``overlap / len(gold span)``. A chunk that holds at
    least ``full_fraction`` of the span takes the span's own grade; one that
    holds less, but at least ``min_fraction`` and at least one character,
    takes ``partial_grade`` (never more than the span's grade); one that holds
    less than ``min_fraction`` is not judged for that span. A chunk that
    overlaps several gold spans of a question takes the highest grade any of
    them gives it.

    Parameters
    ----------
    full_fraction : float, default 1.0
        In ``(0, 1]``. The default asks for the whole span.
    partial_grade : int, default 1
        The grade of a chunk that holds part of a span, 0 or more.
    min_fraction : float, default 0.0
        In ``[0, full_fraction]``. The default judges any overlap at all.

    Examples
    --------
    >>> from contextgrid.evidence.resolver import GradeRule
    >>> rule = GradeRule()
    >>> rule.grade(2, 1.0), rule.grade(2, 0.4), rule.grade(2, 0.0)
    (2, 1, None)
    >>> GradeRule(full_fraction=0.8, min_fraction=0.25).grade(2, 0.2)
    >>> GradeRule(full_fraction=0.8, min_fraction=0.25).grade(2, 0.8)
    2
    """

    full_fraction: float = 1.0
    partial_grade: int = 1
    min_fraction: float = 0.0

    def __post_init__(self) -> None:
        if not is_fraction(self.full_fraction) or float(self.full_fraction) == 0.0:
            raise parameter_error("GradeRule", "full_fraction", "a float in (0, 1]", self.full_fraction)
        check_int(self.partial_grade, function="GradeRule", parameter="partial_grade", minimum=0)
        if not is_fraction(self.min_fraction) or self.min_fraction > self.full_fraction:
            raise parameter_error(
                "GradeRule", "min_fraction", f"a float in [0, full_fraction={self.full_fraction!r}]", self.min_fraction
            )
        object.__setattr__(self, "full_fraction", float(self.full_fraction))
        object.__setattr__(self, "partial_grade", int(self.partial_grade))
        object.__setattr__(self, "min_fraction", float(self.min_fraction))

    def grades(self, gold_grades: IntArray, fractions: FloatArray) -> IntArray:
        """The grade for each (gold grade, fraction held) pair; -1 where the chunk is not judged."""
        partial = np.minimum(self.partial_grade, gold_grades)
        graded = np.where(fractions >= self.full_fraction, gold_grades, partial)
        judged = (fractions > 0.0) & (fractions >= self.min_fraction)
        return np.where(judged, graded, -1).astype(np.int64)

    def grade(self, gold_grade: int, fraction: float) -> int | None:
        """The grade of a chunk holding ``fraction`` of a span graded ``gold_grade``; None if not judged."""
        (value,) = self.grades(np.array([gold_grade], dtype=np.int64), np.array([fraction], dtype=np.float64))
        return int(value) if value >= 0 else None


def _short(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def _offsets(spans: Sequence[tuple[int, int]]) -> str:
    shown = ", ".join(f"{start}-{end}" for start, end in spans[:_SHOWN_OFFSETS])
    return shown + (", …" if len(spans) > _SHOWN_OFFSETS else "")


def _loose(quote: str) -> str:
    return r"\s+".join(re.escape(word) for word in quote.split())


def locate_quote(text: str, quote: str) -> tuple[list[tuple[int, int]], bool]:
    """Every occurrence of ``quote`` in ``text``, as ``(start, end)`` offsets, and whether it was exact.

    Exact occurrences are looked for first (overlapping ones included). Only
    if there are none is the quote matched loosely: any run of whitespace in
    the quote matches any run of whitespace in the text, surrounding
    whitespace of the quote is ignored, and case is ignored (as
    :data:`re.IGNORECASE` does).

    Examples
    --------
    >>> from contextgrid.evidence.resolver import locate_quote
    >>> locate_quote("Refunds within 30 days. Refunds within 30 days.", "Refunds")
    ([(0, 7), (24, 31)], True)
    >>> locate_quote("Refunds are\\n  AVAILABLE.", "are available")
    ([(8, 23)], False)
    """
    if not quote.strip():
        return [], True
    exact = []
    position = text.find(quote)
    while position != -1:
        exact.append((position, position + len(quote)))
        position = text.find(quote, position + 1)
    if exact:
        return exact, True
    # A lookahead, so that overlapping occurrences are all counted.
    loose = re.compile(f"(?=({_loose(quote)}))", re.IGNORECASE)
    return [match.span(1) for match in loose.finditer(text)], False


@dataclass(frozen=True, slots=True)
class _Found:
    """One piece of evidence resolved (``gold`` set) or not (``reason`` set), and any note."""

    gold: GoldSpan | None
    reason: str | None = None
    note: str | None = None


class SpanResolver:
    """Resolves gold evidence in one parse of the documents and grades chunkings against it.

    Parameters
    ----------
    documents : mapping of str to str
        The parse: document id to text. Offsets of gold spans and chunks are
        character offsets into these texts. The mapping is copied.
    grade_rule : GradeRule, default GradeRule()
        How :meth:`qrels` grades a chunk against a gold span it overlaps.

    Examples
    --------
    >>> import contextgrid as cg
    >>> from contextgrid.evidence.resolver import SpanResolver
    >>> resolver = SpanResolver({"r.md": "Refunds take 30 days. Fees apply."})
    >>> item = cg.EvalItem(id="q1", question="How long?", anchors=(cg.Anchor("r.md", "30 days"),))
    >>> (resolved,) = resolver.resolve([item])
    >>> resolved.gold
    (GoldSpan(span=Span(doc_id='r.md', start=13, end=20), grade=2, quote='30 days'),)
    >>> chunks = [cg.Chunk("c0", cg.Span("r.md", 0, 22), ""), cg.Chunk("c1", cg.Span("r.md", 17, 33), "")]
    >>> resolver.qrels([resolved], chunks)
    {'q1': {'c0': 2, 'c1': 1}}
    """

    __slots__ = ("_documents", "_grade_rule")

    def __init__(self, documents: Mapping[str, str], *, grade_rule: GradeRule | None = None) -> None:
        if not isinstance(documents, Mapping):
            raise parameter_error("SpanResolver", "documents", "a mapping of document id to text", documents)
        for doc_id, text in documents.items():
            if not isinstance(doc_id, str) or not doc_id:
                raise ContextGridError(f"SpanResolver: document ids must be non-empty str, got {doc_id!r}")
            if not isinstance(text, str):
                raise ContextGridError(
                    f"SpanResolver: the text of document {doc_id!r} must be a str, got {type(text).__name__}"
                )
        if grade_rule is None:
            grade_rule = GradeRule()
        if not isinstance(grade_rule, GradeRule):
            raise parameter_error("SpanResolver", "grade_rule", "a GradeRule", grade_rule)
        self._documents: Mapping[str, str] = MappingProxyType(dict(documents))
        self._grade_rule = grade_rule

    @property
    def documents(self) -> Mapping[str, str]:
        """The parse this resolver checks evidence against (read-only)."""
        return self._documents

    @property
    def grade_rule(self) -> GradeRule:
        """How :meth:`qrels` grades chunks."""
        return self._grade_rule

    def __repr__(self) -> str:
        return f"SpanResolver({len(self._documents)} documents, grade_rule={self._grade_rule!r})"

    # -- resolution ---------------------------------------------------------------------------------

    def _locate(self, doc_id: str, quote: str, grade: int, label: str) -> _Found:
        text = self._documents.get(doc_id)
        if text is None:
            return _Found(None, f"{label}: unknown document {doc_id!r}")
        found, exact = locate_quote(text, quote)
        if not found:
            return _Found(None, f"{label}: quote {_short(quote)} not found in doc {doc_id!r}")
        if len(found) > 1:
            return _Found(
                None,
                f"{label}: quote {_short(quote)} found {len(found)} times in doc {doc_id!r} "
                f"(offsets {_offsets(found)}), so it was not guessed",
            )
        ((start, end),) = found
        note = None if exact else f"{label}: quote matched ignoring whitespace and case at {start}-{end} of {doc_id!r}"
        return _Found(GoldSpan(Span(doc_id, start, end), grade=grade, quote=quote), note=note)

    def _check(self, gold: GoldSpan, label: str) -> _Found:
        span = gold.span
        text = self._documents.get(span.doc_id)
        if text is None:
            return _Found(None, f"{label}: unknown document {span.doc_id!r}")
        where = f"offsets {span.start}-{span.end} of doc {span.doc_id!r}"
        if gold.quote is None or not gold.quote.strip():
            if span.end > len(text):
                return _Found(None, f"{label}: {where} run past its end ({len(text)} characters)")
            if span.start == span.end:
                return _Found(None, f"{label}: {where} hold no characters")
            return _Found(gold)
        held = text[span.start : span.end] if span.end <= len(text) else None
        if (
            held is not None
            and held != ""
            and (held == gold.quote or re.fullmatch(_loose(gold.quote), held, re.IGNORECASE))
        ):
            return _Found(gold)
        moved = self._locate(span.doc_id, gold.quote, gold.grade, label)
        if moved.gold is None:
            return _Found(None, f"{moved.reason}, and {where} do not hold it")
        new = moved.gold.span
        return _Found(
            moved.gold, note=f"{label}: {where} did not hold its quote; found it at {new.start}-{new.end} instead"
        )

    def _resolve_item(
        self, item: EvalItem, keep_partial: bool, warnings: WarningLog | None, origin: str | None
    ) -> EvalItem:
        # A gold span carrying an anchor's quote is that anchor's earlier resolution (perhaps
        # in another parse): the anchor is resolved afresh instead, so resolving is idempotent.
        # Offsets an earlier resolution could not place are checked again.
        given: list[GoldSpan] = []
        if item.gold or item.unplaced:
            anchored = {(anchor.doc_id, anchor.quote) for anchor in item.anchors}
            given = [gold for gold in (*item.gold, *item.unplaced) if (gold.span.doc_id, gold.quote) not in anchored]
        checked = [self._check(gold, f"gold span {n}") for n, gold in enumerate(given, 1)]
        found = checked + [
            self._locate(anchor.doc_id, anchor.quote, anchor.grade, f"anchor {n}")
            for n, anchor in enumerate(item.anchors, 1)
        ]
        golds = [f.gold for f in found if f.gold is not None]
        # One span is distinct as it is: only several are hashed (each its span and quote) to drop repeats.
        spans = tuple(dict.fromkeys(golds)) if len(golds) > 1 else tuple(golds)
        reasons = [f.reason for f in found if f.reason is not None]
        dropped = bool(reasons) and not keep_partial
        final = () if dropped else spans
        # Quoted evidence that does not end up as gold (lost in this parse, or dropped with the rest
        # of an unresolved item) is kept as an anchor: the item stays answerable, as the spec's Note
        # on is_answerable has it, and resolving the result again gives the same result. A quote
        # that some returned gold span still carries needs no anchor (which would replace that span).
        kept: tuple[Anchor, ...] = ()
        unplaced: tuple[GoldSpan, ...] = ()
        if given:
            carried = {(gold.span.doc_id, gold.quote) for gold in final}
            kept = tuple(
                dict.fromkeys(
                    Anchor(gold.span.doc_id, gold.quote, gold.grade)
                    for gold, result in zip(given, checked, strict=True)
                    if (result.gold is None or dropped)
                    and gold.quote
                    and gold.quote.strip()
                    and (gold.span.doc_id, gold.quote) not in carried
                )
            )
            # Offsets alone that do not end up as gold are kept apart, so the item stays answerable (unresolved).
            unplaced = tuple(
                dict.fromkeys(
                    gold
                    for gold, result in zip(given, checked, strict=True)
                    if (result.gold is None or dropped) and not (gold.quote and gold.quote.strip())
                )
            )
        where = "" if origin is None else f"{origin}: "
        if warnings is not None:
            for note in (f.note for f in found if f.note is not None):
                warnings.note(_STAGE, item.id, note)
            if reasons and not dropped and spans:
                warnings.caution(
                    _STAGE,
                    item.id,
                    f"{where}partly resolved ({len(found) - len(reasons)} of {len(found)} pieces of evidence found): "
                    + "; ".join(reasons),
                )
            elif reasons:
                warnings.caution(
                    _STAGE,
                    item.id,
                    f"{where}not resolved, so it has no gold evidence in this parse: " + "; ".join(reasons),
                )
        if type(item) is not EvalItem:
            return replace(item, gold=final, anchors=item.anchors + kept, unplaced=unplaced)
        # The common item made directly: replace() looks its fields up again for every item.
        return EvalItem(
            id=item.id,
            question=item.question,
            gold=final,
            anchors=item.anchors + kept,
            reference_answer=item.reference_answer,
            unplaced=unplaced,
        )

    def resolve(
        self,
        items: Iterable[EvalItem],
        *,
        keep_partial: bool = False,
        warnings: WarningLog | None = None,
        origins: Mapping[str, str] | None = None,
    ) -> tuple[EvalItem, ...]:
        """A copy of each item with its gold evidence found in this parse.

        Each anchor's quote is located in its document (exactly first, then
        ignoring whitespace and case; see :func:`locate_quote`) and becomes a
        :class:`GoldSpan` with the anchor's grade and quote. Each gold span
        given as offsets is checked: its document must exist and its offsets
        must lie inside the text and hold at least one character; if it
        carries a quote, the text at its offsets must match it, and if it does
        not the quote is located as for an anchor. A quote found more than
        once, or not at all, is reported, never guessed.

        An item is resolved only if all its evidence was found: otherwise its
        gold is left empty (``is_resolved`` False, ``is_answerable`` still
        True), since a question missing part of its evidence would score a
        recall it did not earn. Pass ``keep_partial=True`` to keep what was
        found instead. Every item left unresolved, or partly resolved, gets a
        CAUTION entry in ``warnings`` with the reasons; a quote found only
        loosely or away from its offsets gets a NOTE.

        A gold span with a quote that does not end up as gold is kept as an
        :class:`Anchor`, so the item stays answerable. One given as offsets
        only, with no quote, that does not fit this parse (past a document's
        end, or in a document it does not have; reported), or that is left out
        with the rest of an unresolved item's evidence, is kept in the item's
        ``unplaced``: the item stays answerable and unresolved, and resolving
        it again checks those offsets again.

        A gold span carrying an anchor's quote is taken to be that anchor's
        earlier resolution (perhaps in another parse) and is replaced by
        resolving the anchor again, so resolving a result again gives the same
        result.

        ``origins`` maps a question id to where it was read, such as
        ``questions.jsonl, line 3`` (the lines from :func:`~contextgrid.io.questions.read_located_questions`);
        a CAUTION about that question starts with it.

        Examples
        --------
        >>> import contextgrid as cg
        >>> from contextgrid.evidence.resolver import SpanResolver
        >>> resolver = SpanResolver({"r.md": "Fees apply. Fees are low."})
        >>> item = cg.EvalItem(id="q2", question="Fees?", anchors=(cg.Anchor("r.md", "Fees"),))
        >>> log = cg.WarningLog()
        >>> (result,) = resolver.resolve([item], warnings=log)
        >>> result.is_resolved, result.is_answerable
        (False, True)
        >>> print(log.entries[0])
        CAUTION [resolve] (q2): not resolved, so it has no gold evidence in this parse: anchor 1: quote 'Fees' found 2 times in doc 'r.md' (offsets 0-4, 12-16), so it was not guessed
        >>> past = cg.EvalItem(id="q3", question="Low?", gold=(cg.GoldSpan(cg.Span("r.md", 12, 40)),))
        >>> (result,) = resolver.resolve([past], warnings=log, origins={"q3": "questions.jsonl, line 3"})
        >>> result.is_resolved, result.is_answerable, result.unplaced == past.gold
        (False, True, True)
        >>> print(log.entries[1])
        CAUTION [resolve] (q3): questions.jsonl, line 3: not resolved, so it has no gold evidence in this parse: gold span 1: offsets 12-40 of doc 'r.md' run past its end (25 characters)
        """  # noqa: E501
        # A question given twice resolves twice alike; only qrels, keyed by question id, refuses it.
        checked = checked_items(items, function="SpanResolver.resolve", distinct=False)
        where = {} if origins is None else origins
        return tuple(self._resolve_item(item, keep_partial, warnings, where.get(item.id)) for item in checked)

    # -- qrels --------------------------------------------------------------------------------------

    def _checked_chunks(self, chunks: Iterable[Chunk], function: str) -> tuple[Chunk, ...]:
        checked = checked_chunks(chunks, function=function)
        for position, chunk in enumerate(checked):
            text = self._documents.get(chunk.span.doc_id)
            if text is None or chunk.span.end > len(text):
                problem = "is not one of this resolver's documents" if text is None else f"has {len(text)} characters"
                raise ContextGridError(
                    f"{function}: chunks[{position}] ({chunk.id!r}) spans {chunk.span.start}-{chunk.span.end} "
                    f"of doc {chunk.span.doc_id!r}, which {problem}; chunks must come from the parse given to the "
                    "resolver"
                )
        return checked

    def _checked_items(self, items: Iterable[EvalItem], function: str) -> tuple[EvalItem, ...]:
        checked = checked_items(items, function=function)
        for item in checked:
            for n, gold in enumerate(item.gold, 1):
                text = self._documents.get(gold.span.doc_id)
                if text is None or gold.span.end > len(text) or len(gold.span) == 0:
                    raise ContextGridError(
                        f"{function}: item {item.id!r} gold span {n} ({gold.span.start}-{gold.span.end} of doc "
                        f"{gold.span.doc_id!r}) is not a non-empty span of this resolver's documents; pass the items "
                        "through resolve() first"
                    )
        return checked

    def _judged(
        self, items: Iterable[EvalItem], chunks: Iterable[Chunk], warnings: WarningLog | None, function: str
    ) -> tuple[tuple[EvalItem, ...], tuple[Chunk, ...], IntArray, IntArray, IntArray]:
        """The items and chunks checked, and the judged (item, chunk, grade) triples as positions into them:
        one per pair, its highest grade, sorted by item then chunk. What :meth:`qrels` and
        :meth:`qrels_table` both lay out."""
        given_items = self._checked_items(items, function)
        given_chunks = self._checked_chunks(chunks, function)
        owner = np.array([i for i, item in enumerate(given_items) for _ in item.gold], dtype=np.int64)
        golds = [gold for item in given_items for gold in item.gold]
        pairs = overlap_pairs([gold.span for gold in golds], [chunk.span for chunk in given_chunks])
        gold_length = np.array([len(gold.span) for gold in golds], dtype=np.int64)
        gold_grade = np.array([gold.grade for gold in golds], dtype=np.int64)
        grade = self._grade_rule.grades(gold_grade[pairs.target], pairs.length / gold_length[pairs.target])
        judged = grade >= 0
        question, chunk, grade = owner[pairs.target][judged], pairs.span[judged], grade[judged]
        # Highest grade per (question, chunk): sort by the pair, best grade first, keep the first.
        order = np.lexsort((-grade, chunk, question))
        question, chunk, grade = question[order], chunk[order], grade[order]
        first = np.ones(len(order), dtype=bool)
        first[1:] = (question[1:] != question[:-1]) | (chunk[1:] != chunk[:-1])
        if warnings is not None:
            self._report_uncovered(given_items, golds, owner, pairs.target, judged, warnings)
        return given_items, given_chunks, question[first], chunk[first], grade[first]

    def qrels(
        self, items: Iterable[EvalItem], chunks: Iterable[Chunk], *, warnings: WarningLog | None = None
    ) -> dict[str, dict[str, int]]:
        """``{question_id: {chunk_id: grade}}`` for one chunking of this parse.

        Every chunk that overlaps a question's gold span is graded by the
        resolver's :class:`GradeRule`; a chunk overlapping several of its
        spans takes the highest grade. Every item is a key, in the order
        given, and its chunks are listed in the order ``chunks`` gives them.
        An item with no gold evidence (never resolved, or with none to
        resolve) maps to ``{}``, which :func:`contextgrid.evaluate` leaves
        out of every mean while the question stays listed.

        A gold span that no chunk earns a grade for (the chunking left it out,
        or every overlap is below ``min_fraction``) is recorded as a CAUTION
        in ``warnings``: its question may drop out of the mean without it.

        Parameters
        ----------
        items : iterable of EvalItem
            Items as :meth:`resolve` returns them; ids must be distinct.
        chunks : iterable of Chunk
            A chunking of the same parse; ids must be distinct.
        warnings : WarningLog, optional
            Where gold spans no chunk covers are recorded.
        """
        given_items, given_chunks, question, chunk, grade = self._judged(items, chunks, warnings, "SpanResolver.qrels")
        result: dict[str, dict[str, int]] = {item.id: {} for item in given_items}
        for q, c, g in zip(question.tolist(), chunk.tolist(), grade.tolist(), strict=True):
            result[given_items[q].id][given_chunks[c].id] = g
        return result

    def qrels_table(
        self, items: Iterable[EvalItem], chunks: Iterable[Chunk], *, warnings: WarningLog | None = None
    ) -> QrelsTable:
        """:meth:`qrels` as a :class:`~contextgrid.data.tables.QrelsTable`, laid out on columns.

        The same judgements, one row per judged (question, chunk), in the same
        order; an item without one has no rows, as in a qrels file written
        from :meth:`qrels`. This is what a workspace scores a configuration
        against when its qrels are resolved from the gold spans.

        Examples
        --------
        >>> import contextgrid as cg
        >>> from contextgrid.evidence.resolver import SpanResolver
        >>> resolver = SpanResolver({"r.md": "Refunds take 30 days. Fees apply."})
        >>> item = cg.EvalItem(id="q1", question="How long?", anchors=(cg.Anchor("r.md", "30 days"),))
        >>> chunks = [cg.Chunk("c0", cg.Span("r.md", 0, 22), ""), cg.Chunk("c1", cg.Span("r.md", 17, 33), "")]
        >>> table = resolver.qrels_table(resolver.resolve([item]), chunks)
        >>> table.to_dict() == resolver.qrels(resolver.resolve([item]), chunks)
        True
        """
        import pyarrow as pa

        given_items, given_chunks, question, chunk, grade = self._judged(
            items, chunks, warnings, "SpanResolver.qrels_table"
        )
        question_ids = pa.array([item.id for item in given_items], type=pa.string())
        chunk_ids = pa.array([each.id for each in given_chunks], type=pa.string())
        return QrelsTable.from_columns(question_ids.take(pa.array(question)), chunk_ids.take(pa.array(chunk)), grade)

    def _report_uncovered(
        self,
        items: Sequence[EvalItem],
        golds: Sequence[GoldSpan],
        owner: IntArray,
        target: IntArray,
        judged: npt.NDArray[np.bool_],
        warnings: WarningLog,
    ) -> None:
        touched = np.bincount(target, minlength=len(golds))
        graded = np.bincount(target[judged], minlength=len(golds))
        first_of_item = np.searchsorted(owner, owner, side="left")
        for index in np.flatnonzero(graded == 0).tolist():
            item = items[int(owner[index])]
            span = golds[index].span
            label = (
                f"gold span {index - int(first_of_item[index]) + 1} ({span.start}-{span.end} of doc {span.doc_id!r})"
            )
            if touched[index]:
                message = f"no chunk holds at least {self._grade_rule.min_fraction} of {label}"
            else:
                message = f"no chunk holds any of {label}"
            warnings.caution(_STAGE, item.id, message + ", so this chunking has no relevant chunk for it")
