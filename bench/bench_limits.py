"""Benchmark what refusing a hostile file costs, and what the limits cost a valid one.

Run from the repository root::

    python bench/bench_limits.py                          # every case
    python bench/bench_limits.py --before /tmp/old-checkout  # and the valid run read by older code, for the ratio

The files are generated in a temporary folder (deleted afterwards): gzip bombs
that expand to 1, 2 and 4 GiB of zero bytes (a few MB on disk, compressed as
they are written) and one of 4 GiB of short lines, a plain file whose one line is 500 MB, and a valid run of
200 MB (distinct lines, 100 deep), plain and gzip-compressed (``-6``); a Parquet run of 20 million identical
rows (dictionary and run-length encoded, about 200 KB) and a 256 MiB JSON run, plain and gzip-compressed (issue
#34). Each case is read by ``read_run`` in a
child process of its own, which reports the seconds the read took and its own
peak resident memory; the 2 GiB bomb is also given to ``contextgrid
evaluate`` (and so are the Parquet run and the plain JSON one). A bomb, the single line, the Parquet run or a
JSON run is a PASS when refused in under 5 s with
a peak under 1 GiB. The valid run must be read, compressed too (its expansion is
printed: the limit ``max_ratio`` must let it through); with ``--before`` (a checkout
of the code before the limits), the plain one is read by both, best of ``--repeat``, and
the ratio printed. Last, six browser sessions (Debian's Chromium) each upload a different 26 MB run to one
dashboard server and close: the server's resident memory once their uploads are reaped must be back within 20% of
where it started (``--sessions-only`` runs this alone, ``--no-sessions`` skips it).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
GIB, MIB = 1 << 30, 1 << 20
SECONDS, PEAK = 5.0, GIB

# One case in a child: ``read_run(PATH)``, or ``contextgrid evaluate QRELS PATH``. It reports the seconds the
# case took, how it ended and its own peak resident memory: VmHWM, which starts afresh with the program (where
# ru_maxrss keeps the forking parent's high-water mark, the generated files' memory included).
CHILD = """
import json, sys, time
import contextgrid as cg
from contextgrid.io import read_run
from contextgrid.cli.main import main
import pyarrow.csv

started = time.perf_counter()
path = sys.argv[-1]
if len(sys.argv) == 3:
    status = main(["evaluate", sys.argv[1], path])
    outcome = f"exit {status}"
else:
    try:
        outcome = f"read {len(read_run(path).table)} rows"
    except cg.ContextGridError as error:
        outcome = "refused: " + str(error).removeprefix(path).lstrip(",: ")
seconds = time.perf_counter() - started
status = open("/proc/self/status").read()
peak = int(status.split("VmHWM:")[1].split()[0]) * 1024
print(json.dumps({"seconds": seconds, "peak": peak, "outcome": outcome}))
"""


def bomb(path: Path, size: int, line: bytes = b"") -> Path:
    """A gzip file of ``size`` zero bytes (or of ``line`` repeated), compressed block by block (never held whole)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = line * (16 * MIB // len(line)) if line else bytes(16 * MIB)
    with path.open("wb") as out:
        for _ in range(size // len(block)):
            out.write(compressor.compress(block))
        out.write(compressor.flush())
    return path


def single_line(path: Path, size: int) -> Path:
    """A plain TREC file whose one line is ``size`` bytes: six fields, the last one enormous."""
    with path.open("wb") as out:
        out.write(b"q1 Q0 c1 1 0.5 ")
        block = b"x" * (16 * MIB)
        for _ in range(size // len(block)):
            out.write(block)
        out.write(b"\n")
    return path


def valid_run(path: Path, size: int, *, seed: int = 0) -> Path:
    """A run of distinct lines, 100 per question, of about ``size`` bytes."""
    lines = size // 37
    rng = np.random.default_rng(seed)
    questions = np.char.add("q", (np.arange(lines) // 100).astype(str))
    docs = np.char.add("doc", rng.permutation(lines).astype(str))
    ranks = (np.arange(lines) % 100 + 1).astype(str)
    scores = np.round(rng.random(lines) * 100, 4).astype(str)
    with path.open("w") as out:
        step = 1_000_000
        for start in range(0, lines, step):
            part = slice(start, start + step)
            fields = zip(questions[part], docs[part], ranks[part], scores[part], strict=True)
            out.write("".join(f"{q} Q0 {d} {r} {s} bench\n" for q, d, r, s in fields))
    return path


def identical_parquet(path: Path, rows: int) -> Path:
    """A Parquet run of ``rows`` identical rows, dictionary and run-length encoded: 20M rows take some 200 KB."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    same = pa.array(np.zeros(rows, dtype=np.int32))
    table = pa.table(
        {
            "question_id": pa.DictionaryArray.from_arrays(same, pa.array(["q1"])),
            "chunk_id": pa.DictionaryArray.from_arrays(same, pa.array(["c1"])),
            "score": pa.DictionaryArray.from_arrays(same, pa.array([1.0])),
        }
    )
    pq.write_table(table, path, row_group_size=1 << 20)
    return path


def json_run(path: Path, size: int) -> Path:
    """A JSON run ``{question: {chunk: score}}`` of about ``size`` bytes, 100 chunks a question, written in parts
    (gzip-compressed when ``path`` ends in .gz)."""
    opener = gzip.open if path.suffix == ".gz" else open
    chunk = ", ".join(f'"doc{i}": 0.{i:04d}' for i in range(100))
    with opener(path, "wt") as out:
        out.write("{")
        written, question = 1, 0
        while written < size:
            part = ("" if question == 0 else ", ") + f'"q{question}": {{{chunk}}}'
            out.write(part)
            written += len(part)
            question += 1
        out.write("}")
    return path


def measure(path: Path, code: Path, *, qrels: Path | None = None) -> dict[str, object]:
    """``read_run(path)`` (or, given ``qrels``, ``contextgrid evaluate``) in a child importing ``code``."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, *([] if qrels is None else [str(qrels)]), str(path)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(code)},
    )
    result: dict[str, object] = json.loads(done.stdout)
    if qrels is not None:  # what the command said, without the path it names
        said = (done.stderr.strip().splitlines() or [""])[-1].removeprefix("contextgrid: error: ")
        result["outcome"] = f"{result['outcome']}: {said.removeprefix(str(path)).lstrip(',: ')}"
    return result


def _resident(pid: int) -> int:
    """The resident memory of process ``pid`` now, in bytes (VmRSS)."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(status.split("VmRSS:")[1].split()[0]) * 1024


def sessions(folder: Path, *, count: int = 6, size: int = 26_000_000) -> bool:
    """``count`` browser sessions each upload a different run of ``size`` bytes to one dashboard server, then
    close; the server's resident memory before, with them and once they are gone (a closed tab may reconnect for
    90 s, and the server reaps its session within 15 s after), which must come back within 20% of where it
    started. Prints the figures; whether it passed."""
    import socket
    import urllib.request

    from playwright.sync_api import expect, sync_playwright

    if str(ROOT) not in sys.path:  # run as a script: make ``bench`` importable
        sys.path.insert(0, str(ROOT))
    from bench.browser import CHROMIUM, CHROMIUM_ARGS

    runs = [valid_run(folder / f"session-{index}.trec", size, seed=index + 1) for index in range(count)]
    qrels = folder / "sessions.qrels"
    questions = size // 37 // 100
    qrels.write_text("".join(f"q{n} 0 doc{n * 100 + 7} 1\n" for n in range(questions)))
    temporary = folder / "tmp"
    temporary.mkdir()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless=true"]
    command += [f"--server.port={port}", "--server.address=127.0.0.1", "--server.maxUploadSize=200"]
    server = subprocess.Popen(
        command, env={**os.environ, "TMPDIR": str(temporary)}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(f"{url}/_stcore/health", timeout=1).read()
                break
            except OSError:
                time.sleep(0.2)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            first = browser.new_context()
            page = first.new_page()
            page.goto(url)
            expect(page.get_by_test_id("stDataFrame").first).to_be_visible(timeout=180_000)
            first.close()
            time.sleep(5)
            start = _resident(server.pid)
            contexts = []
            for run in runs:
                context = browser.new_context()
                contexts.append(context)
                page = context.new_page()
                page.goto(f"{url}/?source=upload")
                sidebar = page.get_by_test_id("stSidebar")
                expect(sidebar.get_by_role("region", name="Qrels")).to_be_visible(timeout=120_000)
                for name, path in (("Qrels", qrels), ("Runs (one configuration each)", run)):
                    region = sidebar.get_by_role("region", name=name)
                    # Streamlit's uploader now and then drops a file given while the page settles: given again.
                    for attempt in range(3):
                        region.locator("input[type='file']").set_input_files(str(path))
                        try:
                            expect(region.get_by_test_id("stFileChipName")).to_have_text(path.name, timeout=60_000)
                            break
                        except AssertionError:
                            if attempt == 2:
                                raise
                    page.wait_for_load_state("networkidle")
                expect(page.get_by_test_id("stDataFrame").first).to_contain_text(run.stem, timeout=300_000)
            held = _resident(server.pid)
            for context in contexts:
                context.close()
            browser.close()
        closed = time.perf_counter()
        uploads = list(temporary.glob("contextgrid-uploads-*"))
        while time.perf_counter() - closed < 400 and any(any(root.glob("session-*")) for root in uploads):
            time.sleep(2)
        gone = time.perf_counter() - closed
        time.sleep(20)  # a round of the reaper more: what the sessions' threads freed last goes back too
        after = _resident(server.pid)
    finally:
        server.terminate()
        server.wait(30)
    passed = after <= 1.2 * start
    print(
        f"{count} sessions x {size / 1e6:.0f} MB runs: server {start / MIB:.0f} MiB at the start, {held / MIB:.0f} MiB "
        f"with them, {after / MIB:.0f} MiB once their uploads were reaped ({gone:.0f} s after they closed; a closed "
        f"tab has 90 s to reconnect): {after / start:.2f} of the start ({'PASS' if passed else 'MISS'}: within 20%)"
    )
    return passed


def row(name: str, result: dict[str, object], *, refused: bool) -> None:
    seconds, peak = float(str(result["seconds"])), int(str(result["peak"]))
    outcome = str(result["outcome"])
    met = seconds < SECONDS and peak < PEAK and outcome.startswith(("refused", "exit 2"))
    verdict = ("PASS" if met else "MISS") if refused else ""
    print(f"{name:<34} {seconds:7.2f} s {peak / MIB:8.0f} MiB  {verdict:4}  {outcome[:100]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, help="a checkout of the code before the limits, for the ratio")
    parser.add_argument("--repeat", type=int, default=3, help="reads of the valid run, the best kept (default: 3)")
    parser.add_argument("--sessions-only", action="store_true", help="only the six upload sessions (a browser)")
    parser.add_argument("--no-sessions", action="store_true", help="skip the six upload sessions")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-limits-"))
    if args.sessions_only:
        try:
            sessions(folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return
    try:
        started = time.perf_counter()
        bombs = {size: bomb(folder / f"zeros-{size}gib.trec.gz", size * GIB) for size in (1, 2, 4)}
        lines = bomb(folder / "lines-4gib.trec.gz", 4 * GIB, b"q1 Q0 c1 1 0.5 x\n")
        line = single_line(folder / "one-line.trec", 500 * 1000 * 1000)
        run = valid_run(folder / "valid.trec", 200 * 1000 * 1000)
        parquet = identical_parquet(folder / "identical-20m.parquet", 20_000_000)
        as_json = json_run(folder / "run-256mib.json", 256 * MIB)
        as_json_gz = json_run(folder / "run-256mib.json.gz", 256 * MIB)
        qrels = folder / "qrels.trec"
        qrels.write_text("q0 0 doc1 1\n")
        on_disk = ", ".join(f"{size} GiB: {path.stat().st_size / MIB:.1f} MiB" for size, path in bombs.items())
        print(f"generated in {time.perf_counter() - started:.0f} s (bombs on disk: {on_disk})")
        print(f"{'case':<34} {'time':>9} {'peak RSS':>12}  {'':4}  outcome")
        row("evaluate, 2 GiB bomb", measure(bombs[2], ROOT, qrels=qrels), refused=True)
        for size, path in bombs.items():
            row(f"read_run, {size} GiB bomb", measure(path, ROOT), refused=True)
        row("read_run, 500 MB line", measure(line, ROOT), refused=True)
        # Short lines pass the line limit: the expansion limit (max_ratio) refuses this bomb once 64 MiB is read.
        row("read_run, 4 GiB of lines", measure(lines, ROOT), refused=True)
        # 20M identical rows in a few hundred KB: refused for its rows, from its metadata.
        kib = parquet.stat().st_size / 1024
        row(f"evaluate, 20M rows ({kib:.0f} KiB)", measure(parquet, ROOT, qrels=qrels), refused=True)
        row("read_run, 20M-row Parquet", measure(parquet, ROOT), refused=True)
        # A JSON value is parsed whole at about 24 times its size: it may hold a 32nd of max_bytes.
        row("evaluate, 256 MiB JSON", measure(as_json, ROOT, qrels=qrels), refused=True)
        gz_mib = as_json_gz.stat().st_size / MIB
        row(f"read_run, 256 MiB JSON .gz ({gz_mib:.0f} MiB)", measure(as_json_gz, ROOT), refused=True)
        packed = folder / "valid.trec.gz"
        with run.open("rb") as plain, gzip.open(packed, "wb", compresslevel=6) as out:
            shutil.copyfileobj(plain, out, 16 * MIB)
        expands = run.stat().st_size / packed.stat().st_size
        row(f"read_run, valid .gz ({expands:.1f}x)", measure(packed, ROOT), refused=False)
        print(f"valid run: {run.stat().st_size / 1e6:.0f} MB, best of {args.repeat}")
        codes = {"now": ROOT} | ({} if args.before is None else {"before": args.before})
        best: dict[str, float] = {}
        for label, code in codes.items():
            results = [measure(run, code) for _ in range(args.repeat)]
            fastest = min(results, key=lambda result: float(str(result["seconds"])))
            best[label] = float(str(fastest["seconds"]))
            row(f"read_run, valid ({label})", fastest, refused=False)
        if "before" in best:
            ratio = best["now"] / best["before"]
            print(f"valid run: now / before = {ratio:.2f} ({'PASS' if ratio < 1.1 else 'MISS'}: within 10%)")
        if not args.no_sessions:
            sessions(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
