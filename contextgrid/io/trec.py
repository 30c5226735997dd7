"""TREC text files: runs as ``qid Q0 docid rank score tag``, qrels as ``qid iter docid grade``.

Columns are separated by whitespace. As in trec_eval, a run's ``Q0``,
``rank`` and ``tag`` columns are checked but not used: rows are ranked by
``score`` descending, ties broken by ``docid`` descending (trec_eval's
``comp_sim_docno`` in ``form_res_rels.c``). The ``iter`` column of qrels is
ignored too. Grades below 0 (trec_eval's "judged but not in the pool") are
refused: a grade here is 0 or more.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import IO, Any, ClassVar

import numpy as np

from contextgrid.core.errors import ContextGridError
from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.io.files import Source
from contextgrid.io.formats import FORMATS, located

__all__ = ["TrecFormat"]

RUN_LAYOUT = ("qid", "Q0", "docid", "rank", "score", "tag")
QRELS_LAYOUT = ("qid", "iter", "docid", "grade")
_SAMPLE = 1 << 16
_RUNS_OF_BLANKS = re.compile(rb"[ \t]+")
_EDGE_BLANKS = re.compile(rb"(?m)^[ \t]+|[ \t]+(?=\r?$)")


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


Check = tuple[str, str, Callable[[str], bool]]


def _find_bad_line(source: Source, layout: tuple[str, ...], checks: dict[str, Check]) -> None:
    """Raise the error for the first line that does not fit ``layout`` (the slow path, for errors only)."""
    described = f"{len(layout)} whitespace-separated columns ({' '.join(layout)})"
    for number, line in source.text_lines():
        fields = line.split()
        if len(fields) != len(layout):
            raise source.error(number, line, f"expected {described}, got {len(fields)}")
        for position, (column, wanted, check) in checks.items():
            value = fields[int(position)]
            if not check(value):
                raise source.error(number, line, f"expected {column} to be {wanted}, got {value!r}")


def _read_columns(source: Source, layout: tuple[str, ...], types: dict[str, Any], checks: dict[str, Check]) -> Any:
    """Parse the columns named in ``types`` with pyarrow, refusing the file at its first bad line."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    source.require_content(f"{len(layout)} whitespace-separated columns ({' '.join(layout)}) per line")
    sample = source.sample(_SAMPLE)
    read = pcsv.ReadOptions(column_names=list(layout), block_size=1 << 24)
    convert = pcsv.ConvertOptions(
        column_types=types, include_columns=list(types), null_values=[], strings_can_be_null=False
    )

    def parse(stream: Any, delimiter: str) -> Any:
        options = pcsv.ParseOptions(delimiter=delimiter, quote_char=False, double_quote=False, escape_char=False)
        return pcsv.read_csv(stream, read_options=read, parse_options=options, convert_options=convert)

    try:
        return parse(source.stream(), "\t" if b"\t" in sample else " ")
    except pa.ArrowInvalid:
        pass
    # Tabs and spaces mixed, or runs of them: squeeze every run into one space, then parse again.
    squeezed = _RUNS_OF_BLANKS.sub(b" ", _EDGE_BLANKS.sub(b"", source.data))
    try:
        return parse(pa.BufferReader(squeezed), " ")
    except pa.ArrowInvalid as error:
        source.check_utf8()
        _find_bad_line(source, layout, checks)
        raise source.error(None, None, f"expected {' '.join(layout)} per line ({error})") from None


def _locate(source: Source) -> Callable[[int], tuple[int, str]]:
    return lambda row: source.line_of_row(row)


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
        spaced = pc.match_substring_regex(column, r"\s")
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
        import pyarrow as pa

        types = {"qid": pa.string(), "docid": pa.string(), "rank": pa.int64(), "score": pa.float64()}
        checks: dict[str, Check] = {"3": ("rank", "a whole number", _is_int), "4": ("score", "a number", _is_float)}
        table = _read_columns(source, RUN_LAYOUT, types, checks)
        with located(source, _locate(source)):
            return RunTable.from_columns(table.column("qid"), table.column("docid"), score=table.column("score"))

    def read_qrels(self, source: Source) -> QrelsTable:
        import pyarrow as pa

        types = {"qid": pa.string(), "docid": pa.string(), "grade": pa.int64()}
        checks: dict[str, Check] = {"3": ("grade", "a whole number", _is_int)}
        table = _read_columns(source, QRELS_LAYOUT, types, checks)
        with located(source, _locate(source)):
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
