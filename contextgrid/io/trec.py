"""TREC text files: runs as ``qid Q0 docid rank score tag``, qrels as ``qid iter docid grade``.

Lines are read as trec_eval 10.0 reads them (``get_trec_results.c`` and
``get_qrels.c``). A line ends at ``\\n``; its fields are separated by any run
of C ``isspace`` bytes (space, ``\\t``, ``\\r``, ``\\v``, ``\\f``), whitespace
at either end is ignored and blank lines are skipped. Any other byte, a
non-breaking space included, is part of a field; a leading UTF-8 byte order
mark is dropped (pyarrow drops it too).

* A comment line is skipped: in a run, a line whose first byte after any
  whitespace is ``#``; in qrels, a line whose first byte is ``#``. trec_eval
  reads a qrels line with ``#`` after leading whitespace as a judged question
  named ``#...`` (one no run line can answer, as a run line starting with
  ``#`` is a comment); it is refused here with its line, and so is a file of
  nothing but comments. Unlike trec_eval 10.0, which reads the second of two
  qrels comment lines in a row as data, every such line is a comment here.
* A run line has at least 6 fields: what follows the sixth (``tag``) is
  ignored, as trec_eval ignores it, unless it holds a carriage return that
  does not end the line (a file with ``\\r`` line endings, which trec_eval
  would read as its first line alone). A qrels line has exactly 4 fields.
  Any other count is refused with the line's number.

As in trec_eval, a run's ``Q0``, ``rank`` and ``tag`` fields are not used, so
any token is accepted there (``1.0``, ``-``, ``NA``): rows are ranked by
``score`` descending, ties broken by ``docid`` descending (trec_eval's
``comp_sim_docno`` in ``form_res_rels.c``). The ``iter`` field of qrels is
ignored too.

Stricter than trec_eval's ``atof``/``atol``, which read ``1_000`` as 1 and
``high`` as 0, the numbers are refused with the line's number unless they are
written plainly:

* a score is a decimal number with an optional sign, decimal point and
  exponent (``12.5``, ``-3``, ``.5``, ``1e-4``), or ``inf``/``infinity``,
  signed or not, in any case. ``inf`` ranks first and ``-inf`` last. NaN
  (``nan``, ``nan(...)``) is read, then refused as a score that is not a number;
* a grade is a whole number in decimal digits with an optional sign (``2``,
  ``+1``, ``007``, ``-1``); ``1.0`` is refused. A grade below 0 (judged not
  relevant in several TREC collections) counts as not relevant, exactly as 0
  does, as in trec_eval's every measure that contextgrid has.

The ids and the number must be UTF-8; the fields that are not used are never
decoded. Duplicate (question, chunk) pairs are refused with their line.

A file is parsed with pyarrow: as it is when it has one kind of separator
and no padding (the usual file a tool writes), else once its whitespace runs
are squeezed to single spaces (and a run's text after its tag is cut);
comment lines are emptied first. Only when that fails is it read again line
by line in Python, which is the definition of what is accepted: it finds and
names the first bad line. Both ways read every file the same (the tests check
it); should the vectorised one ever refuse a file the line-by-line one
accepts, the line-by-line columns are used.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any, ClassVar, cast

import numpy as np

from contextgrid.core.errors import ContextGridError
from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.io.files import Source, numbered_lines
from contextgrid.io.formats import FORMATS, located

__all__ = ["TrecFormat"]

# What trec_eval's isspace() separates fields on; bytes.split() and bytes.strip() use exactly this set.
_TO_SPACES = bytes.maketrans(b"\t\r\v\f", b"    ")
_SPACE, _NEWLINE, _HASH = ord(" "), ord("\n"), ord("#")
# The isspace() bytes that do not end a line: what may come before a run comment's "#".
_BLANK = np.zeros(256, dtype=bool)
_BLANK[list(b" \t\r\v\f")] = True
# pyarrow's float parser accepts exactly this (checked against it in the tests): strtod without hex.
_NUMBER = re.compile(
    rb"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?|inf(?:inity)?|nan(?:\([0-9a-z_]*\))?)", re.IGNORECASE
)
_WHOLE = "[+-]?[0-9]+"
_WHOLE_BYTES = re.compile(_WHOLE.encode())
_INT64 = 1 << 63
_BOM = b"\xef\xbb\xbf"
_ANY_WHITESPACE = r"[ \t\n\r\v\f]"


def _score(token: bytes) -> float:
    if _NUMBER.fullmatch(token) is None:
        raise ValueError("a number such as 12.5, -3 or 1e-4")
    # float() reads what the pattern allows the same as pyarrow does, except NaN's payload spelling.
    return float("nan") if token.endswith(b")") else float(token)


def _grade(token: bytes) -> int:
    if _WHOLE_BYTES.fullmatch(token) is None:
        raise ValueError("a whole number such as 0, 1 or 2")
    value = int(token)
    if not -_INT64 <= value < _INT64:
        raise ValueError("a whole number that fits in 64 bits")
    return value


@dataclass(frozen=True)
class _Layout:
    """The fields of a line, and the one after ``docid`` that is read: a run's score or a qrels grade.

    ``rest_ignored``: the line may go on after its fields (a run's), else it
    has exactly those. ``indented_comments``: a comment's ``#`` may follow
    whitespace (a run's), else it is the line's first byte (qrels').
    """

    columns: tuple[str, ...]
    value: str
    kind: str
    parse: Callable[[bytes], float | int]
    rest_ignored: bool
    indented_comments: bool

    @property
    def described(self) -> str:
        more = f"; any after {self.columns[-1]} are ignored" if self.rest_ignored else ""
        return f"{len(self.columns)} whitespace-separated columns ({' '.join(self.columns)}{more})"

    def comment(self, raw: bytes) -> bool:
        """Whether the line ``raw`` is a comment, which is skipped."""
        return (raw.lstrip() if self.indented_comments else raw).startswith(b"#")


RUN = _Layout(("qid", "Q0", "docid", "rank", "score", "tag"), "score", "float64", _score, True, True)
QRELS = _Layout(("qid", "iter", "docid", "grade"), "grade", "int64", _grade, False, False)
_INDENTED_HASH = (
    "expected a comment line to start with '#' (trec_eval reads this line of qrels as a judged question named "
    "{qid!r}, which no run can answer)"
)
_LONE_CR = (
    "expected the text after the tag to hold no carriage return (\\r) but at the line's end (trec_eval ignores "
    "what follows the \\r, as a file with \\r line endings would have every line after its first ignored)"
)


def _shown(raw: bytes) -> str:
    return raw.decode("utf-8", errors="backslashreplace")


def _content(source: Source) -> bytes:
    """The file's bytes without a leading UTF-8 byte order mark, which pyarrow would drop anyway."""
    data = source.data
    return data[len(_BOM) :] if data.startswith(_BOM) else data


def _after_fields(raw: bytes, width: int) -> bytes:
    """What follows the first ``width`` fields of the line ``raw`` (``\\s`` is C's isspace() in a bytes pattern)."""
    return re.sub(rb"^\s*(?:\S+\s+){%d}\S+" % (width - 1), b"", raw, count=1)


def _read_lines(source: Source, data: bytes, layout: _Layout) -> Any:
    """The columns read line by line, refusing the file at its first bad line (the definition; slow)."""
    import pyarrow as pa

    width = len(layout.columns)
    value_at = layout.columns.index(layout.value)
    questions: list[str] = []
    chunks: list[str] = []
    values: list[float | int] = []
    for number, raw in numbered_lines(data):
        fields = raw.split()
        if not fields or layout.comment(raw):
            continue
        if fields[0].startswith(b"#"):
            raise source.error(number, _shown(raw), _INDENTED_HASH.format(qid=_shown(fields[0])))
        if len(fields) < width or (len(fields) > width and not layout.rest_ignored):
            raise source.error(number, _shown(raw), f"expected {layout.described}, got {len(fields)}")
        if len(fields) > width and b"\r" in _after_fields(raw, width).rstrip():
            raise source.error(number, _shown(raw), _LONE_CR)
        ids: list[str] = []
        for position, name in ((0, "qid"), (2, "docid")):
            try:
                ids.append(fields[position].decode("utf-8"))
            except UnicodeDecodeError:
                raise source.error(
                    number, _shown(raw), f"expected UTF-8 text in {name}, got undecodable bytes"
                ) from None
        try:
            value = layout.parse(fields[value_at])
        except ValueError as wanted:
            got = _shown(fields[value_at])
            raise source.error(number, _shown(raw), f"expected {layout.value} to be {wanted}, got {got!r}") from None
        questions.append(ids[0])
        chunks.append(ids[1])
        values.append(value)
    if not questions:
        # The file is not blank (Source.require_content): every line that is not is a comment.
        raise source.error(None, None, f"expected {layout.described} per line, got only comment lines")
    kind = pa.type_for_alias(layout.kind)
    return pa.table(
        {
            "qid": pa.array(questions, pa.string()),
            "docid": pa.array(chunks, pa.string()),
            layout.value: pa.array(values, kind),
        }
    )


def _lone_carriage_return(data: bytes) -> bool:
    """Whether a ``\\r`` in ``data`` is not followed by ``\\n``."""
    return b"\r" in data and data.count(b"\r") != data.count(b"\r\n")


def _separator(data: bytes) -> bytes | None:
    """The one byte that separates fields when pyarrow can parse ``data`` as it is, else ``None``.

    Runs of one separator, or one at either end of a line, leave an empty
    field, which :func:`_read_columns` refuses; what is checked here is only
    what pyarrow would split differently: both tabs and spaces, ``\\v`` or
    ``\\f``, and a ``\\r`` that does not end a line (pyarrow ends a line there).
    """
    separator = b"\t" if b"\t" in data else b" "
    if (separator == b"\t" and b" " in data) or b"\v" in data or b"\f" in data:
        return None
    if _lone_carriage_return(data):
        return None
    return separator


def _without(chars: Any, starts: Any, ends: Any) -> Any:
    """``chars`` less the bytes from each of ``starts`` up to its end in ``ends`` (ranges apart from each other)."""
    inside = np.zeros(len(chars) + 1, dtype=np.int8)
    inside[starts] = 1
    inside[ends] = -1
    return chars[np.cumsum(inside[:-1], dtype=np.int8) == 0]


def _line_ends(newlines: Any, size: int) -> Any:
    """Where each line ends: its ``\\n``, or the end of the file for a last line without one."""
    return np.append(newlines, size)


def _uncommented(data: bytes, layout: _Layout) -> bytes | None:
    """``data`` with each comment line emptied (its ``\\n`` kept, so lines keep their numbers), or ``None`` when
    a qrels line has a ``#`` after leading whitespace (:func:`_read_lines` says why)."""
    if b"#" not in data:
        return data
    chars = np.frombuffer(data, dtype=np.uint8)
    hashes = np.flatnonzero(chars == _HASH)
    # Only a "#" at a line's start or after whitespace can start a comment: one after other text (in an id such as
    # doc.md#3, on every line of many runs) cannot, and is not followed to its line.
    before = chars[np.maximum(hashes - 1, 0)]
    hashes = hashes[(hashes == 0) | _BLANK[before] | (before == _NEWLINE)]
    if not hashes.size:
        return data
    newlines = np.flatnonzero(chars == _NEWLINE)
    line = np.searchsorted(newlines, hashes)
    starts = np.append(0, newlines + 1)[line]
    # Each such line's first byte that is not whitespace (at the "#" at the latest): a step per byte of indent.
    first = starts.copy()
    moving = np.flatnonzero(_BLANK[chars[first]])
    while moving.size:
        first[moving] += 1
        moving = moving[_BLANK[chars[first[moving]]]]
    comment = first == hashes
    if not layout.indented_comments and (comment & (starts != hashes)).any():
        return None
    if not comment.any():
        return data
    return cast(bytes, _without(chars, starts[comment], _line_ends(newlines, len(chars))[line[comment]]).tobytes())


def _cut(squeezed: bytes, width: int) -> bytes | None:
    """``squeezed`` without what follows the ``width``-th field of each line (a run's text after its tag), or
    ``None`` when no line goes on after it."""
    chars = np.frombuffer(squeezed, dtype=np.uint8)
    spaces = np.flatnonzero(chars == _SPACE)
    newlines = np.flatnonzero(chars == _NEWLINE)
    line = np.searchsorted(newlines, spaces)
    # Each space's place among its line's spaces; the one after the width-th field starts what is cut.
    nth = np.arange(len(spaces)) - np.searchsorted(line, line)
    cut = nth == width - 1
    if not cut.any():
        return None
    return cast(bytes, _without(chars, spaces[cut], _line_ends(newlines, len(chars))[line[cut]]).tobytes())


def _squeezed(data: bytes) -> bytes:
    """``data`` with every whitespace run one space, none at either end of a line, and blank lines empty.

    ``data`` holds a byte that is not whitespace (:meth:`Source.require_content`).
    Masks over the bytes, as a regular expression replacing millions of runs is
    five times slower.
    """
    chars = np.frombuffer(data.translate(_TO_SPACES), dtype=np.uint8)
    # A space after a space, a line end or the start of the file goes: runs become one space, none leads a line.
    space = chars == _SPACE
    after = np.empty_like(space)
    after[0] = True
    after[1:] = space[:-1] | (chars[:-1] == _NEWLINE)
    chars = chars[~(space & after)]
    # Then the one space left before a line end or the end of the file.
    space = chars == _SPACE
    before = np.empty_like(space)
    before[-1] = True
    before[:-1] = chars[1:] == _NEWLINE
    return cast(bytes, chars[~(space & before)].tobytes())


def _parse(data: bytes, separator: bytes, layout: _Layout) -> Any | None:
    """pyarrow's columns of ``data``, or ``None`` when a line has another field count or an empty field."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv

    # Ids as UTF-8 strings; the unused fields as bytes, read only to see that none is empty.
    types = {name: pa.binary() for name in layout.columns} | {"qid": pa.string(), "docid": pa.string()}
    types[layout.value] = pa.float64() if layout.kind == "float64" else pa.string()
    block = 1 << 24
    try:
        table = pcsv.read_csv(
            pa.BufferReader(data),
            # One block is parsed on one thread anyway: pyarrow's pool would only hand the work over (and
            # compete with a workspace's own threads, each reading one file).
            read_options=pcsv.ReadOptions(
                column_names=list(layout.columns), block_size=block, use_threads=len(data) > block
            ),
            parse_options=pcsv.ParseOptions(
                delimiter=separator.decode(), quote_char=False, double_quote=False, escape_char=False
            ),
            convert_options=pcsv.ConvertOptions(column_types=types, null_values=[], strings_can_be_null=False),
        )
    except pa.ArrowInvalid:
        return None
    texts = [name for name, kind in types.items() if kind != pa.float64()]
    if any(pc.min(pc.binary_length(table.column(name))).as_py() == 0 for name in texts):
        return None
    return table


def _read_columns(data: bytes, layout: _Layout) -> Any | None:
    """The columns parsed by pyarrow, or ``None`` when it refuses the file (then :func:`_read_lines` says why)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    uncommented = _uncommented(data, layout)
    if uncommented is None or not uncommented or uncommented.isspace():
        return None  # an indented "#" in qrels, or a file of comments alone
    data = uncommented
    separator = _separator(data)
    table = None if separator is None else _parse(data, separator, layout)
    if table is None:
        squeezed = _squeezed(data)
        cut = _cut(squeezed, len(layout.columns)) if layout.rest_ignored else None
        if cut is not None and _lone_carriage_return(data):
            return None  # a \r in the text after a tag is refused, one before it is not: the lines tell which
        table = _parse(squeezed if cut is None else cut, b" ", layout)
    if table is None:
        return None
    if layout.kind == "float64":
        return table.select(["qid", "docid", layout.value])
    grades = table.column(layout.value)
    if not pc.all(pc.match_substring_regex(grades, f"^{_WHOLE}$")).as_py():
        return None
    try:
        # pyarrow's integer parser takes no "+" but does take hex, which the pattern above has ruled out.
        whole = pc.cast(pc.utf8_ltrim(grades, "+"), pa.int64())
    except pa.ArrowInvalid:
        return None
    return table.select(["qid", "docid"]).append_column(layout.value, whole)


def _read(source: Source, layout: _Layout) -> tuple[Any, Callable[[int], tuple[int, str]]]:
    """The file's qid, docid and value columns, and the line of each row for errors found in them later."""
    # The whole file is parsed anyway: read once, then checked for content (the same errors, in the same order).
    data = _content(source)
    source.require_content(f"{layout.described} per line")
    table = _read_columns(data, layout)
    if table is None:
        table = _read_lines(source, data, layout)

    def locate(row: int) -> tuple[int, str]:
        # Rows are the lines that are neither blank nor comments, in order.
        seen = -1
        for number, raw in numbered_lines(data):
            seen += bool(raw.strip()) and not layout.comment(raw)
            if seen == row:
                return number, _shown(raw)
        return 0, ""

    return table, locate


def _write_lines(lines: Any, out: IO[bytes]) -> None:
    """Write a string column whose values already end in newlines, straight from its buffers."""
    for chunk in lines.chunks:
        if len(chunk) == 0:
            continue
        buffers = chunk.buffers()
        offsets = np.frombuffer(buffers[1], dtype=np.int32)[chunk.offset : chunk.offset + len(chunk) + 1]
        out.write(memoryview(buffers[2])[int(offsets[0]) : int(offsets[-1])])


def _plain_ids(table: Any) -> tuple[Any, Any]:
    """Question and chunk ids as strings, refusing any that TREC's whitespace columns cannot hold."""
    import pyarrow as pa
    import pyarrow.compute as pc

    questions = table.column("question_id").cast(pa.string())
    chunks = table.column("chunk_id")
    for column, name in ((questions, "question id"), (chunks, "chunk id")):
        spaced = pc.match_substring_regex(column, _ANY_WHITESPACE)
        if pc.any(spaced).as_py():
            bad = column.filter(spaced)[0].as_py()
            raise ContextGridError(f"the {name} {bad!r} holds whitespace, so it cannot be written as TREC text")
    return questions, chunks


@FORMATS.register("trec")
class TrecFormat:
    """TREC run and qrels text, as trec_eval reads them."""

    name: ClassVar[str] = "trec"
    version: ClassVar[str] = "1"

    def read_run(self, source: Source) -> RunTable:
        table, locate = _read(source, RUN)
        with located(source, locate):
            return RunTable.from_columns(table.column("qid"), table.column("docid"), score=table.column("score"))

    def read_qrels(self, source: Source) -> QrelsTable:
        table, locate = _read(source, QRELS)
        with located(source, locate):
            return QrelsTable.from_columns(table.column("qid"), table.column("docid"), table.column("grade"))

    def write_run(self, run: RunTable, out: IO[bytes], *, tag: str) -> None:
        import pyarrow as pa
        import pyarrow.compute as pc

        questions, chunks = _plain_ids(run.table)
        ranks = run.table.column("rank")
        if run.has_scores:
            scores = run.table.column("score")
        else:
            # TREC needs a score and trec_eval ranks by it: count down so the order read back is the same.
            codes = np.concatenate([c.indices.to_numpy() for c in run.table.column("question_id").chunks])
            sizes = np.diff(run.starts)[codes] if len(codes) else np.zeros(0, dtype=np.int64)
            scores = pa.array(sizes - ranks.to_numpy() + 1)
        lines = pc.binary_join_element_wise(
            questions, "Q0", chunks, pc.cast(ranks, pa.string()), pc.cast(scores, pa.string()), f"{tag}\n", " "
        )
        _write_lines(pa.chunked_array([lines]) if isinstance(lines, pa.Array) else lines, out)

    def write_qrels(self, qrels: QrelsTable, out: IO[bytes]) -> None:
        import pyarrow as pa
        import pyarrow.compute as pc

        questions, chunks = _plain_ids(qrels.table)
        grades = pc.binary_join_element_wise(pc.cast(qrels.table.column("grade"), pa.string()), "", "\n")
        lines = pc.binary_join_element_wise(questions, "0", chunks, grades, " ")
        _write_lines(pa.chunked_array([lines]) if isinstance(lines, pa.Array) else lines, out)
