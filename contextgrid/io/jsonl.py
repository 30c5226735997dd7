"""JSON Lines files: one object per line, ``{"question_id", "chunk_id", "rank", "score"}`` for a run and
``{"question_id", "chunk_id", "grade"}`` for qrels (other spellings: see :mod:`contextgrid.io.named`).

Parsed by pyarrow with the column types fixed from the first line's keys;
when that fails, each line is checked in Python to name the first bad one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from numbers import Real
from typing import IO, Any, ClassVar

from contextgrid.core.checks import is_whole
from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.io.files import Source
from contextgrid.io.formats import FORMATS
from contextgrid.io.named import ALIASES, qrels_from_named, run_from_named

__all__ = ["JsonlFormat", "json_objects"]


def json_objects(source: Source, expected: str) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """(line number, line, object) for every non-blank line, refusing one that is not a JSON object."""
    source.require_content(expected)
    for number, line in source.text_lines():
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            raise source.error(number, line, f"expected {expected}, got invalid JSON ({error.msg})") from None
        if not isinstance(value, dict):
            raise source.error(number, line, f"expected {expected}, got a JSON {type(value).__name__}")
        yield number, line, value


def _field_types(source: Source, fields: tuple[str, ...]) -> dict[str, Any]:
    """pyarrow types for the columns the first line names, keyed by the spelling the file uses."""
    import pyarrow as pa

    first = next(json_objects(source, "a JSON object per line"))[2]
    kinds = {
        "question_id": pa.string(),
        "chunk_id": pa.string(),
        "rank": pa.int64(),
        "score": pa.float64(),
        "grade": pa.int64(),
    }
    return {name: kinds[field] for field in fields for name in ALIASES[field] if name in first}


def _check_line(source: Source, number: int, line: str, value: dict[str, Any], types: dict[str, Any]) -> None:
    import pyarrow as pa

    for name, kind in types.items():
        item = value.get(name)
        if item is None:
            continue
        if pa.types.is_string(kind):
            fits = isinstance(item, str)
            wanted = "text"
        else:
            whole = pa.types.is_integer(kind)
            fits = is_whole(item) if whole else isinstance(item, Real) and not isinstance(item, bool)
            wanted = "a whole number" if whole else "a number"
        if not fits:
            raise source.error(number, line, f"expected {name!r} to be {wanted}, got {json.dumps(item)}")


def _parse(source: Source, fields: tuple[str, ...]) -> Any:
    import pyarrow as pa
    import pyarrow.json as pajson

    types = _field_types(source, fields)
    options = pajson.ParseOptions(explicit_schema=pa.schema(types), unexpected_field_behavior="ignore")
    try:
        return pajson.read_json(
            source.stream(), read_options=pajson.ReadOptions(block_size=1 << 24), parse_options=options
        )
    except pa.ArrowInvalid as error:
        source.check_utf8()
        for number, line, value in json_objects(source, "a JSON object per line"):
            _check_line(source, number, line, value, types)
        raise source.error(None, None, f"expected a JSON object per line ({error})") from None


def _dumps(rows: Iterator[dict[str, Any]], out: IO[bytes]) -> None:
    out.writelines((json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8") for row in rows)


@FORMATS.register("jsonl")
class JsonlFormat:
    """One JSON object per line, one line per (question, chunk)."""

    name: ClassVar[str] = "jsonl"
    version: ClassVar[str] = "1"

    def read_run(self, source: Source) -> RunTable:
        table = _parse(source, ("question_id", "chunk_id", "rank", "score"))
        return run_from_named(table, source, source.line_of_row)

    def read_qrels(self, source: Source) -> QrelsTable:
        table = _parse(source, ("question_id", "chunk_id", "grade"))
        return qrels_from_named(table, source, source.line_of_row)

    def write_run(self, run: RunTable, out: IO[bytes], *, tag: str) -> None:
        columns = run.table.select(["chunk_id", "rank", "score"]).to_pydict()
        questions = run.table.column("question_id").cast("string").to_pylist()
        keep_scores = run.has_scores
        _dumps(
            (
                {"question_id": question, "chunk_id": chunk, "rank": rank} | ({"score": score} if keep_scores else {})
                for question, chunk, rank, score in zip(
                    questions, columns["chunk_id"], columns["rank"], columns["score"], strict=True
                )
            ),
            out,
        )

    def write_qrels(self, qrels: QrelsTable, out: IO[bytes]) -> None:
        columns = qrels.table.select(["chunk_id", "grade"]).to_pydict()
        questions = qrels.table.column("question_id").cast("string").to_pylist()
        _dumps(
            (
                {"question_id": question, "chunk_id": chunk, "grade": grade}
                for question, chunk, grade in zip(questions, columns["chunk_id"], columns["grade"], strict=True)
            ),
            out,
        )
