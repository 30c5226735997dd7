"""Where the bundled sample workspace is: package data of the installed dashboard, found with importlib.resources."""

from __future__ import annotations

from pathlib import Path

__all__ = ["SAMPLE"]

SAMPLE = Path(__file__).resolve().parent.parent.parent / "sample_data" / "workspace"
"""The bundled sample workspace (``sample_data/make_sample.py`` writes it)."""
