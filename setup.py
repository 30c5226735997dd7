"""Build step on top of pyproject.toml: a wheel carries the dashboard and the sample workspace as package data.

``app.py``, ``pages/`` and ``sample_data/`` stay at the top of the checkout, where ``streamlit run app.py`` and
the project's scripts find them; the wheel gets a copy of them in ``contextgrid/_dashboard``, which
:mod:`contextgrid.core.resources` finds once installed. ``MANIFEST.in`` puts the same files in an sdist, so that
a wheel built from it (``python -m build``) carries them too.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SHIPPED = ("app.py", ".streamlit/config.toml", "pages", "sample_data/workspace")


class BuildWithDashboard(build_py):
    """``build_py``, then the shipped files copied into the built package (not in editable installs, whose
    files are the checkout's own)."""

    def run(self) -> None:
        editable = getattr(self, "editable_mode", False)
        if not editable:
            # build/lib outlives a build: a module or page removed from the source since would ship again.
            shutil.rmtree(Path(self.build_lib) / "contextgrid", ignore_errors=True)
        super().run()
        if editable:
            return
        target = Path(self.build_lib) / "contextgrid" / "_dashboard"
        for relative in SHIPPED:
            source, copy = ROOT / relative, target / relative
            copy.parent.mkdir(parents=True, exist_ok=True)
            if source.is_dir():
                shutil.copytree(source, copy, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy2(source, copy)


setup(cmdclass={"build_py": BuildWithDashboard})
