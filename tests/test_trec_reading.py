"""TREC text read as trec_eval reads it: whitespace, the ignored columns, numbers, and both ways of reading agreeing.

Hand cases run on small files and on files past 64 KiB (what the old reader
sampled), plain and gzip-compressed; random files are checked against
pytrec_eval's parsers, and the vectorised reading against the line-by-line one.
"""

from __future__ import annotations

import gzip
import math
from pathlib import Path
from typing import Any

import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextgrid.core.errors import InputFileError
from contextgrid.io import read_qrels, read_run, write_run
from contextgrid.io.files import Source
from contextgrid.io.trec import QRELS, RUN, _content, _read_columns, _read_lines

# Enough well-formed lines to push what follows past the first 64 KiB.
FILLER_RUN = b"".join(b"f%d Q0 d%d 1 0.5 fill\n" % (i, i) for i in range(4000))
FILLER_QRELS = b"".join(b"f%d 0 d%d 1\n" % (i, i) for i in range(6000))
SIZES = ["small", "large", "gzip"]


def file(tmp_path: Path, name: str, data: bytes, size: str, filler: bytes) -> tuple[Path, int]:
    """``data`` written as ``name``, after the filler for "large" (and "gzip"), and the line ``data`` starts at."""
    body = data if size == "small" else filler + data
    assert size == "small" or len(filler) > 1 << 16
    if size == "gzip":
        path = tmp_path / f"{name}.gz"
        path.write_bytes(gzip.compress(body))
    else:
        path = tmp_path / name
        path.write_bytes(body)
    return path, 0 if size == "small" else filler.count(b"\n")


def scores(run: Any) -> dict[str, dict[str, float]]:
    table = run.table
    rows = zip(
        table.column("question_id").to_pylist(),
        table.column("chunk_id").to_pylist(),
        table.column("score").to_pylist(),
        strict=True,
    )
    found: dict[str, dict[str, float]] = {}
    for question, chunk, score in rows:
        found.setdefault(question, {})[chunk] = score
    return found


def run_of(tmp_path: Path, data: bytes, size: str) -> dict[str, dict[str, float]]:
    path, _ = file(tmp_path, "run.trec", data, size, FILLER_RUN)
    return {q: c for q, c in scores(read_run(path)).items() if not q.startswith("f")}


def qrels_of(tmp_path: Path, data: bytes, size: str) -> dict[str, dict[str, int]]:
    path, _ = file(tmp_path, "test.qrels", data, size, FILLER_QRELS)
    return {q: c for q, c in read_qrels(path).to_dict().items() if not q.startswith("f")}


def refusal(tmp_path: Path, data: bytes, size: str, *, qrels: bool = False) -> tuple[int | None, str]:
    """The line (counted within ``data``) and message of the refusal of ``data``, file name left out."""
    name, filler, reader = ("test.qrels", FILLER_QRELS, read_qrels) if qrels else ("run.trec", FILLER_RUN, read_run)
    path, offset = file(tmp_path, name, data, size, filler)
    with pytest.raises(InputFileError) as caught:
        reader(path)
    error = caught.value
    assert error.path == str(path)
    assert error.line is not None
    line = error.line - offset
    return line, str(error).removeprefix(f"{path}, line {error.line}: ")


# --- 1. Fields split on any run of C isspace; exact field counts --------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
def test_padding_around_a_qrels_chunk_id_is_not_part_of_it(tmp_path: Path, size: str) -> None:
    assert qrels_of(tmp_path, b"q1\t0\tc1 \t2\n", size) == {"q1": {"c1": 2}}


@pytest.mark.parametrize("size", SIZES)
def test_a_tab_after_the_docid_is_a_separator(tmp_path: Path, size: str) -> None:
    assert run_of(tmp_path, b"qz Q0 cz\t 1 0.5 run\n", size) == {"qz": {"cz": 0.5}}


@pytest.mark.parametrize("size", SIZES)
def test_every_isspace_byte_separates_and_edges_and_blank_lines_are_ignored(tmp_path: Path, size: str) -> None:
    data = b" \t\x0bq1\x0cQ0\r\rc1 \t\x0b\x0c\r 3  0.25\tx \r\n\x0b\x0c\t \r\n\n\rq2 Q0 c2 1 1 x"
    assert run_of(tmp_path, data, size) == {"q1": {"c1": 0.25}, "q2": {"c2": 1.0}}


@pytest.mark.parametrize("size", SIZES)
def test_bytes_that_are_not_c_isspace_belong_to_the_id(tmp_path: Path, size: str) -> None:
    # A non-breaking space and the ASCII separators 0x1c-0x1f: Python's str.split() would split on them, trec_eval not.
    data = "q1 Q0 c\u00a01 1 2 x\nq1 Q0 c\x1c2 2 1 x\n".encode()
    assert run_of(tmp_path, data, size) == {"q1": {"c\u00a01": 2.0, "c\x1c2": 1.0}}


@pytest.mark.parametrize("size", SIZES)
def test_a_space_inside_a_tab_separated_id_makes_seven_fields(tmp_path: Path, size: str) -> None:
    assert refusal(tmp_path, b"q1\tQ0\tc 1\t1\t0.9\trun\n", size) == (
        1,
        "expected 6 whitespace-separated columns (qid Q0 docid rank score tag), got 7: 'q1\\tQ0\\tc 1\\t1\\t0.9\\trun'",
    )


@pytest.mark.parametrize("size", SIZES)
def test_a_lone_carriage_return_separates_rather_than_ends_a_line(tmp_path: Path, size: str) -> None:
    assert refusal(tmp_path, b"q1 Q0 c1 1 0.9 x\rq1 Q0 c2 2 0.8 x\n", size) == (
        1,
        "expected 6 whitespace-separated columns (qid Q0 docid rank score tag), got 12: "
        "'q1 Q0 c1 1 0.9 x\\rq1 Q0 c2 2 0.8 x'",
    )


@pytest.mark.parametrize("size", SIZES)
def test_too_few_fields_in_qrels_after_blank_lines(tmp_path: Path, size: str) -> None:
    assert refusal(tmp_path, b"q1 0 c1 1\n \t\n\nq1 0 c2\n", size, qrels=True) == (
        4,
        "expected 4 whitespace-separated columns (qid iter docid grade), got 3: 'q1 0 c2'",
    )


def test_a_leading_byte_order_mark_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "bom.trec"
    path.write_bytes(b"\xef\xbb\xbfq1 Q0 c1 1 1 x\n\xef\xbb\xbf q1 Q0 c2 1 2 x\n")
    with pytest.raises(InputFileError, match=r"line 2: expected 6 .* got 7"):
        read_run(path)
    path.write_bytes(b"\xef\xbb\xbf  q1 Q0 c1 1 1 x\n")
    assert read_run(path).to_dict() == {"q1": ["c1"]}


# --- 2. The rank (and Q0, tag, iter) fields are not read ----------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
def test_any_rank_token_is_accepted_and_the_score_orders(tmp_path: Path, size: str) -> None:
    data = b"q1 Q0 c1 1.0 0.2 a\nq1 Q0 c2 - 0.9 b\nq1 Q0 c3 NA 0.9 c\nq1 Q0 c4 99999999999999999999 0.5 d\n"
    path, _ = file(tmp_path, "run.trec", data, size, FILLER_RUN)
    run = read_run(path)
    # c2 and c3 tie at 0.9: trec_eval breaks ties by docid descending.
    assert run["q1"] == ("c3", "c2", "c4", "c1")
    assert run.table.column("rank").to_pylist()[-4:] == [1, 2, 3, 4]


def test_unused_fields_are_never_decoded(tmp_path: Path) -> None:
    path = tmp_path / "run.trec"
    path.write_bytes(b"q1 Q\xff c1 \xfe 1 t\xfd\n")
    assert read_run(path).to_dict() == {"q1": ["c1"]}
    path.write_bytes(b"q1 Q0 c1 1 1 t\nq1 Q0 c\xff 2 1 t\n")
    with pytest.raises(InputFileError) as caught:
        read_run(path)
    assert (
        str(caught.value)
        == f"{path}, line 2: expected UTF-8 text in docid, got undecodable bytes: 'q1 Q0 c\\\\xff 2 1 t'"
    )


# --- 3. Scores and grades -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
def test_score_spellings_accepted(tmp_path: Path, size: str) -> None:
    spellings = {"12.5": 12.5, "-3": -3.0, "+.5": 0.5, "5.": 5.0, "1E+03": 1000.0, "007.10": 7.1, "1e-400": 0.0}
    spellings |= {"INF": math.inf, "-Infinity": -math.inf, "1e400": math.inf}
    data = b"".join(b"q1 Q0 c%d 1 %s x\n" % (i, s.encode()) for i, s in enumerate(spellings))
    assert run_of(tmp_path, data, size) == {"q1": {f"c{i}": v for i, v in enumerate(spellings.values())}}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("score", ["1_000", "high", "0x10", "1,5", "1e", "--1", "in", "\u0661", "1.5f"])
def test_scores_that_are_not_plain_numbers_are_refused_at_their_line(tmp_path: Path, size: str, score: str) -> None:
    line = f"q1 Q0 c2 2 {score} x"
    assert refusal(tmp_path, f"q1 Q0 c1 1 0.9 x\n\n{line}\n".encode(), size) == (
        3,
        f"expected score to be a number such as 12.5, -3 or 1e-4, got {score!r}: {line!r}",
    )


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("score", ["nan", "-NaN", "nan(1)"])
def test_nan_scores_are_refused_at_their_line(tmp_path: Path, size: str, score: str) -> None:
    line = f"q1 Q0 c2 2 {score} x"
    assert refusal(tmp_path, f"q1 Q0 c1 1 0.9 x\n{line}\n".encode(), size) == (
        2,
        f"expected a score that is a number, got NaN: {line!r}",
    )


@pytest.mark.parametrize("size", SIZES)
def test_grade_spellings_accepted(tmp_path: Path, size: str) -> None:
    data = b"q1 0 c1 2\nq1 0 c2 +1\nq1 0 c3 007\nq1 0 c4 -0\n"
    assert qrels_of(tmp_path, data, size) == {"q1": {"c1": 2, "c2": 1, "c3": 7, "c4": 0}}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    ("grade", "wanted"),
    [
        ("1.0", "a whole number such as 0, 1 or 2"),
        ("0x1", "a whole number such as 0, 1 or 2"),
        ("1_0", "a whole number such as 0, 1 or 2"),
        ("one", "a whole number such as 0, 1 or 2"),
        ("99999999999999999999", "a whole number that fits in 64 bits"),
    ],
)
def test_grades_that_are_not_whole_numbers_are_refused(tmp_path: Path, size: str, grade: str, wanted: str) -> None:
    line = f"q1 0 c2 {grade}"
    assert refusal(tmp_path, f"q1 0 c1 1\n{line}\n".encode(), size, qrels=True) == (
        2,
        f"expected grade to be {wanted}, got {grade!r}: {line!r}",
    )


@pytest.mark.parametrize("size", SIZES)
def test_negative_grades_are_refused(tmp_path: Path, size: str) -> None:
    assert refusal(tmp_path, b"q1 0 c1 1\n\nq1 0 c2 -1\n", size, qrels=True) == (
        3,
        "expected a grade that is a whole number, 0 or more: 'q1 0 c2 -1'",
    )


@pytest.mark.parametrize("size", SIZES)
def test_a_pair_twice_names_its_line_even_in_a_padded_file(tmp_path: Path, size: str) -> None:
    assert refusal(tmp_path, b"q1\tQ0 c1 1 0.9 x\n \n\t q1 Q0 c1 2 0.8 x \n", size) == (
        3,
        "expected each (question, chunk) pair once, got it again: '\\t q1 Q0 c1 2 0.8 x '",
    )


def test_a_writer_refuses_an_id_with_a_vertical_tab(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="holds whitespace"):
        write_run({"q1": ["c\x0b1"]}, tmp_path / "run.trec")


# --- 4. Random files: pytrec_eval's parsers, and the two ways of reading --------------------------------------------

SAFE = "abcxyzABC019_-.:/#'\"é"
ids = st.text(alphabet=SAFE, min_size=1, max_size=5)
tokens = st.text(alphabet=SAFE, min_size=1, max_size=4)
padding = st.text(alphabet=" \t\r\x0b\x0c", min_size=1, max_size=3)
edges = st.text(alphabet=" \t\r\x0b\x0c", max_size=2)
numbers = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12)
formats = st.sampled_from(["{!r}", "{:.3f}", "{:e}", "{:+.2E}", "{:.0f}", "{:g}"])


@st.composite
def score_tokens(draw: st.DrawFn) -> str:
    return draw(formats).format(draw(numbers))


@st.composite
def files(draw: st.DrawFn, kind: str) -> bytes:
    """A file of distinct (question, chunk) lines, each field padded by random C isspace runs, with blank lines."""
    pairs = draw(st.lists(st.tuples(ids, ids), min_size=1, max_size=30, unique=True))
    plain = draw(st.sampled_from(["", " ", "\t"]))
    lines = []
    for question, chunk in pairs:
        if kind == "run":
            fields = [question, draw(tokens), chunk, draw(tokens), draw(score_tokens()), draw(tokens)]
        else:
            grade = draw(st.integers(0, 40))
            fields = [question, draw(tokens), chunk, draw(st.sampled_from(["{}", "+{}", "0{}"])).format(grade)]
        if plain:
            lines.append(plain.join(fields))
        else:
            gaps = [draw(padding) for _ in fields[1:]]
            lines.append(draw(edges) + "".join(f + g for f, g in zip(fields, [*gaps, ""], strict=True)) + draw(edges))
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(edges))
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    return (ending.join(lines) + draw(st.sampled_from(["", ending]))).encode()


def non_blank(data: bytes) -> list[str]:
    return [line for line in data.decode().split("\n") if line.strip()]


def both_ways(path: Path, layout: Any) -> tuple[Any, Any]:
    """The columns read vectorised (``None`` when refused) and line by line (``None`` when refused)."""
    source = Source(path)
    data = _content(source)
    try:
        slow = _read_lines(source, data, layout)
    except InputFileError:
        slow = None
    return _read_columns(data, layout), slow


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(data=files("run"))
def test_random_runs_read_as_pytrec_eval_reads_them(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "random.trec"
    path.write_bytes(data)
    expected = pytrec_eval.parse_run(non_blank(data))
    run = read_run(path)
    assert scores(run) == expected
    for question, ranked in expected.items():
        # Score descending, ties by docid descending.
        assert list(run[question]) == sorted(ranked, key=lambda chunk: (ranked[chunk], chunk), reverse=True)
    fast, slow = both_ways(path, RUN)
    assert fast is not None
    assert fast.equals(slow)


@SETTINGS
@given(data=files("qrels"))
def test_random_qrels_read_as_pytrec_eval_reads_them(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "random.qrels"
    path.write_bytes(data)
    assert read_qrels(path).to_dict() == pytrec_eval.parse_qrel(non_blank(data))
    fast, slow = both_ways(path, QRELS)
    assert fast is not None
    assert fast.equals(slow)


damage = st.sampled_from([b" extra", b"\x0bextra", b"\rmore", b"_1", b"x", b".5.", b"\xff", b"e", b"\t\n\n"])


@SETTINGS
@given(data=files("run") | files("qrels"), where=st.integers(0, 10_000), harm=damage)
def test_both_ways_of_reading_accept_and_refuse_the_same_files(
    tmp_path: Path, data: bytes, where: int, harm: bytes
) -> None:
    damaged = data[: where % (len(data) + 1)] + harm + data[where % (len(data) + 1) :]
    path = tmp_path / "damaged.trec"
    path.write_bytes(damaged)
    for layout in (RUN, QRELS):
        fast, slow = both_ways(path, layout)
        assert (fast is None) == (slow is None)
        if fast is not None:
            assert fast.equals(slow)
