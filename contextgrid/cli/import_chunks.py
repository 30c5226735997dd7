"""``contextgrid import langchain|llamaindex|haystack DUMP.json --documents DIR -o OUT``: a framework's chunks as a
chunks file of a workspace, every offset checked against the documents."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from contextgrid.adapters import chunks_from_haystack, chunks_from_langchain, chunks_from_llamaindex
from contextgrid.cli.commands import REPLACE_HINT, Subcommand, limits
from contextgrid.core.errors import OutputExistsError
from contextgrid.core.log import WarningLog
from contextgrid.data.records import Chunk
from contextgrid.io import read_documents, write_chunks
from contextgrid.io.files import JSON_SHARE, Source
from contextgrid.io.jsonl import MAX_SHOWN_DEPTH, RepeatedKeyError, deep_line, unique_keys

__all__ = ["ADAPTERS", "COMMAND"]

Adapter = Callable[..., tuple[Chunk, ...]]

ADAPTERS: dict[str, Adapter] = {
    "langchain": chunks_from_langchain,
    "llamaindex": chunks_from_llamaindex,
    "haystack": chunks_from_haystack,
}
"""The frameworks ``contextgrid import`` reads, by name."""


def _configure_import(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("framework", choices=tuple(ADAPTERS), help="the framework that wrote DUMP")
    parser.add_argument(
        "dump", type=Path, metavar="DUMP.json", help="a JSON list of the framework's chunks (their dumps; .gz: gzip)"
    )
    parser.add_argument("--documents", type=Path, required=True, help="the documents the chunks come from")
    parser.add_argument("-o", "--output", type=Path, required=True, help="the folder to write chunks.jsonl into")
    parser.add_argument("--force", action="store_true", help="replace OUT/chunks.jsonl if it exists")


def _dump(path: Path, max_bytes: int, max_ratio: int | None) -> Sequence[Mapping[str, object]]:
    """The dump's chunks, read within the limits: one JSON value, parsed whole, so its size is limited to a share
    of max_bytes (:data:`~contextgrid.io.files.JSON_SHARE`), not its lines."""
    source = Source(path, max_bytes=max_bytes, max_ratio=max_ratio, share=JSON_SHARE)
    source.check_utf8()
    text = source.data.decode("utf-8")
    try:
        value = json.loads(text, object_pairs_hook=unique_keys)
    except json.JSONDecodeError as error:
        raise source.error(error.lineno, None, f"expected a JSON list of chunks ({error.msg})") from None
    except RepeatedKeyError as error:
        raise source.error(None, None, f"expected each key once in an object, got {error.key!r} twice") from None
    except RecursionError:
        raise source.error(
            deep_line(text),
            None,
            f"expected a JSON list of chunks, got JSON nested too deeply to read (past {MAX_SHOWN_DEPTH} levels)",
        ) from None
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise source.error(None, None, "expected a JSON list of objects, one per chunk")
    return value


def _run_import(args: argparse.Namespace) -> int:
    texts = read_documents(args.documents, **limits(args))
    log = WarningLog()
    chunks = ADAPTERS[args.framework](_dump(args.dump, args.max_bytes, args.max_ratio), texts, warnings=log)
    for entry in log:
        print(f"contextgrid: warning: {entry}", file=sys.stderr)
    target = args.output / "chunks.jsonl"
    if target.exists() and not args.force:
        raise OutputExistsError(f"{target} already exists; {REPLACE_HINT}")
    write_chunks(chunks, target, overwrite=args.force)
    print(f"wrote {len(chunks)} chunks to {target}")
    return 0


COMMAND = Subcommand(
    "import",
    "a LangChain, LlamaIndex or Haystack chunk dump as a workspace's chunks file, its offsets checked",
    _configure_import,
    _run_import,
    reads_files=True,
)
