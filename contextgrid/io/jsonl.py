"""JSON Lines files: one object per line, ``{"question_id", "chunk_id", "rank", "score"}`` for a run and
``{"question_id", "chunk_id", "grade"}`` for qrels (other spellings: see :mod:`contextgrid.io.named`).

A column is there when any line gives it (under the spelling the first line uses): a line without it has
no value there, which the table refuses, naming the line. A whole-number id is read as its digits, as in
every format; any other id that is not a string is refused. pyarrow parses the file, each id typed as the
first line types it; when that fails (a bad line, or ids typed differently on different lines), each line
is parsed and checked in Python instead.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from itertools import chain
from numbers import Real
from typing import IO, Any, ClassVar

from contextgrid.core.checks import is_whole
from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.io.files import Source
from contextgrid.io.formats import FORMATS
from contextgrid.io.named import ALIASES, qrels_from_named, run_from_named

__all__ = [
    "MAX_SHOWN_DEPTH",
    "JsonlFormat",
    "RepeatedKeyError",
    "deep_line",
    "flat_objects",
    "json_objects",
    "lone_surrogate",
    "surrogate_message",
    "unique_keys",
]

EXPECTED = "a JSON object per line"


MAX_SHOWN_DEPTH = 100
"""How deep a refused JSON value is said to nest, at the line where it first does: Python's parser stops near its
recursion limit (about 1,000 levels), and no run, qrels or question nests more than a few."""


class RepeatedKeyError(ValueError):
    """A JSON object gives ``key`` twice (Python's ``json`` would keep the last value silently)."""

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(key)


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's pairs as a dict, refusing a key given twice: ``json.loads``'s ``object_pairs_hook``."""
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        raise RepeatedKeyError(next(key for key, _ in pairs if key in seen or seen.add(key)))  # type: ignore[func-returns-value]
    return value


_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def deep_line(text: str, depth: int = MAX_SHOWN_DEPTH) -> int | None:
    """The 1-based line of ``text`` where JSON brackets first nest more than ``depth`` deep (strings skipped), if
    they do: where a value too deep to parse is. Only a refused file is scanned so.

    Examples
    --------
    >>> deep_line('{"a": 1,\\n "b": "[[[", "c": [[[1]]]}', depth=3)
    2
    """
    level = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            level += 1
            if level > depth:
                return text.count("\n", 0, match.start()) + 1
        elif token in "]}":
            level -= 1
    return None


def lone_surrogate(value: Any) -> str | None:
    """The first lone surrogate in the strings (keys included) of parsed JSON ``value``, if any: JSON's
    ``\\ud800`` escape gives one, which is half a character, and which UTF-8, pyarrow and every output refuse.

    Examples
    --------
    >>> lone_surrogate(json.loads('{"a": ["ok \\\\ud83d\\\\ude00", "half \\\\ud800"]}'))
    '\\ud800'
    >>> lone_surrogate({"a": "fine"}) is None
    True
    """
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as error:
            return value[error.start]
        return None
    items = (*value.keys(), *value.values()) if isinstance(value, dict) else value
    for item in items if isinstance(items, (list, tuple)) else ():
        found = lone_surrogate(item)
        if found is not None:
            return found
    return None


def surrogate_message(expected: str, found: str) -> str:
    """What a reader says of a lone surrogate ``found`` where it expected ``expected``."""
    return (
        f"expected {expected}, got the escape of half a character, \\u{ord(found):04x} (a lone surrogate), "
        "which no text can hold"
    )


_DECODER = json.JSONDecoder(object_pairs_hook=unique_keys)
"""``json.loads(line, object_pairs_hook=unique_keys)``'s decoder, made once: ``json.loads`` makes one per call,
half the time of reading a short line."""


# The stubs do not declare the attribute JSONDecoder.__init__ sets.
_SCAN: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]
"""The decoder's own scanner, which reads one value from where it is told, in C."""


def _decoded(line: str) -> Any:
    # json.loads's own refusal of a leading BOM, which the decoder it calls does not make.
    if line.startswith("\ufeff"):
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", line, 0)
    # The common line, one value from its first character to its last, read by the scanner alone; any other
    # (blanks around it, no value, more after it) by the decoder, which skips the blanks or words the refusal.
    try:
        value, end = _SCAN(line, 0)
    except StopIteration:
        return _DECODER.decode(line)
    return value if end == len(line) else _DECODER.decode(line)


def json_objects(source: Source, expected: str) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """(line number, line, object) for every non-blank line, refusing one that is not a JSON object, that gives a
    key twice or that nests too deeply for the parser."""
    source.require_content(expected)
    for number, line in source.text_lines():
        try:
            value = _decoded(line)
        except json.JSONDecodeError as error:
            raise source.error(number, line, f"expected {expected}, got invalid JSON ({error.msg})") from None
        except RepeatedKeyError as error:
            raise source.error(number, line, f"expected each key once in an object, got {error.key!r} twice") from None
        except RecursionError:
            raise source.error(
                number, line, f"expected {expected}, got JSON nested too deeply to read (past {MAX_SHOWN_DEPTH} levels)"
            ) from None
        if not isinstance(value, dict):
            raise source.error(number, line, f"expected {expected}, got a JSON {type(value).__name__}")
        # Only a line with an escape can hold a surrogate: the common line is not walked.
        if "\\u" in line and (found := lone_surrogate(value)) is not None:
            raise source.error(number, line, surrogate_message(expected, found))
        yield number, line, value


_UNLED_LINE = re.compile(rb"\n(?!\{)")
"""A line end not followed by a brace: a next line that is not one object from its first character (or no line)."""

_ESCAPE_U = re.compile(rb"\\u")
"""A ``\\u`` escape (or text that reads like one), the only way JSON spells a surrogate; a regular expression finds
it three times faster than ``in``."""


_BLOCK = 1 << 24
"""How many bytes of lines :func:`flat_objects` parses in one call (and the rest of the line it stops in): a block is
copied three times on its way to the parser, a whole file would be."""


def flat_objects(source: Source) -> list[dict[str, Any]] | None:
    """The objects :func:`json_objects` yields, in order, when each line is one JSON object from its first
    character that holds no object or list (and no line is blank, so line ``n`` holds the ``n``-th): 16 MiB of
    lines parsed in one call, which shares the keys' strings among the lines and makes no call per line. None when
    any line is otherwise, for :func:`json_objects` to read line by line and refuse what it refuses.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> path = Path(tempfile.mkdtemp()) / "rows.jsonl"
    >>> _ = path.write_text('{"id": "c1", "start": 0}\\n{"id": "c2", "start": 7}\\n')
    >>> flat_objects(Source(path))
    [{'id': 'c1', 'start': 0}, {'id': 'c2', 'start': 7}]
    >>> _ = path.write_text('{"id": "c1", "meta": {"page": 1}}\\n')
    >>> flat_objects(Source(path)) is None
    True
    """
    data = source.data
    # The last line's end ends no line after it: the search and the parse stop before it.
    end = len(data) - data.endswith(b"\n")
    # A JSON string holds no line end, so each line starts outside one: with every line led by a brace and no
    # object holding another, each of those braces opens an object that closes before the next line's opens, and
    # as many values as lines leaves nothing else on a line but blanks.
    if not data.startswith(b"{") or _UNLED_LINE.search(data, 0, end):
        return None
    values: list[dict[str, Any]] = []
    start = 0
    while start < end:
        # A block of whole lines at a time, so that what is copied on the way to the parser stays small.
        stop = data.find(b"\n", start + _BLOCK, end)
        block = data[start : end if stop < 0 else stop]
        replaced = block.replace(b"\n", b",\n")
        try:
            parsed = _DECODER.decode(b"".join((b"[", replaced, b"]")).decode("utf-8"))
        except (ValueError, RecursionError):
            return None
        if len(parsed) != len(replaced) - len(block) + 1 or set(map(type, parsed)) != {dict}:
            return None
        values += parsed
        start += len(block) + 1
    if not {dict, list}.isdisjoint(map(type, chain.from_iterable(map(dict.values, values)))):
        return None
    # Only a file with an escape can hold a surrogate: the common file is not walked.
    if _ESCAPE_U.search(data) and lone_surrogate(values) is not None:
        return None
    return values


def _is_id(item: object) -> bool:
    return isinstance(item, str) or is_whole(item)


def _is_number(item: object) -> bool:
    return isinstance(item, Real) and not isinstance(item, bool)


def _is_int64(item: object) -> bool:
    return is_whole(item) and -(2**63) <= item < 2**63


# For each field: what its values must be, said as the message says it, and the check.
_VALUES: dict[str, tuple[str, Callable[[object], bool]]] = {
    "question_id": ("text or a whole number", _is_id),
    "chunk_id": ("text or a whole number", _is_id),
    "rank": ("a whole number that fits in 64 bits", _is_int64),
    "score": ("a number", _is_number),
    "grade": ("a whole number that fits in 64 bits", _is_int64),
}


def _field_types(source: Source, fields: tuple[str, ...]) -> tuple[dict[str, Any], set[str]]:
    """pyarrow types for the columns of ``fields``: each field under the spellings the first line uses (all
    of them when it has none), an id an int64 where the first line gives a whole number; and the spellings the
    first line gives (a value there, even null, makes a column).

    A later line spelling a field differently lacks the first line's spelling, so it is refused as missing
    the value; parsing every spelling of every field would make the common file a third slower to read.
    """
    import pyarrow as pa

    first = next(json_objects(source, EXPECTED))[2]
    kinds = {"rank": pa.int64(), "score": pa.float64(), "grade": pa.int64()}
    types = {}
    for field in fields:
        names = [name for name in ALIASES[field] if name in first] or list(ALIASES[field])
        for name in names:
            types[name] = kinds[field] if field in kinds else pa.int64() if is_whole(first.get(name)) else pa.string()
    return types, {name for name in types if name in first}


def _by_line(source: Source, types: dict[str, Any]) -> Any:
    """The columns of ``types``, read line by line in Python; the first value of the wrong kind is refused."""
    import pyarrow as pa

    source.check_utf8()
    checks = {name: _VALUES[field] for field, names in ALIASES.items() for name in names if name in types}
    columns: dict[str, list[Any]] = {name: [] for name in checks}
    for number, line, value in json_objects(source, EXPECTED):
        for name, (wanted, fits) in checks.items():
            item = value.get(name)
            if item is not None and not fits(item):
                raise source.error(number, line, f"expected {name!r} to be {wanted}, got {json.dumps(item)}")
            columns[name].append(item)
    # Ids typed differently on different lines are all text: a whole number is read as its digits.
    ids = {name for field in ("question_id", "chunk_id") for name in ALIASES[field]}
    arrays = {}
    for name, column in columns.items():
        if name in ids:
            arrays[name] = pa.array([None if item is None else str(item) for item in column], type=pa.string())
            continue
        try:
            arrays[name] = pa.array(column, type=types[name])
        except (pa.ArrowInvalid, OverflowError) as error:
            raise source.error(None, None, f"expected {name!r} to fit in {types[name]} ({error})") from None
    return pa.table(arrays)


def _parse(source: Source, fields: tuple[str, ...]) -> Any:
    """The columns of every spelling of ``fields`` that some line gives a value."""
    import pyarrow as pa
    import pyarrow.json as pajson

    types, given = _field_types(source, fields)
    options = pajson.ParseOptions(explicit_schema=pa.schema(types), unexpected_field_behavior="ignore")
    try:
        table = pajson.read_json(
            source.stream(), read_options=pajson.ReadOptions(block_size=1 << 24), parse_options=options
        )
    except pa.ArrowInvalid:
        table = _by_line(source, types)
    # A spelling no line gives is no column: the explicit schema made it one of nulls. One the first line gives is
    # a column, its nulls refused with their lines (``"question_id": null`` is a missing value, not a missing column).
    return table.select(
        [name for name in table.column_names if name in given or table.column(name).null_count < table.num_rows]
    )


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
