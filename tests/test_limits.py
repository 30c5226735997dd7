"""Reading costs what the limits allow, not what a file expands to: gzip bombs, enormous lines, files past
``max_bytes`` and gzip files expanding past ``max_ratio`` are refused as soon as a limit is passed, naming the file,
the limit and how to raise it."""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
import tracemalloc
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from commandline import run_main

import contextgrid as cg
from contextgrid.io import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_MAX_RATIO,
    read_answers,
    read_chunks,
    read_documents,
    read_qrels,
    read_questions,
    read_run,
    write_run,
)
from contextgrid.io.files import RATIO_FLOOR, Source, parse_ratio, parse_size, size_text
from contextgrid.workspace.builder import workspace_from_files
from contextgrid.workspace.manifest import load_workspace

ROOT = Path(__file__).resolve().parent.parent
MIB = 1 << 20
LINE = b"q1 Q0 c1 1 0.5 x\n"
SIZE_HINT = (
    "to read it, raise the limit with max_bytes= (on the command line, --max-bytes; for the dashboard, contextgrid app "
    "--max-expanded-mb)"
)
LINE_HINT = "to read it, raise the limit with max_line_bytes= (on the command line, --max-line-bytes)"
RATIO_HINT = (
    "to read it, raise the limit with max_ratio= (on the command line, --max-ratio; for the dashboard, contextgrid app "
    "--max-ratio), or lift it with max_ratio=None (--max-ratio off)"
)


def bomb(path: Path, size: int, pattern: bytes = b"\0") -> Path:
    """A gzip file that expands to ``size`` bytes of ``pattern`` repeated, compressed as it is written (a few
    hundred kilobytes on disk for a hundred megabytes)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = pattern * (MIB // len(pattern))
    with path.open("wb") as out:
        for _ in range(size // len(block)):
            out.write(compressor.compress(block))
        out.write(compressor.flush())
    return path


def refusal(read: Callable[[], object]) -> tuple[str, int]:
    """The message ``read()`` is refused with and the most memory Python held meanwhile (how long a refusal
    takes, bench/bench_limits.py measures: a test asserts no wall-clock time)."""
    tracemalloc.start()
    try:
        with pytest.raises(cg.InputFileError) as caught:
            read()
        return str(caught.value), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def line_message(path: Path, line: int, limit: int = DEFAULT_MAX_LINE_BYTES) -> str:
    shown = "1 MiB" if limit == MIB else f"{limit} bytes"
    return (
        f"{path}, line {line}: expected lines of at most {shown} (the limit max_line_bytes={limit}), "
        f"got a longer one; {LINE_HINT}"
    )


@pytest.fixture
def zeros(tmp_path: Path) -> Path:
    """128 MiB of zero bytes, gzip-compressed: one line, as long as the file."""
    return bomb(tmp_path / "bomb.trec.gz", 128 * MIB)


# -- gzip bombs ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("reader", [read_run, read_qrels])
def test_a_gzip_bomb_of_one_line_is_refused_at_its_first_block(zeros: Path, reader: Callable[[Path], object]) -> None:
    assert zeros.stat().st_size < 200_000
    message, peak = refusal(lambda: reader(zeros))
    assert message == line_message(zeros, 1)
    assert peak < 48 * MIB  # one block of 16 MiB read, and the buffers decompressing it


def test_a_gzip_bomb_of_short_lines_is_refused_once_past_max_bytes(tmp_path: Path) -> None:
    path = bomb(tmp_path / "lines.trec.gz", 64 * MIB, LINE)
    message, peak = refusal(lambda: read_run(path, max_bytes=8 * MIB))
    assert message == (
        f"{path}: expected at most 8 MiB once decompressed (the limit max_bytes=8388608), got more; {SIZE_HINT}"
    )
    assert peak < 24 * MIB


def test_a_gzip_bomb_of_short_lines_is_refused_for_its_expansion_once_past_the_floor(tmp_path: Path) -> None:
    path = bomb(tmp_path / "lines.trec.gz", 256 * MIB, LINE)
    message, peak = refusal(lambda: read_run(path))
    found = re.fullmatch(
        rf"{re.escape(str(path))}: expected to expand at most 100 times once decompressed \(the limit max_ratio=100\), "
        rf"got (\d+) times: 64 MiB from the first ([0-9.]+) KiB of the file; {re.escape(RATIO_HINT)}",
        message,
    )
    assert found is not None, message
    # The file as a whole expands about 400 times; gzip has read a little ahead of what it decompressed.
    assert 300 < int(found.group(1)) <= (256 * MIB) // path.stat().st_size
    assert peak < RATIO_FLOOR + 24 * MIB  # the blocks read up to the floor, and one being decompressed


def test_the_expansion_limit_can_be_raised_or_lifted_and_spares_small_files(tmp_path: Path) -> None:
    path = bomb(tmp_path / "lines.trec.gz", 80 * MIB, LINE)
    whole = 80 * (MIB // len(LINE)) * len(LINE)  # the bomb's blocks are whole lines
    assert len(Source(path, max_ratio=1000).data) == whole
    assert len(Source(path, max_ratio=None).data) == whole
    message = refusal(lambda: read_run(path, max_ratio=None, max_bytes=70 * MIB))[0]
    assert message.startswith(f"{path}: expected at most 70 MiB once decompressed")
    # Below the floor a file may compress as well as it likes: 16 MiB that gzip made a thousandth of that.
    small = bomb(tmp_path / "small.trec.gz", 16 * MIB, LINE)
    assert len(Source(small, max_ratio=1).data) == whole // 5
    plain = tmp_path / "plain.trec"
    plain.write_bytes(LINE)
    assert read_run(plain, max_ratio=1)["q1"] == ("c1",)  # an uncompressed file has no expansion to limit
    assert (DEFAULT_MAX_RATIO, RATIO_FLOOR) == (100, 64 * MIB)


def test_a_file_of_blank_lines_cannot_keep_the_reader_looking_for_content(tmp_path: Path) -> None:
    path = bomb(tmp_path / "blank.jsonl.gz", 64 * MIB, b"\n")
    message, peak = refusal(lambda: read_run(path, max_bytes=4 * MIB))
    assert message.startswith(f"{path}: expected at most 4 MiB once decompressed")
    assert peak < 16 * MIB


@pytest.mark.parametrize(
    "read",
    [read_documents, read_chunks, read_questions, read_answers],
    ids=["documents", "chunks", "questions", "answers"],
)
def test_every_reader_refuses_a_bomb(tmp_path: Path, read: Callable[..., object]) -> None:
    path = bomb(tmp_path / "bomb.jsonl.gz", 64 * MIB, b" " * 63 + b"\n")
    message, peak = refusal(lambda: read(path, max_bytes=2 * MIB))
    assert message.startswith(f"{path}: expected at most 2 MiB once decompressed (the limit max_bytes=2097152)")
    assert peak < 16 * MIB


def test_a_bomb_costs_a_child_process_little_memory(tmp_path: Path) -> None:
    """The whole process, pyarrow and numpy included: its peak resident memory grows by a few dozen megabytes
    reading a file that expands to 256 MiB (the line bomb) or past max_bytes (the lines)."""
    zeros = bomb(tmp_path / "zeros.trec.gz", 256 * MIB)
    lines = bomb(tmp_path / "lines.trec.gz", 256 * MIB, LINE)
    # VmHWM, the process's peak resident memory, starts afresh with the program (ru_maxrss would start from
    # the forking test process's).
    script = f"""
import contextgrid as cg
from contextgrid.io import read_run
import pyarrow.csv

def peak():
    return int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0])

before = peak()
for path, limit in (({str(zeros)!r}, None), ({str(lines)!r}, 32 << 20)):
    try:
        read_run(path) if limit is None else read_run(path, max_bytes=limit)
    except cg.InputFileError as error:
        print(error.expected.split(";")[0])
print((peak() - before) // 1024)
"""
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    first, second, grown = done.stdout.splitlines()
    assert first == "expected lines of at most 1 MiB (the limit max_line_bytes=1048576), got a longer one"
    assert second == "expected at most 32 MiB once decompressed (the limit max_bytes=33554432), got more"
    assert int(grown) < 120  # megabytes: a 16 MiB block a few times over, nowhere near 256


# -- plain files ---------------------------------------------------------------------------------------------------


def test_a_plain_file_past_max_bytes_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.trec"
    path.write_bytes(LINE * 100_000)
    message, peak = refusal(lambda: read_run(path, max_bytes=MIB))
    assert message == f"{path}: expected at most 1 MiB (the limit max_bytes=1048576), got 1.6 MiB; {SIZE_HINT}"
    assert peak < MIB


def test_a_long_line_is_refused_with_its_number(tmp_path: Path) -> None:
    path = tmp_path / "long.trec"
    path.write_bytes(LINE * 3 + b"q1 Q0 c9 4 0.1 " + b"x" * (3 * MIB) + b"\n" + LINE)
    message, peak = refusal(lambda: read_run(path))
    assert message == line_message(path, 4)
    assert peak < 24 * MIB  # a read of one block (16 MiB) is allocated whole, however little the file holds


def test_a_line_as_long_as_the_limit_is_read(tmp_path: Path) -> None:
    path = tmp_path / "tags.trec"
    line = b"q1 Q0 c1 1 0.5 " + b"t" * 100
    path.write_bytes(LINE.replace(b"c1", b"c2") + line + b"\r\n")
    assert read_run(path, max_line_bytes=len(line) + 1)["q1"] == ("c2", "c1")  # its \r counts, its \n does not
    assert refusal(lambda: read_run(path, max_line_bytes=len(line)))[0] == line_message(path, 2, len(line))


def test_a_json_file_is_one_value_and_its_line_is_not_limited(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    write_run({"q1": [f"c{i}" for i in range(1000)]}, path)  # written on one line
    assert len(read_run(path, max_line_bytes=100)["q1"]) == 1000
    assert refusal(lambda: read_run(path, max_bytes=100))[0].startswith(f"{path}: expected at most 3 bytes")


def test_a_json_file_may_hold_a_32nd_of_max_bytes_as_it_is_parsed_whole(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    write_run({"q1": [f"c{i}" for i in range(1000)]}, path)
    size = path.stat().st_size
    assert len(read_run(path, max_bytes=32 * size)["q1"]) == 1000
    assert refusal(lambda: read_run(path, max_bytes=32 * size - 32))[0] == (
        f"{path}: expected at most {size_text(size - 1)} (1/32 of the limit max_bytes={32 * size - 32}: a JSON value "
        f"is parsed whole, at about 24 times its size; JSON Lines is not), got {size_text(size)}; {SIZE_HINT}"
    )
    # JSON Lines holds max_bytes whole.
    lines = tmp_path / "run.jsonl"
    write_run({"q1": [f"c{i}" for i in range(1000)]}, lines)
    assert len(read_run(lines, max_bytes=lines.stat().st_size)["q1"]) == 1000


def test_a_parquet_file_is_refused_for_what_its_columns_expand_to_before_they_are_read(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "run.parquet"
    rows = 20_000
    # Long chunk ids that differ only at the end: 4 MiB of column data that zstd stores in some 50 KiB.
    ids = ["c" * 200 + str(row) for row in range(rows)]
    table = pa.table({"question_id": ["q1"] * rows, "chunk_id": ids, "rank": list(range(1, rows + 1))})
    pq.write_table(table, path, compression="zstd", use_dictionary=False)
    assert path.stat().st_size < 100_000
    assert refusal(lambda: read_run(path, max_bytes=2 * MIB))[0] == (
        f"{path}: expected at most 2 MiB once decompressed (the limit max_bytes=2097152), got 4.2 MiB in its "
        f"columns once decoded; {SIZE_HINT}"
    )
    assert read_run(path, max_bytes=8 * MIB)["q1"][:2] == (ids[0], ids[1])


def identical_rows(path: Path, rows: int) -> Path:
    """A Parquet run of ``rows`` identical rows: dictionary and run-length encoded, a few bytes a thousand rows."""
    import numpy as np
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
    pq.write_table(table, path, row_group_size=rows)
    return path


def test_a_parquet_file_of_identical_rows_is_refused_for_its_rows_before_they_are_read(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    path = identical_rows(tmp_path / "run.parquet", 2_000_000)
    assert path.stat().st_size < 200_000
    stated = sum(
        pq.ParquetFile(path).metadata.row_group(group).column(column).total_uncompressed_size
        for group in range(pq.ParquetFile(path).metadata.num_row_groups)
        for column in range(3)
    )
    assert stated < 64 * MIB  # what the old check compared: far below the limit
    assert refusal(lambda: read_run(path, max_bytes=64 * MIB))[0] == (
        f"{path}: expected at most 64 MiB once decompressed (the limit max_bytes=67108864), got 2,000,000 rows, "
        "which count as 122.1 MiB (64 bytes a row, what reading one costs, however few bytes the file encodes it "
        f"in); {SIZE_HINT}"
    )


def test_text_values_count_at_their_length_once_decoded(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "run.parquet"
    rows = 1000
    # One long id, dictionary encoded: the file and its stated sizes are small, the decoded column is not. (Its
    # length is known from the column's statistics, which Parquet keeps for values up to 4 KiB.)
    table = pa.table({"question_id": ["q" * 4000] * rows, "chunk_id": [f"c{i}" for i in range(rows)]})
    pq.write_table(table, path)
    assert path.stat().st_size < 100_000
    message = refusal(lambda: read_run(path, max_bytes=2 * MIB))[0]
    assert "in its columns once decoded" in message
    assert read_run(path, max_bytes=8 * MIB)[("q" * 4000)][0] == "c0"


def test_documents_and_chunks_take_long_lines_and_questions_do_not(tmp_path: Path) -> None:
    text = "word " * (MIB // 2)  # 2.5 MiB: one document, one line
    documents = tmp_path / "documents.jsonl"
    documents.write_text(json.dumps({"doc_id": "book", "text": text}) + "\n")
    assert read_documents(documents) == {"book": text}
    chunks = tmp_path / "chunks.jsonl"
    chunks.write_text(json.dumps({"id": "c1", "doc_id": "book", "start": 0, "end": len(text), "text": text}) + "\n")
    assert read_chunks(chunks)[0].text == text
    questions = tmp_path / "questions.jsonl"
    questions.write_text(json.dumps({"id": "q1", "question": text}) + "\n")
    assert refusal(lambda: read_questions(questions))[0] == line_message(questions, 1)
    assert read_questions(questions, max_line_bytes=4 * MIB)[0].question == text


def test_a_folder_of_documents_limits_each_file(tmp_path: Path) -> None:
    (tmp_path / "small.md").write_text("Refunds within 30 days.")
    (tmp_path / "large.txt").write_text("x" * 5000)
    message = refusal(lambda: read_documents(tmp_path, max_bytes=4096))[0]
    assert message == (
        f"{tmp_path / 'large.txt'}: expected at most 4 KiB (the limit max_bytes=4096), got 4.9 KiB; {SIZE_HINT}"
    )
    assert read_documents(tmp_path, max_bytes=5000)["large.txt"] == "x" * 5000


def test_limits_are_checked_as_parameters(tmp_path: Path) -> None:
    path = tmp_path / "run.trec"
    path.write_bytes(LINE)
    with pytest.raises(cg.InvalidParameterError) as caught:
        read_run(path, max_bytes=0)
    assert str(caught.value) == "The 'max_bytes' parameter of Source must be an int >= 1. Got 0 instead."
    with pytest.raises(cg.InvalidParameterError):
        Source(path, max_line_bytes=-1)
    with pytest.raises(cg.InvalidParameterError) as caught:
        read_run(path, max_ratio=0)
    assert str(caught.value) == "The 'max_ratio' parameter of Source must be an int >= 1. Got 0 instead."
    assert [parse_ratio(text) for text in ("100", "OFF", "1")] == [100, None, 1]
    with pytest.raises(cg.InvalidParameterError):
        parse_ratio("0")
    assert DEFAULT_MAX_BYTES == 1 << 30
    assert [parse_size(text) for text in ("100", "64KiB", "512m", "2 GiB")] == [100, 64 << 10, 512 << 20, 2 << 30]
    with pytest.raises(cg.InvalidParameterError):
        parse_size("2 TB")


# -- workspaces ----------------------------------------------------------------------------------------------------


def test_a_workspace_reads_within_its_limits_and_leaves_a_file_past_them_out(tmp_path: Path) -> None:
    (tmp_path / "qrels.trec").write_text("q1 0 c1 2\n")
    (tmp_path / "good.trec").write_bytes(LINE)
    # A real run that expands to 2.5 MiB: read by default, past a limit of 1 MiB.
    lines = "".join(f"q1 Q0 c{rank} {rank} {1 / rank} big\n" for rank in range(1, 100_000))
    (tmp_path / "big.trec.gz").write_bytes(gzip.compress(lines.encode()))
    (tmp_path / "contextgrid.toml").write_text(
        'qrels = "qrels.trec"\n[[config]]\nname = "good"\nrun = "good.trec"\n'
        '[[config]]\nname = "big"\nrun = "big.trec.gz"\n'
    )
    workspace = load_workspace(tmp_path, max_bytes=MIB)
    assert workspace.max_bytes == MIB
    part, failed = workspace.readable()
    assert part.names == ("good",)
    assert part.max_bytes == MIB
    assert isinstance(failed["big"], cg.InputFileError)
    assert str(failed["big"]) == (
        f"{tmp_path / 'big.trec.gz'}: expected at most 1 MiB once decompressed (the limit max_bytes=1048576), "
        f"got more; {SIZE_HINT}"
    )
    assert load_workspace(tmp_path).readable()[0].names == ("good", "big")
    built = workspace_from_files("w", qrels=tmp_path / "qrels.trec", runs=[tmp_path / "big.trec.gz"], max_bytes=MIB)
    with pytest.raises(cg.InputFileError):
        built.evaluate()
    with pytest.raises(cg.InputFileError) as caught:
        load_workspace(tmp_path, max_line_bytes=12).run("good")
    assert str(caught.value) == line_message(tmp_path / "good.trec", 1, 12)


# -- the command line ----------------------------------------------------------------------------------------------


def test_the_command_line_reads_within_max_bytes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    qrels, run = tmp_path / "qrels.trec", bomb(tmp_path / "run.trec.gz", 16 * MIB, LINE)
    qrels.write_text("q1 0 c1 2\n")
    status, out, err = run_main(capsys, "evaluate", str(qrels), str(run), "--max-bytes", "1MiB")
    assert (status, out) == (2, "")
    assert err.splitlines()[-1] == (
        f"contextgrid: error: {run}: expected at most 1 MiB once decompressed (the limit max_bytes=1048576), "
        f"got more; {SIZE_HINT}"
    )
    status, _, err = run_main(capsys, "evaluate", str(qrels), str(run), "--max-line-bytes", "8")
    assert status == 2
    assert err.splitlines()[-1] == f"contextgrid: error: {line_message(qrels, 1, 8)}"
    status, _, err = run_main(capsys, "evaluate", str(qrels), str(run), "--max-bytes", "lots")
    assert status == 2
    assert err.splitlines()[-1] == (
        "contextgrid: error: argument --max-bytes: expected a size of 1 or more: bytes, or a number with KiB, MiB "
        "or GiB (such as 2GiB), got 'lots'"
    )
    (tmp_path / "contextgrid.toml").write_text('qrels = "qrels.trec"\n[[config]]\nname = "r"\nrun = "run.trec.gz"\n')
    for command in (["evaluate", "--workspace", str(tmp_path)], ["compare", str(tmp_path), "--metric", "recall@1"]):
        status, _, err = run_main(capsys, *command, "--max-bytes", "1MiB")
        assert status == 2
        assert "expected at most 1 MiB once decompressed" in err


def test_the_command_line_reads_within_max_ratio(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    qrels, run = tmp_path / "qrels.trec", bomb(tmp_path / "run.trec.gz", 80 * MIB, LINE)
    qrels.write_text("q1 0 c1 2\n")
    status, _, err = run_main(capsys, "evaluate", str(qrels), str(run))
    assert status == 2
    assert err.splitlines()[-1].startswith(
        f"contextgrid: error: {run}: expected to expand at most 100 times once decompressed (the limit max_ratio=100)"
    )
    assert err.splitlines()[-1].endswith(RATIO_HINT)
    status, _, err = run_main(capsys, "evaluate", str(qrels), str(run), "--max-ratio", "off", "--max-bytes", "70MiB")
    assert status == 2
    assert "expected at most 70 MiB once decompressed (the limit max_bytes=73400320)" in err
    status, _, err = run_main(capsys, "evaluate", str(qrels), str(run), "--max-ratio", "0")
    assert status == 2
    assert err.splitlines()[-1] == (
        "contextgrid: error: argument --max-ratio: expected a whole number of 1 or more, or off for no limit, got '0'"
    )


def test_the_import_command_reads_its_dump_within_the_limits(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    documents = tmp_path / "documents"
    documents.mkdir()
    (documents / "a.md").write_text("Refunds.")  # within the 512 bytes below: the dump is what they refuse
    split = [{"page_content": "Refunds", "metadata": {"source": "a.md", "start_index": 0}}]
    dump = tmp_path / "split.json.gz"
    dump.write_bytes(gzip.compress(json.dumps(split).encode()))
    command = ["import", "langchain", str(dump), "--documents", str(documents), "-o", str(tmp_path / "out")]
    status, out, _ = run_main(capsys, *command)
    assert (status, out) == (0, f"wrote 1 chunks to {tmp_path / 'out' / 'chunks.jsonl'}\n")
    assert read_chunks(tmp_path / "out" / "chunks.jsonl")[0].text == "Refunds"
    status, _, err = run_main(capsys, *command, "--force", "--max-bytes", "512")
    assert status == 2
    assert err.splitlines()[-1] == (
        f"contextgrid: error: {dump}: expected at most 16 bytes once decompressed (1/32 of the limit max_bytes=512: "
        f"a JSON value is parsed whole, at about 24 times its size; JSON Lines is not), got more; {SIZE_HINT}"
    )
    spaces = bomb(tmp_path / "spaces.json.gz", 80 * MIB, b" ")
    status, _, err = run_main(capsys, "import", "langchain", str(spaces), "--documents", str(documents), "-o", "x")
    assert status == 2
    # 80 MiB of spaces: past the 32 MiB a JSON dump may hold by default before its expansion is checked (64 MiB).
    assert err.splitlines()[-1].endswith(SIZE_HINT)


@pytest.mark.parametrize("command", ["evaluate", "compare", "diagnose", "report", "answers", "sweep", "import"])
def test_every_command_that_reads_files_has_the_limits(capsys: pytest.CaptureFixture[str], command: str) -> None:
    status, out, _ = run_main(capsys, command, "--help")
    assert status == 0
    assert "--max-bytes SIZE" in out
    assert "--max-line-bytes SIZE" in out
    assert "--max-ratio N" in out


# -- the dashboard -------------------------------------------------------------------------------------------------


def server_started_with(monkeypatch: pytest.MonkeyPatch, *options: str) -> None:
    monkeypatch.setattr(sys, "argv", [sys.argv[0], *options])


def test_the_sidebar_states_the_upload_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    from streamlit.testing.v1 import AppTest

    server_started_with(monkeypatch, "--max-session-mb", "300", "--max-expanded-mb", "512", "--max-ratio", "50")
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    app.query_params["source"] = "upload"
    app.run()
    assert not app.exception
    assert app.sidebar.caption[0].value == (
        "Each file up to 200 MB and up to 512 MB once decompressed, a gzip file expanding at most 50 times; 300 MB "
        "in all, as uploaded and once decompressed. Uploads stay with this session and are deleted when it ends."
    )


def test_the_dashboard_reads_every_workspace_within_its_servers_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    from pages import _loading, _uploads

    source = _uploads.uploaded_source(
        ("qrels.trec", b"q1 0 c1 2\n"), (("good.trec", LINE),), folder=(folder := _uploads.SessionFolder())
    )
    for options, limits in (([], (1 << 30, 100)), (["--max-expanded-mb", "2", "--max-ratio", "off"], (2 * MIB, None))):
        server_started_with(monkeypatch, *options)
        workspace = _loading.cached_workspace(source, f"version {options}")
        assert (workspace.max_bytes, workspace.max_ratio) == limits
    folder.remove()


def test_uploads_past_the_session_limit_are_refused_before_any_is_stored() -> None:
    from pages import _uploads

    folder = _uploads.SessionFolder()
    with pytest.raises(cg.ContextGridError) as caught:
        _uploads.uploaded_source(
            ("q.trec", b"q1 0 c1 2\n"), (("a.trec", LINE * 70_000),), folder=folder, max_total_bytes=MIB
        )
    assert str(caught.value) == (
        "the uploaded files total 1.1 MiB, more than the 1 MiB a session may upload on this server (contextgrid app "
        "--max-session-mb); upload fewer or smaller files, or gzip them"
    )
    assert list(folder.path.iterdir()) == []
    folder.remove()


SESSION_HELD = (
    "the uploaded files hold more than the 1 MiB a session may hold on this server once decompressed (a Parquet "
    "file decoded, at least 64 bytes a row; contextgrid app --max-session-mb); upload fewer or smaller files"
)


def test_small_gzip_uploads_that_together_expand_past_the_session_limit_are_refused() -> None:
    from pages import _uploads

    folder = _uploads.SessionFolder()
    # Each run is 3 KiB gzip-compressed and 600 KiB once decompressed: within any one file's limits, but two
    # of them hold more than the session may.
    runs = tuple((f"run{index}.trec.gz", gzip.compress(LINE * 36_000)) for index in range(2))
    assert all(len(data) < 4096 for _, data in runs)
    with pytest.raises(cg.ContextGridError) as caught:
        _uploads.uploaded_source(("q.trec", b"q1 0 c1 2\n"), runs, folder=folder, max_total_bytes=MIB)
    assert str(caught.value) == SESSION_HELD
    assert list(folder.path.iterdir()) == []
    # One of them fits.
    _uploads.uploaded_source(("q.trec", b"q1 0 c1 2\n"), runs[:1], folder=folder, max_total_bytes=MIB)
    folder.remove()


def test_a_parquet_upload_counts_its_rows_against_the_session_limit(tmp_path: Path) -> None:
    from pages import _uploads

    folder = _uploads.SessionFolder()
    data = identical_rows(tmp_path / "run.parquet", 20_000).read_bytes()  # 1.2 MiB at 64 bytes a row
    assert len(data) < 10_000
    with pytest.raises(cg.ContextGridError) as caught:
        _uploads.uploaded_source(
            ("q.trec", b"q1 0 c1 2\n"), (("run.parquet", data),), folder=folder, max_total_bytes=MIB
        )
    assert str(caught.value) == SESSION_HELD
    folder.remove()


def test_an_uploaded_run_past_the_expanded_limit_is_named_and_the_rest_are_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from streamlit.testing.v1 import AppTest

    from contextgrid.render.markup import escape_markdown as md
    from pages import _uploads

    server_started_with(monkeypatch, "--max-expanded-mb", "1")
    expanding = zlib.compressobj(9, zlib.DEFLATED, 31)
    lines = "".join(f"q1 Q0 c{rank} {rank} {1 / rank} big\n" for rank in range(1, 100_000)).encode()
    big = expanding.compress(lines) + expanding.flush()  # a few hundred kilobytes, 2.5 MiB decompressed
    source = _uploads.uploaded_source(
        ("qrels.trec", b"q1 0 c1 2\nq1 0 c2 1\n"),
        (("good.trec", LINE), ("big.trec.gz", big)),
        folder=(folder := _uploads.SessionFolder()),
    )
    app = AppTest.from_file(str(ROOT / "pages" / "overview.py"), default_timeout=120)
    app.session_state["root"] = source
    app.run()
    assert not app.exception
    assert not app.error
    error = (
        f"big.trec.gz: expected at most 1 MiB once decompressed (the limit max_bytes=1048576), got more; {SIZE_HINT}"
    )
    assert [warning.value for warning in app.warning] == [
        f"1 configuration could not be read and is left out; the other one is shown.\n\n- **big**: {md(error)}"
    ]
    assert app.dataframe[0].value.index.tolist() == ["good"]
    folder.remove()
