"""Seeded synthetic qrels and runs for benchmarks and peer-agreement tests.

Everything per element is drawn as numpy columns; Python only assembles the
final dicts, one row at a time, because dicts are the input format under test.

Each question has a handful of judged chunks (grades 0 to 2). Each judged
chunk sits at a random position of a longer candidate list of distinct chunk
ids; the ranking is that list's head, so a judged chunk is retrieved at its
position when the position falls inside the ranking and missed otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import islice

import numpy as np
import numpy.typing as npt

__all__ = ["SyntheticData", "cut", "scored", "synthetic_run"]

IntArray = npt.NDArray[np.int64]

# Chunk ids are drawn from this many ids; a prime, so that ``(a * r + b) mod PRIME``
# with ``a`` not 0 lists distinct ids for distinct ranks ``r`` (the row's ranking).
PRIME = 1_000_003


@dataclass(frozen=True, slots=True)
class SyntheticData:
    """Generated ``qrels`` (``{question: {chunk: grade}}``) and ``run`` (``{question: [chunk, ...]}``).

    ``depth`` is the longest ranking. ``run`` omits the ``unanswered`` judged
    questions and holds the ``unjudged`` ones, which ``qrels`` never mentions.
    """

    qrels: dict[str, dict[str, int]]
    run: dict[str, list[str]]
    depth: int
    unanswered: tuple[str, ...]
    unjudged: tuple[str, ...]

    def __post_init__(self) -> None:
        if self.depth < 0:
            raise ValueError(f"depth must be 0 or more, got {self.depth}")


def _check_fraction(name: str, value: float) -> None:
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be a fraction between 0 and 1, got {value!r}")


def _distinct_rows(rng: np.random.Generator, rows: int, width: int) -> IntArray:
    """``rows`` rows of ``width`` distinct chunk numbers: row i is ``(a_i * r + b_i) mod PRIME``."""
    step = rng.integers(1, PRIME, size=(rows, 1))
    offset = rng.integers(0, PRIME, size=(rows, 1))
    return (step * np.arange(width) + offset) % PRIME


def synthetic_run(
    questions: int,
    *,
    depth: int = 100,
    seed: int = 0,
    max_judged: int = 8,
    retrieved_share: float = 0.6,
    no_relevant: float = 0.1,
    unanswered: float = 0.05,
    unjudged: float = 0.02,
    short: float = 0.05,
) -> SyntheticData:
    """Generate ``questions`` judged questions and a run over them, deterministically from ``seed``.

    Parameters
    ----------
    questions : int
        Judged questions (``q0``, ``q1``, ...).
    depth : int, default 100
        Length of a full ranking.
    seed : int, default 0
        Seed of the numpy Generator; the same arguments give the same data.
    max_judged : int, default 8
        Each question judges between 1 and this many chunks (uniformly).
    retrieved_share : float, default 0.6
        Roughly the share of judged chunks that land inside a full-depth ranking.
    no_relevant : float, default 0.1
        Share of questions forced to have no relevant chunk: half of them judge
        every chunk 0, half have ``{}``. Random grades add a few more.
    unanswered : float, default 0.05
        Share of judged questions left out of the run.
    unjudged : float, default 0.02
        Extra run questions (``u0``, ...) that qrels never judged, as a share of ``questions``.
    short : float, default 0.05
        Share of rankings shorter than ``depth`` (uniform length 0 to ``depth - 1``, so some are empty).

    Examples
    --------
    >>> data = synthetic_run(4, depth=3, seed=1, unanswered=0.0, unjudged=0.0, short=0.0)
    >>> sorted(data.run) == sorted(data.qrels) and all(len(r) == 3 for r in data.run.values())
    True
    >>> synthetic_run(4, depth=3, seed=1) == synthetic_run(4, depth=3, seed=1)
    True
    """
    if questions < 0 or depth < 0 or max_judged < 1:
        raise ValueError(
            f"questions and depth must be 0 or more and max_judged 1 or more, got {questions}, {depth}, {max_judged}"
        )
    if not 0.0 < retrieved_share <= 1.0:
        raise ValueError(f"retrieved_share must be in (0, 1], got {retrieved_share!r}")
    for name, value in (("no_relevant", no_relevant), ("unanswered", unanswered), ("unjudged", unjudged)):
        _check_fraction(name, value)
    _check_fraction("short", short)

    rng = np.random.default_rng(seed)
    candidates = max(depth, int(np.ceil(depth / retrieved_share)), max_judged)

    lengths = np.full(questions, depth, dtype=np.int64)
    is_short = rng.random(questions) < short
    lengths[is_short] = rng.integers(0, max(depth, 1), size=int(is_short.sum()))

    ids = _distinct_rows(rng, questions, candidates)

    judged = rng.integers(1, max_judged + 1, size=questions)
    positions = rng.permuted(np.broadcast_to(np.arange(candidates), (questions, candidates)), axis=1)
    positions = positions[:, :max_judged]
    grades = rng.choice(3, size=(questions, max_judged), p=[0.3, 0.35, 0.35])
    forced = rng.random(questions) < no_relevant
    grades[forced] = 0
    emptied = forced & (rng.random(questions) < 0.5)
    judged[emptied] = 0
    judged_ids = np.take_along_axis(ids, positions, axis=1)

    answered = rng.random(questions) >= unanswered
    extra = round(unjudged * questions)
    extra_ids = _distinct_rows(rng, extra, depth)

    # Fixed-width ids: ranx compiles its table builders once per numpy string width.
    names = np.char.add("c", np.char.zfill(np.arange(PRIME).astype(str), len(str(PRIME - 1)))).astype(object)
    judged_names = names[judged_ids].tolist()
    ranked_names = names[ids[:, :depth]].tolist()
    grade_rows = grades.tolist()

    qrels = {
        f"q{i}": dict(zip(chunks[:n], row[:n], strict=True))
        for i, (chunks, row, n) in enumerate(zip(judged_names, grade_rows, judged.tolist(), strict=True))
    }
    run = {
        f"q{i}": ranked[:length]
        for i, (ranked, length, keep) in enumerate(zip(ranked_names, lengths.tolist(), answered.tolist(), strict=True))
        if keep
    }
    run.update({f"u{i}": ranked for i, ranked in enumerate(names[extra_ids].tolist())})
    return SyntheticData(
        qrels=qrels,
        run=run,
        depth=depth,
        unanswered=tuple(f"q{i}" for i in np.flatnonzero(~answered).tolist()),
        unjudged=tuple(f"u{i}" for i in range(extra)),
    )


def scored(run: Mapping[str, Sequence[str]], depth: int) -> dict[str, dict[str, float]]:
    """The run as ``{question: {chunk: score}}`` with score ``depth - rank`` (rank from 0):
    strictly descending, so ordering by score gives back the list order.

    Examples
    --------
    >>> scored({"q": ["a", "b"]}, 100)
    {'q': {'a': 100.0, 'b': 99.0}}
    """
    longest = max(map(len, run.values()), default=0)
    if longest > depth:
        raise ValueError(f"a ranking holds {longest} chunks, more than depth={depth} distinct scores can order")
    scores = [float(depth - rank) for rank in range(depth)]
    # Rankings may be shorter than depth; zip stops at the ranking's end.
    return {question: dict(zip(ranked, scores, strict=False)) for question, ranked in run.items()}


def cut(run: Mapping[str, Mapping[str, float]], k: int) -> dict[str, dict[str, float]]:
    """Each ranking of a ``scored`` run cut to its top ``k`` (its insertion order is rank order).

    Examples
    --------
    >>> cut({"q": {"a": 3.0, "b": 2.0, "c": 1.0}}, 2)
    {'q': {'a': 3.0, 'b': 2.0}}
    """
    return {question: dict(islice(ranking.items(), k)) for question, ranking in run.items()}
