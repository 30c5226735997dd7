"""Question-level views of a run: which questions fail, what came back for one, and
what changed between two configurations.

Every number comes from :func:`contextgrid.per_query` and
:func:`contextgrid.first_relevant_ranks`; this module only lays them out as
tables, so the dashboard and a notebook show the same thing.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Collection, Mapping, Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd

from contextgrid.core.checks import TIE_TOLERANCE, check_k
from contextgrid.core.errors import ContextGridError, UnknownConfigurationError
from contextgrid.data.records import Chunk
from contextgrid.engine.scoring import ranked_grades, score_questions
from contextgrid.metrics.base import BUILTIN_METRICS, METRICS, Qrels

__all__ = [
    "LISTED_SIGNALS",
    "SIGNAL_FILTERS",
    "failing_configurations",
    "filter_questions",
    "first_relevant_chunk",
    "natural_key",
    "natural_order",
    "question_changes",
    "question_label",
    "question_listing",
    "question_scores",
    "ranked_list",
    "shared_scores",
]


def question_scores(
    qrels: Qrels,
    run: Mapping[str, Sequence[str]],
    k: int,
    *,
    metrics: Sequence[str] = BUILTIN_METRICS,
) -> pd.DataFrame:
    """Every metric at ``k`` for each scored question, worst first.

    Columns: one per ``metric@k``, then ``first_relevant_rank`` (over the whole
    ranking; missing where no relevant chunk came back) and ``failing`` (no
    relevant chunk in the top ``k``). Rows are sorted by ``failing`` first,
    then by the first metric ascending, then by question id.

    Examples
    --------
    >>> from contextgrid.analysis.questions import question_scores
    >>> qrels = {"q1": {"c1": 2}, "q2": {"c4": 1}, "q3": {"c7": 2}}
    >>> run = {"q1": ["x", "c1"], "q2": ["c4"], "q3": ["y"]}
    >>> question_scores(qrels, run, 1, metrics=["recall", "mrr"])
              recall@1  mrr@1  first_relevant_rank  failing
    question
    q1             0.0    0.0                    2     True
    q3             0.0    0.0                 <NA>     True
    q2             1.0    1.0                    1    False
    """
    cutoff = check_k(k, function="question_scores")
    if isinstance(metrics, str) or not metrics:
        raise ContextGridError(f"question_scores: metrics must be a non-empty sequence of names, got {metrics!r}")
    # One ranked-grade matrix, the whole ranking deep, serves every metric at k and the first relevant rank.
    batch = ranked_grades(qrels, run, None)
    columns = {
        f"{metric}@{cutoff}": score_questions(METRICS.get(metric), batch, qrels, run, cutoff)
        for metric in dict.fromkeys(metrics)
    }
    frame = pd.DataFrame(columns, index=pd.Index(batch.question_ids, name="question"), dtype="float64")
    found = np.isfinite(batch.first_hit)
    frame["first_relevant_rank"] = pd.array(
        [int(rank) if hit else None for rank, hit in zip(batch.first_hit.tolist(), found.tolist(), strict=True)],
        dtype="Int64",
    )
    frame["failing"] = batch.first_hit > cutoff
    first = next(iter(columns))
    frame["_question"] = frame.index
    ordered = frame.sort_values(["failing", first, "_question"], ascending=[False, True, True], kind="stable")
    return ordered.drop(columns="_question")


LISTED_SIGNALS = (
    "cause",
    "retrieved",
    "gold_recall_at_k",
    "vocabulary_gap",
    "gold_density",
    "diluted",
    "distractors",
    "distractor",
    "smallest_k",
    "smallest_budget",
    "hit_elsewhere",
)
"""The columns of :func:`contextgrid.workspace.causes.failure_causes` a question list shows beside each id."""


def _holds(column: str) -> Callable[[pd.DataFrame], pd.Series]:
    return lambda table: table[column].eq(True).fillna(False).astype(bool)


def _positive(column: str) -> Callable[[pd.DataFrame], pd.Series]:
    return lambda table: pd.to_numeric(table[column], errors="coerce").gt(0).fillna(False).astype(bool)


SIGNAL_FILTERS: dict[str, tuple[str, Callable[[pd.DataFrame], pd.Series]]] = {
    "lexical gap": ("vocabulary_gap", _holds("vocabulary_gap")),
    "diluted": ("diluted", _holds("diluted")),
    "distractors": ("distractors", _positive("distractors")),
    "deeper k finds it": ("smallest_k", lambda table: table["smallest_k"].notna().astype(bool)),
    "right elsewhere": ("hit_elsewhere", _positive("hit_elsewhere")),
    "right nowhere": ("hit_elsewhere", lambda table: table["hit_elsewhere"].eq(0).fillna(False).astype(bool)),
}
"""The signal filters of :func:`filter_questions`, by name: the column each needs and the rows it keeps (the
signals of :func:`contextgrid.analysis.causes.question_causes`: a lexical gap, dilution, distractors ranked
above the gold, a relevant chunk deeper in the ranking, another configuration that gets it right, none)."""


def filter_questions(
    table: pd.DataFrame,
    *,
    label: str | None = None,
    at_most: float = 1.0,
    failing_only: bool = False,
    contains: str = "",
    causes: Collection[str] = (),
    signals: Collection[str] = (),
) -> pd.DataFrame:
    """Rows of a :func:`question_scores` table: ``label`` at most ``at_most``, only
    failing ones, question ids containing ``contains`` (case-insensitive), and/or,
    given ``causes``, those whose ``cause`` column (as :func:`question_listing` adds) is one of them,
    and, given ``signals`` (names of :data:`SIGNAL_FILTERS`), those that show every one of them.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.analysis.questions import filter_questions
    >>> table = pd.DataFrame(
    ...     {"mrr@5": [0.0, 0.5, 1.0], "failing": [True, False, False]}, index=["refund-1", "refund-2", "ship-1"]
    ... )
    >>> list(filter_questions(table, label="mrr@5", at_most=0.5, contains="REFUND").index)
    ['refund-1', 'refund-2']
    >>> list(filter_questions(table, failing_only=True).index)
    ['refund-1']
    >>> table["cause"] = ["ranked_low", "hit", "hit"]
    >>> list(filter_questions(table, causes=["hit"]).index)
    ['refund-2', 'ship-1']
    >>> table["distractors"] = pd.array([2, None, None], dtype="Int64")
    >>> list(filter_questions(table, signals=["distractors"]).index)
    ['refund-1']
    """
    keep = pd.Series(True, index=table.index)
    if label is not None:
        if label not in table.columns:
            raise ContextGridError(
                f"the table has no column {label!r}. Available: {', '.join(map(str, table.columns))}"
            )
        keep &= table[label] <= at_most
    if failing_only:
        keep &= table["failing"].astype(bool)
    if contains:
        keep &= table.index.astype(str).str.contains(contains, case=False, regex=False)
    if causes:
        if "cause" not in table.columns:
            raise ContextGridError(
                f"the table has no 'cause' column to filter on. Available: {', '.join(map(str, table.columns))}"
            )
        keep &= table["cause"].isin(list(causes)).to_numpy(dtype=bool)
    for name in signals:
        if name not in SIGNAL_FILTERS:
            raise ContextGridError(f"unknown signal filter {name!r}. Known: {', '.join(SIGNAL_FILTERS)}")
        column, rows = SIGNAL_FILTERS[name]
        if column not in table.columns:
            raise ContextGridError(
                f"the table has no {column!r} column to filter on. Available: {', '.join(map(str, table.columns))}"
            )
        keep &= rows(table).to_numpy(dtype=bool)
    return table[keep]


_DIGITS = re.compile(r"(\d+)")


def natural_key(question_id: str) -> tuple[tuple[int, int, str], ...]:
    """A sort key that orders ids as a person reads them: runs of digits by their number (``q2`` before
    ``q10``), other text by its casefolded form, and, between ids equal so far (``q2``, ``q02``, ``Q2``),
    by the text as written, so that two different ids never tie.

    Examples
    --------
    >>> from contextgrid.analysis.questions import natural_key
    >>> sorted(["q10", "q2", "Q1", "q02", "q1b", "refund-3"], key=natural_key)
    ['Q1', 'q1b', 'q02', 'q2', 'q10', 'refund-3']
    """
    parts = _DIGITS.split(question_id)
    # Digit runs sit at the odd positions of the split; (0, n, "") before (1, 0, text) keeps numbers first.
    key = [(0, int(part), "") if position % 2 else (1, 0, part.casefold()) for position, part in enumerate(parts)]
    return (*key, (2, 0, question_id))


_PLAIN_ID = r"^(?P<text>[^0-9]*)(?P<number>[0-9]{1,18})$"
"""An id that is text, then a number (``q0042``, ``refund-7``): :func:`natural_key` orders such ids by the text
casefolded, then the number, then the id as written; 18 digits at most fit a 64-bit integer."""


def natural_order(question_ids: Sequence[str]) -> npt.NDArray[np.int64]:
    """Each of the distinct ``question_ids``' place when they are sorted by :func:`natural_key`.

    Ids in ASCII that are all text, then a number (the usual ``q0042``), are ordered by pyarrow at once; any
    other id list is sorted by :func:`natural_key` itself.

    Examples
    --------
    >>> from contextgrid.analysis.questions import natural_order
    >>> natural_order(["q10", "q2", "Q1", "q02"]).tolist()
    [3, 2, 0, 1]
    >>> natural_order(["q1b", "q1"]).tolist()
    [1, 0]
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    ids = pa.array(list(question_ids), pa.string())
    place = np.empty(len(ids), dtype=np.int64)
    parts = pc.extract_regex(ids, _PLAIN_ID) if len(ids) and pc.all(pc.string_is_ascii(ids)).as_py() else None
    if parts is not None and parts.null_count == 0:
        # In ASCII, lowercasing is casefolding, and pyarrow's byte order is Python's order of the characters.
        keys = pa.table(
            {"text": pc.utf8_lower(parts.field(0)), "number": pc.cast(parts.field(1), pa.int64()), "id": ids}
        )
        order = pc.sort_indices(keys, sort_keys=[(name, "ascending") for name in keys.column_names]).to_numpy()
    else:
        order = np.array(
            sorted(range(len(ids)), key=lambda position: natural_key(question_ids[position])), dtype=np.int64
        )
    place[order] = np.arange(len(ids), dtype=np.int64)
    return place


def question_label(question_id: str, text: str | None, *, width: int = 80) -> str:
    """``question_id`` with the question's text beside it, shortened to ``width`` characters: one picker line.

    Examples
    --------
    >>> from contextgrid.analysis.questions import question_label
    >>> question_label("q7", "How long do refunds take when I paid by card and the parcel was lost?", width=30)
    'q7 — How long do refunds take [...]'
    >>> question_label("q8", None)
    'q8'
    """
    if not text:
        return question_id
    return f"{question_id} — {textwrap.shorten(text, width=width, placeholder=' [...]')}"


def first_relevant_chunk(judgements: Mapping[str, int], ranked: Sequence[str]) -> str | None:
    """The first chunk of ``ranked`` graded above 0 in ``judgements``; ``None`` when there is none.

    Examples
    --------
    >>> from contextgrid.analysis.questions import first_relevant_chunk
    >>> first_relevant_chunk({"c1": 0, "c2": 1}, ["c1", "c9", "c2"])
    'c2'
    """
    return next((chunk for chunk in ranked if judgements.get(chunk, 0) > 0), None)


def question_listing(
    scores: pd.DataFrame,
    *,
    causes: pd.Series | pd.DataFrame | None = None,
    texts: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """A :func:`question_scores` table to browse: each question's text beside its id, its cause and signals,
    ids in natural order.

    Given ``texts`` (``{question: text}``), a ``text`` column comes first; given ``causes`` (a
    question-indexed series, as the ``cause`` column of
    :func:`~contextgrid.analysis.causes.question_causes`, or a frame of such columns, ``cause`` first, such
    as :data:`LISTED_SIGNALS`), they follow it, and the
    questions it names that ``scores`` lacks (those without gold evidence: nothing to score) are added,
    their scores missing and ``failing`` false, as they are not failures. Rows are sorted as
    :func:`question_scores` sorts them (``failing`` first, then the first column ascending, missing
    scores last), ties in the :func:`natural_key` order of their ids.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.analysis.questions import question_listing
    >>> scores = pd.DataFrame({"recall@5": [0.0, 0.0, 1.0], "failing": [True, True, False]},
    ...                       index=pd.Index(["q10", "q2", "q1"], name="question"))
    >>> causes = pd.Series(["hit", "ranked_low", "not_retrieved", "no_gold"], index=["q1", "q2", "q10", "q3"])
    >>> question_listing(scores, causes=causes, texts={"q1": "Refunds?", "q3": "Who?"})
                  text          cause  recall@5  failing
    question
    q2            <NA>     ranked_low       0.0     True
    q10           <NA>  not_retrieved       0.0     True
    q1        Refunds?            hit       1.0    False
    q3            Who?        no_gold       NaN    False
    """
    # Ids taken out of their index at once: an Arrow-backed index makes an object of each id it yields one by one.
    extra = [] if causes is None else causes.index[scores.index.unique().get_indexer(causes.index) < 0].tolist()
    table = scores.reindex([*scores.index.tolist(), *extra]) if extra else scores.copy()
    table.index.name = scores.index.name
    if "failing" in table.columns:
        table["failing"] = table["failing"].eq(True)
    if causes is not None:
        given = causes.to_frame("cause") if isinstance(causes, pd.Series) else causes
        for position, column in enumerate(given.columns):
            table.insert(position, str(column), given[column].reindex(table.index).array)
    ids = [str(question) for question in table.index.tolist()]
    if texts is not None:
        table.insert(0, "text", pd.Series([texts.get(question) for question in ids], table.index, "string"))
    first = scores.columns[0]
    natural = natural_order(ids)
    score = pd.to_numeric(table[first], errors="coerce").to_numpy(dtype=float, na_value=np.inf)
    failing = table["failing"].to_numpy(dtype=bool) if "failing" in table.columns else np.zeros(len(ids), dtype=bool)
    return table.iloc[np.lexsort((natural, score, ~failing))]


def ranked_list(
    judgements: Mapping[str, int],
    ranked: Sequence[str],
    *,
    chunks: Mapping[str, Chunk] | None = None,
    depth: int | None = None,
) -> pd.DataFrame:
    """What one question's run returned: rank, chunk id, grade, whether it is relevant, and its text.

    ``grade`` is the qrels grade, missing for a chunk the qrels never judged;
    ``text`` is the chunk's text when ``chunks`` holds it.

    Examples
    --------
    >>> from contextgrid.analysis.questions import ranked_list
    >>> ranked_list({"c1": 2, "c3": 0}, ["c3", "c1", "c9"])
          chunk_id  grade  relevant  text
    rank
    1           c3      0     False  <NA>
    2           c1      2      True  <NA>
    3           c9   <NA>     False  <NA>
    """
    shown = list(ranked if depth is None else ranked[: check_k(depth, function="ranked_list", parameter="depth")])
    grades = pd.array([judgements.get(chunk_id) for chunk_id in shown], dtype="Int64")
    texts = [chunks[c].text if chunks is not None and c in chunks else None for c in shown]
    return pd.DataFrame(
        {
            "chunk_id": shown,
            "grade": grades,
            "relevant": [judgements.get(chunk_id, 0) > 0 for chunk_id in shown],
            "text": pd.array(texts, dtype="string"),
        },
        index=pd.RangeIndex(1, len(shown) + 1, name="rank"),
    )


def failing_configurations(per_question: pd.DataFrame, question: str) -> list[str]:
    """The configurations (columns of a ``hit_rate@k`` question x configuration table,
    as ``Workspace.per_query`` gives) that return no relevant chunk for ``question``."""
    if question not in per_question.index:
        raise ContextGridError(f"question {question!r} is not scored in this table")
    row = per_question.loc[question]
    return [str(config) for config, value in row.items() if value == 0.0]


def question_changes(per_question: pd.DataFrame, a: str, b: str, *, tolerance: float = TIE_TOLERANCE) -> pd.DataFrame:
    """Configuration ``a`` against ``b`` question by question, biggest changes first.

    ``per_question`` is a question x configuration table of one metric@k (as
    ``Workspace.per_query`` gives). Columns: ``a``, ``b``, ``delta`` (a - b) and
    ``outcome``: ``"win"`` where ``a`` is higher by more than ``tolerance``,
    ``"loss"`` where lower, else ``"tie"``. Questions either side does not
    score are left out. Rows are sorted by ``|delta|`` descending, then id.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.analysis.questions import question_changes
    >>> table = pd.DataFrame({"A": [1.0, 0.5, 0.0], "B": [0.0, 0.5, 0.25]}, index=["q1", "q2", "q3"])
    >>> question_changes(table, "A", "B")
          A     B  delta outcome
    q1  1.0  0.00   1.00     win
    q3  0.0  0.25  -0.25    loss
    q2  0.5  0.50   0.00     tie
    """
    for name in (a, b):
        if name not in per_question.columns:
            raise UnknownConfigurationError(
                f"no configuration named {name!r} in this table. Available: {', '.join(map(str, per_question.columns))}"
            )
    if a == b:
        raise ContextGridError(f"compare two different configurations, got {a!r} twice")
    pair = per_question[[a, b]].dropna()
    delta = pair[a] - pair[b]
    outcome = pd.Series("tie", index=pair.index)
    outcome[delta > tolerance] = "win"
    outcome[delta < -tolerance] = "loss"
    changes = pd.DataFrame({a: pair[a], b: pair[b], "delta": delta, "outcome": outcome})
    changes["_size"] = delta.abs()
    changes["_question"] = changes.index
    ordered = changes.sort_values(["_size", "_question"], ascending=[False, True], kind="stable")
    return ordered.drop(columns=["_size", "_question"])


def shared_scores(per_question: pd.DataFrame, configs: Sequence[str]) -> dict[str, dict[str, float]]:
    """``{config: {question: score}}`` over the questions every one of ``configs`` scores,
    the shape the paired tests of :mod:`contextgrid.significance` take.

    Examples
    --------
    >>> import pandas as pd
    >>> from contextgrid.analysis.questions import shared_scores
    >>> table = pd.DataFrame({"A": [1.0, None], "B": [0.5, 0.25]}, index=["q1", "q2"])
    >>> shared_scores(table, ["A", "B"])
    {'A': {'q1': 1.0}, 'B': {'q1': 0.5}}
    """
    missing = [name for name in configs if name not in per_question.columns]
    if missing:
        raise UnknownConfigurationError(
            f"no configuration named {', '.join(map(repr, missing))} in this table. "
            f"Available: {', '.join(map(str, per_question.columns))}"
        )
    both = per_question[list(configs)].dropna()
    return {name: {str(q): float(v) for q, v in both[name].items()} for name in configs}
