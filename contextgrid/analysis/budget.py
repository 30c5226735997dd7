"""What one configuration hands the model at an equal context budget, question by question, on columns.

The rule, for a question and a budget ``B``: the configuration's ranked chunks are taken from rank 1 while the
running total of their cost (text length in characters, or tokens counted with a tokenizer) stays at or below
``B``; the first chunk that would take it past ``B`` stops the context there, so the context is always a prefix
of the ranking (the rule :func:`~contextgrid.answering.context.assemble_context` applies, counted per chunk text
rather than on the numbered passages). At ``B`` a question has:

- ``evidence_recall``: the share of its gold characters (spans graded above 0, overlaps counted once) that the
  taken chunks hold;
- ``hit``: 1 when a taken chunk is graded above 0 in the configuration's qrels;
- ``characters``: the taken chunks' total length, repeats included (what the model reads);
- ``chunks``: how many chunks were taken.

Because each chunk costs at least 0, the running total only grows with the rank, so "taken at ``B``" is simply
"running total <= ``B``": one comparison per row and budget, no loop per question.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from contextgrid.answering.context import count_tokens
from contextgrid.chunking import Tokenizer
from contextgrid.core.checks import check_int, is_whole
from contextgrid.core.errors import parameter_error
from contextgrid.data.records import Chunk, EvalItem
from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.engine.grades import RankedGrades
from contextgrid.engine.scoring import ranked_grades
from contextgrid.evidence.run_waste import (
    ChunkingGold,
    GoldColumns,
    gold_columns,
    laid_out,
    ranked_evidence,
    union_contributions,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "BUDGET_COLUMNS",
    "BudgetRows",
    "budget_frame",
    "budget_frontier",
    "budget_grid",
    "budget_means",
    "budget_rows",
    "budget_table",
    "check_budgets",
]

IntArray = npt.NDArray[np.int64]

BUDGET_COLUMNS = ("evidence_recall", "hit", "characters", "chunks", "spent")
"""The columns of :meth:`BudgetRows.at`: ``spent`` is the taken chunks' cost in the budget's unit."""


def check_budgets(budgets: object, *, function: str) -> tuple[int, ...]:
    """``budgets`` as distinct whole numbers >= 1, smallest first.

    Examples
    --------
    >>> check_budgets([2000, 500, 1000], function="f")
    (500, 1000, 2000)
    >>> check_budgets([0], function="f")
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.InvalidParameterError: The 'budgets' parameter of f must be a non-empty sequence of \
whole numbers >= 1, each once. Got [0] instead.
    """
    values = list(budgets) if isinstance(budgets, Sequence) and not isinstance(budgets, str) else None
    if (
        not values
        or not all(is_whole(value, minimum=1) for value in values)
        or len(set(map(int, values))) != len(values)
    ):
        raise parameter_error(function, "budgets", "a non-empty sequence of whole numbers >= 1, each once", budgets)
    return tuple(sorted(int(value) for value in values))


def _costs(chunks: Sequence[Chunk], lengths: IntArray, tokenizer: Tokenizer | None, function: str) -> IntArray:
    """Each chunk's cost: its text length, or its token count with ``tokenizer``."""
    if tokenizer is None:
        return lengths
    if not callable(tokenizer):
        raise parameter_error(function, "tokenizer", "None or a callable from text to tokens", tokenizer)
    return np.fromiter((count_tokens(chunk.text, tokenizer) for chunk in chunks), dtype=np.int64, count=len(chunks))


def _running_total(item: IntArray, values: IntArray) -> IntArray:
    """Running total of ``values`` within each run of equal ``item`` (rows sorted by item, then rank).

    Examples
    --------
    >>> _running_total(np.array([0, 0, 0, 2, 2]), np.array([5, 1, 2, 7, 3])).tolist()
    [5, 6, 8, 7, 10]
    """
    total = np.cumsum(values)
    if len(item) == 0:
        return total
    first = np.flatnonzero(np.concatenate(([True], item[1:] != item[:-1])))
    before = (total - values)[first]
    return total - np.repeat(before, np.diff(np.append(first, len(item))))


@dataclass(frozen=True, slots=True)
class BudgetRows:
    """One configuration's ranked rows, ready to be cut at any budget (:func:`budget_rows` builds it).

    Rows are sorted by question (a position in ``question_ids``), then rank;
    ``row_total`` is the running cost up to and including each row, so a row
    is taken at ``B`` exactly when ``row_total <= B``. Parts are the pieces of
    merged gold that retrieved chunks hold (``part_gold`` numbers the merged
    gold interval, ``part_item`` its question), each with the running cost of
    the first row that brings it (``part_total``). ``typical_chunk`` is the
    median cost of the chunking's chunks (0 without chunks): where a grid of
    budgets starts to make sense (a budget below it takes hardly any chunk).
    """

    question_ids: tuple[str, ...]
    gold_total: IntArray
    row_item: IntArray
    row_cost: IntArray
    row_total: IntArray
    row_characters: IntArray
    row_hit: npt.NDArray[np.bool_]
    part_item: IntArray
    part_gold: IntArray
    part_start: IntArray
    part_end: IntArray
    part_total: IntArray
    typical_chunk: int

    @property
    def longest_context(self) -> int:
        """The largest cost of a whole ranking: past this budget nothing changes."""
        return int(self.row_total.max(initial=0))

    def at(self, budgets: Sequence[int]) -> pd.DataFrame:
        """Every question at every budget: index ``(budget, question)``, columns :data:`BUDGET_COLUMNS`.

        Examples
        --------
        >>> import contextgrid as cg
        >>> item = cg.EvalItem(id="q1", question="?", gold=(cg.GoldSpan(cg.Span("d", 100, 200)),))
        >>> chunks = [cg.Chunk("c1", cg.Span("d", 0, 150), "x" * 150),
        ...           cg.Chunk("c2", cg.Span("d", 150, 300), "y" * 150)]
        >>> rows = budget_rows([item], {"q1": ["c2", "c1"]}, chunks, qrels={"q1": {"c1": 1}})
        >>> print(rows.at([100, 200, 300]))
                          evidence_recall  hit  characters  chunks  spent
        budget question
        100    q1                     0.0    0           0       0      0
        200    q1                     0.5    0         150       1    150
        300    q1                     1.0    1         300       2    300
        """
        import pandas as pd

        cuts = check_budgets(budgets, function="BudgetRows.at")
        n = len(self.question_ids)
        index = _coded_index(
            {"budget": cuts, "question": self.question_ids},
            [np.repeat(np.arange(len(cuts)), n), np.tile(np.arange(n), len(cuts))],
        )
        return pd.DataFrame(self.columns_at(cuts), index=index)

    def columns_at(self, budgets: Sequence[int]) -> dict[str, npt.NDArray[np.generic]]:
        """:meth:`at`'s columns as arrays, budget-major (every question at the first budget, then the next),
        for budgets already checked."""
        n, m = len(self.question_ids), len(budgets)
        if m == 0:
            return {name: np.zeros(0) for name in BUDGET_COLUMNS}
        # A row is taken from the first budget its running cost fits in: a question's sums at every budget are
        # running sums, over the budgets, of its rows counted at that first budget (one pass over the rows).
        first = np.searchsorted(np.asarray(budgets, dtype=np.int64), self.row_total, side="left")
        cell = self.row_item * (m + 1) + first

        def by_budget(weights: npt.NDArray[np.generic] | None) -> npt.NDArray[Any]:
            counted = np.bincount(cell, weights=weights, minlength=n * (m + 1)).reshape(n, m + 1)
            # Budget-major, as the rows of :meth:`at` are: every question at the first budget, then the next.
            return np.cumsum(counted, axis=1)[:, :m].T.ravel()

        recall = []
        for budget in budgets:
            # The union of the held gold is not a running sum (parts of one interval overlap): one pass per budget,
            # over the parts alone, which budget_rows sorted as union_contributions sorts them.
            held_parts = self.part_total <= budget
            held = union_contributions(
                self.part_gold[held_parts], self.part_start[held_parts], self.part_end[held_parts]
            )
            got = np.bincount(self.part_item[held_parts], weights=held, minlength=n)
            recall.append(np.divide(got, self.gold_total, out=np.zeros(n), where=self.gold_total > 0))
        return {
            "evidence_recall": np.concatenate(recall),
            "hit": (by_budget(self.row_hit.astype(np.float64)) > 0).astype(np.int64),
            "characters": by_budget(self.row_characters).astype(np.int64),
            "chunks": by_budget(None).astype(np.int64),
            "spent": by_budget(self.row_cost).astype(np.int64),
        }


def budget_frame(rows: Mapping[str, BudgetRows], budgets: Sequence[int]) -> pd.DataFrame:
    """Every configuration of ``rows`` at every budget, on the questions they share: index
    ``(config, budget, question)``, columns :data:`BUDGET_COLUMNS`, built at once (no concatenation of frames).

    Examples
    --------
    >>> import contextgrid as cg
    >>> item = cg.EvalItem(id="q1", question="?", gold=(cg.GoldSpan(cg.Span("d", 0, 100)),))
    >>> chunks = [cg.Chunk("c1", cg.Span("d", 0, 100), "x" * 100)]
    >>> rows = {name: budget_rows([item], run, chunks, qrels={"q1": {"c1": 1}})
    ...         for name, run in (("a", {"q1": ["c1"]}), ("b", {}))}
    >>> budget_frame(rows, [50, 100])["evidence_recall"].to_dict()
    {('a', 50, 'q1'): 0.0, ('a', 100, 'q1'): 1.0, ('b', 50, 'q1'): 0.0, ('b', 100, 'q1'): 0.0}
    """
    import pandas as pd

    cuts = check_budgets(budgets, function="budget_frame")
    names = list(rows)
    questions = {part.question_ids for part in rows.values()}
    if len(questions) > 1:
        raise parameter_error(
            "budget_frame", "rows", "BudgetRows of one set of questions (built from the same items)", names
        )
    question_ids = next(iter(questions), ())
    n, m = len(question_ids), len(cuts)
    built = [rows[name].columns_at(cuts) for name in names]
    index = _coded_index(
        {"config": names, "budget": cuts, "question": question_ids},
        [
            np.repeat(np.arange(len(names)), m * n),
            np.tile(np.repeat(np.arange(m), n), len(names)),
            np.tile(np.arange(n), m * len(names)),
        ],
    )
    columns = {
        column: np.concatenate([part[column] for part in built]) if built else np.zeros(0) for column in BUDGET_COLUMNS
    }
    return pd.DataFrame(columns, index=index)


def _coded_index(levels: Mapping[str, Sequence[object]], codes: Sequence[npt.NDArray[np.intp]]) -> pd.MultiIndex:
    """A MultiIndex straight from its levels (each value once) and codes: no factorizing of millions of rows."""
    import pandas as pd

    values: list[Any] = [pd.Index(list(level), name=name) for name, level in levels.items()]
    positions: list[Any] = list(codes)
    return pd.MultiIndex(levels=values, codes=positions, names=list(levels), verify_integrity=False)


def budget_rows(
    items: Iterable[EvalItem] | GoldColumns,
    run: Mapping[str, Sequence[str]],
    chunks: Mapping[str, Chunk] | Iterable[Chunk] | ChunkingGold,
    *,
    qrels: Mapping[str, Mapping[str, int]],
    tokenizer: Tokenizer | None = None,
    grades: RankedGrades | None = None,
) -> BudgetRows:
    """A run's whole rankings aligned with the gold and the qrels, ready for :meth:`BudgetRows.at`.

    Parameters
    ----------
    items : iterable of EvalItem, or GoldColumns
        The questions; only those with gold evidence graded above 0 are kept
        (the questions every curve is averaged over). Many runs against the
        same questions merge their gold once with
        :func:`~contextgrid.evidence.run_waste.gold_columns`.
    run : mapping
        ``{question_id: [chunk_id, ...]}`` best first (a :class:`~contextgrid.data.tables.RunTable` too),
        taken whole, however deep.
    chunks : mapping of id to Chunk, iterable of Chunk, or ChunkingGold
        The chunking the run retrieved from; many runs of one chunking lay it out once with
        :func:`~contextgrid.evidence.run_waste.chunking_gold` (of the same ``items``).
    qrels : mapping
        ``{question_id: {chunk_id: grade}}`` (a :class:`~contextgrid.data.tables.QrelsTable` too): what
        ``hit`` counts.
    tokenizer : callable, optional
        ``None`` (the default) counts budgets in characters; a callable from text to tokens (such as
        :data:`~contextgrid.answering.context.DEFAULT_TOKENIZER`) counts them in its tokens.
    grades : RankedGrades, optional
        The ranked-grade matrix of ``run`` against ``qrels`` when it is already built (a workspace keeps one per
        configuration): used, not built again, when it is at least as deep as the run's longest ranking.

    Returns
    -------
    BudgetRows
    """
    function = "budget_rows"
    gold = items if isinstance(items, GoldColumns) else gold_columns(items, function)
    chunking = laid_out(gold, chunks, function)
    lengths = chunking.columns.length
    costs = _costs(chunking.columns.chunks, lengths, tokenizer, function)
    table = RunTable.from_dict(run)
    depth = int(np.diff(table.starts).max(initial=1)) if len(table) else 1
    found = ranked_evidence(gold, table, chunking, max(depth, 1), function)

    row_total = _running_total(found.item, costs[found.chunk])
    # Hits from the engine's ranked grades: the same alignment of the run with the qrels that scoring uses.
    if grades is not None and not isinstance(grades, RankedGrades):
        raise parameter_error(function, "grades", "None or the RankedGrades of run against qrels", grades)
    if grades is None or grades.gains.shape[1] < depth:
        grades = ranked_grades(QrelsTable.from_dict(qrels), table, depth)
    import pandas as pd

    # The gold's questions are the rows' (ranked_evidence measures gold's items), their ids an index already.
    matrix_row = pd.Index(grades.question_ids, dtype=object).get_indexer(gold.ids)
    row = matrix_row[found.item] if len(found.item) else found.item
    scored = (row >= 0) & (found.rank <= grades.gains.shape[1])
    row_hit = np.zeros(len(found.item), dtype=bool)
    row_hit[scored] = grades.gains[row[scored], found.rank[scored] - 1] > 0

    # Each part arrives with the row that holds its chunk. Sorted by interval, then start, as
    # union_contributions sorts them: each budget's call then sorts parts already in order.
    order = np.lexsort((found.part_start, found.part_gold))
    part_gold, part_start, part_end = found.part_gold[order], found.part_start[order], found.part_end[order]
    part_item = found.gold_item[part_gold]
    part_total = row_total[found.part_row[order]]
    return BudgetRows(
        question_ids=tuple(gold.ids.tolist()),
        gold_total=found.gold_total,
        row_item=found.item,
        row_cost=costs[found.chunk],
        row_total=row_total,
        row_characters=lengths[found.chunk],
        row_hit=row_hit,
        part_item=part_item,
        part_gold=part_gold,
        part_start=part_start,
        part_end=part_end,
        part_total=part_total,
        typical_chunk=int(np.median(costs)) if len(costs) else 0,
    )


def budget_table(
    items: Iterable[EvalItem],
    run: Mapping[str, Sequence[str]],
    chunks: Mapping[str, Chunk] | Iterable[Chunk],
    budgets: Sequence[int],
    *,
    qrels: Mapping[str, Mapping[str, int]],
    tokenizer: Tokenizer | None = None,
) -> pd.DataFrame:
    """Every resolved question of one configuration at every budget (:func:`budget_rows` cut at ``budgets``).

    Examples
    --------
    >>> import contextgrid as cg
    >>> item = cg.EvalItem(id="q1", question="?", gold=(cg.GoldSpan(cg.Span("d", 0, 20)),))
    >>> chunks = [cg.Chunk("a", cg.Span("d", 0, 10), "Refunds in"), cg.Chunk("b", cg.Span("d", 10, 20), " 30 days.")]
    >>> frame = budget_table([item], {"q1": ["a", "b"]}, chunks, [15], qrels={"q1": {"a": 1}})
    >>> frame.loc[(15, "q1"), ["evidence_recall", "characters"]].tolist()
    [0.5, 10.0]
    """
    return budget_rows(items, run, chunks, qrels=qrels, tokenizer=tokenizer).at(budgets)


def budget_grid(shortest: int, longest: int, *, points: int = 8) -> tuple[int, ...]:
    """About ``points`` log-spaced budgets from ``shortest`` to ``longest``, each rounded to two significant
    digits (the last rounded up, so that it holds every whole context; rounding may merge two).

    Examples
    --------
    >>> budget_grid(180, 14_500)
    (180, 340, 630, 1200, 2200, 4100, 7700, 15000)
    >>> budget_grid(50, 50)
    (50,)
    """
    check_int(points, function="budget_grid", parameter="points", minimum=1)
    low = check_int(shortest, function="budget_grid", parameter="shortest", minimum=1)
    high = max(check_int(longest, function="budget_grid", parameter="longest", minimum=1), low)
    if points == 1 or low == high:
        return (_round_up(high),)
    raw = np.geomspace(low, high, points)
    values = [_round(float(value)) for value in raw[:-1]] + [_round_up(high)]
    return tuple(sorted(set(values)))


def _round(value: float) -> int:
    """``value`` to two significant digits."""
    scale = int(10 ** max(math.floor(math.log10(value)) - 1, 0))
    return round(value / scale) * scale


def _round_up(value: int) -> int:
    scale = int(10 ** max(len(str(value)) - 2, 0))
    return math.ceil(value / scale) * scale


def budget_means(per_question: pd.DataFrame) -> pd.DataFrame:
    """Means of a per-question table (index ``(config, budget, question)``) by ``(config, budget)``.

    Columns: ``evidence_recall``, ``hit_rate`` (the mean of ``hit``), ``characters``, ``chunks``, ``spent``
    and ``questions`` (how many questions each mean is over).

    Examples
    --------
    >>> import pandas as pd
    >>> index = pd.MultiIndex.from_product([["a"], [100], ["q1", "q2"]], names=["config", "budget", "question"])
    >>> table = pd.DataFrame(
    ...     {"evidence_recall": [1.0, 0.0], "hit": [1, 0], "characters": [90, 0], "chunks": [1, 0], "spent": [90, 0]},
    ...     index=index,
    ... )
    >>> budget_means(table).to_dict("records")
    [{'evidence_recall': 0.5, 'hit_rate': 0.5, 'characters': 45.0, 'chunks': 0.5, 'spent': 45.0, 'questions': 2}]
    """
    grouped = per_question.groupby(level=["config", "budget"], sort=False)
    means = grouped[list(BUDGET_COLUMNS)].mean().rename(columns={"hit": "hit_rate"})
    means["questions"] = grouped.size()
    return means


def budget_frontier(means: pd.DataFrame) -> pd.DataFrame:
    """The points of :func:`budget_means` no other point beats: none holds as much evidence for fewer
    characters. Sorted by ``characters``; columns ``config``, ``budget``, ``characters``, ``evidence_recall``.

    Examples
    --------
    >>> import pandas as pd
    >>> index = pd.MultiIndex.from_tuples([("a", 1), ("a", 2), ("b", 1), ("b", 2)], names=["config", "budget"])
    >>> means = pd.DataFrame({"characters": [10, 20, 12, 19], "evidence_recall": [0.2, 0.5, 0.4, 0.3]}, index=index)
    >>> budget_frontier(means).to_dict("records")
    [{'config': 'a', 'budget': 1, 'characters': 10, 'evidence_recall': 0.2}, \
{'config': 'b', 'budget': 1, 'characters': 12, 'evidence_recall': 0.4}, \
{'config': 'a', 'budget': 2, 'characters': 20, 'evidence_recall': 0.5}]
    """
    points = means[["characters", "evidence_recall"]].reset_index()
    # Fewest characters first and, among equal ones, most evidence first: a point is on the frontier when it
    # holds more evidence than every point before it.
    points = points.sort_values(["characters", "evidence_recall"], ascending=[True, False], kind="stable")
    # A point with no evidence at all is on no frontier (nor on a log axis of characters).
    best_before = points["evidence_recall"].cummax().shift(fill_value=0.0)
    kept = points[points["evidence_recall"] > best_before]
    return kept[["config", "budget", "characters", "evidence_recall"]].reset_index(drop=True)
