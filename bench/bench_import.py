"""How long ``import contextgrid`` takes in a fresh interpreter.

Run from the repository root::

    python bench/bench_import.py               # best of 5 fresh interpreters
    python bench/bench_import.py --repeat 10

Each round starts a new Python that times its own ``import contextgrid`` (the interpreter's start is not
counted). It prints every round, the best, and PASS or MISS against 1 s on the best (exit status 1 on a miss).
tests/test_exports.py checks that the import pulls in no heavy package (pandas, pyarrow, plotly, ...), which is
what keeps it fast; the time is measured here, since a loaded machine misses any limit a test could set.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 1.0
"""Seconds the best import may take."""
PROBE = """
import time
started = time.perf_counter()
import contextgrid
print(time.perf_counter() - started)
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5, help="fresh interpreters to time (default 5)")
    args = parser.parse_args(argv)
    timings: list[float] = []
    for round_ in range(1, args.repeat + 1):
        done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, cwd=ROOT)
        timings.append(float(done.stdout))
        print(f"round {round_}: import contextgrid {timings[-1]:.3f} s")
    best = min(timings)
    verdict = "PASS" if best < LIMIT else "MISS"
    print(f"best {best:.3f} s against {LIMIT:.0f} s: {verdict}")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
