"""Write the hand-made sample workspace: 40 questions, 2 chunkings x 2 retrievers.

Run ``python sample_data/make_handmade.py [OUT_DIR]`` (default: ``handmade``
next to this script). The output is a pure function of the seed below, so the
committed files are reproduced byte for byte (tests/test_workspace.py checks).

The story: twelve 4,096-character documents are cut into fixed-size chunks
(512 characters with 64 overlap, or 256 with 32). Each question's evidence is
one passage of one document; a chunk holding all of it is graded 2, a chunk
holding part of it 1. The last three questions have no evidence at all (only
grade-0 judgements), and each run leaves a few questions unanswered. Dense
retrieval beats BM25 on the whole; with only 40 questions, chance shows too.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass
from pathlib import Path

SEED = 20261202
DOCUMENTS = tuple(f"doc{number:02d}" for number in range(1, 13))
DOCUMENT_LENGTH = 4096
QUESTIONS = tuple(f"q{number:02d}" for number in range(1, 41))
UNANSWERABLE = QUESTIONS[-3:]
DEPTH = 20


@dataclass(frozen=True)
class Chunking:
    size: int
    overlap: int

    @property
    def name(self) -> str:
        return f"fixed-{self.size}"

    def chunks(self, doc_id: str) -> list[tuple[str, int, int]]:
        """(chunk id, start, end) of every chunk of one document."""
        stride = self.size - self.overlap
        starts = range(0, DOCUMENT_LENGTH - self.overlap, stride)
        return [
            (f"{doc_id}-{self.size}-{index:02d}", start, min(start + self.size, DOCUMENT_LENGTH))
            for index, start in enumerate(starts)
        ]


@dataclass(frozen=True)
class Retriever:
    name: str
    find_probability: float  # chance that a relevant chunk makes the top 20 at all
    mean_rank: float  # mean (0-based) rank of a relevant chunk that does
    unanswered: int  # questions the run returns nothing for
    top_score: tuple[float, float]
    score_step: tuple[float, float]


CHUNKINGS = (Chunking(512, 64), Chunking(256, 32))
RETRIEVERS = (
    Retriever("bm25", 0.78, 3.0, 3, (18.0, 28.0), (0.2, 1.5)),
    Retriever("dense", 0.9, 1.6, 1, (0.80, 0.92), (0.002, 0.015)),
)
# Finer chunks split the evidence, so each piece is harder to rank first.
CHUNKING_PENALTY = {512: 1.0, 256: 0.9}


def evidence(rng: random.Random) -> dict[str, tuple[str, int, int]]:
    """Each answerable question's gold passage: (document, start, end)."""
    passages = {}
    for question in QUESTIONS:
        if question in UNANSWERABLE:
            continue
        doc_id = rng.choice(DOCUMENTS)
        length = rng.randrange(80, 300)
        start = rng.randrange(0, DOCUMENT_LENGTH - length)
        passages[question] = (doc_id, start, start + length)
    return passages


def judgements(
    chunking: Chunking, passages: dict[str, tuple[str, int, int]], rng: random.Random
) -> dict[str, dict[str, int]]:
    """Grade 2 for a chunk holding the whole passage, 1 for part of it; unanswerable
    questions get two chunks judged irrelevant."""
    qrels: dict[str, dict[str, int]] = {}
    for question in QUESTIONS:
        if question in UNANSWERABLE:
            doc_id = rng.choice(DOCUMENTS)
            qrels[question] = {chunk_id: 0 for chunk_id, _, _ in rng.sample(chunking.chunks(doc_id), 2)}
            continue
        doc_id, start, end = passages[question]
        graded = {}
        for chunk_id, chunk_start, chunk_end in chunking.chunks(doc_id):
            if chunk_start <= start and end <= chunk_end:
                graded[chunk_id] = 2
            elif chunk_start < end and start < chunk_end:
                graded[chunk_id] = 1
        qrels[question] = graded
    return qrels


def ranking(
    relevant: dict[str, int], pool: list[str], retriever: Retriever, penalty: float, rng: random.Random
) -> list[str]:
    """Twenty distinct chunk ids: distractors, with the relevant chunks the retriever found placed into them."""
    distractors = [chunk_id for chunk_id in rng.sample(pool, DEPTH + len(relevant)) if chunk_id not in relevant]
    ranked = distractors[:DEPTH]
    for chunk_id, grade in sorted(relevant.items(), key=lambda item: (-item[1], item[0])):
        if grade == 0 or rng.random() > retriever.find_probability * penalty:
            continue
        rank = min(int(rng.expovariate(penalty / retriever.mean_rank)), DEPTH - 1)
        ranked.insert(rank, chunk_id)
    return ranked[:DEPTH]


def run_lines(name: str, rankings: dict[str, list[str]], retriever: Retriever, rng: random.Random) -> list[str]:
    lines = []
    for question, ranked in rankings.items():
        score = rng.uniform(*retriever.top_score)
        for rank, chunk_id in enumerate(ranked, start=1):
            lines.append(f"{question} Q0 {chunk_id} {rank} {score:.4f} {name}")
            score -= rng.uniform(*retriever.score_step)
    return lines


def qrels_lines(qrels: dict[str, dict[str, int]]) -> list[str]:
    return [
        f"{question} 0 {chunk_id} {grade}" for question, graded in qrels.items() for chunk_id, grade in graded.items()
    ]


def manifest(configs: list[tuple[str, Chunking, Retriever]]) -> str:
    lines = [
        "# A hand-made sample workspace, written by sample_data/make_handmade.py: do not edit by hand.",
        'name = "sample"',
        "# Chunk-level qrels depend on the chunking: the shared file judges the 512-character chunks,",
        "# and the 256-character configurations bring their own.",
        'qrels = "qrels.trec"',
    ]
    for name, chunking, retriever in configs:
        lines += ["", "[[config]]", f'name = "{name}"', f'run = "runs/{name}.trec"']
        if chunking is not CHUNKINGS[0]:
            lines.append(f'qrels = "qrels/{chunking.name}.trec"')
        lines += [
            "[config.params]",
            'chunker = "fixed"',
            f"size = {chunking.size}",
            f"overlap = {chunking.overlap}",
            f'retriever = "{retriever.name}"',
        ]
    return "\n".join(lines) + "\n"


def write(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))


def main(out: Path) -> None:
    rng = random.Random(SEED)
    passages = evidence(rng)
    qrels = {chunking.size: judgements(chunking, passages, rng) for chunking in CHUNKINGS}
    write(out / "qrels.trec", qrels_lines(qrels[CHUNKINGS[0].size]))
    for chunking in CHUNKINGS[1:]:
        write(out / "qrels" / f"{chunking.name}.trec", qrels_lines(qrels[chunking.size]))

    configs = []
    for chunking in CHUNKINGS:
        pool = [chunk_id for doc_id in DOCUMENTS for chunk_id, _, _ in chunking.chunks(doc_id)]
        for retriever in RETRIEVERS:
            name = f"{retriever.name}-{chunking.name}"
            configs.append((name, chunking, retriever))
            skipped = set(rng.sample(QUESTIONS, retriever.unanswered))
            rankings = {
                question: ranking(relevant, pool, retriever, CHUNKING_PENALTY[chunking.size], rng)
                for question, relevant in qrels[chunking.size].items()
                if question not in skipped
            }
            write(out / "runs" / f"{name}.trec", run_lines(name, rankings, retriever, rng))
    (out / "contextgrid.toml").write_bytes(manifest(configs).encode("utf-8"))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "handmade")
