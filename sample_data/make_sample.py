"""Write the bundled sample workspace from the Larkspur Outdoor Co. corpus.

Run ``python sample_data/make_sample.py`` to regenerate ``sample_data/workspace``
(the folder the dashboard opens by default). It sweeps the corpus in
``sample_data/corpus`` (27 documents, 274 questions with quoted gold evidence)
over ten configurations that really differ: recursive chunks of about 200,
500, 1,000 and 2,000 characters under BM25 (stemmed, stopwords dropped, the
sweep's default) and LSA (TF-IDF + SVD; no model is downloaded), hybrid fusion
of the two at 500, and fixed 500-character chunks with 100 characters of
overlap. Chunks under the sweep's minimum (50 characters) are merged into a
neighbour. Then ``make_answers.py`` writes simulated generator answers for four
of them, after the answers of the previous run are removed (every file in
``answers/`` is the simulated generator's). Everything is deterministic:
running it again rewrites the same bytes.
"""

from __future__ import annotations

import runpy
import sys
import time
from pathlib import Path

from contextgrid import WarningLog
from contextgrid.io import read_documents, read_questions
from contextgrid.workspace.sweep import SweepConfig, sweep

HERE = Path(__file__).resolve().parent
CONFIGS = (
    *(SweepConfig("recursive", size, 0, retriever) for size in (200, 500, 1000, 2000) for retriever in ("bm25", "lsa")),
    SweepConfig("recursive", 500, 0, "hybrid"),
    SweepConfig("fixed_chars", 500, 100, "bm25"),
)


def main(out: Path) -> None:
    started = time.perf_counter()
    documents = read_documents(HERE / "corpus" / "documents")
    items = read_questions(HERE / "corpus" / "questions.jsonl")
    log = WarningLog()
    report = sweep(documents, items, CONFIGS, out, name="larkspur", warnings=log)
    if report.failed:
        raise SystemExit(f"configurations failed: {report.failed}")
    # The simulated generator wrote every answers file; those of configurations renamed since would linger.
    for stale in sorted((out / "answers").glob("*.jsonl")):
        stale.unlink()
    # The sweep rewrote the manifest; the simulated generator adds its answers files back to it.
    runpy.run_path(str(HERE / "make_answers.py"))["main"]([str(out)])
    print(report.summary())
    print(f"in {time.perf_counter() - started:.1f} s")
    for entry in log:
        print(entry)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "workspace")
