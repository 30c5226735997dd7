"""Every configuration's answers at once: read by pyarrow in one call where the line-by-line reader would read them
alike (the same columns, or left to it), and scored on the workspace's threads with each configuration's error kept
apart, as reading each alone gives it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

# The reference reader of the columns' tests (tests/ is on sys.path under pytest).
from test_answer_columns import same_as_the_reference  # type: ignore[import-not-found]

from contextgrid.core.errors import ContextGridError
from contextgrid.io.answers import _parsed_whole, read_answer_columns
from contextgrid.io.files import DEFAULT_MAX_LINE_BYTES, Source
from contextgrid.workspace.answers import workspace_answers_frame, workspace_answers_frames, workspace_summary
from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.sample import SAMPLE

GOOD = '{"question_id": "q1", "answer": "30 days [1].", "citations": [1, 2], "context_chunk_ids": ["c4", "c9"]}'
PLAIN = '{"question_id": "q2", "answer": "No idea."}'
EMPTY = '{"question_id": "q3", "answer": "", "citations": [], "context_chunk_ids": []}'
SCRIPTS = [{"question_id": "é", "answer": 'a "b" \\ \t c\n[1]'}, {"question_id": "字", "answer": "ü ß ’"}]

# Files pyarrow parses in one call, read as the line-by-line reader reads them.
WHOLE = {
    "one line": GOOD + "\n",
    "no last line end": GOOD + "\n" + PLAIN,
    "lists missing or empty": PLAIN + "\n" + EMPTY + "\n",
    "escapes and other scripts": "".join(json.dumps(value, ensure_ascii=False) + "\n" for value in SCRIPTS),
}

# Files one parse of the whole would read otherwise than line by line (or whose lines' texts it cannot give): left
# to the line-by-line reader, which reads or refuses each as it always has.
BY_LINE = {
    "an object over two lines": '{"question_id": "q1", "answer": "a",\n "citations": [1]}\n',
    "a list over two lines": '{"question_id": "q1", "answer": "a", "citations": [1,\n2]}\n',
    "two objects on a line": GOOD + " " + PLAIN + "\n",
    "a line of two objects glued": GOOD + PLAIN + "\n",
    "a blank line": GOOD + "\n\n" + PLAIN + "\n",
    "a blank line of spaces": GOOD + "\n  \n" + PLAIN + "\n",
    "blanks around an object": " " + GOOD + "\n",
    "windows line ends": GOOD + "\r\n" + PLAIN + "\r\n",
    "a key twice": '{"question_id": "q1", "answer": "a", "answer": "b"}\n',
    "a list key twice": '{"question_id": "q1", "answer": "a", "citations": [1], "citations": [2]}\n',
    "another field": '{"question_id": "q1", "answer": "a", "model": "m"}\n',
    "another field holding an object": '{"question_id": "q1", "answer": "a", "meta": {"k": 1, "k": 2}}\n',
    "citations null": '{"question_id": "q1", "answer": "a", "citations": null}\n',
    "a citation null": '{"question_id": "q1", "answer": "a", "citations": [null]}\n',
    "chunk ids null": '{"question_id": "q1", "answer": "a", "context_chunk_ids": null}\n',
    "question null": '{"question_id": null, "answer": "a"}\n',
    "question missing": '{"answer": "a"}\n',
    "answer missing": '{"question_id": "q1"}\n',
    "an empty object": "{}\n",
    "question empty": '{"question_id": "", "answer": "a"}\n',
    "a chunk id empty": '{"question_id": "q1", "answer": "a", "context_chunk_ids": [""]}\n',
    "a question twice": GOOD + "\n" + GOOD + "\n",
    "citation zero": '{"question_id": "q1", "answer": "a", "citations": [0]}\n',
    "citation minus zero": '{"question_id": "q1", "answer": "a", "citations": [-0]}\n',
    "citation negative": '{"question_id": "q1", "answer": "a", "citations": [-3]}\n',
    "citation a float": '{"question_id": "q1", "answer": "a", "citations": [1.0]}\n',
    "citation an exponent": '{"question_id": "q1", "answer": "a", "citations": [1e0]}\n',
    "citation a bool": '{"question_id": "q1", "answer": "a", "citations": [true]}\n',
    "citations not a list": '{"question_id": "q1", "answer": "a", "citations": 1}\n',
    "citations nested": '{"question_id": "q1", "answer": "a", "citations": [[1]]}\n',
    "question a number": '{"question_id": 5, "answer": "a"}\n',
    "answer NaN": '{"question_id": "q1", "answer": NaN}\n',
    "a tab in a string": '{"question_id": "q1", "answer": "a\tb"}\n',
    "a lone surrogate": '{"question_id": "q1", "answer": "a \\ud800"}\n',
    "a key spelled with an escape": '{"question_id": "q1", "answ\\u0065r": "a", "answer": "b"}\n',
    "a byte order mark": "\ufeff" + GOOD + "\n",
    "a trailing comma": '{"question_id": "q1", "answer": "a",}\n',
    "a list not an object": "[1]\n",
}


@pytest.mark.parametrize("text", WHOLE.values(), ids=WHOLE.keys())
def test_a_plain_file_is_parsed_whole_into_the_columns_the_lines_give(tmp_path: Path, text: str) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text(text, encoding="utf-8")
    assert _parsed_whole(Source(path, max_line_bytes=DEFAULT_MAX_LINE_BYTES)) is not None
    kind, _ = same_as_the_reference(path)
    assert kind == "read"


@pytest.mark.parametrize("text", BY_LINE.values(), ids=BY_LINE.keys())
def test_what_one_parse_would_read_otherwise_is_read_line_by_line(tmp_path: Path, text: str) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text(text, encoding="utf-8")
    assert _parsed_whole(Source(path, max_line_bytes=DEFAULT_MAX_LINE_BYTES)) is None
    same_as_the_reference(path)


def test_a_bad_line_after_many_good_ones_is_named_by_its_number(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    good = [json.dumps({"question_id": f"q{i}", "answer": "a [1].", "citations": [1]}) for i in range(500)]
    path.write_text("\n".join([*good[:300], '{"question_id": "q9x", "answer": "a", "citations": [0]}', *good[300:]]))
    with pytest.raises(ContextGridError, match=r"answers\.jsonl, line 301: expected 'citations' to be a list"):
        read_answer_columns(path)
    assert same_as_the_reference(path)[0] == "refused"


@pytest.fixture
def broken_sample(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The sample workspace with two configurations' answers spoiled: a bad line, and an answer to no question."""
    root = Path(shutil.copytree(SAMPLE, tmp_path / "sample"))
    answered = [config for config in load_workspace(root).configs if config.answers is not None]
    assert len(answered) >= 4
    spoiled = {answered[1].name: "line 3: expected 'citations'", answered[3].name: "which is not a question"}
    for config, line in ((answered[1], '{"question_id": "zz", "answer": "a", "citations": [0]}'), (answered[3], None)):
        assert config.answers is not None
        lines = config.answers.read_text(encoding="utf-8").splitlines()
        lines[2] = line or json.dumps({**json.loads(lines[2]), "question_id": "no-such-question"})
        config.answers.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root, spoiled


def test_every_configuration_at_once_gives_each_frame_and_each_error_as_one_at_a_time(
    broken_sample: tuple[Path, dict[str, str]],
) -> None:
    root, spoiled = broken_sample
    frames, failed = workspace_answers_frames(load_workspace(root))
    alone = load_workspace(root)
    names = [config.name for config in alone.configs if config.answers is not None]
    assert list(frames) == [name for name in names if name not in spoiled]
    assert list(failed) == list(spoiled)
    for name in names:
        if name in spoiled:
            with pytest.raises(ContextGridError) as raised:
                workspace_answers_frame(alone, name)
            assert str(failed[name]) == str(raised.value)
            assert type(failed[name]) is type(raised.value)
            assert spoiled[name] in str(failed[name])
            assert str(alone.config(name).answers) in str(failed[name])
        else:
            pd.testing.assert_frame_equal(frames[name], workspace_answers_frame(alone, name), check_exact=True)


def test_the_configurations_asked_for_are_scored_in_the_order_asked(broken_sample: tuple[Path, dict[str, str]]) -> None:
    root, spoiled = broken_sample
    workspace = load_workspace(root)
    names = [config.name for config in workspace.configs if config.answers is not None][::-1]
    frames, failed = workspace_answers_frames(workspace, names=names)
    assert list(frames) == [name for name in names if name not in spoiled]
    assert list(failed) == [name for name in names if name in spoiled]


def test_the_summary_refuses_the_first_configuration_that_cannot_be_scored(
    broken_sample: tuple[Path, dict[str, str]],
) -> None:
    root, spoiled = broken_sample
    first = next(iter(spoiled))
    with pytest.raises(ContextGridError) as alone:
        workspace_answers_frame(load_workspace(root), first)
    with pytest.raises(type(alone.value)) as summary:
        workspace_summary(load_workspace(root))
    assert str(summary.value) == str(alone.value)
