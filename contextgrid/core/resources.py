"""Files contextgrid ships beside its code: the dashboard (``app.py``, ``pages/``, its Streamlit settings) and
the sample workspace.

A built wheel carries them as package data in ``contextgrid/_dashboard`` (``setup.py`` copies them there at
build time), found with :mod:`importlib.resources`. An editable install (``pip install -e .``) has no copy: its
files are the source folder's, which the install's own metadata names (PEP 610's ``direct_url.json``).
"""

from __future__ import annotations

import json
from importlib import metadata, resources
from pathlib import Path
from urllib.parse import unquote, urlparse

from contextgrid.core.errors import ContextGridError

__all__ = ["SHIPPED", "shipped"]

SHIPPED = "_dashboard"
"""The folder of the package that holds the shipped files in a built wheel."""


def _editable_source() -> Path | None:
    """The source folder of an editable install of contextgrid, or ``None`` if it is not one."""
    # Every contextgrid on the path: a checkout's own contextgrid.egg-info comes first and has no direct_url.json.
    for distribution in metadata.distributions(name="contextgrid"):
        text = distribution.read_text("direct_url.json")
        if not text:
            continue
        described = json.loads(text)
        url = urlparse(str(described.get("url", "")))
        if described.get("dir_info", {}).get("editable") and url.scheme == "file":
            return Path(unquote(url.path))
    return None


def shipped(relative: str) -> Path:
    """The shipped file or folder ``relative`` (e.g. ``"app.py"``, ``"sample_data/workspace"``).

    Examples
    --------
    >>> shipped("app.py").name
    'app.py'
    >>> shipped("no-such-file")
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.ContextGridError: contextgrid's 'no-such-file' is neither in the installed package ...
    """
    packaged = Path(str(resources.files("contextgrid"))) / SHIPPED / relative
    if packaged.exists():
        return packaged
    source = _editable_source()
    if source is not None and (source / relative).exists():
        return source / relative
    raise ContextGridError(
        f"contextgrid's {relative!r} is neither in the installed package ({packaged.parent}) nor in the source "
        "folder of an editable install; reinstall contextgrid (pip install contextgrid, or pip install -e . in "
        "a checkout)"
    )
