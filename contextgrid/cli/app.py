"""``contextgrid app``: serve the dashboard on a workspace."""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from contextgrid.cli.commands import Subcommand, ratio_option
from contextgrid.core.errors import ContextGridError
from contextgrid.core.resources import shipped
from contextgrid.io.files import DEFAULT_MAX_BYTES, DEFAULT_MAX_RATIO
from contextgrid.workspace.manifest import load_workspace

__all__ = [
    "COMMAND",
    "DEFAULT_EXPANDED_MB",
    "DEFAULT_SESSION_MB",
    "DEFAULT_UPLOAD_MB",
    "PRIVATE_SETTINGS",
    "app_command",
    "app_script",
]


def app_script() -> Path:
    """The dashboard script ``contextgrid app`` starts: shipped in the package, or an editable install's own.

    Looked up when the dashboard starts, not when the command line is imported: the other subcommands work even
    where the dashboard's files cannot be found.

    Examples
    --------
    >>> app_script().name, (app_script().parent / ".streamlit" / "config.toml").is_file()
    ('app.py', True)
    """
    return shipped("app.py")


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number from 1 to 65535, got {text!r}")
    return port


DEFAULT_UPLOAD_MB = 200
"""The largest upload by default (Streamlit's own default), in megabytes."""

DEFAULT_SESSION_MB = 1000
"""The most one session may upload in all by default, in megabytes: five files of the largest size."""

DEFAULT_EXPANDED_MB = DEFAULT_MAX_BYTES >> 20
"""The most a file the dashboard reads may hold once decompressed by default, in megabytes: the library's
default (:data:`~contextgrid.io.files.DEFAULT_MAX_BYTES`), 1024."""


PRIVATE_SETTINGS = ("--browser.gatherUsageStats", "false", "--client.toolbarMode", "viewer")
"""Streamlit's settings that keep the dashboard to itself, as ``.streamlit/config.toml`` sets them too: no usage
statistics sent from visitors' browsers, no Deploy button, no Rerun nor "Clear cache" (of every session) in the
menu. On the command line they win over a user's own config file or ``STREAMLIT_*`` variables."""


def _megabytes(text: str) -> int:
    try:
        size = int(text)
    except ValueError:
        size = 0
    if size < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of megabytes, 1 or more, got {text!r}")
    return size


def _configure_app(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "workspace",
        nargs="?",
        type=Path,
        metavar="WORKSPACE",
        help="the workspace folder to open (default: the sample workspace)",
    )
    parser.add_argument("--port", type=_port, help="serve on this port (default: streamlit's, 8501)")
    parser.add_argument("--headless", action="store_true", help="do not open a browser")
    parser.add_argument(
        "--address",
        default="127.0.0.1",
        help="the address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 for every interface)",
    )
    parser.add_argument(
        "--allow-folders",
        nargs="+",
        type=Path,
        default=[],
        metavar="DIR",
        help="let visitors open workspace folders under these folders (default: none, only WORKSPACE and uploads)",
    )
    parser.add_argument(
        "--max-upload-mb",
        type=_megabytes,
        default=DEFAULT_UPLOAD_MB,
        metavar="MB",
        help=f"the largest file a visitor may upload, in megabytes (default {DEFAULT_UPLOAD_MB})",
    )
    parser.add_argument(
        "--max-session-mb",
        type=_megabytes,
        default=DEFAULT_SESSION_MB,
        metavar="MB",
        help="the most a visitor's session may upload in all, as uploaded and once decompressed (Parquet: "
        f"decoded), in megabytes (default {DEFAULT_SESSION_MB})",
    )
    parser.add_argument(
        "--max-expanded-mb",
        type=_megabytes,
        default=DEFAULT_EXPANDED_MB,
        metavar="MB",
        help="the most one file the dashboard reads (an upload, a workspace's) may hold once decompressed, in "
        f"megabytes (default {DEFAULT_EXPANDED_MB})",
    )
    parser.add_argument(
        "--max-ratio",
        type=ratio_option,
        default=DEFAULT_MAX_RATIO,
        metavar="N",
        help="the most times a gzip file the dashboard reads may expand; off for no limit "
        f"(default {DEFAULT_MAX_RATIO})",
    )


def app_command(
    workspace: Path,
    *,
    port: int | None = None,
    headless: bool = False,
    address: str = "127.0.0.1",
    allow_folders: Sequence[Path] = (),
    max_upload_mb: int = DEFAULT_UPLOAD_MB,
    max_session_mb: int = DEFAULT_SESSION_MB,
    max_expanded_mb: int = DEFAULT_EXPANDED_MB,
    max_ratio: int | None = DEFAULT_MAX_RATIO,
) -> list[str]:
    """The command line that serves the dashboard on ``workspace``, listening on ``address`` only.

    Visitors may open workspace folders only under ``allow_folders`` (none by default), and upload files of up
    to ``max_upload_mb`` megabytes each, ``max_session_mb`` in all; every file the dashboard reads may hold up to
    ``max_expanded_mb`` megabytes once decompressed, and a gzip file may expand ``max_ratio`` times (``None``: no
    limit).

    Examples
    --------
    >>> from pathlib import Path
    >>> command = app_command(Path("/data/ws"), port=8600, headless=True)
    >>> command[3:]  # doctest: +ELLIPSIS
    ['run', '.../app.py', '--server.address', '127.0.0.1', '--server.maxUploadSize', '200',
     '--browser.gatherUsageStats', 'false', '--client.toolbarMode', 'viewer', '--server.port', '8600',
     '--server.headless', 'true', '--', '--workspace', '/data/ws', '--max-session-mb', '1000',
     '--max-expanded-mb', '1024', '--max-ratio', '100']
    >>> command[4] == str(app_script())
    True
    >>> app_command(Path("/data/ws"), allow_folders=[Path("/data")])[-3:]
    ['100', '--allow-folders', '/data']
    """
    options = ["--server.address", address, "--server.maxUploadSize", str(max_upload_mb), *PRIVATE_SETTINGS]
    options += [] if port is None else ["--server.port", str(port)]
    options += ["--server.headless", "true"] if headless else []
    script = ["--workspace", str(workspace), "--max-session-mb", str(max_session_mb)]
    script += ["--max-expanded-mb", str(max_expanded_mb), "--max-ratio", "off" if max_ratio is None else str(max_ratio)]
    script += ["--allow-folders", *map(str, allow_folders)] if allow_folders else []
    return [sys.executable, "-m", "streamlit", "run", str(app_script()), *options, "--", *script]


def _run_app(args: argparse.Namespace) -> int:
    from contextgrid.workspace.sample import SAMPLE  # located only when the dashboard is asked for

    # A broken workspace fails here, not inside the dashboard.
    workspace = load_workspace(SAMPLE if args.workspace is None else args.workspace)
    for folder in args.allow_folders:
        if not folder.is_dir():
            raise ContextGridError(f"--allow-folders: {str(folder)!r} is not a folder")
    command = app_command(
        workspace.root,
        port=args.port,
        headless=args.headless,
        address=args.address,
        allow_folders=[folder.resolve() for folder in args.allow_folders],
        max_upload_mb=args.max_upload_mb,
        max_session_mb=args.max_session_mb,
        max_expanded_mb=args.max_expanded_mb,
        max_ratio=args.max_ratio,
    )
    process = subprocess.Popen(command)

    def forward(signum: int, _frame: object) -> None:
        process.send_signal(signum)

    previous = signal.signal(signal.SIGTERM, forward)
    try:
        return process.wait()
    except KeyboardInterrupt:  # the terminal sent SIGINT to streamlit too; let it finish shutting down
        return process.wait()
    finally:
        signal.signal(signal.SIGTERM, previous)


COMMAND = Subcommand(
    "app",
    "start the dashboard on a workspace",
    _configure_app,
    _run_app,
)
