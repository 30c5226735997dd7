"""TREC text read as trec_eval 10.0 reads it: whitespace, comment lines, text after a run's tag, the ignored
columns, numbers (negative grades included), and both ways of reading agreeing.

Hand cases run on small files and on files past 64 KiB (what the old reader
sampled), plain and gzip-compressed; random files are checked against
pytrec_eval's parsers, and the vectorised reading against the line-by-line one.
The rules checked here were read in trec_eval 10.0's ``get_qrels.c`` and
``get_trec_results.c``.
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
def test_a_space_inside_a_tab_separated_qrels_id_makes_five_fields(tmp_path: Path, size: str) -> None:
    assert refusal(tmp_path, b"q1\t0\tc 1\t2\n", size, qrels=True) == (
        1,
        "expected 4 whitespace-separated columns (qid iter docid grade), got 5: 'q1\\t0\\tc 1\\t2'",
    )


@pytest.mark.parametrize("size", SIZES)
def test_a_space_inside_a_tab_separated_run_id_shifts_the_fields_as_in_trec_eval(tmp_path: Path, size: str) -> None:
    # Seven fields: docid "c", rank "1", score "1", tag "0.9", and "run" after the tag, which is ignored.
    assert run_of(tmp_path, b"q1\tQ0\tc 1\t1\t0.9\trun\n", size) == {"q1": {"c": 1.0}}


@pytest.mark.parametrize("size", SIZES)
def test_a_lone_carriage_return_in_a_line_with_text_after_its_tag_is_refused(tmp_path: Path, size: str) -> None:
    # trec_eval reads the first line alone here, the second being text after its tag: a file of \r line endings.
    assert refusal(tmp_path, b"q1 Q0 c0 1 1 x\nq1 Q0 c1 1 0.9 x\rq1 Q0 c2 2 0.8 x\n", size) == (
        2,
        "expected the text after the tag to hold no carriage return (\\r) but at the line's end (trec_eval ignores "
        "what follows the \\r, as a file with \\r line endings would have every line after its first ignored): "
        "'q1 Q0 c1 1 0.9 x\\rq1 Q0 c2 2 0.8 x'",
    )


@pytest.mark.parametrize("size", SIZES)
def test_a_lone_carriage_return_within_six_fields_separates_them(tmp_path: Path, size: str) -> None:
    assert run_of(tmp_path, b"q1\rQ0 c1 1 0.9 x\nq1 Q0 c2 2 0.8 x extra\r \n", size) == {"q1": {"c1": 0.9, "c2": 0.8}}


@pytest.mark.parametrize("size", SIZES)
def test_too_few_fields_in_qrels_after_blank_lines(tmp_path: Path, size: str) -> None:
    assert refusal(tmp_path, b"q1 0 c1 1\n \t\n\nq1 0 c2\n", size, qrels=True) == (
        4,
        "expected 4 whitespace-separated columns (qid iter docid grade), got 3: 'q1 0 c2'",
    )


def test_a_leading_byte_order_mark_is_dropped(tmp_path: Path) -> None:
    qrels = tmp_path / "bom.qrels"
    qrels.write_bytes(b"\xef\xbb\xbfq1 0 c1 1\n\xef\xbb\xbf q1 0 c2 1\n")
    with pytest.raises(InputFileError, match=r"line 2: expected 4 .* got 5"):
        read_qrels(qrels)
    path = tmp_path / "bom.trec"
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
def test_negative_grades_are_read(tmp_path: Path, size: str) -> None:
    assert qrels_of(tmp_path, b"q1 0 c1 1\n\nq1 0 c2 -1\nq1 0 c3 -2\n", size) == {"q1": {"c1": 1, "c2": -1, "c3": -2}}


@pytest.mark.parametrize("size", SIZES)
def test_a_pair_twice_names_its_line_even_in_a_padded_file(tmp_path: Path, size: str) -> None:
    assert refusal(tmp_path, b"q1\tQ0 c1 1 0.9 x\n \n\t q1 Q0 c1 2 0.8 x \n", size) == (
        3,
        "expected each (question, chunk) pair once, got it again: '\\t q1 Q0 c1 2 0.8 x '",
    )


def test_a_writer_refuses_an_id_with_a_vertical_tab(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="holds whitespace"):
        write_run({"q1": ["c\x0b1"]}, tmp_path / "run.trec")


# --- 4. Comment lines and text after a run's tag (trec_eval 10.0) -------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
def test_run_comments_start_with_hash_after_any_whitespace(tmp_path: Path, size: str) -> None:
    # get_trec_results.c skips leading whitespace, then a line starting with "#"; so two in a row too.
    data = b"# header\n# q9 Q0 c9 1 1 r\n  \t# indented\n#q1 Q0 c2 2 9 r\nq1 Q0 c1 1 0.5 r\n\x0b#\n"
    assert run_of(tmp_path, data, size) == {"q1": {"c1": 0.5}}


@pytest.mark.parametrize("size", SIZES)
def test_qrels_comments_start_with_hash_as_the_first_byte(tmp_path: Path, size: str) -> None:
    # get_qrels.c skips a line whose first byte is "#". It reads the second of two in a row as data (so
    # "# by 0 judge 1" would be question "#"); here both are comments.
    data = b"# comment here\n# by 0 judge 1\nq1 0 c1 1\n#q1 0 c2 1\nq1 0 c3 0\n"
    assert qrels_of(tmp_path, data, size) == {"q1": {"c1": 1, "c3": 0}}


@pytest.mark.parametrize("size", SIZES)
def test_a_hash_inside_an_id_is_part_of_it(tmp_path: Path, size: str) -> None:
    assert qrels_of(tmp_path, b"q1 0 CR#93E-1860 1\nq#1 0 c#1 2\n", size) == {
        "q1": {"CR#93E-1860": 1},
        "q#1": {"c#1": 2},
    }
    assert run_of(tmp_path, b"q1 Q0 doc_00#4_1 1 0.5 r#1\n", size) == {"q1": {"doc_00#4_1": 0.5}}


@pytest.mark.parametrize("size", SIZES)
def test_an_indented_hash_in_qrels_is_refused(tmp_path: Path, size: str) -> None:
    assert refusal(tmp_path, b"q1 0 c1 1\n  # 0 x 1\n", size, qrels=True) == (
        2,
        "expected a comment line to start with '#' (trec_eval reads this line of qrels as a judged question named "
        "'#', which no run can answer): '  # 0 x 1'",
    )


@pytest.mark.parametrize(("name", "reader", "columns"), [("run.trec", read_run, RUN), ("x.qrels", read_qrels, QRELS)])
def test_a_file_of_comments_alone_is_refused(tmp_path: Path, name: str, reader: Any, columns: Any) -> None:
    path = tmp_path / name
    path.write_bytes(b"# nothing judged yet\n\n#\n")
    with pytest.raises(InputFileError) as caught:
        reader(path)
    assert str(caught.value) == f"{path}: expected {columns.described} per line, got only comment lines"


@pytest.mark.parametrize("size", SIZES)
def test_a_pair_twice_is_named_by_its_line_past_comments(tmp_path: Path, size: str) -> None:
    assert refusal(tmp_path, b"# a\nq1 0 c1 1\n# b\n\nq1 0 c1 0\n", size, qrels=True) == (
        5,
        "expected each (question, chunk) pair once, got it again: 'q1 0 c1 0'",
    )
    assert refusal(tmp_path, b"q1 Q0 c1 1 1 r x\n  # b\nq1 Q0 c1 2 0.5 r\n", size) == (
        3,
        "expected each (question, chunk) pair once, got it again: 'q1 Q0 c1 2 0.5 r'",
    )


@pytest.mark.parametrize("size", SIZES)
def test_text_after_a_run_lines_tag_is_ignored(tmp_path: Path, size: str) -> None:
    # Like trec_eval's test/results.trunc: tab-separated, padded scores, words after the tag on some lines.
    data = (
        b"301\tQ0\tFBIS3-27619\t99\t  2.138276\tSTANDARD more junk at\n"
        b"303\tQ0\tFT941-17652\t99\t  1.857372\tSTANDARD end of lines. \xff\n"
        b"301\tQ0\tFBIS3-2934\t98\t  2.139655\tSTANDARD\n"
    )
    assert run_of(tmp_path, data, size) == {
        "301": {"FBIS3-27619": 2.138276, "FBIS3-2934": 2.139655},
        "303": {"FT941-17652": 1.857372},
    }
    plain = b"q1 Q0 c1 1 0.5 run # a note\nq1 Q0 c2 2 0.25 run\n"
    assert run_of(tmp_path, plain, size) == {"q1": {"c1": 0.5, "c2": 0.25}}


@pytest.mark.parametrize("size", SIZES)
def test_a_run_line_of_five_fields_is_refused(tmp_path: Path, size: str) -> None:
    assert refusal(tmp_path, b"q1 Q0 c1 1 0.5 run\nq1 Q0 c2 2 0.25\n", size) == (
        2,
        "expected 6 whitespace-separated columns (qid Q0 docid rank score tag; any after tag are ignored), got 5: "
        "'q1 Q0 c2 2 0.25'",
    )


@pytest.mark.parametrize("size", SIZES)
def test_a_qrels_line_of_five_fields_is_refused(tmp_path: Path, size: str) -> None:
    assert refusal(tmp_path, b"q1 0 c1 1\nq1 0 c2 1 judged\n", size, qrels=True) == (
        2,
        "expected 4 whitespace-separated columns (qid iter docid grade), got 5: 'q1 0 c2 1 judged'",
    )


# --- 5. Random files: pytrec_eval's parsers, and the two ways of reading --------------------------------------------

SAFE = "abcxyzABC019_-.:/#'\"é"
ids = st.text(alphabet=SAFE, min_size=1, max_size=5)
# A question id starting with "#" would start a comment line.
questions = ids.filter(lambda text: not text.startswith("#"))
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
    """A file of distinct (question, chunk) lines, each field padded by random C isspace runs, with blank lines,
    comment lines and, in a run, words after some lines' tags."""
    pairs = draw(st.lists(st.tuples(questions, ids), min_size=1, max_size=30, unique=True))
    plain = draw(st.sampled_from(["", " ", "\t"]))
    lines = []
    for question, chunk in pairs:
        if draw(st.integers(0, 6)) == 0:
            # A comment: "#" first in qrels, after any whitespace in a run.
            lines.append((draw(edges) if kind == "run" else "") + "#" + draw(st.sampled_from(["", " c", " 1 0 x 2"])))
        if kind == "run":
            fields = [question, draw(tokens), chunk, draw(tokens), draw(score_tokens()), draw(tokens)]
            # Words after the tag, apart by spaces (a \r among them is refused, as another test checks).
            fields[-1] = " ".join([fields[-1], *draw(st.lists(tokens, max_size=2))])
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


def data_lines(data: bytes, width: int) -> list[str]:
    """The lines that are neither blank nor comments, each cut to its first ``width`` fields (the reference)."""
    kept = [line.split() for line in data.decode().split("\n") if line.strip() and not line.split()[0].startswith("#")]
    return [" ".join(fields[:width]) for fields in kept]


def left_to_lines(data: bytes, layout: Any) -> bool:
    """Whether the vectorised reading may leave ``data`` to the line-by-line one: a run with a \\r that does not
    end a line and a line with text after its tag (whether that \\r is in the text decides)."""
    lone_carriage_return = data.count(b"\r") != data.count(b"\r\n")
    lines = (line.split() for line in data.split(b"\n") if not line.lstrip().startswith(b"#"))
    return layout is RUN and lone_carriage_return and any(len(fields) > 6 for fields in lines)


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
    expected = pytrec_eval.parse_run(data_lines(data, 6))
    run = read_run(path)
    assert scores(run) == expected
    for question, ranked in expected.items():
        # Score descending, ties by docid descending.
        assert list(run[question]) == sorted(ranked, key=lambda chunk: (ranked[chunk], chunk), reverse=True)
    fast, slow = both_ways(path, RUN)
    assert fast is not None or left_to_lines(data, RUN)
    assert fast is None or fast.equals(slow)


@SETTINGS
@given(data=files("qrels"))
def test_random_qrels_read_as_pytrec_eval_reads_them(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "random.qrels"
    path.write_bytes(data)
    assert read_qrels(path).to_dict() == pytrec_eval.parse_qrel(data_lines(data, 4))
    fast, slow = both_ways(path, QRELS)
    assert fast is not None
    assert fast.equals(slow)


damage = st.sampled_from(
    [b" extra", b"\x0bextra", b"\rmore", b"_1", b"x", b".5.", b"\xff", b"e", b"\t\n\n", b"#", b"\n#", b"\n #", b" a b"]
)


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
        assert (fast is None) == (slow is None) or (fast is None and left_to_lines(damaged, layout))
        if fast is not None:
            assert fast.equals(slow)
