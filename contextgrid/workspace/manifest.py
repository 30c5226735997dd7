"""The ``contextgrid.toml`` manifest: read and checked line by line into a
:class:`~contextgrid.workspace.model.Workspace`, and written."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path

from contextgrid.core.errors import ContextGridError, InputFileError
from contextgrid.evidence.resolver import GradeRule
from contextgrid.io.files import DEFAULT_MAX_BYTES, DEFAULT_MAX_RATIO
from contextgrid.io.jsonl import MAX_SHOWN_DEPTH, deep_line
from contextgrid.workspace.access import is_within
from contextgrid.workspace.configuration import Configuration, is_param_value
from contextgrid.workspace.model import MANIFEST, Workspace

__all__ = ["MANIFEST", "load_workspace", "manifest_text"]


_TOP_KEYS = ("name", "qrels", "questions", "documents", "grade_rule", "config")


_GRADE_RULE_KEYS = ("full_fraction", "partial_grade", "min_fraction")
"""The keys of ``[grade_rule]``, in the order they are checked (``min_fraction`` is checked against
``full_fraction``)."""


_CONFIG_KEYS = ("name", "run", "qrels", "chunks", "answers", "params")


_CONFIG_HEADER = re.compile(r"^\s*\[\[\s*config\s*\]\]")


_ANY_HEADER = re.compile(r"^\s*\[")


class _Manifest:
    """The parsed manifest with its text, so every complaint can name the line it is about."""

    def __init__(self, path: Path, shown: str, within: tuple[Path, ...] | None) -> None:
        self.path = path
        self.shown = shown
        self.within = within
        try:
            self.text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as error:
            raise InputFileError(shown, None, None, f"a manifest must be UTF-8 text ({error})") from None
        self.lines = self.text.splitlines()
        try:
            self.data = tomllib.loads(self.text)
        except tomllib.TOMLDecodeError as error:
            found = re.search(r"at line (\d+)", str(error))
            line = int(found.group(1)) if found else None
            raise self.error(line, f"this is not valid TOML ({error})") from None
        except RecursionError:
            raise self.error(
                deep_line(self.text), f"expected TOML that nests less deeply (past {MAX_SHOWN_DEPTH} levels here)"
            ) from None
        self.config_lines = [number for number, text in enumerate(self.lines, 1) if _CONFIG_HEADER.match(text)]

    def error(self, line: int | None, expected: str) -> InputFileError:
        text = self.lines[line - 1].strip() if line is not None and 0 < line <= len(self.lines) else None
        return InputFileError(self.shown, line, text, expected)

    def key_line(self, key: str, config: int | None = None, *, table: str | None = None) -> int | None:
        """Line of ``key = ...`` at the top level (in its ``[table]`` when ``table`` is given), or in the
        ``config``-th ``[[config]]`` (in its ``[config.table]`` when ``table`` is given)."""
        if config is None and table is not None:
            header = re.compile(rf"^\s*\[\s*{re.escape(table)}\s*\]")
            start = next((n + 1 for n, text in enumerate(self.lines, 1) if header.match(text)), None)
            if start is None:
                return None
            following = (n for n in range(start, len(self.lines) + 1) if _ANY_HEADER.match(self.lines[n - 1]))
            end = next(following, len(self.lines) + 1)
        elif config is None:
            start = 1
            end = next((n for n, text in enumerate(self.lines, 1) if _ANY_HEADER.match(text)), len(self.lines) + 1)
        elif config < len(self.config_lines):
            start = self.config_lines[config] + 1
            end = self.config_lines[config + 1] if config + 1 < len(self.config_lines) else len(self.lines) + 1
            if table is not None:
                header = re.compile(rf"^\s*\[\s*config\s*\.\s*{re.escape(table)}\s*\]")
                start = next((n + 1 for n in range(start, end) if header.match(self.lines[n - 1])), start)
        else:
            return None
        pattern = re.compile(rf"^\s*(?:{re.escape(key)}|\"{re.escape(key)}\")\s*=")
        return next((n for n in range(start, end) if pattern.match(self.lines[n - 1])), None)

    def table_line(self, table: str) -> int | None:
        """Line of the top-level ``[table]`` header, or of ``table = ...`` when it is written inline."""
        header = re.compile(rf"^\s*\[\s*{re.escape(table)}\s*\]")
        found = next((n for n, text in enumerate(self.lines, 1) if header.match(text)), None)
        return found if found is not None else self.key_line(table)

    def config_line(self, config: int) -> int | None:
        return self.config_lines[config] if config < len(self.config_lines) else None


def _check_keys(manifest: _Manifest, table: Mapping[str, object], allowed: Sequence[str], config: int | None) -> None:
    where = "at the top level" if config is None else "in a [[config]]"
    for key in table:
        if key not in allowed:
            raise manifest.error(
                manifest.key_line(key, config),
                f"unknown key {key!r} {where}; the keys allowed there are {', '.join(allowed)}",
            )


def _path(
    manifest: _Manifest,
    root: Path,
    table: Mapping[str, object],
    key: str,
    subject: str,
    config: int | None,
) -> Path | None:
    """The file ``table[key]`` names, relative to the workspace folder; it must exist."""
    if key not in table:
        return None
    value = table[key]
    line = manifest.key_line(key, config)
    if not isinstance(value, str) or not value:
        raise manifest.error(line, f"{subject}: {key} must be a path (a non-empty string), got {value!r}")
    path = root / value
    # Checked before existence, so that a refused path tells nothing about what lies outside.
    if manifest.within is not None and not is_within(path, (root, *manifest.within)):
        raise manifest.error(
            line,
            f"{subject}: the {key} {value!r} lies outside the workspace folder {root}"
            + (f" and the allowed folders ({', '.join(map(str, manifest.within))})" if manifest.within else "")
            + "; here a manifest may only name files inside them (symlinks followed)",
        )
    if key == "documents" and not path.exists():
        raise manifest.error(line, f"{subject}: the documents {value!r} do not exist (paths are relative to {root})")
    if key != "documents" and not path.is_file():
        raise manifest.error(line, f"{subject}: the {key} file {value!r} does not exist (paths are relative to {root})")
    return path


def _grade_rule(manifest: _Manifest, data: Mapping[str, object]) -> GradeRule | None:
    """The ``[grade_rule]`` table as a :class:`GradeRule`, None when the manifest has none."""
    if "grade_rule" not in data:
        return None
    table = data["grade_rule"]
    line = manifest.table_line("grade_rule")
    if not isinstance(table, Mapping):
        raise manifest.error(
            line, f"grade_rule must be a table ([grade_rule]) of {', '.join(_GRADE_RULE_KEYS)}, got {table!r}"
        )
    for key in table:
        if key not in _GRADE_RULE_KEYS:
            raise manifest.error(
                manifest.key_line(key, table="grade_rule") or line,
                f"unknown key {key!r} in [grade_rule]; the keys allowed there are {', '.join(_GRADE_RULE_KEYS)}",
            )
    # One key at a time, in an order where each is checked against those before it: the error names its line.
    given: dict[str, object] = {}
    for key in (key for key in _GRADE_RULE_KEYS if key in table):
        given[key] = table[key]
        try:
            rule = GradeRule(**given)  # type: ignore[arg-type]
        except ContextGridError as error:
            where = manifest.key_line(key, table="grade_rule") or line
            raise manifest.error(where, f"[grade_rule] {key}: {error}") from None
    return rule if given else GradeRule()


def _configuration(
    manifest: _Manifest, root: Path, index: int, table: object, shared: Path | None, gold: tuple[str, ...]
) -> Configuration:
    """The ``index``-th ``[[config]]``; ``gold`` names what the manifest lacks to judge chunks on the gold spans
    (``questions``, ``documents``), empty when it has both."""
    line = manifest.config_line(index)
    if not isinstance(table, Mapping):
        raise manifest.error(line, f"config must be an array of tables ([[config]]), got {table!r}")
    _check_keys(manifest, table, _CONFIG_KEYS, index)
    name = table.get("name")
    if not isinstance(name, str) or not name.strip():
        where = manifest.key_line("name", index) or line
        raise manifest.error(where, f"configuration {index + 1} needs a name (a non-empty string), got {name!r}")
    subject = f"configuration {name!r}"
    run = _path(manifest, root, table, "run", subject, index)
    if run is None:
        raise manifest.error(line, f'{subject} names no run file; every configuration needs run = "..."')
    qrels = _path(manifest, root, table, "qrels", subject, index) or shared
    chunks = _path(manifest, root, table, "chunks", subject, index)
    if qrels is None and (chunks is None or gold):
        lacking = [*(["chunks = ... in it"] if chunks is None else []), *(f"{key} = ... at the top" for key in gold)]
        raise manifest.error(
            line,
            f'{subject} has no qrels: give it qrels = "...", name shared qrels at the top of the manifest, or have '
            f"its chunks judged on the questions' gold spans, which needs {' and '.join(lacking)}",
        )
    params = table.get("params", {})
    if not isinstance(params, Mapping):
        raise manifest.error(manifest.key_line("params", index) or line, f"{subject}: params must be a table")
    for key, value in params.items():
        if "@" in key or not key:
            raise manifest.error(
                manifest.key_line(key, index, table="params") or line,
                f"{subject}: parameter {key!r} must be a non-empty name without '@' (kept for metric@k labels)",
            )
        if not is_param_value(value):
            raise manifest.error(
                manifest.key_line(key, index, table="params") or line,
                f"{subject}: parameter {key!r} must be a string, number or boolean, got {value!r}",
            )
    return Configuration(
        name,
        params,
        run=run,
        qrels=qrels,
        chunks=chunks,
        answers=_path(manifest, root, table, "answers", subject, index),
    )


def manifest_text(
    name: str,
    configs: Sequence[Mapping[str, object]],
    *,
    comment: str | None = None,
    **shared: str,
) -> str:
    """The text of a ``contextgrid.toml``: the shared files, then one ``[[config]]`` table per mapping.

    Each mapping gives a configuration's keys (``name``, ``run``, ``qrels``,
    ``chunks``, ``answers``) and optionally ``params``, a mapping of its own.
    Values are written as JSON, which TOML reads the same for strings,
    numbers and booleans.

    Examples
    --------
    >>> print(manifest_text("demo", [{"name": "a", "run": "a.trec", "params": {"size": 500}}], qrels="q.trec"), end="")
    name = "demo"
    qrels = "q.trec"
    <BLANKLINE>
    [[config]]
    name = "a"
    run = "a.trec"
    [config.params]
    size = 500
    """
    lines = [] if comment is None else [f"# {comment}"]
    lines += [f"name = {json.dumps(name)}", *(f"{key} = {json.dumps(value)}" for key, value in shared.items())]
    for config in configs:
        lines += ["", "[[config]]"]
        lines += [f"{key} = {json.dumps(value)}" for key, value in config.items() if key != "params"]
        params = config.get("params")
        if isinstance(params, Mapping) and params:
            lines += ["[config.params]", *(f"{key} = {json.dumps(value)}" for key, value in params.items())]
    return "\n".join(lines) + "\n"


def load_workspace(
    path: str | Path,
    *,
    within: Sequence[str | Path] | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_line_bytes: int | None = None,
    max_ratio: int | None = DEFAULT_MAX_RATIO,
) -> Workspace:
    """Read the workspace in folder ``path`` (or from its ``contextgrid.toml`` itself).

    The manifest is checked in full, and every file it names must exist; the
    files are read later, when first asked for. Paths in the manifest are
    relative to the workspace folder. A configuration with chunks but no
    qrels (its own or shared ones) is judged on the questions' gold spans,
    which needs ``questions`` and ``documents`` at the top, graded by the
    manifest's ``[grade_rule]`` (``full_fraction``, ``partial_grade``,
    ``min_fraction``), else by the default
    :class:`~contextgrid.evidence.resolver.GradeRule`.

    Parameters
    ----------
    path : path
        The workspace folder, or its manifest.
    within : sequence of paths, optional
        Confine the manifest: every file it names must resolve (symlinks
        followed) inside the workspace folder or one of these folders, and
        so must every file the workspace reads, checked again as it is opened
        (documents inside a folder included). The dashboard passes its allowed
        folders; by default a manifest may name any file, as on the command line.
    max_bytes, max_line_bytes, max_ratio : int, optional
        The limits its files are read within (:class:`~contextgrid.workspace.model.Workspace`):
        1 GiB per file, decompressed, 100 times its compressed size for a gzip file, and each reader's line
        limit by default.

    Raises
    ------
    InputFileError
        Naming ``contextgrid.toml``, the line and the configuration, for a
        missing manifest or file, invalid TOML, an unknown key, a repeated
        configuration name, a configuration without qrels that cannot be
        judged on the gold spans, a bad ``[grade_rule]`` value, or a
        ``[grade_rule]`` that no configuration is judged by; with ``within``,
        for a path outside it.

    Examples
    --------
    >>> from contextgrid.workspace.manifest import load_workspace
    >>> workspace = load_workspace(HANDMADE)
    >>> workspace.names
    ('bm25-fixed-512', 'dense-fixed-512', 'bm25-fixed-256', 'dense-fixed-256')
    >>> dict(workspace.config("dense-fixed-256").params)
    {'chunker': 'fixed', 'size': 256, 'overlap': 32, 'retriever': 'dense'}
    >>> load_workspace(HANDMADE, within=[]).names == workspace.names
    True
    """
    given = Path(path)
    manifest_path = given if given.name == MANIFEST and given.is_file() else given / MANIFEST
    shown = str(manifest_path)
    if not manifest_path.is_file():
        expected = (
            f"no {MANIFEST} here; a workspace is a folder holding a {MANIFEST} manifest"
            if given.is_dir()
            else "no such workspace folder"
        )
        raise InputFileError(shown if given.is_dir() else given, None, None, expected)
    root = manifest_path.parent.resolve()
    allowed = None if within is None else tuple(Path(folder).resolve() for folder in within)
    if allowed is not None and not is_within(manifest_path, (root, *allowed)):
        raise InputFileError(shown, None, None, "the manifest is a link to a file outside the allowed folders")
    manifest = _Manifest(manifest_path, shown, allowed)
    data = manifest.data
    _check_keys(manifest, data, _TOP_KEYS, None)

    name = data.get("name", root.name)
    if not isinstance(name, str) or not name.strip():
        raise manifest.error(manifest.key_line("name"), f"name must be a non-empty string, got {name!r}")
    shared = _path(manifest, root, data, "qrels", "the shared qrels", None)
    questions = _path(manifest, root, data, "questions", "the shared questions", None)
    documents = _path(manifest, root, data, "documents", "the shared documents", None)
    gold = tuple(key for key, path in (("questions", questions), ("documents", documents)) if path is None)
    rule = _grade_rule(manifest, data)

    tables = data.get("config", [])
    if not isinstance(tables, list) or not tables:
        raise manifest.error(
            manifest.key_line("config"),
            "a workspace needs at least one configuration: add a [[config]] table with a name and a run",
        )
    configs: list[Configuration] = []
    for index, table in enumerate(tables):
        config = _configuration(manifest, root, index, table, shared, gold)
        if any(config.name == earlier.name for earlier in configs):
            raise manifest.error(
                manifest.key_line("name", index) or manifest.config_line(index),
                f"configuration name {config.name!r} is used twice; each configuration needs its own name",
            )
        configs.append(config)
    if rule is not None and all(config.qrels is not None for config in configs):
        raise manifest.error(
            manifest.table_line("grade_rule"),
            "[grade_rule] grades the chunks of configurations without qrels, on the gold spans, but every "
            "configuration here has a qrels file: remove [grade_rule], or the qrels it should replace",
        )
    return Workspace(
        name,
        root,
        tuple(configs),
        questions_path=questions,
        documents_path=documents,
        max_bytes=max_bytes,
        max_line_bytes=max_line_bytes,
        max_ratio=max_ratio,
        grade_rule=GradeRule() if rule is None else rule,
        within=None if allowed is None else (root, *allowed),
    )
