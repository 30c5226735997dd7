"""find_sorted, the one membership search of the columnar code, and expand_stretches, the one expansion of
(start, length) rows into positions, each against a slow obvious reference."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from contextgrid.data.keys import distinct_pairs, distinct_sorted, expand_stretches, find_sorted, sorted_keys

VALUES = st.lists(st.integers(-50, 50), max_size=40)
STRETCHES = st.lists(st.tuples(st.integers(-50, 50), st.integers(0, 6)), max_size=30)


@given(keys=VALUES, wanted=VALUES, ascending=st.booleans())
def test_each_key_is_found_where_it_is_and_only_if_there(keys: list[int], wanted: list[int], ascending: bool) -> None:
    ordered = np.array(sorted(keys), dtype=np.int64)
    position, found = find_sorted(ordered, np.array(wanted, dtype=np.int64), ascending=ascending)
    assert found.tolist() == [value in keys for value in wanted]
    for value, where, there in zip(wanted, position.tolist(), found.tolist(), strict=True):
        if there:
            assert ordered[where] == value
        assert 0 <= where < max(len(keys), 1)
    # In any order or ascending, the same positions: searchsorted's, clipped to the last key.
    expected = [min(int(np.searchsorted(ordered, value)), max(len(keys) - 1, 0)) for value in wanted]
    assert position.tolist() == expected


@given(
    keys=st.lists(st.integers(-(2**63), 2**63 - 1), max_size=20),
    wanted=st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=20),
)
def test_keys_too_far_apart_to_pack_are_found_in_ascending_order_too(keys: list[int], wanted: list[int]) -> None:
    # Wanted keys whose spread times their count passes 63 bits are sorted by argsort, not packed with positions.
    wanted = [*wanted, -(2**63), 2**63 - 1]
    ordered = np.array(sorted(keys), dtype=np.int64)
    position, found = find_sorted(ordered, np.array(wanted, dtype=np.int64), ascending=True)
    assert found.tolist() == [value in keys for value in wanted]
    expected = [min(int(np.searchsorted(ordered, value)), max(len(keys) - 1, 0)) for value in wanted]
    assert position.tolist() == expected


@given(stretches=STRETCHES)
def test_each_stretch_is_expanded_into_its_positions_in_order(stretches: list[tuple[int, int]]) -> None:
    starts = np.array([start for start, _ in stretches], dtype=np.int64)
    lengths = np.array([length for _, length in stretches], dtype=np.int64)
    positions, owner = expand_stretches(starts, lengths)
    expected_positions: list[int] = []
    expected_owner: list[int] = []
    for row, (start, length) in enumerate(stretches):
        for position in range(start, start + length):
            expected_positions.append(position)
            expected_owner.append(row)
    assert positions.tolist() == expected_positions
    assert owner.tolist() == expected_owner
    assert positions.dtype == owner.dtype == np.int64


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 9)), max_size=60))
def test_distinct_pairs_are_the_set_of_pairs_in_order(pairs: list[tuple[int, int]]) -> None:
    rows = np.array([row for row, _ in pairs], dtype=np.int64)
    columns = np.array([column for _, column in pairs], dtype=np.int64)
    got_rows, got_columns = distinct_pairs(rows, columns, 10)
    assert list(zip(got_rows.tolist(), got_columns.tolist(), strict=True)) == sorted(set(pairs))
    keys = rows * 10 + columns
    assert distinct_sorted(keys).tolist() == sorted(set(keys.tolist()))


# Keys on both sides of the 32-bit bounds: sorted in 32 bits only when all of them fit.
WIDE = st.lists(st.sampled_from([-(2**31) - 1, -(2**31), -1, 0, 5, 2**31 - 1, 2**31, 2**62]) | st.integers(-9, 9))


@given(keys=WIDE)
def test_keys_are_sorted_and_made_distinct_as_python_does_either_side_of_32_bits(keys: list[int]) -> None:
    values = np.array(keys, dtype=np.int64)
    got = sorted_keys(values)
    assert got.dtype == np.int64
    assert got.tolist() == sorted(keys)
    distinct = distinct_sorted(values)
    assert distinct.dtype == np.int64
    assert distinct.tolist() == sorted(set(keys))
