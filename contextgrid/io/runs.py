"""read_run, read_qrels, write_run and write_qrels: runs and qrels in every format, by suffix or by name."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from contextgrid.core.errors import ContextGridError
from contextgrid.data.tables import QrelsTable, RunTable
from contextgrid.io.files import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_MAX_RATIO,
    Folders,
    Source,
    atomic_output,
)
from contextgrid.io.formats import LINE_FORMATS, SHARES, FileFormat, format_for

__all__ = ["read_qrels", "read_run", "write_qrels", "write_run"]


def _source(
    path: str | os.PathLike[str],
    reader: FileFormat,
    max_bytes: int,
    max_line_bytes: int | None,
    max_ratio: int | None,
    within: Folders | None,
) -> Source:
    lines = reader.name in LINE_FORMATS
    return Source(
        path,
        max_bytes=max_bytes,
        max_ratio=max_ratio,
        within=within,
        share=SHARES.get(reader.name, 1),
        max_line_bytes=(DEFAULT_MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes) if lines else None,
    )


def read_run(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_line_bytes: int | None = None,
    max_ratio: int | None = DEFAULT_MAX_RATIO,
    within: Folders | None = None,
) -> RunTable:
    """Read a run file into a :class:`~contextgrid.data.tables.RunTable`.

    Parameters
    ----------
    path : str or path-like
        The file. A ``.gz`` suffix means gzip.
    format : str, optional
        ``"trec"``, ``"json"``, ``"jsonl"``, ``"csv"``, ``"tsv"`` or
        ``"parquet"``; by default, from the suffix of ``path``.
    max_bytes : int, default 1 GiB
        The most the file may hold, decompressed
        (:data:`~contextgrid.io.files.DEFAULT_MAX_BYTES`).
    max_line_bytes : int, optional
        The longest line of a format read as lines (TREC, JSON Lines, CSV,
        TSV); by default :data:`~contextgrid.io.files.DEFAULT_MAX_LINE_BYTES`,
        1 MiB.
    max_ratio : int or None, default 100
        The most a gzip file may expand, in times its compressed size, checked once 64 MiB of it is read
        (:data:`~contextgrid.io.files.DEFAULT_MAX_RATIO`); ``None``: no limit.
    within : sequence of folders, optional
        The folders the file must lie in once its links are followed
        (:func:`~contextgrid.io.files.confined`); by default, anywhere.

    Returns
    -------
    RunTable
        Rows with scores ranked by score descending, ties broken by chunk id
        descending (trec_eval's rule); rows with ranks and no scores in the
        order of their ranks.

    Raises
    ------
    InputFileError
        The file is malformed; the message names the file, the line (or row)
        and the offending text. Nothing is half loaded. Also a file larger
        than ``max_bytes``, expanding more than ``max_ratio`` times or with
        a line longer than ``max_line_bytes``, refused as soon as the limit is passed.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from contextgrid.io import read_run
    >>> path = Path(tempfile.mkdtemp()) / "bm25.trec"
    >>> _ = path.write_text("q1 Q0 c1 1 0.5 bm25\\nq1 Q0 c2 2 0.9 bm25\\n")
    >>> read_run(path)["q1"]
    ('c2', 'c1')
    """
    reader = format_for(path, format)
    return reader.read_run(_source(path, reader, max_bytes, max_line_bytes, max_ratio, within))


def read_qrels(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_line_bytes: int | None = None,
    max_ratio: int | None = DEFAULT_MAX_RATIO,
    within: Folders | None = None,
) -> QrelsTable:
    """Read a qrels file into a :class:`~contextgrid.data.tables.QrelsTable`.

    Takes the same ``format`` names, limits and ``within`` as :func:`read_run` and raises
    :class:`~contextgrid.core.errors.InputFileError` the same way.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from contextgrid.io import read_qrels
    >>> path = Path(tempfile.mkdtemp()) / "test.qrels"
    >>> _ = path.write_text("q1 0 c1 2\\nq1 0 c7 0\\n")
    >>> dict(read_qrels(path)["q1"])
    {'c1': 2, 'c7': 0}
    """
    reader = format_for(path, format)
    return reader.read_qrels(_source(path, reader, max_bytes, max_line_bytes, max_ratio, within))


def write_run(
    run: RunTable | Mapping[str, Any],
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    tag: str = "contextgrid",
    overwrite: bool = False,
) -> None:
    """Write a run (a :class:`~contextgrid.data.tables.RunTable` or a plain dict) to ``path``.

    An existing ``path`` is refused (:class:`~contextgrid.core.errors.OutputExistsError`)
    unless ``overwrite=True``; the file appears only once completely written.
    ``tag`` fills the last column of TREC text. A run without scores written
    as TREC text gets scores counting down to 1, so that trec_eval ranks it
    the same.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from contextgrid.io import write_run
    >>> path = Path(tempfile.mkdtemp()) / "mine.trec"
    >>> write_run({"q1": ["c3", "c1"]}, path, tag="mine")
    >>> print(path.read_text(), end="")
    q1 Q0 c3 1 2 mine
    q1 Q0 c1 2 1 mine
    """
    if not isinstance(tag, str) or not re.fullmatch(r"\S+", tag):
        raise ContextGridError(f"tag must be a non-empty str without whitespace, got {tag!r}")
    table = RunTable.from_dict(run)
    writer = format_for(path, format)
    with atomic_output(path, overwrite=overwrite) as out:
        writer.write_run(table, out, tag=tag)


def write_qrels(
    qrels: QrelsTable | Mapping[str, Mapping[str, int]],
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    overwrite: bool = False,
) -> None:
    """Write qrels (a :class:`~contextgrid.data.tables.QrelsTable` or a plain dict) to ``path``.

    Refuses an existing ``path`` unless ``overwrite=True``, like :func:`write_run`.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from contextgrid.io import write_qrels
    >>> path = Path(tempfile.mkdtemp()) / "test.qrels"
    >>> write_qrels({"q1": {"c1": 2}}, path)
    >>> print(path.read_text(), end="")
    q1 0 c1 2
    """
    table = QrelsTable.from_dict(qrels)
    writer = format_for(path, format)
    with atomic_output(path, overwrite=overwrite) as out:
        writer.write_qrels(table, out)
