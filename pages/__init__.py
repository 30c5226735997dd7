"""The dashboard's pages and the layers they share (``_data``, ``_state``, ``_uploads``, ...)."""

from __future__ import annotations

import threading

FIRST_IMPORTS = threading.Lock()
"""Held while a thread imports the library for the first time. Two threads importing contextgrid at once (the
server's scoring thread and a first visit) can deadlock on its modules' import locks (``_DeadlockError``); taken
in turn, the second finds every module imported."""
