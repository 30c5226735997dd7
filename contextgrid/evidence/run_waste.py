"""Context waste of whole runs, on columns: every retrieved chunk of every question measured against the gold
at once, as frames."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from contextgrid.core.checks import check_k
from contextgrid.core.errors import ContextGridError, parameter_error
from contextgrid.data.chunk_checks import checked_chunks, checked_items
from contextgrid.data.records import Chunk, EvalItem, Span
from contextgrid.data.spans import overlap_pairs, union
from contextgrid.evidence.character import gold_spans

if TYPE_CHECKING:
    import pandas as pd

    from contextgrid.data.tables import RunTable

__all__ = [
    "BOX_COLUMNS",
    "CHARACTER_BOXES",
    "ChunkGold",
    "ChunkingGold",
    "GoldColumns",
    "RankedEvidence",
    "RunRows",
    "box_statistics",
    "character_boxes",
    "chunk_gold",
    "chunking_gold",
    "coverage_by_configuration",
    "coverage_by_rank",
    "gold_columns",
    "laid_out",
    "question_waste",
    "ranked_evidence",
    "retrieved_table",
    "rows_evidence",
    "run_chunk_positions",
    "run_rows",
    "union_contributions",
]

IntArray = npt.NDArray[np.int64]


EXCERPT = 160
"""Characters of a chunk's text kept as its excerpt (for hover text)."""


@dataclass(frozen=True, slots=True)
class _ChunkColumns:
    """A chunking as columns, positions shared by every array."""

    chunks: tuple[Chunk, ...]
    ids: pd.Index
    spans: list[Span]
    doc: npt.NDArray[np.object_]
    doc_code: IntArray
    start: IntArray
    end: IntArray
    length: IntArray
    excerpt: npt.NDArray[np.object_]


def _chunk_columns(chunks: Mapping[str, Chunk] | Iterable[Chunk], function: str) -> _ChunkColumns:
    import pandas as pd

    values = checked_chunks(chunks, function=function)
    ids = pd.Index([chunk.id for chunk in values])
    spans = [chunk.span for chunk in values]
    excerpts = [chunk.text[:EXCERPT] + ("…" if len(chunk.text) > EXCERPT else "") for chunk in values]
    doc = np.array([span.doc_id for span in spans], dtype=object)
    return _ChunkColumns(
        chunks=values,
        ids=ids,
        spans=spans,
        doc=doc,
        doc_code=pd.factorize(doc)[0].astype(np.int64),
        start=np.array([span.start for span in spans], dtype=np.int64),
        end=np.array([span.end for span in spans], dtype=np.int64),
        length=np.fromiter(map(len, (chunk.text for chunk in values)), dtype=np.int64, count=len(values)),
        excerpt=np.array(excerpts, dtype=object),
    )


@dataclass(frozen=True, slots=True)
class RunRows:
    """A run's rows aligned with a list of questions and a chunking: ``item`` (a position in the questions),
    ``rank`` (1-based) and ``chunk`` (a position in the chunking), sorted by question, then rank."""

    item: IntArray
    rank: IntArray
    chunk: IntArray


def _positions(question_ids: pd.Index, run: RunTable) -> IntArray:
    """Where each of ``run``'s questions is in ``question_ids`` (-1 where it is not), read-only: kept with the run."""
    import pandas as pd

    found: IntArray = question_ids.get_indexer(pd.Index(run.question_ids, dtype=object)).astype(np.int64)
    found.setflags(write=False)
    return found


def run_rows(
    run: Mapping[str, Sequence[str]], question_ids: pd.Index, chunk_ids: pd.Index, k: int | None, function: str
) -> RunRows:
    """The rows of ``run`` ranked ``k`` or better (every row when ``k`` is ``None``) of the questions of
    ``question_ids``, aligned with ``chunk_ids``: the one alignment of a run with the gold, shared by
    :func:`ranked_evidence` and :func:`contextgrid.analysis.causes.question_causes`.

    Rows of other questions are left out; a chunk id that is not in ``chunk_ids`` is refused, naming the
    question, the chunk and its rank.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = run_rows({"q1": ["b", "a"], "q9": ["a"]}, pd.Index(["q1"]), pd.Index(["a", "b"]), None, "f")
    >>> rows.item.tolist(), rows.rank.tolist(), rows.chunk.tolist()
    ([0, 0], [1, 2], [1, 0])
    >>> run_rows({"q1": ["zz"]}, pd.Index(["q1"]), pd.Index(["a", "b"]), None, "f")
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.ContextGridError: f: the run for question 'q1' returns chunk 'zz' at rank 1, which is \
not among the 2 chunks given; the run and the chunks must come from the same chunking
    """

    from contextgrid.data.tables import RunTable

    table = RunTable.from_dict(run)
    if table.num_rows == 0 or len(table) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return RunRows(empty, empty.copy(), empty.copy())
    starts = table.starts.astype(np.int64)
    group = np.repeat(np.arange(len(starts) - 1, dtype=np.int64), np.diff(starts))
    rank = np.arange(table.num_rows, dtype=np.int64) - starts[group] + 1
    # The run's questions among these, once for each list of questions a run is aligned with (views align it
    # with every question, or with those that have gold, again and again).
    per_question = table.derived_against(
        "question positions", question_ids, lambda: _positions(question_ids, table), keep=4
    )
    item = per_question[group]
    keep = (item >= 0) & (rank <= (k if k is not None else table.num_rows))
    item, rank = item[keep], rank[keep]
    chunk = run_chunk_positions(table, chunk_ids)[keep].astype(np.int64)
    if (chunk < 0).any():
        row = int(np.flatnonzero(chunk < 0)[0])
        name = table.table.column("chunk_id")[int(np.flatnonzero(keep)[row])].as_py()
        raise ContextGridError(
            f"{function}: the run for question {question_ids[item[row]]!r} returns chunk {name!r} at "
            f"rank {rank[row]}, which is not among the {len(chunk_ids)} chunks given; the run and the chunks must "
            "come from the same chunking"
        )
    if not (item[1:] < item[:-1]).any():  # the run lists the questions in their order: by question, then rank
        return RunRows(item, rank, chunk)
    # By question, then rank: one stable sort of one integer key (ranks are at least 1), not lexsort's two.
    order = np.argsort(item * (int(rank.max(initial=0)) + 1) + rank, kind="stable")
    return RunRows(item[order], rank[order], chunk[order])


def run_chunk_positions(run: RunTable, chunk_ids: pd.Index) -> npt.NDArray[np.int32]:
    """Where each row's chunk of ``run`` is in ``chunk_ids``, -1 for a chunk not there, kept with the run for the
    ids it was last aligned with: a view aligns the same run with the same chunking for every question, k and
    measure, and this hash lookup of every row's id is most of that alignment's cost.

    The array is shared, so it is read-only.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.data.tables import RunTable
    >>> run = RunTable.from_dict({"q1": ["b", "a"], "q2": ["zz"]})
    >>> run_chunk_positions(run, pd.Index(["a", "b"])).tolist()
    [1, 0, -1]
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    def positions() -> npt.NDArray[np.int32]:
        # Arrow's hash lookup on the string column as it is (no Python str per row).
        names = run.table.column("chunk_id").cast(pa.string())
        found = np.array(pc.index_in(names, value_set=pa.array(chunk_ids, type=pa.string())).fill_null(-1), np.int32)
        found.setflags(write=False)  # shared by every caller
        return found

    return run.derived_against("chunk positions", chunk_ids, positions)


@dataclass(frozen=True, slots=True)
class ChunkGold:
    """What each chunk of a chunking holds of each question's merged gold, as columns.

    ``target``/``span``/``length`` are the overlapping (gold interval, chunk) pairs and their overlap;
    ``keys`` the distinct ``question * n_chunks + chunk`` they make, sorted, ``pair_key`` each pair's position
    in ``keys``, and ``held`` the gold characters each such (question, chunk) holds (merged gold intervals are
    disjoint, so their parts add up).
    """

    target: IntArray
    span: IntArray
    length: IntArray
    keys: IntArray
    pair_key: IntArray
    held: IntArray


def chunk_gold(gold: GoldColumns, spans: Sequence[Span]) -> ChunkGold:
    """The gold of ``gold``'s questions that each chunk (of ``spans``, the chunking's spans in order) holds.

    Examples
    --------
    >>> import contextgrid as cg
    >>> gold = gold_columns([cg.EvalItem("q1", "?", (cg.GoldSpan(cg.Span("d", 100, 200)),))])
    >>> held = chunk_gold(gold, [cg.Span("d", 0, 150), cg.Span("d", 120, 300)])
    >>> held.keys.tolist(), held.held.tolist()
    ([0, 1], [50, 80])
    """
    n_chunks = max(len(spans), 1)
    pairs = overlap_pairs(gold.spans, spans)
    target, span = pairs.target.astype(np.int64), pairs.span.astype(np.int64)
    length = np.asarray(pairs.length, dtype=np.int64)
    keys, inverse = np.unique(gold.item[target] * n_chunks + span, return_inverse=True)
    held = np.bincount(inverse, weights=length, minlength=len(keys)).astype(np.int64)
    return ChunkGold(target, span, length, keys.astype(np.int64), inverse.astype(np.int64).ravel(), held)


def _ratio(part: IntArray, whole: IntArray) -> npt.NDArray[np.float64]:
    """``part / whole``, 0.0 where ``whole`` is 0 (gold spans that cover no character are no evidence)."""
    return np.divide(part, whole, out=np.zeros(len(part)), where=whole > 0)


def union_contributions(group: IntArray, start: IntArray, end: IntArray) -> IntArray:
    """Per interval, the characters it adds to the union of the intervals of its group before it.

    Summed over a group, this is the length of the group's union: intervals
    are sorted by start within their group, and each adds what lies past the
    furthest end reached so far (a running maximum that restarts per group).

    Examples
    --------
    >>> import numpy as np
    >>> union_contributions(np.array([0, 0, 1]), np.array([0, 5, 0]), np.array([10, 12, 4])).tolist()
    [10, 2, 4]
    """
    contribution = np.zeros(len(group), dtype=np.int64)
    if len(group) == 0:
        return contribution
    # By group, then start, ties in the order given: one stable sort of one integer key, ten times lexsort's speed.
    low = int(start.min())
    order = np.argsort(group * (int(start.max()) - low + 1) + (start - low), kind="stable")
    g, s, e = group[order], start[order], end[order]
    width = int(e.max()) + 1
    reach = np.maximum.accumulate(g * width + e)
    before = np.concatenate(([-1], reach[:-1]))
    # The running maximum comes from this group only when it is at least this group's base key.
    reached = np.where(before >= g * width, before - g * width, 0)
    contribution[order] = np.maximum(e - np.maximum(s, reached), 0)
    return contribution


@dataclass(frozen=True, slots=True)
class RankedEvidence:
    """Every resolved question's top-k rows with what each holds of the gold, and the per-question totals.

    Rows (``item``, ``rank``, ``chunk``, ``held``) are sorted by question (a
    position in ``items``), then rank; ``chunk`` is a position in
    ``chunks.ids``. Parts (``part_gold``, ``part_chunk``, ``part_start``,
    ``part_end``) are the pieces of merged gold intervals (``gold_item``
    gives each interval's question) that a retrieved chunk holds, one per
    (interval, chunk): what :func:`union_contributions` turns into gold
    characters retrieved; ``part_row`` is the row that retrieved each.
    """

    items: tuple[EvalItem, ...]
    gold_total: IntArray
    item: IntArray
    rank: IntArray
    chunk: IntArray
    held: IntArray
    gold_retrieved: IntArray
    chunks: _ChunkColumns
    gold_item: IntArray
    part_gold: IntArray
    part_chunk: IntArray
    part_start: IntArray
    part_end: IntArray
    part_row: IntArray

    @property
    def gold_recall(self) -> npt.NDArray[np.float64]:
        """Per question, the share of its gold characters retrieved (character recall): 0.0 for gold that covers
        no character."""
        return _ratio(self.gold_retrieved, self.gold_total)


@dataclass(frozen=True, slots=True)
class GoldColumns:
    """The resolved questions' merged gold as columns: computed once, shared by every run measured against it.

    ``items`` are the questions with gold graded above 0, in the order given; ``spans`` their merged gold
    intervals, ``item`` each interval's question (a position in ``items``), ``start``/``end`` its bounds and
    ``total`` each question's gold characters.
    """

    items: tuple[EvalItem, ...]
    ids: pd.Index
    spans: list[Span]
    item: IntArray
    start: IntArray
    end: IntArray
    total: IntArray


def gold_columns(items: Iterable[EvalItem], function: str = "gold_columns") -> GoldColumns:
    """The merged gold of the questions of ``items`` that have any (graded above 0), as :class:`GoldColumns`.

    Examples
    --------
    >>> import contextgrid as cg
    >>> gold = (cg.GoldSpan(cg.Span("d", 0, 10)), cg.GoldSpan(cg.Span("d", 5, 20)), cg.GoldSpan(cg.Span("e", 0, 4)))
    >>> found = gold_columns([cg.EvalItem(id="q1", question="?", gold=gold), cg.EvalItem(id="q2", question="?")])
    >>> [item.id for item in found.items], found.total.tolist(), len(found.spans)
    (['q1'], [24], 2)
    """
    import pandas as pd

    resolved = tuple(item for item in checked_items(items, function=function) if gold_spans(item))
    merged = [union(gold_spans(item)) for item in resolved]
    item = np.repeat(np.arange(len(resolved), dtype=np.int64), [len(spans) for spans in merged])
    spans = [span for question in merged for span in question]
    start = np.array([span.start for span in spans], dtype=np.int64)
    end = np.array([span.end for span in spans], dtype=np.int64)
    total = np.bincount(item, weights=end - start, minlength=len(resolved)).astype(np.int64)
    return GoldColumns(resolved, pd.Index([entry.id for entry in resolved]), spans, item, start, end, total)


@dataclass(frozen=True, slots=True)
class ChunkingGold:
    """A chunking as columns with what each of its chunks holds of ``gold``: what every run retrieving from
    that chunking shares, so that many runs (five retrievers over one chunking) compute it once
    (:func:`chunking_gold` builds it)."""

    gold: GoldColumns
    columns: _ChunkColumns
    holding: ChunkGold


def chunking_gold(
    gold: GoldColumns, chunks: Mapping[str, Chunk] | Iterable[Chunk], function: str = "chunking_gold"
) -> ChunkingGold:
    """``chunks`` checked and laid out as columns, with what each holds of ``gold``; pass it as the
    ``chunks`` of :func:`ranked_evidence` (with the same ``gold`` as its ``items``) for every run of that chunking.

    Examples
    --------
    >>> import contextgrid as cg
    >>> gold = gold_columns([cg.EvalItem("q1", "?", (cg.GoldSpan(cg.Span("d", 100, 200)),))])
    >>> chunks = [cg.Chunk("c1", cg.Span("d", 0, 150), "a"), cg.Chunk("c2", cg.Span("d", 120, 300), "b")]
    >>> chunking = chunking_gold(gold, chunks)
    >>> first = ranked_evidence(gold, {"q1": ["c2"]}, chunking, 5)
    >>> second = ranked_evidence(gold, {"q1": ["c1", "c2"]}, chunking, 5)
    >>> first.gold_retrieved.tolist(), second.gold_retrieved.tolist()
    ([80], [100])
    """
    columns = _chunk_columns(chunks, function)
    return ChunkingGold(gold, columns, chunk_gold(gold, columns.spans))


def laid_out(
    gold: GoldColumns, chunks: Mapping[str, Chunk] | Iterable[Chunk] | ChunkingGold, function: str
) -> ChunkingGold:
    """``chunks`` laid out against ``gold``: a :class:`ChunkingGold` as given (refused when built from other
    gold), anything else by :func:`chunking_gold`. The one rule of every function that takes either."""
    if not isinstance(chunks, ChunkingGold):
        return chunking_gold(gold, chunks, function)
    if chunks.gold is not gold:
        raise parameter_error(function, "chunks", "a ChunkingGold built from the same GoldColumns as items", chunks)
    return chunks


def ranked_evidence(
    items: Iterable[EvalItem] | GoldColumns,
    run: Mapping[str, Sequence[str]],
    chunks: Mapping[str, Chunk] | Iterable[Chunk] | ChunkingGold,
    k: int,
    function: str = "ranked_evidence",
) -> RankedEvidence:
    """The alignment of a run's top ``k`` with the resolved gold, as columns (see :class:`RankedEvidence`).

    Same arguments as :func:`retrieved_table`, and ``items`` may be :func:`gold_columns`' record, so that many
    runs measured against the same questions merge their gold once, and ``chunks`` :func:`chunking_gold`'s
    record of that same gold, so that many runs of one chunking lay it out once; ``function`` names the
    caller in errors.

    Examples
    --------
    >>> import contextgrid as cg
    >>> item = cg.EvalItem(id="q1", question="?", gold=(cg.GoldSpan(cg.Span("d", 100, 200)),))
    >>> chunks = [cg.Chunk("c1", cg.Span("d", 0, 150), "a"), cg.Chunk("c2", cg.Span("d", 120, 300), "b")]
    >>> found = ranked_evidence([item], {"q1": ["c2", "c1"]}, chunks, 5)
    >>> found.rank.tolist(), found.held.tolist(), found.gold_retrieved.tolist()
    ([1, 2], [80, 50], [100])
    """
    cutoff = check_k(k, function=function)
    gold = items if isinstance(items, GoldColumns) else gold_columns(items, function)
    prepared = laid_out(gold, chunks, function)
    return rows_evidence(prepared, run_rows(run, gold.ids, prepared.columns.ids, cutoff, function))


def rows_evidence(chunking: ChunkingGold, rows: RunRows) -> RankedEvidence:
    """:func:`ranked_evidence` of a run's rows aligned already: ``rows`` are :func:`run_rows` of the run against
    ``chunking.gold.ids`` and ``chunking``'s chunk ids, cut at k (or a cut of deeper rows, as sorted), for a
    caller that aligns one run once for several uses.

    Examples
    --------
    >>> import contextgrid as cg
    >>> gold = gold_columns([cg.EvalItem(id="q1", question="?", gold=(cg.GoldSpan(cg.Span("d", 100, 200)),))])
    >>> chunks = [cg.Chunk("c1", cg.Span("d", 0, 150), "a"), cg.Chunk("c2", cg.Span("d", 120, 300), "b")]
    >>> chunking = chunking_gold(gold, chunks)
    >>> rows = run_rows({"q1": ["c2", "c1"]}, gold.ids, chunking.columns.ids, 5, "f")
    >>> rows_evidence(chunking, rows).gold_retrieved.tolist()
    [100]
    """
    gold, columns, holding = chunking.gold, chunking.columns, chunking.holding
    resolved = gold.items
    n_items, n_chunks = len(resolved), len(columns.ids)
    gold_item, gold_start, gold_end, gold_total = gold.item, gold.start, gold.end, gold.total
    item, ranks, chunk = rows.item, rows.rank, rows.chunk
    if len(item) and (int(item.max()) >= n_items or int(chunk.max()) >= n_chunks):
        raise parameter_error("rows_evidence", "rows", "rows aligned with the chunking's gold and chunks", rows)

    # What each row holds: its (question, chunk) key looked up among the keys the interval search found.
    row_key = item * n_chunks + chunk
    keys, held_by_key = holding.keys, holding.held
    found = np.searchsorted(keys, row_key)
    found_clipped = np.minimum(found, max(len(keys) - 1, 0))
    hit = (found < len(keys)) & (keys[found_clipped] == row_key) if len(keys) else np.zeros(len(row_key), dtype=bool)
    held = np.where(hit, held_by_key[found_clipped] if len(keys) else 0, 0).astype(np.int64)

    # Gold retrieved: within each merged gold interval, the union of the retrieved chunks' parts of it. A pair
    # (interval, chunk) is retrieved when its key is one a row hit.
    # A run holds each chunk once per question, so a key is hit by at most one row.
    key_row = np.full(len(keys), -1, dtype=np.int64)
    key_row[found_clipped[hit]] = np.flatnonzero(hit)
    pair_row = key_row[holding.pair_key] if len(keys) else np.zeros(len(holding.target), dtype=np.int64) - 1
    retrieved_pairs = pair_row >= 0
    target, span = holding.target[retrieved_pairs], holding.span[retrieved_pairs]
    part_start = np.maximum(gold_start[target], columns.start[span])
    part_end = np.minimum(gold_end[target], columns.end[span])
    parts = union_contributions(target, part_start, part_end)
    gold_retrieved = np.bincount(gold_item[target], weights=parts, minlength=n_items).astype(np.int64)
    return RankedEvidence(
        resolved,
        gold_total,
        item,
        ranks,
        chunk,
        held,
        gold_retrieved,
        columns,
        gold_item,
        target,
        span,
        part_start,
        part_end,
        pair_row[retrieved_pairs],
    )


def retrieved_table(
    items: Iterable[EvalItem] | GoldColumns,
    run: Mapping[str, Sequence[str]],
    chunks: Mapping[str, Chunk] | Iterable[Chunk] | ChunkingGold,
    k: int,
) -> pd.DataFrame:
    """What came back for each resolved question, one row per rank up to ``k``.

    Parameters
    ----------
    items : iterable of EvalItem
        The questions; those without gold evidence of grade above 0 are left out.
    run : mapping
        ``{question_id: [chunk_id, ...]}`` best first (a :class:`~contextgrid.data.tables.RunTable` too).
    chunks : mapping of id to Chunk, or iterable of Chunk
        The chunking the run retrieved from; a chunk id the run returns must be here.
    k : int
        The cut-off, at least 1.

    Returns
    -------
    pandas.DataFrame
        Columns ``question``, ``rank``, ``chunk_id``, ``doc_id``, ``start``,
        ``end``, ``gold_held`` (gold characters the chunk holds),
        ``gold_characters`` (the question's) and ``coverage`` (their ratio:
        :func:`contextgrid.gold_coverage_by_chunk`), ``excerpt`` (the start of
        the chunk's text). Sorted by question (in ``items`` order), then rank.

    Examples
    --------
    >>> import contextgrid as cg
    >>> from contextgrid.evidence.run_waste import retrieved_table
    >>> item = cg.EvalItem(id="q1", question="?", gold=(cg.GoldSpan(cg.Span("d", 100, 200)),))
    >>> chunks = [cg.Chunk("c1", cg.Span("d", 0, 150), "a"), cg.Chunk("c2", cg.Span("d", 120, 300), "b")]
    >>> retrieved_table([item], {"q1": ["c2", "c1"]}, chunks, 5)[["question", "rank", "chunk_id", "coverage"]]
      question  rank chunk_id  coverage
    0       q1     1       c2       0.8
    1       q1     2       c1       0.5
    """
    import pandas as pd

    found = ranked_evidence(items, run, chunks, k, "retrieved_table")
    columns = found.chunks
    total = found.gold_total[found.item]
    return pd.DataFrame(
        {
            "question": pd.array([found.items[i].id for i in found.item], dtype=object),
            "rank": found.rank,
            "chunk_id": np.asarray(columns.ids, dtype=object)[found.chunk],
            "doc_id": columns.doc[found.chunk],
            "start": columns.start[found.chunk],
            "end": columns.end[found.chunk],
            "gold_held": found.held,
            "gold_characters": total,
            "coverage": _ratio(found.held, total),
            "excerpt": columns.excerpt[found.chunk],
        }
    )


def question_waste(
    items: Iterable[EvalItem] | GoldColumns,
    run: Mapping[str, Sequence[str]],
    chunks: Mapping[str, Chunk] | Iterable[Chunk] | ChunkingGold,
    k: int,
) -> pd.DataFrame:
    """The :class:`Waste` of each resolved question's top ``k``, one row per question.

    Same arguments as :func:`retrieved_table` (``items`` may be :func:`gold_columns`' record). Index
    ``question`` (resolved questions in ``items`` order, including those the run never answered);
    columns :data:`WASTE_COLUMNS`: the counts and scores of
    :func:`measure_waste`, ``best_chunk_coverage`` (the most of the gold any
    one chunk holds) and ``chunks_retrieved``.

    Examples
    --------
    >>> import contextgrid as cg
    >>> from contextgrid.evidence.run_waste import question_waste
    >>> item = cg.EvalItem(id="q1", question="?", gold=(cg.GoldSpan(cg.Span("d", 100, 200)),))
    >>> chunks = [cg.Chunk("c1", cg.Span("d", 0, 150), ""), cg.Chunk("c2", cg.Span("d", 120, 300), "")]
    >>> frame = question_waste([item], {"q1": ["c1", "c2"]}, chunks, 2)
    >>> frame[["gold_retrieved", "not_gold", "repeated", "missed"]].to_dict("index")
    {'q1': {'gold_retrieved': 100, 'not_gold': 200, 'repeated': 30, 'missed': 0}}
    """
    import pandas as pd

    found = ranked_evidence(items, run, chunks, k, "question_waste")
    n_items = len(found.items)
    columns = found.chunks
    start, end = columns.start[found.chunk], columns.end[found.chunk]
    # Each row's (question, document): the chunking's documents numbered once, when it was laid out.
    docs = columns.doc_code[found.chunk]
    group = pd.factorize(found.item * (int(docs.max(initial=0)) + 1) + docs)[0].astype(np.int64)
    distinct = np.bincount(found.item, weights=union_contributions(group, start, end), minlength=n_items)
    total = np.bincount(found.item, weights=end - start, minlength=n_items)
    best = np.zeros(n_items, dtype=np.int64)
    np.maximum.at(best, found.item, found.held)
    gold, retrieved, got = found.gold_total, distinct.astype(np.int64), found.gold_retrieved
    recall = found.gold_recall
    precision = np.divide(got, retrieved, out=np.zeros(n_items), where=retrieved > 0)
    f1 = np.divide(2 * precision * recall, precision + recall, out=np.zeros(n_items), where=precision + recall > 0)
    frame = pd.DataFrame(
        {
            "gold_characters": gold,
            "retrieved_characters": retrieved,
            "retrieved_total": total.astype(np.int64),
            "gold_retrieved": got,
            "not_gold": retrieved - got,
            "repeated": total.astype(np.int64) - retrieved,
            "missed": gold - got,
            "character_recall": recall,
            "character_precision": precision,
            "character_f1": f1,
            "best_chunk_coverage": _ratio(best, gold),
            "chunks_retrieved": np.bincount(found.item, minlength=n_items).astype(np.int64),
        },
        index=pd.Index([item.id for item in found.items], name="question", dtype=object),
    )
    return frame


def coverage_by_rank(retrieved: pd.DataFrame, k: int, *, questions: Sequence[str] | None = None) -> pd.DataFrame:
    """A :func:`retrieved_table` as a question × rank matrix of ``coverage`` (``NaN`` where nothing came back).

    Columns are the ranks 1 … ``k``; rows the questions of ``retrieved`` in
    order, or ``questions`` when given (so questions the run never answered
    show as empty rows).

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.evidence.run_waste import coverage_by_rank
    >>> table = pd.DataFrame({"question": ["q1", "q1"], "rank": [1, 3], "coverage": [0.25, 1.0]})
    >>> coverage_by_rank(table, 3, questions=["q1", "q2"])
    rank         1   2    3
    question
    q1        0.25 NaN  1.0
    q2         NaN NaN  NaN
    """
    import pandas as pd

    cutoff = check_k(k, function="coverage_by_rank")
    order = list(dict.fromkeys(retrieved["question"])) if questions is None else list(questions)
    matrix = retrieved.pivot_table(index="question", columns="rank", values="coverage", aggfunc="first", sort=False)
    matrix = matrix.reindex(index=pd.Index(order, name="question"), columns=pd.Index(range(1, cutoff + 1), name="rank"))
    return matrix.astype("float64")


def coverage_by_configuration(table: pd.DataFrame, *, value: str = "character_recall") -> pd.DataFrame:
    """A :func:`workspace_waste` table as a configuration × question matrix of ``value``.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.evidence.run_waste import coverage_by_configuration
    >>> index = pd.MultiIndex.from_tuples([("a", "q1"), ("a", "q2"), ("b", "q1")], names=["config", "question"])
    >>> coverage_by_configuration(pd.DataFrame({"character_recall": [1.0, 0.5, 0.0]}, index=index))
    question   q1   q2
    config
    a         1.0  0.5
    b         0.0  NaN
    """
    if value not in table.columns:
        raise ContextGridError(
            f"coverage_by_configuration: the table has no column {value!r}. Available: {', '.join(table.columns)}"
        )
    configs = list(dict.fromkeys(table.index.get_level_values("config")))
    questions = list(dict.fromkeys(table.index.get_level_values("question")))
    matrix = table[value].unstack("question")
    return matrix.reindex(index=configs, columns=questions).astype("float64")


BOX_COLUMNS = ("questions", "min", "lowerfence", "q1", "median", "q3", "upperfence", "max", "mean")
"""The columns of :func:`box_statistics`."""


def box_statistics(table: pd.DataFrame, *, value: str) -> pd.DataFrame:
    """The numbers of a box plot of ``value``, one row per configuration: what a chart draws instead of every row.

    The quartiles are plotly's own (position ``q * n - 0.5`` among the
    sorted values, interpolated linearly: numpy's ``"hazen"``), so a box drawn
    from these numbers is the box plotly draws from the values themselves.
    ``lowerfence`` is the smallest value at least ``q1 - 1.5 * (q3 - q1)``
    (never above ``q1``), ``upperfence`` the largest at most
    ``q3 + 1.5 * (q3 - q1)`` (never below ``q3``); ``min`` and ``max`` bound
    every value, ``questions`` counts them and ``mean`` is their mean. Missing
    values are left out, as plotly leaves them out; a configuration with none
    has no row. Computed on columns: one sort of each configuration's values.

    Parameters
    ----------
    table : DataFrame
        Index ``(config, question)``, as :func:`workspace_waste` returns.
    value : str
        The column to summarise.

    Returns
    -------
    DataFrame
        Index ``config`` in the order configurations first appear in
        ``table``, columns :data:`BOX_COLUMNS`.

    Examples
    --------
    >>> import pandas as pd
    >>> index = pd.MultiIndex.from_tuples(
    ...     [("b", "q1"), ("b", "q2"), ("b", "q3"), ("b", "q4"), ("b", "q5"), ("a", "q1")], names=["config", "question"]
    ... )
    >>> table = pd.DataFrame({"retrieved_total": [40.0, 10.0, 400.0, 30.0, 20.0, 7.0]}, index=index)
    >>> print(box_statistics(table, value="retrieved_total").to_string())
            questions   min  lowerfence    q1  median     q3  upperfence    max   mean
    config
    b               5  10.0        10.0  17.5    30.0  130.0       130.0  400.0  100.0
    a               1   7.0         7.0   7.0     7.0    7.0         7.0    7.0    7.0

    (b's 400 lies past ``q3 + 1.5 * 112.5``, so its upper fence stays at q3.)
    """
    import pandas as pd

    if value not in table.columns:
        raise ContextGridError(
            f"box_statistics: the table has no column {value!r}. Available: {', '.join(map(str, table.columns))}"
        )
    index = table.index
    if isinstance(index, pd.MultiIndex):
        # The level's own codes, numbered again in the order they first appear: no label made per row.
        level = index.names.index("config")
        codes, first = pd.factorize(np.asarray(index.codes[level]), sort=False)
        configs = index.levels[level].take(first, allow_fill=True)
    else:
        codes, configs = pd.factorize(index.get_level_values("config"), sort=False)
    values = table[value].to_numpy(dtype="float64")
    kept = ~np.isnan(values)
    codes, values = codes[kept], values[kept]
    # Grouped by configuration (a stable sort of the codes: linear on a table already grouped), then each group's
    # values sorted on their own, stably: what one lexsort of both gives, at a tenth of its cost on 500,000 rows.
    grouped = np.argsort(codes, kind="stable")
    codes, values = codes[grouped], values[grouped]
    counts = np.bincount(codes, minlength=len(configs))
    ends = np.cumsum(counts)
    for start, end in zip((ends - counts).tolist(), ends.tolist(), strict=True):  # one sort per configuration
        values[start:end] = np.sort(values[start:end], kind="stable")
    present = np.flatnonzero(counts)
    n = counts[present]
    first = np.concatenate(([0], np.cumsum(counts)[:-1]))[present]

    def quantile(q: float) -> npt.NDArray[np.float64]:
        at = np.clip(q * n - 0.5, 0, n - 1)
        low = np.floor(at).astype(np.int64)
        high = np.ceil(at).astype(np.int64)
        below, above = values[first + low], values[first + high]
        interpolated: npt.NDArray[np.float64] = below + (at - low) * (above - below)
        return interpolated

    q1, median, q3 = quantile(0.25), quantile(0.5), quantile(0.75)
    spread = 1.5 * (q3 - q1)
    # Each value's own box's reach, to pick per box the outermost values inside it.
    box = np.repeat(np.arange(len(present)), n)
    inside_low = np.where(values >= (q1 - spread)[box], values, np.inf)
    inside_high = np.where(values <= (q3 + spread)[box], values, -np.inf)
    return pd.DataFrame(
        {
            "questions": n.astype(np.int64),
            "min": values[first],
            "lowerfence": np.minimum(q1, np.minimum.reduceat(inside_low, first)),
            "q1": q1,
            "median": median,
            "q3": q3,
            "upperfence": np.maximum(q3, np.maximum.reduceat(inside_high, first)),
            "max": values[first + n - 1],
            "mean": np.add.reduceat(values, first) / n,
        },
        index=pd.Index(configs[present], name="config", dtype="object"),
    )


CHARACTER_BOXES = ("retrieved_total", "gold_characters")
"""The columns of a :func:`workspace_waste` table that :func:`character_boxes` summarises."""


def character_boxes(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`box_statistics` of the characters retrieved (repeats included) and of the gold's, per configuration.

    Index ``(value, config)``, ``value`` one of :data:`CHARACTER_BOXES`: the
    few numbers :func:`contextgrid.render.waste_figures.characters_plot`
    draws, however many questions ``table`` holds.

    Examples
    --------
    >>> import pandas as pd
    >>> index = pd.MultiIndex.from_tuples([("a", "q1"), ("a", "q2")], names=["config", "question"])
    >>> table = pd.DataFrame({"retrieved_total": [300, 500], "gold_characters": [40, 60]}, index=index)
    >>> print(character_boxes(table)[["questions", "median", "max"]].to_string())
                            questions  median    max
    value           config
    retrieved_total a               2   400.0  500.0
    gold_characters a               2    50.0   60.0
    """
    import pandas as pd

    return pd.concat({value: box_statistics(table, value=value) for value in CHARACTER_BOXES}, names=["value"])
