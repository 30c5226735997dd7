"""A seeded synthetic workspace with all its evidence, written to disk in a sweep's formats, for benchmarks.

:func:`write_workspace` writes what ``contextgrid sweep`` writes, without running one (a sweep over 10,000
questions would take far longer than the benchmark it feeds): ``documents.jsonl`` (random words), one
``fixed_chars`` chunking per chunk size (``chunks/``), ``questions.jsonl`` whose gold is quoted from the
documents, one qrels file per chunking (the chunks holding gold, graded by the default ``GradeRule()``, exactly
the judgements the workspace makes from the gold spans), one TREC run per configuration (each chunking ranked by
several retrievers) and answers for some configurations, all drawn as numpy columns from one seed.

The data is made to reach every view of the dashboard: one question in three has its gold in two places, a few
of the quotes are not in the documents (unresolved), a few questions repeat another's text (the gold audit finds
them), the retrievers differ in how often and how high they rank a chunk holding gold (so some questions are
hits, some ranked low, some not retrieved; chunks smaller than the gold split it), and the answers quote their
first passage, some with words it does not hold, some abstaining and some citing a passage their context lacks.

Run from the repository root to write one and check it::

    python bench/synthetic_workspace.py FOLDER [--configs 50 --questions 10000 --depth 20] [--check]

``--check`` loads the workspace and times, outside the browser, the library call behind each dashboard view
(what pages/_data.py calls), after checking that every qrels file equals the workspace's own judgements on the
gold spans and that every question but the unresolved ones resolves.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np
import numpy.typing as npt
import pandas as pd

if __package__ in (None, ""):  # run as a script: make ``bench`` and the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.io import write_documents, write_qrels, write_run
from contextgrid.workspace.manifest import manifest_text

__all__ = ["RETRIEVERS", "SIZES", "WorkspaceShape", "write_workspace"]

IntArray = npt.NDArray[np.int64]
T = TypeVar("T")

SIZES = (150, 200, 300, 500, 700, 1000, 1400, 2000, 2500, 3000)
"""The chunk sizes of the chunkings, in characters, smallest first (as bench/bench_budget.py)."""

RETRIEVERS = {"bm25": 0.72, "lsa": 0.55, "dense": 0.8, "hybrid": 0.86, "dense_int8": 0.77}
"""Each retriever, and how likely it ranks a chunk holding gold at all (bigger chunks a little more)."""

CONTEXT = 5
"""Passages in each answer's context: the top of the configuration's run."""

ABSTAIN = "There is not enough information in the context to say."


@dataclass(frozen=True, slots=True)
class WorkspaceShape:
    """What :func:`write_workspace` wrote: counts to print beside timings."""

    configs: int
    questions: int
    depth: int
    documents: int
    characters: int
    chunks: int
    unresolved: int
    answered: int

    def __str__(self) -> str:
        return (
            f"{self.configs} configurations x {self.questions:,} questions x {self.depth} deep; "
            f"{self.documents} documents ({self.characters:,} characters), {self.chunks:,} chunks in "
            f"{-(-self.configs // len(RETRIEVERS))} chunkings, {self.unresolved} unresolved questions, "
            f"answers for {self.answered} configurations"
        )


def _vocabulary(rng: np.random.Generator, size: int) -> npt.NDArray[np.str_]:
    """``size`` distinct lower-case words of 3 to 9 letters."""
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    drawn = rng.choice(letters, size=(size * 2, 9))
    lengths = rng.integers(3, 10, size=size * 2)
    words = pd.unique(np.array(["".join(row[:n]) for row, n in zip(drawn.tolist(), lengths.tolist(), strict=True)]))
    return np.asarray(words[:size], dtype=str)


@dataclass(frozen=True, slots=True)
class _Corpus:
    texts: list[str]
    words: IntArray  # (documents, words per document): vocabulary index of each word
    starts: IntArray  # (documents, words per document): where each word starts in its document
    lengths: IntArray  # (documents, words per document): each word's length
    vocabulary: npt.NDArray[np.str_]


def _corpus(rng: np.random.Generator, documents: int, length: int) -> _Corpus:
    """Documents of about ``length`` characters of random words, a blank line every 80 words."""
    vocabulary = _vocabulary(rng, 4_000)
    per_document = max(length // 7, 80)
    words = rng.integers(0, len(vocabulary), size=(documents, per_document))
    lengths = np.char.str_len(vocabulary)[words].astype(np.int64)
    separators = np.full((documents, per_document), " ", dtype="<U2")
    separators[:, 79::80] = "\n\n"
    separators[:, -1] = "\n"
    tokens = np.char.add(vocabulary[words], separators)
    widths = lengths + np.char.str_len(separators)
    starts = np.cumsum(widths, axis=1) - widths
    texts = ["".join(row) for row in tokens.tolist()]
    return _Corpus(texts, words, starts, lengths, vocabulary)


def _chunking(corpus: _Corpus, size: int) -> pd.DataFrame:
    """The ``fixed_chars`` chunks of ``size`` characters: id, doc_id, start, end, text, and the document index."""
    lengths = np.array([len(text) for text in corpus.texts])
    counts = -(-lengths // size)
    document = np.repeat(np.arange(len(lengths)), counts)
    index = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    start = index * size
    end = np.minimum(start + size, lengths[document])
    doc_ids = np.char.add(np.char.add("doc-", np.char.zfill(document.astype(str), 4)), ".md")
    texts = corpus.texts
    return pd.DataFrame(
        {
            "id": np.char.add(np.char.add(doc_ids, "#"), index.astype(str)),
            "doc_id": doc_ids,
            "start": start,
            "end": end,
            "text": [texts[d][s:e] for d, s, e in zip(document.tolist(), start.tolist(), end.tolist(), strict=True)],
            "document": document,
        }
    )


@dataclass(frozen=True, slots=True)
class _Gold:
    question: IntArray  # each gold span's question
    document: IntArray
    start: IntArray
    end: IntArray
    grade: IntArray
    resolvable: npt.NDArray[np.bool_]  # per question: its quotes are all in the documents


def _questions(rng: np.random.Generator, corpus: _Corpus, count: int, folder: Path) -> _Gold:
    """Write ``questions.jsonl``: gold quoted from the documents (one question in three in two places, the
    second of grade 1), 2 % of the quotes altered so they are not found, 1 % of the texts another's."""
    documents, per_document = corpus.words.shape
    two = rng.random(count) < 0.3
    question = np.concatenate([np.arange(count), np.flatnonzero(two)])
    question.sort(kind="stable")
    spans = len(question)
    second = np.zeros(spans, dtype=bool)
    second[1:] = question[1:] == question[:-1]
    document = rng.integers(0, documents, size=spans)
    words = rng.integers(12, 60, size=spans)
    first = rng.integers(0, per_document - words)
    last = first + words - 1
    start = corpus.starts[document, first]
    end = corpus.starts[document, last] + corpus.lengths[document, last]
    grade = np.where(second, 1, 2)
    resolvable = rng.random(count) >= 0.02

    # The question's text: four words of its (first) gold among three others, so that the words it shares with
    # the gold vary.
    lead = np.flatnonzero(~second)
    picked = first[lead, None] + rng.integers(0, words[lead, None], size=(count, 4))
    asked = corpus.vocabulary[corpus.words[document[lead, None], picked]]
    other = corpus.vocabulary[rng.integers(0, len(corpus.vocabulary), size=(count, 3))]
    texts = [
        f"What does {a} {b} say about {x} {c} and {y} {d} {z}?"
        for (a, b, c, d), (x, y, z) in zip(asked.tolist(), other.tolist(), strict=True)
    ]
    repeated = np.flatnonzero(rng.random(count) < 0.01)
    for index in repeated[repeated > 0].tolist():
        texts[index] = texts[index - 1]

    doc_ids = [f"doc-{d:04d}.md" for d in document.tolist()]
    quotes = [corpus.texts[d][s:e] for d, s, e in zip(document.tolist(), start.tolist(), end.tolist(), strict=True)]
    gold: list[list[dict[str, object]]] = [[] for _ in range(count)]
    references = [""] * count
    for q, doc_id, quote, g in zip(question.tolist(), doc_ids, quotes, grade.tolist(), strict=True):
        gold[q].append({"doc_id": doc_id, "quote": quote if resolvable[q] else f"{quote} qqunfoundqq", "grade": g})
        references[q] = references[q] or " ".join(quote.split()[:15])
    with (folder / "questions.jsonl").open("w") as out:
        for q in range(count):
            row = {"id": f"q{q:05d}", "question": texts[q], "gold": gold[q], "reference_answer": references[q]}
            out.write(json.dumps(row) + "\n")
    return _Gold(question, document, start, end, grade, resolvable)


def _qrels(gold: _Gold, chunks: pd.DataFrame, size: int) -> pd.DataFrame:
    """The chunks holding gold of the resolvable questions, graded by ``GradeRule()``: a chunk holding all of a
    span takes its grade, one holding part of it 1; the best grade when it holds several spans."""
    kept = gold.resolvable[gold.question]
    question, document = gold.question[kept], gold.document[kept]
    first, last = gold.start[kept] // size, (gold.end[kept] - 1) // size
    span = np.repeat(np.arange(len(question)), last - first + 1)
    index = np.arange(len(span)) - np.repeat(np.cumsum(last - first + 1) - (last - first + 1), last - first + 1)
    chunk = first[span] + index
    whole = (first == last)[span]
    offsets = np.searchsorted(chunks["document"].to_numpy(), np.arange(int(chunks["document"].max()) + 1))
    rows = pd.DataFrame(
        {
            "question": question[span],
            "chunk": offsets[document[span]] + chunk,
            "grade": np.where(whole, gold.grade[kept][span], 1),
        }
    )
    return rows.groupby(["question", "chunk"])["grade"].max().reset_index()


def _ranked(
    rng: np.random.Generator, judged: pd.DataFrame, questions: int, chunks: int, depth: int, found: float
) -> IntArray:
    """Each question's ranking (``questions`` x ``depth`` distinct chunk numbers): random chunks, each judged
    chunk of the question (up to four) put at a rank drawn from a geometric law with probability ``found``, left
    out otherwise (or when that rank is past ``depth`` or taken)."""
    # Row i is a * r + b mod chunks with a prime to chunks: ``depth`` distinct chunks.
    steps = np.arange(1, chunks)
    steps = steps[np.gcd(steps, chunks) == 1]
    ranked = (
        rng.choice(steps, size=(questions, 1)) * np.arange(depth) + rng.integers(0, chunks, (questions, 1))
    ) % chunks
    order = judged.groupby("question").cumcount().to_numpy()
    held = np.full((questions, 4), -1, dtype=np.int64)
    keep = order < 4
    held[judged["question"].to_numpy()[keep], order[keep]] = judged["chunk"].to_numpy()[keep]
    taken = np.zeros((questions, depth), dtype=bool)
    rows = np.arange(questions)
    for column in range(held.shape[1]):
        chunk = held[:, column]
        rank = rng.geometric(0.2, size=questions) - 1
        placed = (chunk >= 0) & (rng.random(questions) < found) & (rank < depth)
        placed[placed] &= ~taken[rows[placed], rank[placed]]
        which, at = rows[placed], rank[placed]
        # Where the chunk is already among the random ones, it swaps places with what holds its rank: distinct.
        already = ranked[which] == chunk[which, None]
        moved = already.any(axis=1)
        ranked[which[moved], already[moved].argmax(axis=1)] = ranked[which[moved], at[moved]]
        ranked[which, at] = chunk[which]
        taken[which, at] = True
    return ranked


def _answers(
    rng: np.random.Generator, ranked: IntArray, chunks: pd.DataFrame, vocabulary: npt.NDArray[np.str_], path: Path
) -> None:
    """One answer per question from its top :data:`CONTEXT` chunks: the first passage's opening words, cited
    ([1], or [1] and [2]); a fifth of them with two words the context may not hold, a tenth abstaining, one in
    twenty citing a passage the context lacks."""
    ids = chunks["id"].to_numpy()
    texts = chunks["text"].to_numpy()
    kind = rng.random(len(ranked))
    extra = vocabulary[rng.integers(0, len(vocabulary), size=(len(ranked), 2))].tolist()
    with path.open("w") as out:
        for q, (row, draw, (x, y)) in enumerate(zip(ranked[:, :CONTEXT].tolist(), kind.tolist(), extra, strict=True)):
            context = ids[row].tolist()
            if draw < 0.1:
                answer, citations = ABSTAIN, []
            else:
                said = " ".join(texts[row[0]][:90].split()[1:9])
                citations = [CONTEXT + 2] if draw < 0.15 else [1, 2] if draw < 0.5 else [1]
                added = f" {x} {y}" if draw > 0.8 else ""
                answer = f"{said}{added} " + " ".join(f"[{n}]" for n in citations) + "."
            row_out = {
                "question_id": f"q{q:05d}",
                "answer": answer,
                "citations": citations,
                "context_chunk_ids": context,
            }
            out.write(json.dumps(row_out) + "\n")


def write_workspace(
    folder: str | Path,
    *,
    configs: int = 50,
    questions: int = 10_000,
    depth: int = 20,
    documents: int = 500,
    length: int = 8_000,
    answered: int = 10,
    seed: int = 7,
) -> WorkspaceShape:
    """Write a workspace of ``configs`` configurations into the empty or new ``folder`` (see the module).

    Configurations are ``len(RETRIEVERS)`` retrievers over each chunking of :data:`SIZES` in turn, named as a
    sweep names them (``bm25-fixed_chars-150-0``). The first ``answered`` configurations taken retriever by
    retriever (every chunking's ``bm25`` one, then every chunking's ``lsa`` one, ...) have answers: all of them
    when there are ``answered`` or fewer, the ``bm25`` ones of the first ``answered`` chunkings when there are
    that many chunkings (the default 50 configurations: the 10 ``bm25`` ones). The same arguments write the same
    files.

    Examples
    --------
    >>> import tempfile
    >>> from contextgrid.workspace.manifest import load_workspace
    >>> with tempfile.TemporaryDirectory() as scratch:
    ...     print(write_workspace(scratch, configs=6, questions=40, documents=8, length=2_000, answered=1))
    ...     workspace = load_workspace(scratch)
    ...     print(workspace.names[:2], workspace.missing_evidence())
    ...     print(round(workspace.evaluate(ks=[5], metrics=["recall"])["bm25-fixed_chars-150-0"].scores["recall@5"], 4))
    6 configurations x 40 questions x 20 deep; 8 documents (15,923 characters), 194 chunks in 2 chunkings, \
1 unresolved questions, answers for 1 configurations
    ('bm25-fixed_chars-150-0', 'lsa-fixed_chars-150-0') ()
    0.3538
    """
    folder = Path(folder)
    chunkings = -(-configs // len(RETRIEVERS))
    if not 0 < chunkings <= len(SIZES):
        raise ValueError(f"configs must be 1 to {len(SIZES) * len(RETRIEVERS)}, got {configs}")
    for sub in ("chunks", "qrels", "runs", "answers"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    corpus = _corpus(rng, documents, length)
    doc_ids = [f"doc-{d:04d}.md" for d in range(documents)]
    write_documents(dict(zip(doc_ids, corpus.texts, strict=True)), folder / "documents.jsonl")
    gold = _questions(rng, corpus, questions, folder)
    qids = np.char.add("q", np.char.zfill(np.arange(questions).astype(str), 5))

    # Configuration k is retriever k % len(RETRIEVERS) over chunking k // len(RETRIEVERS); answers go to every
    # retriever's first before any retriever's second, so that a small workspace answers with every retriever.
    with_answers = set(sorted(range(configs), key=lambda k: (k % len(RETRIEVERS), k // len(RETRIEVERS)))[:answered])
    entries: list[dict[str, object]] = []
    total_chunks = answers_written = 0
    for number, size in enumerate(SIZES[:chunkings]):
        chunking = f"fixed_chars-{size}-0"
        chunks = _chunking(corpus, size)
        total_chunks += len(chunks)
        chunks.drop(columns="document").to_json(folder / "chunks" / f"{chunking}.jsonl", orient="records", lines=True)
        judged = _qrels(gold, chunks, size)
        ids = chunks["id"].to_numpy()
        table = QrelsTable.from_columns(qids[judged["question"]], ids[judged["chunk"]], judged["grade"].to_numpy())
        write_qrels(table, folder / "qrels" / f"{chunking}.trec")
        retrievers = list(RETRIEVERS.items())[: configs - number * len(RETRIEVERS)]
        for position, (retriever, found) in enumerate(retrievers):
            name = f"{retriever}-{chunking}"
            ranked = _ranked(rng, judged, questions, len(chunks), depth, found * (0.85 + 0.15 * number / len(SIZES)))
            run = RunTable.from_columns(
                np.repeat(qids, depth), ids[ranked.ravel()], rank=np.tile(np.arange(1, depth + 1), questions)
            )
            write_run(run, folder / "runs" / f"{name}.trec", tag=name)
            entry: dict[str, object] = {
                "name": name,
                "run": f"runs/{name}.trec",
                "qrels": f"qrels/{chunking}.trec",
                "chunks": f"chunks/{chunking}.jsonl",
            }
            if number * len(RETRIEVERS) + position in with_answers:
                _answers(rng, ranked, chunks, corpus.vocabulary, folder / "answers" / f"{name}.jsonl")
                entry["answers"] = f"answers/{name}.jsonl"
                answers_written += 1
            params = {"chunker": "fixed_chars", "size": size, "overlap": 0, "retriever": retriever, "depth": depth}
            entries.append({**entry, "params": params})
    text = manifest_text(
        "synthetic",
        entries,
        comment="Written by bench/synthetic_workspace.py.",
        documents="documents.jsonl",
        questions="questions.jsonl",
    )
    (folder / "contextgrid.toml").write_text(text)
    return WorkspaceShape(
        configs=configs,
        questions=questions,
        depth=depth,
        documents=documents,
        characters=sum(map(len, corpus.texts)),
        chunks=total_chunks,
        unresolved=int((~gold.resolvable).sum()),
        answered=answers_written,
    )


def _timed(label: str, action: Callable[[], T]) -> T:
    start = time.perf_counter()
    value = action()
    print(f"  {label:<62} {time.perf_counter() - start:7.2f} s", flush=True)
    return value


def check(folder: str | Path, *, judgements: bool = True) -> None:
    """Load the workspace in ``folder`` and time the library call behind each dashboard view, in the order a
    first visit meets them (each reuses what the workspace has read already); with ``judgements``, first check
    every qrels file against the workspace's own judgements on the gold spans. Raises on a mismatch."""
    from contextgrid.analysis.causes import cause_counts, cause_oracle, cause_transitions
    from contextgrid.analysis.questions import question_changes, question_listing, question_scores, shared_scores
    from contextgrid.answering.batch import summarize_answers, worst_first
    from contextgrid.render.report import build_report
    from contextgrid.significance import compare_configurations
    from contextgrid.workspace.answers import workspace_answer, workspace_answers_frame
    from contextgrid.workspace.audit import audit_workspace
    from contextgrid.workspace.budget import budget_curves
    from contextgrid.workspace.causes import failure_causes
    from contextgrid.workspace.manifest import load_workspace
    from contextgrid.workspace.summary import configuration_summary
    from contextgrid.workspace.waste import configuration_waste, workspace_waste

    ws = load_workspace(folder)
    names = ws.names
    a, b = names[1], names[0]
    items, _ = _timed("questions resolved", lambda: ws.resolved)
    unresolved = [item.id for item in items if not item.is_resolved]
    print(f"  {len(items) - len(unresolved):,} questions resolved, {len(unresolved)} not")
    if judgements:
        for name in dict.fromkeys(str(ws.config(n).chunks) for n in names):
            config = next(n for n in names if str(ws.config(n).chunks) == name)
            if ws.gold_qrels(config)[0].to_dict() != ws.qrels(config).to_dict():
                raise ValueError(f"{name}: the qrels written differ from the workspace's judgements on the gold")
        print("  every qrels file equals the workspace's judgements on the gold spans")
    print("library calls behind the views (outside the browser):")
    results = _timed("Overview: evaluate every configuration (the grid)", ws.evaluate)
    curves = _timed("Overview: budget_curves", lambda: budget_curves(ws))
    _timed("Overview: budget means and frontier", lambda: curves.frontier())
    _timed("Overview: budget verdict", lambda: curves.verdict())
    causes = _timed("Questions: failure_causes at k=5", lambda: failure_causes(ws, k=5))
    _timed(
        "Questions: question_listing of one configuration",
        lambda: question_listing(question_scores(ws.qrels(b), ws.run(b), 5), causes=None),
    )
    _timed("Overview: cause counts and oracle", lambda: (cause_counts(causes), cause_oracle(causes)))
    _timed("Overview: gold audit", lambda: audit_workspace(ws))
    per_query = _timed("Compare: per_query ndcg@5", lambda: ws.per_query("ndcg", 5))
    _timed("Compare: question_changes", lambda: question_changes(per_query, a, b))
    _timed("Compare: cause_transitions", lambda: cause_transitions(causes, b, a))
    _timed("Compare: budget parting", lambda: curves.parting(a, b))
    _timed(
        "Compare: Is the winner real? (permutation, holm, two)",
        lambda: compare_configurations(
            shared_scores(per_query, (b, a)), baseline=b, metric="ndcg@5", test="permutation", correction="holm", seed=0
        ),
    )
    table = _timed("Context waste: workspace_waste at k=5", lambda: workspace_waste(ws, 5))
    _timed("Context waste: configuration_waste", lambda: configuration_waste(ws, 5, table=table))
    _timed("Context waste: configuration_summary (Report tab)", lambda: configuration_summary(ws, b, k=5, baseline=b))
    _timed("Context waste: build_report (Report tab)", lambda: build_report(ws, b, k=5, baseline=b))
    answered = [config.name for config in ws.configs if config.answers is not None]
    if answered:
        frames = _timed(
            f"Answers: workspace_answers_frame ({len(answered)} configurations)",
            lambda: {name: workspace_answers_frame(ws, name) for name in answered},
        )
        _timed(
            "Answers: summary and the first one's table",
            lambda: (summarize_answers(frames), worst_first(frames[answered[0]])),
        )
        first = frames[answered[0]]
        _timed("Answers: one answer with its context", lambda: workspace_answer(ws, answered[0], first.index[0]))
    del results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--configs", type=int, default=50)
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=20)
    parser.add_argument("--check", action="store_true", help="load it and time the library call behind each view")
    args = parser.parse_args()
    start = time.perf_counter()
    shape = write_workspace(args.folder, configs=args.configs, questions=args.questions, depth=args.depth)
    print(f"{shape}; written in {time.perf_counter() - start:.1f} s", flush=True)
    if args.check:
        check(args.folder)


if __name__ == "__main__":
    main()
