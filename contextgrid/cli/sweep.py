"""``contextgrid sweep``: chunk, resolve, retrieve and write a workspace for a grid of configurations."""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
from pathlib import Path
from typing import cast

from contextgrid.cli.commands import Subcommand, limits
from contextgrid.cli.tables import printable
from contextgrid.core.errors import ContextGridError
from contextgrid.core.log import WarningLog
from contextgrid.index.embeddings import Embedder, FitsOnCorpus

__all__ = ["COMMAND", "load_embedder"]


class _Terminated(BaseException):
    """SIGTERM, raised where the sweep is, as SIGINT raises KeyboardInterrupt: it stops the same way, its list of
    written files saved. A BaseException, so that no ``except Exception`` takes it for a failing configuration."""


def _terminate(_signum: int, _frame: object) -> None:
    raise _Terminated


STOPS: dict[type[BaseException], tuple[str, int]] = {KeyboardInterrupt: ("SIGINT", 130), _Terminated: ("SIGTERM", 143)}
"""What stops a sweep early: the signal's name and the exit status the shell gives a process it ended, 128 + its
number."""


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


def _off(text: str) -> str | None:
    """``none`` as ``None`` (the setting turned off), anything else as it is."""
    return None if text.strip().lower() == "none" else text


def _configure_sweep(parser: argparse.ArgumentParser) -> None:
    from contextgrid.chunking import available_chunkers
    from contextgrid.index import available_retrievers
    from contextgrid.workspace.sweep import MIN_CHUNK

    parser.add_argument("documents", type=Path, help="a folder of .txt/.md files, or JSON Lines {doc_id, text}")
    parser.add_argument("questions", type=Path, help="JSON Lines questions with gold evidence (quotes or offsets)")
    parser.add_argument("-o", "--output", type=Path, required=True, help="the workspace folder to write")
    parser.add_argument(
        "--chunkers",
        type=_names,
        default=("recursive",),
        help=f"comma-separated, from: {', '.join(available_chunkers())} (default: recursive)",
    )
    parser.add_argument(
        "--sizes",
        type=_numbers,
        default=(200, 500, 1000, 2000),
        help="chunk sizes in characters (in tokens for fixed_tokens), comma-separated (default: 200,500,1000,2000)",
    )
    parser.add_argument(
        "--overlaps", type=_numbers, default=(0,), help="overlaps, in the unit of --sizes, comma-separated (default: 0)"
    )
    parser.add_argument(
        "--retrievers",
        type=_names,
        default=("bm25", "lsa"),
        help=f"comma-separated, from: {', '.join(available_retrievers())} (default: bm25,lsa; dense and dense_int8 "
        "need --embedder)",
    )
    parser.add_argument("--depth", type=_numbers, default=(20,), help="ranks retrieved per question (default: 20)")
    parser.add_argument("--name", default="sweep", help="the workspace's name")
    parser.add_argument(
        "--embedder",
        metavar="MODULE:CALLABLE",
        help="the embedding model of dense, dense_int8 and hybrid: a function from a list of texts to a 2-D array, "
        "one row per text (MODULE is imported from the current folder first). No model is downloaded",
    )
    parser.add_argument(
        "--bm25-stemmer",
        type=_off,
        default="english",
        metavar="NAME",
        help="BM25's Snowball stemmer (english, porter, ...), or none (default: english)",
    )
    parser.add_argument(
        "--bm25-stopwords", type=_off, default="en", metavar="LIST", help="BM25's stop list: en or none (default: en)"
    )
    parser.add_argument(
        "--min-chunk",
        type=int,
        default=MIN_CHUNK,
        metavar="CHARS",
        help=f"merge chunks under this many characters (or a quarter of the size, if less) into a neighbour; "
        f"0 keeps them (default: {MIN_CHUNK})",
    )
    parser.add_argument(
        "--force", action="store_true", help="write into a folder that holds files a sweep did not write"
    )


def _run_sweep(args: argparse.Namespace) -> int:
    """The sweep, SIGTERM stopping it as SIGINT does; either ends it with a line saying so and 128 + the signal's
    number as the exit status, as the shell gives a process the signal ended."""
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        return _sweep(args)
    except tuple(STOPS) as stop:
        name, status = STOPS[type(stop)]
        if sys.stderr.isatty():
            print(file=sys.stderr)  # end the progress line
        print(
            f"contextgrid: sweep stopped by {name} before it finished; run it again into "
            f"{printable(str(args.output))} (it replaces the files it wrote there)",
            file=sys.stderr,
        )
        return status
    finally:
        signal.signal(signal.SIGTERM, previous)


def _sweep(args: argparse.Namespace) -> int:
    from contextgrid.io import read_documents
    from contextgrid.io.questions import read_located_questions
    from contextgrid.workspace.sweep import sweep, sweep_grid

    embedder = None if args.embedder is None else load_embedder(args.embedder)
    documents = read_documents(args.documents, **limits(args))
    items, lines = read_located_questions(args.questions, **limits(args))
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
        documents,
        items,
        grid,
        args.output,
        name=args.name,
        warnings=log,
        progress=progress,
        embedder=embedder,
        bm25_stemmer=args.bm25_stemmer,
        bm25_stopwords=args.bm25_stopwords,
        min_chunk=args.min_chunk,
        force=args.force,
        origins={question: f"{args.questions}, line {line}" for question, line in lines.items()},
    )
    if shown:
        print(file=sys.stderr)
    for name, reason in report.failed.items():
        print(f"contextgrid: {name} failed and was left out: {reason}", file=sys.stderr)
    print(report.summary())
    return 0


COMMAND = Subcommand(
    "sweep",
    "chunk, resolve gold evidence, retrieve and write a workspace for a grid of configurations",
    _configure_sweep,
    _run_sweep,
    reads_files=True,
)
