"""The Chromium that the browser tests and bench/bench_app.py drive: Debian's, headless, with the same flags."""

from __future__ import annotations

__all__ = ["CHROMIUM", "CHROMIUM_ARGS"]

CHROMIUM = "/usr/bin/chromium"
# No sandbox (CI runs as root), no GPU, and nothing that reaches the network or updates itself.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
