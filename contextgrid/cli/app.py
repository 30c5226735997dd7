"""``contextgrid app``: serve the dashboard on a workspace."""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
from pathlib import Path

from contextgrid.cli.commands import Subcommand
from contextgrid.core.resources import shipped
from contextgrid.workspace.manifest import load_workspace
from contextgrid.workspace.sample import SAMPLE

__all__ = ["APP", "COMMAND", "app_command"]


APP = shipped("app.py")
"""The dashboard script ``contextgrid app`` starts: shipped in the package, or an editable install's own."""


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number from 1 to 65535, got {text!r}")
    return port


def _configure_app(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "workspace",
        nargs="?",
        type=Path,
        default=SAMPLE,
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


def app_command(
    workspace: Path, *, port: int | None = None, headless: bool = False, address: str = "127.0.0.1"
) -> list[str]:
    """The command line that serves the dashboard on ``workspace``, listening on ``address`` only.

    Examples
    --------
    >>> from pathlib import Path
    >>> app_command(Path("/data/ws"), port=8600, headless=True)[3:]  # doctest: +ELLIPSIS
    ['run', '.../app.py', '--server.address', '127.0.0.1', '--server.port', '8600', '--server.headless', 'true', '--',
     '--workspace', '/data/ws']
    """
    options = ["--server.address", address]
    options += [] if port is None else ["--server.port", str(port)]
    options += ["--server.headless", "true"] if headless else []
    return [sys.executable, "-m", "streamlit", "run", str(APP), *options, "--", "--workspace", str(workspace)]


def _run_app(args: argparse.Namespace) -> int:
    workspace = load_workspace(args.workspace)  # a broken workspace fails here, not inside the dashboard
    command = app_command(workspace.root, port=args.port, headless=args.headless, address=args.address)
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
