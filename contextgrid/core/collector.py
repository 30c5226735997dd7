"""Python's cyclic garbage collector, paused while objects are made by the hundred thousand.

Each full collection walks every live object of the process: while a caller makes many objects that live on (a
run's rankings as sets, a workspace's records), the collections they trigger walk them all again and again and
free nothing.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the block with the cyclic collector paused (for every thread), and restart it after the block,
    whatever happens in it, unless it was off before.

    Examples
    --------
    >>> import gc
    >>> from contextgrid.core.collector import collector_paused
    >>> with collector_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
