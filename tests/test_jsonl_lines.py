"""json_objects, which reads each line of a JSON Lines file with the decoder's scanner where it can, against
json.loads of each line: the same objects, and the same refusal at the same line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextgrid.core.errors import InputFileError
from contextgrid.io.files import Source
from contextgrid.io.jsonl import RepeatedKeyError, json_objects, unique_keys

# Pieces of JSON, right and wrong: blanks before and after a value, text after it, a key twice, a lone surrogate,
# a byte order mark, values that are not objects.
PIECES = st.sampled_from(
    [
        *["{", "}", "[", "]", '"a"', '"b"', ":", ",", " ", "\t", "1", "-", "0.5", "true", "null", "NaN", "x", "\ufeff"],
        *['"\\u00e9"', '"\\ud800"', '{"a": 1}', '{"a": 1, "a": 2}', '{"a": {"b": [1, {"c": null}]}}'],
    ]
)


def reference(lines: list[str]) -> tuple[str, Any]:
    """Each non-blank line by json.loads: the objects, or the first line refused and why, as the readers say it."""
    found = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line, object_pairs_hook=unique_keys)
        except json.JSONDecodeError as error:
            return "refused", (number, f"got invalid JSON ({error.msg})")
        except RepeatedKeyError as error:
            return "refused", (number, f"got {error.key!r} twice")
        if not isinstance(value, dict):
            return "refused", (number, f"got a JSON {type(value).__name__}")
        if "\\u" in line and "\\ud800" in line:
            return "refused", (number, "a lone surrogate")
        found.append(value)
    return "read", found


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(PIECES, max_size=8).map("".join), max_size=5))
def test_each_line_is_what_json_loads_makes_of_it(tmp_path: Path, lines: list[str]) -> None:
    # A first object, so that the file is never empty.
    lines = ['{"first": 0}', *lines]
    path = tmp_path / "lines.jsonl"
    path.write_bytes("\n".join(lines).encode("utf-8"))
    kind, expected = reference(lines)
    try:
        got: Any = [value for _, _, value in json_objects(Source(path), "a JSON object per line")]
        found = "read"
    except InputFileError as error:
        got, found = str(error), "refused"
    assert found == kind, got
    if kind == "read":
        assert got == expected
    else:
        number, words = expected
        assert f"line {number}" in got
        assert words in got
