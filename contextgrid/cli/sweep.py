"""``contextgrid sweep``: chunk, resolve, retrieve and write a workspace for a grid of configurations."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path
from typing import cast

from contextgrid.cli.commands import Subcommand, limits
from contextgrid.core.errors import ContextGridError
from contextgrid.core.log import WarningLog
from contextgrid.index.embeddings import Embedder, FitsOnCorpus

__all__ = ["COMMAND", "load_embedder"]


def _names(text: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    if not names:
        raise argparse.ArgumentTypeError(f"expected comma-separated names, got {text!r}")
    return names


def _numbers(text: str) -> tuple[int, ...]:
    try:
        numbers = tuple(dict.fromkeys(int(part) for part in text.split(",") if part.strip()))
    except ValueError:
        numbers = ()
    if not numbers or min(numbers) < 0:
        raise argparse.ArgumentTypeError(f"expected comma-separated whole numbers, 0 or more, got {text!r}")
    return numbers


def load_embedder(spec: str) -> Embedder | FitsOnCorpus:
    """The object ``--embedder module:attribute`` names: imported as ``python -m`` would, the current folder
    first, so that a ``my_models.py`` beside the data is found.

    Examples
    --------
    >>> load_embedder("contextgrid.index.embeddings:TfidfSvdEmbedder")
    <class 'contextgrid.index.embeddings.TfidfSvdEmbedder'>
    >>> load_embedder("encode")
    Traceback (most recent call last):
    ...
    contextgrid.core.errors.ContextGridError: --embedder takes module:callable (such as my_models:encode), got 'encode'
    """
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ContextGridError(f"--embedder takes module:callable (such as my_models:encode), got {spec!r}")
    sys.path.insert(0, os.getcwd())
    try:
        target: object = importlib.import_module(module_name)
    except ImportError as error:
        raise ContextGridError(f"--embedder {spec}: cannot import {module_name!r} ({error})") from None
    finally:
        sys.path.remove(os.getcwd())
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise ContextGridError(f"--embedder {spec}: {module_name!r} has no {attribute!r}")
        target = getattr(target, part)
    if not callable(target) and not hasattr(target, "fit"):
        raise ContextGridError(f"--embedder {spec}: {attribute!r} is neither callable nor has fit()")
    return cast("Embedder | FitsOnCorpus", target)


def _configure_sweep(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("documents", type=Path, help="a folder of .txt/.md files, or JSON Lines {doc_id, text}")
    parser.add_argument("questions", type=Path, help="JSON Lines questions with gold evidence (quotes or offsets)")
    parser.add_argument("-o", "--output", type=Path, required=True, help="the workspace folder to write")
    parser.add_argument("--chunkers", type=_names, default=("recursive",), help="default: recursive")
    parser.add_argument("--sizes", type=_numbers, default=(200, 500, 1000, 2000), help="default: 200,500,1000,2000")
    parser.add_argument("--overlaps", type=_numbers, default=(0,), help="default: 0")
    parser.add_argument("--retrievers", type=_names, default=("bm25", "dense"), help="default: bm25,dense")
    parser.add_argument("--depth", type=_numbers, default=(20,), help="ranks retrieved per question (default: 20)")
    parser.add_argument("--name", default="sweep", help="the workspace's name")
    parser.add_argument(
        "--embedder",
        metavar="MODULE:CALLABLE",
        help="the embedding model of the retrievers that embed: a function from a list of texts to a matrix, "
        "one row per text (MODULE is imported from the current folder first); default: TF-IDF + SVD",
    )


def _run_sweep(args: argparse.Namespace) -> int:
    from contextgrid.io import read_documents, read_questions
    from contextgrid.workspace.sweep import sweep, sweep_grid

    embedder = None if args.embedder is None else load_embedder(args.embedder)
    documents = read_documents(args.documents, **limits(args))
    items = read_questions(args.questions, **limits(args))
    grid = sweep_grid(
        chunkers=args.chunkers, sizes=args.sizes, overlaps=args.overlaps, retrievers=args.retrievers, depths=args.depth
    )
    shown = sys.stderr.isatty()
    done = iter(range(1, len(grid) + 1))

    def progress(name: str) -> None:
        if shown:
            print(f"\rsweep [{next(done)}/{len(grid)}] {name}".ljust(60), end="", file=sys.stderr, flush=True)

    log = WarningLog()
    report = sweep(
        documents, items, grid, args.output, name=args.name, warnings=log, progress=progress, embedder=embedder
    )
    if shown:
        print(file=sys.stderr)
    for name, reason in report.failed.items():
        print(f"contextgrid: {name} failed and was left out: {reason}", file=sys.stderr)
    print(f"wrote {len(report.written)} configurations to {report.root}")
    return 0


COMMAND = Subcommand(
    "sweep",
    "chunk, resolve gold evidence, retrieve and write a workspace for a grid of configurations",
    _configure_sweep,
    _run_sweep,
    reads_files=True,
)
