"""read_answer_columns against the record reader as first written (the slow obvious reference below): the same
answers, the same lines kept, and every refusal worded the same, on generated files and on each refusal by hand."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from contextgrid.answering.batch import score_frame, summarize_answers
from contextgrid.core.errors import InputFileError, InvalidParameterError
from contextgrid.data.provenance import SourceLine
from contextgrid.data.records import Answer, AnswerRecord
from contextgrid.io import read_answers
from contextgrid.io.answers import AnswerColumns, read_answer_columns
from contextgrid.io.files import DEFAULT_MAX_LINE_BYTES, Source
from contextgrid.io.jsonl import json_objects
from contextgrid.workspace.answers import resolved_items, workspace_answers_frame, workspace_summary
from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.sample import SAMPLE


def reference_answers(path: Path, **limits: Any) -> tuple[AnswerRecord, ...]:
    """read_answers as it was before the columns: a checked record per line, each check in turn."""
    limits.setdefault("max_line_bytes", DEFAULT_MAX_LINE_BYTES)
    source = Source(path, **limits)
    records: dict[str, AnswerRecord] = {}
    expected = 'a JSON object {"question_id", "answer", "citations", "context_chunk_ids"} per line'
    for number, line, value in json_objects(source, expected):
        question_id, text = value.get("question_id"), value.get("answer")
        citations, context = value.get("citations", []), value.get("context_chunk_ids", [])
        if not isinstance(question_id, str) or not question_id:
            raise source.error(number, line, f"expected 'question_id' to be a non-empty string, got {question_id!r}")
        if not isinstance(text, str):
            raise source.error(number, line, f"expected 'answer' to be a string, got {text!r}")
        if not isinstance(citations, list) or not all(
            isinstance(c, int) and not isinstance(c, bool) and c >= 1 for c in citations
        ):
            raise source.error(
                number, line, f"expected 'citations' to be a list of passage numbers, 1 or more, got {citations!r}"
            )
        if not isinstance(context, list) or not all(isinstance(c, str) and c for c in context):
            raise source.error(number, line, f"expected 'context_chunk_ids' to be a list of chunk ids, got {context!r}")
        if question_id in records:
            raise source.error(number, line, f"expected one answer per question, got {question_id!r} again")
        where = SourceLine(source.shown, number, line)
        records[question_id] = AnswerRecord(question_id, Answer(text, tuple(citations)), tuple(context), where)
    return tuple(records.values())


def outcome(reader: Any, path: Path, **limits: Any) -> tuple[str, Any]:
    """What ``reader`` gives: its answers as (record, line kept) pairs, or the words of its refusal."""
    try:
        found = reader(path, **limits)
    except InputFileError as error:
        return "refused", str(error)
    records = found.records() if isinstance(found, AnswerColumns) else found
    return "read", [(record, record.source) for record in records]


def same_as_the_reference(path: Path, **limits: Any) -> tuple[str, Any]:
    expected = outcome(reference_answers, path, **limits)
    assert outcome(read_answer_columns, path, **limits) == expected
    assert outcome(read_answers, path, **limits) == expected
    return expected


# Values a field may be given: right ones, and every kind of wrong one (bool, float, null, empty, nested, huge).
VALUES: st.SearchStrategy[Any] = st.one_of(
    st.text(alphabet="q1 é\u2028\\\"'", max_size=4),
    st.integers(-2, 3),
    st.sampled_from([True, False, None, 1.0, 2**63, 2**70, [], {}, "", [1, True], ["c1", ""]]),
    st.lists(st.integers(-1, 4), max_size=3),
    st.lists(st.sampled_from(["c1", "c2", "", "é"]), max_size=3),
)
FIELDS = ("question_id", "answer", "citations", "context_chunk_ids", "extra")


@st.composite
def answer_lines(draw: st.DrawFn) -> str:
    """One line: mostly a good answer, sometimes a field wrong, missing, repeated, or the line not an object."""
    kind = draw(st.sampled_from(["good", "good", "good", "field", "raw"]))
    if kind == "raw":
        return draw(
            st.sampled_from(
                [
                    "",
                    "   ",
                    "[1]",
                    "{",
                    '{"question_id": "q1", "answer": "a"} x',
                    '{"question_id": "q1", "question_id": "q2", "answer": "a"}',
                    '{"question_id": "q\\ud800", "answer": "a"}',
                    '{"question_id": "q9", "answer": "a", "extra": NaN}',
                    "\ufeff{}",
                    '{"question_id": "q9", "answer": "a", "extra": ' + "[" * 2000 + "]" * 2000 + "}",
                ]
            )
        )
    value: dict[str, Any] = {
        "question_id": draw(st.sampled_from(["q1", "q2", "q3", "q4", "é"])),
        "answer": draw(st.text(alphabet="ab [1]\u00e9", max_size=8)),
    }
    if draw(st.booleans()):
        value["citations"] = draw(st.lists(st.integers(1, 5), max_size=3))
    if draw(st.booleans()):
        value["context_chunk_ids"] = draw(st.lists(st.sampled_from(["c1", "c2", "c3"]), max_size=3, unique=True))
    if kind == "field":
        field = draw(st.sampled_from(FIELDS))
        if draw(st.booleans()):
            value.pop(field, None)
        else:
            value[field] = draw(VALUES)
    return json.dumps(value, ensure_ascii=draw(st.booleans()))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(answer_lines(), max_size=6), st.sampled_from(["\n", "\r\n"]))
def test_the_columns_are_the_reference_records_or_its_refusal(tmp_path: Path, lines: list[str], end: str) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_bytes(end.join(lines).encode("utf-8", errors="surrogatepass"))
    kind, found = same_as_the_reference(path)
    event(kind)
    if kind == "read":
        columns = read_answer_columns(path)
        records = [record for record, _ in found]
        # The flat columns, offsets and lines are the records' fields, in order.
        assert columns.question_id.tolist() == [record.question_id for record in records]
        assert columns.text.tolist() == [record.answer.text for record in records]
        assert columns.citation.tolist() == [c for record in records for c in record.answer.citations]
        assert columns.chunk_id.tolist() == [c for record in records for c in record.context_chunk_ids]
        assert np.diff(columns.chunk_offsets).tolist() == [len(record.context_chunk_ids) for record in records]
        assert columns.citations() == [record.answer.citations for record in records]
        assert columns.line.tolist() == [where.line for _, where in found]
        assert [columns.where(row) for row in range(len(columns))] == [where for _, where in found]


GOOD = [
    json.dumps(
        {"question_id": f"g{i}", "answer": f"a [{i % 3 + 1}].", "citations": [i % 3 + 1], "context_chunk_ids": ["c1"]}
    )
    for i in range(40)
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 40), st.lists(answer_lines(), min_size=1, max_size=4), st.integers(0, 40))
def test_the_first_wrong_line_is_found_among_many_right_ones(
    tmp_path: Path, before: int, lines: list[str], after: int
) -> None:
    # The first wrong line is sought by halving the rows: anywhere among right ones, however many follow it.
    path = tmp_path / "answers.jsonl"
    path.write_bytes("\n".join(GOOD[:before] + lines + GOOD[40 - after :]).encode("utf-8", errors="surrogatepass"))
    event(same_as_the_reference(path)[0])


# A line that breaks each rule (and those before it none), and the words for it.
BROKEN = {
    "question_id": (
        '{"question_id": 7, "answer": 3, "citations": "1"}',
        "expected 'question_id' to be a non-empty string, got 7",
    ),
    "answer": ('{"question_id": "q", "answer": null, "citations": 1}', "expected 'answer' to be a string, got None"),
    "citations": (
        '{"question_id": "q", "answer": "a", "citations": 1, "context_chunk_ids": "c1"}',
        "expected 'citations' to be a list of passage numbers, 1 or more, got 1",
    ),
    "citations in a list": (
        '{"question_id": "q", "answer": "a", "citations": [2, 0], "context_chunk_ids": "c1"}',
        "expected 'citations' to be a list of passage numbers, 1 or more, got [2, 0]",
    ),
    "a citation past 64 bits": (
        f'{{"question_id": "q", "answer": "a", "citations": [2, {2**63}], "context_chunk_ids": "c1"}}',
        f"expected 'citations' to be passage numbers up to 2**63 - 1 (no context holds more), got [2, {2**63}]",
    ),
    "context_chunk_ids": (
        '{"question_id": "q", "answer": "a", "citations": [1], "context_chunk_ids": "c1"}',
        "expected 'context_chunk_ids' to be a list of chunk ids, got 'c1'",
    ),
    "chunk ids in a list": (
        '{"question_id": "q", "answer": "a", "context_chunk_ids": ["c1", 2]}',
        "expected 'context_chunk_ids' to be a list of chunk ids, got ['c1', 2]",
    ),
    "one answer per question": (
        '{"question_id": "g0", "answer": "a"}',
        "expected one answer per question, got 'g0' again",
    ),
}


@pytest.mark.parametrize("rule", BROKEN)
def test_each_rule_is_worded_the_same_wherever_its_line_is(tmp_path: Path, rule: str) -> None:
    # Its line first, after right lines, before lines that break a rule or are not JSON, one of many: the words the
    # same, for the one line. (A line whose citations are not a list, or that is not JSON, once sent the reader back
    # over the file line by line, with a second copy of the rules.)
    line, words = BROKEN[rule]
    path = tmp_path / "answers.jsonl"
    other = BROKEN["answer"][0] if rule != "answer" else BROKEN["question_id"][0]
    for lines in (
        [GOOD[0], line],
        [GOOD[0], line, other],
        [GOOD[0], line, "{not json"],
        [*GOOD[:30], line, *GOOD[30:]],
        [GOOD[0], "", line, "[1]"],
    ):
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        number = lines.index(line) + 1
        for reader in (read_answer_columns, read_answers):
            with pytest.raises(InputFileError) as caught:
                reader(path)
            assert str(caught.value) == f"{path}, line {number}: {words}: {line!r}", lines


def test_the_hand_written_refusals_are_worded_as_the_reference_words_them(tmp_path: Path) -> None:
    good = '{"question_id": "q1", "answer": "a [1].", "citations": [1], "context_chunk_ids": ["c1"]}'
    cases = {
        "bad JSON": f"{good}\n{{not json\n",
        "not an object": f"{good}\n[1, 2]\n",
        "a key twice": '{"question_id": "q1", "answer": "a", "answer": "b"}\n',
        "a lone surrogate": '{"question_id": "q1", "answer": "\\udc00"}\n',
        "a byte order mark": f"{good}\n\ufeff{good}\n",
        "nested too deeply": '{"question_id": "q1", "answer": "a", "x": ' + "[" * 5000 + "]" * 5000 + "}\n",
        "no question id": '{"answer": "a"}\n',
        "an empty question id": '{"question_id": "", "answer": "a"}\n',
        "a number for an id": '{"question_id": 7, "answer": "a"}\n',
        "no answer": '{"question_id": "q1"}\n',
        "a null answer": '{"question_id": "q1", "answer": null}\n',
        "a citation of 0": '{"question_id": "q1", "answer": "a", "citations": [0]}\n',
        "a true citation": '{"question_id": "q1", "answer": "a", "citations": [true]}\n',
        "a fractional citation": '{"question_id": "q1", "answer": "a", "citations": [1.0]}\n',
        "citations not a list": '{"question_id": "q1", "answer": "a", "citations": 1}\n',
        "an empty chunk id": '{"question_id": "q1", "answer": "a", "context_chunk_ids": ["c1", ""]}\n',
        "a number for a chunk id": '{"question_id": "q1", "answer": "a", "context_chunk_ids": [3]}\n',
        "chunk ids not a list": '{"question_id": "q1", "answer": "a", "context_chunk_ids": "c1"}\n',
        "a question answered twice": f"{good}\n\n{good}\n",
        "an empty file": " \n\t\n",
        "a field error before a JSON error": '{"question_id": "q1", "answer": 3}\n{oops\n',
    }
    for name, text in cases.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_text(text, encoding="utf-8")
        assert same_as_the_reference(path)[0] == "refused", name
    undecodable = tmp_path / "undecodable.jsonl"
    undecodable.write_bytes(good.encode() + b'\n{"question_id": "q2", "answer": "\xff"}\n')
    assert same_as_the_reference(undecodable)[0] == "refused"


def test_the_limits_are_refused_as_the_reference_refuses_them(tmp_path: Path) -> None:
    line = '{"question_id": "q1", "answer": "' + "a" * 200 + '"}\n'
    path = tmp_path / "answers.jsonl"
    path.write_text(line)
    for limits in ({"max_bytes": 100}, {"max_line_bytes": 100}):
        assert same_as_the_reference(path, **limits)[0] == "refused"
    packed = tmp_path / "answers.jsonl.gz"
    packed.write_bytes(
        gzip.compress(("".join(f'{{"question_id": "q{i}", "answer": "a"}}\n' for i in range(9))).encode())
    )
    # Past max_bytes once decompressed (a gzip file's ratio is checked only past 64 MiB, too big to write here).
    assert same_as_the_reference(packed, max_bytes=100)[0] == "refused"
    assert same_as_the_reference(packed)[0] == "read"


def test_a_passage_number_past_64_bits_is_refused_where_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text(f'{{"question_id": "q1", "answer": "a", "citations": [2, {2**63 - 1}]}}\n')
    assert read_answer_columns(path).citations() == [(2, 2**63 - 1)]
    path.write_text(f'{{"question_id": "q1", "answer": "a", "citations": [2, {2**63}]}}\n')
    with pytest.raises(InputFileError) as caught:
        read_answer_columns(path)
    assert str(caught.value) == (
        f"{path}, line 1: expected 'citations' to be passage numbers up to 2**63 - 1 (no context holds more), "
        f"got [2, {2**63}]: '{path.read_text().strip()}'"
    )
    with pytest.raises(InvalidParameterError, match=r"every citation must be a passage number up to 2\*\*63 - 1"):
        Answer("a", (2, 2**63))


def test_columns_made_from_records_give_the_records_back() -> None:
    where = SourceLine("answers.jsonl", 3, "{}")
    records = (
        AnswerRecord("q1", Answer("a [2]", (2, 2)), ("c1", "c2"), where),
        AnswerRecord("q2", Answer("")),
    )
    columns = AnswerColumns.from_records(records)
    assert [(record, record.source) for record in columns.records()] == [(r, r.source) for r in records]
    assert columns.where(0) == where
    assert columns.where(1) is None
    assert columns.passages.tolist() == [2, 0]


def test_columns_that_do_not_add_up_are_refused() -> None:
    columns = AnswerColumns.from_records([AnswerRecord("q1", Answer("a", (1,)), ("c1",))])
    with pytest.raises(ValueError, match="chunk_offsets must rise from 0"):
        AnswerColumns(
            **{**{name: getattr(columns, name) for name in AnswerColumns.__slots__}, "chunk_id": columns.chunk_id[:0]}
        )
    with pytest.raises(ValueError, match="one per answer"):
        AnswerColumns(
            **{**{name: getattr(columns, name) for name in AnswerColumns.__slots__}, "text": columns.text[:0]}
        )


def test_the_sample_workspace_scores_from_columns_as_from_the_reference_records() -> None:
    workspace = load_workspace(SAMPLE)
    names = [config.name for config in workspace.configs if config.answers is not None]
    assert len(names) > 1
    expected = {}
    for name in names:
        path = workspace.config(name).answers
        assert path is not None
        records = reference_answers(path)
        expected[name] = score_frame(
            resolved_items(workspace), records, workspace.chunks(name), workspace.qrels(name), source=path
        )
        pd.testing.assert_frame_equal(workspace_answers_frame(workspace, name), expected[name], check_exact=True)
        assert [(r, r.source) for r in workspace.answers(name)] == [(r, r.source) for r in records]
    pd.testing.assert_frame_equal(workspace_summary(workspace), summarize_answers(expected), check_exact=True)
