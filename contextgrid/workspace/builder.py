"""A workspace made from files named in code (uploaded ones, say), without a ``contextgrid.toml`` to read."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from contextgrid.core.errors import ContextGridError, InputFileError, NameTakenError
from contextgrid.evidence.resolver import GradeRule
from contextgrid.io.files import DEFAULT_MAX_BYTES, DEFAULT_MAX_RATIO
from contextgrid.workspace.configuration import Configuration
from contextgrid.workspace.model import Workspace

__all__ = ["configuration_name", "workspace_from_files"]

PathLike = str | os.PathLike[str]


def configuration_name(run: PathLike) -> str:
    """The configuration a run file becomes: its file name up to the first dot.

    Examples
    --------
    >>> configuration_name("uploads/bm25-fixed-512.trec.gz")
    'bm25-fixed-512'
    >>> configuration_name(".trec")
    'run'
    """
    return Path(run).name.split(".")[0] or "run"


def _existing(role: str, path: object, *, folder_too: bool = False) -> Path:
    """``path`` as a Path, refused unless it names a file (or, with ``folder_too``, a folder) that exists."""
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise ContextGridError(f"workspace_from_files: {role} must be a path, got {path!r}")
    given = Path(path)
    if given.is_file() or (folder_too and given.is_dir()):
        return given
    kind = "file or folder" if folder_too else "file"
    raise InputFileError(path, None, None, f"expected the {role} {kind} to read, but there is no such {kind}")


def workspace_from_files(
    name: str,
    *,
    qrels: PathLike | None = None,
    runs: Sequence[PathLike],
    documents: PathLike | None = None,
    chunks: PathLike | None = None,
    questions: PathLike | None = None,
    answers: Mapping[str, PathLike] | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_line_bytes: int | None = None,
    max_ratio: int | None = DEFAULT_MAX_RATIO,
    grade_rule: GradeRule | None = None,
) -> Workspace:
    """A workspace of one configuration per run file, all scored against ``qrels`` (or against the
    gold spans judged onto ``chunks``).

    What :func:`~contextgrid.workspace.manifest.load_workspace` builds from a
    manifest, built from the files themselves: each file must exist, and is
    read when first asked for.

    Parameters
    ----------
    name : str
        The workspace's name.
    qrels : path, optional
        The judgements every run is scored against. Without it, ``chunks``
        are judged on the questions' gold spans, resolved in the documents
        (:meth:`~contextgrid.workspace.model.Workspace.gold_qrels`), so
        ``chunks``, ``questions`` and ``documents`` are then needed.
    runs : sequence of paths
        One configuration each, in this order, named after its file
        (:func:`configuration_name`), so no two may share that name. The
        configurations have no parameters.
    documents : path, optional
        A JSON Lines file or a folder of text files, shared.
    chunks : path, optional
        The chunks of every run's chunking.
    questions : path, optional
        The questions, shared.
    answers : mapping of str to path, optional
        Generated answers by configuration name.
    max_bytes, max_line_bytes, max_ratio : int, optional
        The limits the files are read within (:class:`~contextgrid.workspace.model.Workspace`);
        the dashboard passes its server's for uploads.
    grade_rule : GradeRule, optional
        How chunks are graded on the gold spans without ``qrels``; default
        :class:`~contextgrid.evidence.resolver.GradeRule` ``()``.

    Returns
    -------
    Workspace
        Its ``root`` is the folder that holds every file.

    Raises
    ------
    InputFileError
        Naming the file, for a file that does not exist.
    NameTakenError
        For two runs that make the same configuration name.
    ContextGridError
        For no run, a name that is not a non-empty string, answers of a
        configuration the runs do not make, no ``qrels`` without ``chunks``,
        ``questions`` and ``documents``, or a ``grade_rule`` with ``qrels``.

    Examples
    --------
    >>> folder = HANDMADE
    >>> runs = [folder / "runs" / "bm25-fixed-512.trec", folder / "runs" / "dense-fixed-512.trec"]
    >>> workspace = workspace_from_files("handmade", qrels=folder / "qrels.trec", runs=runs)
    >>> workspace.names
    ('bm25-fixed-512', 'dense-fixed-512')
    >>> workspace.evaluate(ks=[5], metrics=["recall"])["dense-fixed-512"]["recall@5"]
    0.7837837837837838
    >>> workspace_from_files("handmade", qrels=folder / "qrels.trec", runs=[])
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.ContextGridError: workspace_from_files('handmade'): a workspace needs at least one run file

    Without qrels, a chunking's gold judgements (the sample workspace is a sweep's, so they are its qrels):

    >>> from contextgrid.workspace.manifest import load_workspace
    >>> from contextgrid.workspace.sample import SAMPLE
    >>> swept = load_workspace(SAMPLE)
    >>> first = swept.configs[0]
    >>> shared = {"questions": swept.questions_path, "documents": swept.documents_path}
    >>> judged = workspace_from_files("sample", runs=[first.run], chunks=first.chunks, **shared)
    >>> judged.qrels(judged.names[0]).to_dict() == swept.qrels(first.name).to_dict()
    True
    """
    if not isinstance(name, str) or not name.strip():
        raise ContextGridError(f"workspace_from_files: name must be a non-empty str, got {name!r}")
    label = f"workspace_from_files({name!r})"
    if isinstance(runs, (str, os.PathLike)) or not isinstance(runs, Sequence):
        raise ContextGridError(f"{label}: runs must be a sequence of paths, got {runs!r}")
    if not runs:
        raise ContextGridError(f"{label}: a workspace needs at least one run file")
    if qrels is None:
        lacking = [
            role
            for role, path in (("chunks", chunks), ("questions", questions), ("documents", documents))
            if path is None
        ]
        if lacking:
            raise ContextGridError(
                f"{label}: without qrels, the runs are judged on the questions' gold spans in the chunks, which needs "
                f"{', '.join(lacking)} too"
            )
    elif grade_rule is not None:
        raise ContextGridError(f"{label}: grade_rule grades chunks on the gold spans, without qrels; drop one of them")
    shared = None if qrels is None else _existing("qrels", qrels)
    chunking = None if chunks is None else _existing("chunks", chunks)
    run_paths = [_existing("run", run) for run in runs]
    names: list[str] = []
    for position, run in enumerate(run_paths):
        config = configuration_name(run)
        if config in names:
            earlier = run_paths[names.index(config)]
            raise NameTakenError(
                f"{label}: the runs {str(earlier)!r} and {str(runs[position])!r} would both be configuration "
                f"{config!r} (a configuration is named after its run file, up to the first dot); rename one"
            )
        names.append(config)
    answered = {} if answers is None else dict(answers)
    for config, path in answered.items():
        if config not in names:
            raise ContextGridError(
                f"{label}: the answers {str(path)!r} are of configuration {config!r}, but the runs make "
                f"{', '.join(map(repr, names))} (each is named after its run file)"
            )
    configs = tuple(
        Configuration(
            config,
            {},
            run=run,
            qrels=shared,
            chunks=chunking,
            answers=None if config not in answered else _existing("answers", answered[config]),
        )
        for config, run in zip(names, run_paths, strict=True)
    )
    questions_path = None if questions is None else _existing("questions", questions)
    documents_path = None if documents is None else _existing("documents", documents, folder_too=True)
    files = [path for config in configs for path in config.files] + [
        path for path in (questions_path, documents_path) if path is not None
    ]
    root = Path(os.path.commonpath([path.resolve().parent for path in files]))
    return Workspace(
        name,
        root,
        configs,
        questions_path=questions_path,
        documents_path=documents_path,
        max_bytes=max_bytes,
        max_line_bytes=max_line_bytes,
        max_ratio=max_ratio,
        grade_rule=GradeRule() if grade_rule is None else grade_rule,
    )
