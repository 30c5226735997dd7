"""What the server reads as it starts: made with the cyclic collector paused, then left out of its later walks."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from pages._server import kept_for_the_server


@pytest.fixture
def collector() -> Iterator[None]:
    # The test freezes what is alive; the rest of the suite runs with nothing frozen, as before it.
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    if enabled:
        gc.enable()


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_the_collector_is_paused_while_the_server_prepares_and_what_it_made_is_frozen(collector: None) -> None:
    gc.enable()
    gc.unfreeze()
    seen: list[bool] = []
    with kept_for_the_server():
        seen.append(gc.isenabled())
        made = [_Cycle() for _ in range(1000)]
    assert seen == [False]
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    assert frozen >= len(made)
    # Frozen, the records are in no generation a collection walks.
    assert not any(isinstance(each, _Cycle) for each in gc.get_objects())
    assert not any(isinstance(each, _Cycle) for generation in range(3) for each in gc.get_objects(generation))


def test_the_collector_is_restarted_when_preparing_fails_and_left_off_when_it_was_off(collector: None) -> None:
    gc.enable()
    with pytest.raises(ValueError, match="unreadable"), kept_for_the_server():
        raise ValueError("unreadable workspace")
    assert gc.isenabled()
    gc.disable()
    with kept_for_the_server():
        pass
    assert not gc.isenabled()
