"""Which host folders a caller may read: a shared dashboard opens workspaces only under the folders its
server was started with, and a manifest it opens may name files only inside them.

Paths are compared once resolved (symlinks followed, ``..`` removed), so a
link or a ``../`` cannot lead out of an allowed folder; the readers make the
same check (:func:`~contextgrid.io.files.is_within`) as each file is opened,
documents inside a folder included.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from contextgrid.core.errors import AccessDeniedError
from contextgrid.io.files import is_within

__all__ = ["allowed_path", "is_within"]


def allowed_path(
    path: str | os.PathLike[str], folders: Sequence[str | os.PathLike[str]], *, what: str, how: str
) -> Path:
    """``path`` resolved, refused with an :class:`AccessDeniedError` unless it lies within ``folders``.

    ``what`` names the path in the message (``"the workspace folder"``) and
    ``how`` says how to be allowed it (``"start the server with --allow-folders DIR"``).

    Examples
    --------
    >>> allowed_path("/etc", ["/srv/ws"], what="the workspace folder", how="ask for it")
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.AccessDeniedError: the workspace folder '/etc' is outside the folders this may read \
(/srv/ws); ask for it
    """
    if not is_within(path, folders):
        shown = ", ".join(str(Path(folder).resolve()) for folder in folders) or "none"
        raise AccessDeniedError(f"{what} {str(path)!r} is outside the folders this may read ({shown}); {how}")
    return Path(path).resolve()
