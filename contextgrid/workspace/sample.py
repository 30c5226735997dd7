"""Where the bundled sample workspace is: shipped with the package (see :mod:`contextgrid.core.resources`).

Examples
--------
>>> from contextgrid.workspace.manifest import load_workspace
>>> (SAMPLE / "contextgrid.toml").is_file(), load_workspace(SAMPLE).root == SAMPLE
(True, True)
"""

from __future__ import annotations

from contextgrid.core.resources import shipped

__all__ = ["SAMPLE"]

SAMPLE = shipped("sample_data/workspace")
"""The bundled sample workspace (``sample_data/make_sample.py`` writes it): a wheel's package data, or the source
folder's own in an editable install."""
