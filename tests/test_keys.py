"""find_sorted, the one membership search of the columnar code, against a slow obvious reference."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from contextgrid.data.keys import find_sorted

VALUES = st.lists(st.integers(-50, 50), max_size=40)


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
