"""The one home of checks (contextgrid.core.checks, contextgrid.data.chunk_checks) and the leaf errors callers
branch on."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import contextgrid as cg
from contextgrid.analysis.grid import metric_curves
from contextgrid.core.checks import check_distinct, check_fraction, check_int, check_k, is_fraction, is_whole
from contextgrid.data.chunk_checks import checked_chunks
from contextgrid.index import BM25Index
from contextgrid.workspace.configuration import Configuration
from contextgrid.workspace.model import Workspace

HANDMADE = Path(__file__).resolve().parent.parent / "sample_data" / "handmade"


@given(st.booleans())
def test_no_bool_is_a_whole_number_or_a_fraction(value: bool) -> None:
    assert not is_whole(value)
    assert not is_fraction(value)
    with pytest.raises(cg.InvalidParameterError, match=f"Got {value!r} instead"):
        check_int(value, function="f", parameter="n")


@given(st.integers(-1000, 1000), st.integers(-10, 10))
def test_ints_at_or_above_the_minimum_are_accepted_and_the_others_refused(value: int, minimum: int) -> None:
    assert is_whole(np.int64(value), minimum=minimum) == (value >= minimum)
    if value >= minimum:
        assert check_int(value, function="f", parameter="n", minimum=minimum) == value
    else:
        with pytest.raises(cg.InvalidParameterError) as caught:
            check_int(value, function="f", parameter="n", minimum=minimum)
        assert str(caught.value) == f"The 'n' parameter of f must be an int >= {minimum}. Got {value!r} instead."


@given(st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.booleans())
def test_fractions_are_finite_and_inside_their_interval(value: float, low_open: bool, high_open: bool) -> None:
    inside = (
        math.isfinite(value) and (value > 0 if low_open else value >= 0) and (value < 1 if high_open else value <= 1)
    )
    assert is_fraction(value, low_open=low_open, high_open=high_open) == inside
    if not inside:
        with pytest.raises(cg.InvalidParameterError, match="'p' parameter of f must be a number in"):
            check_fraction(value, function="f", parameter="p", low_open=low_open, high_open=high_open)


@pytest.mark.parametrize("k", [0, -1, -20])
def test_a_k_below_one_is_an_invalid_parameter_with_the_metrics_pages_words(k: int) -> None:
    with pytest.raises(cg.InvalidParameterError) as caught:
        check_k(k, function="evaluate")
    assert str(caught.value).startswith(f"cut-off k must be at least 1, got {k}. A k of 0 or below")
    assert isinstance(caught.value, ValueError)


@given(st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=8))
def test_distinct_ids_pass_and_every_repeated_one_is_named(ids: list[str]) -> None:
    repeated = sorted({value for value in ids if ids.count(value) > 1})
    if not repeated:
        check_distinct(ids, function="f", what="chunk ids")
        return
    with pytest.raises(cg.InvalidParameterError) as caught:
        check_distinct(ids, function="f", what="chunk ids", given="chunks")
    message = str(caught.value)
    assert message.startswith("f: chunk ids must be distinct, repeated: ")
    for value in repeated:
        first = ids.index(value)
        second = ids.index(value, first + 1)
        assert f"{value!r} (chunks[{first}] and chunks[{second}])" in message


REPEAT = "chunk ids must be distinct, repeated: 'c1' (chunks[0] and chunks[1])"


def test_every_place_that_takes_chunks_refuses_a_repeat_alike() -> None:
    chunk = cg.Chunk("c1", cg.Span("a.md", 0, 5), "hello")
    item = cg.EvalItem("q", "hello?", (cg.GoldSpan(cg.Span("a.md", 0, 5)),))
    for call in (
        lambda: checked_chunks([chunk, chunk], function="f"),
        lambda: cg.gold_coverage_by_chunk(item, [chunk, chunk]),
        lambda: cg.assemble_context([chunk, chunk], 10),
        lambda: cg.SpanResolver({"a.md": "hello"}).qrels([item], [chunk, chunk]),
        lambda: BM25Index.from_chunks([chunk, chunk]),
    ):
        with pytest.raises(
            cg.DuplicateChunkError, match=r"chunk ids must be distinct, repeated: 'c1' \(chunks\[0\] and chunks\[1\]\)"
        ):
            call()


def test_an_unknown_configuration_is_its_own_error() -> None:
    workspace = cg.load_workspace(HANDMADE)
    with pytest.raises(
        cg.UnknownConfigurationError, match=re.escape("has no configuration named 'nope'. Available: bm25-fixed-512")
    ):
        workspace.config("nope")
    results = workspace.evaluate(ks=[1], metrics=["recall"])
    with pytest.raises(cg.UnknownConfigurationError, match=re.escape("no results for a configuration named 'nope'")):
        results["nope"]


def test_a_workspace_without_an_input_says_which(tmp_path: Path) -> None:
    config = Configuration("bm25", {}, run=tmp_path / "r", qrels=tmp_path / "q")
    workspace = Workspace("w", tmp_path, (config,))
    for call, missing in (
        (lambda: workspace.documents, "names no documents"),
        (lambda: workspace.questions, "names no questions"),
        (lambda: workspace.chunks("bm25"), "names no chunks file"),
        (lambda: workspace.answers("bm25"), "names no answers file"),
    ):
        with pytest.raises(cg.MissingWorkspaceInputError, match=missing):
            call()
    assert issubclass(cg.MissingWorkspaceInputError, ValueError)
    assert issubclass(cg.UnknownConfigurationError, cg.ContextGridError)


def test_a_taken_name_is_its_own_error_wherever_names_are_registered() -> None:
    from contextgrid.cli.main import COMMANDS, register_command  # cli.main registers the subcommands
    from contextgrid.cli.tables import FORMATS, register_format

    taken = next(iter(FORMATS))
    with pytest.raises(cg.NameTakenError) as caught:
        register_format(taken)(FORMATS[taken])
    assert str(caught.value) == f"an output format named {taken!r} is already registered"
    command = next(iter(COMMANDS.values()))
    with pytest.raises(cg.NameTakenError) as caught:
        register_command(command)
    assert str(caught.value) == f"a subcommand named {command.name!r} is already registered"


def test_a_score_that_was_not_computed_is_its_own_error() -> None:
    grid = pd.DataFrame({"recall@1": [0.25]}, index=["bm25"])
    with pytest.raises(cg.UnknownScoreError) as caught:
        metric_curves(grid, "ndcg")
    assert str(caught.value) == "the grid has no 'ndcg' columns. Available metrics: recall"
