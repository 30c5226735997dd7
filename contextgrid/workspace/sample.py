"""Where the bundled sample workspace is: shipped with the package (see :mod:`contextgrid.core.resources`)."""

from __future__ import annotations

from contextgrid.core.resources import shipped

__all__ = ["SAMPLE"]

SAMPLE = shipped("sample_data/workspace")
"""The bundled sample workspace (``sample_data/make_sample.py`` writes it)."""
