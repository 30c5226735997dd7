"""A built wheel is the whole product: installed into a fresh virtual environment, from a folder outside the
checkout, ``contextgrid app`` serves the bundled sample and ``contextgrid app DIR`` a user's workspace."""

from __future__ import annotations

import shutil
import site
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DEADLINE = 120.0
MANIFEST = "contextgrid.toml"


# What a build leaves in a source tree, and what is not source: a copy of the checkout without them is built.
NOT_SOURCE = shutil.ignore_patterns(
    ".git", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", "artifacts"
)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from this checkout, as ``pip wheel .`` builds it, but from a copy: a build leaves
    ``build/`` and ``*.egg-info`` in the folder it builds, and tests write only under a temporary folder."""
    source = tmp_path_factory.mktemp("source") / "contextgrid"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCE)
    wheels = tmp_path_factory.mktemp("wheels")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(wheels), str(source)],
        check=True,
        cwd=wheels,
    )
    (built,) = wheels.glob("contextgrid-*.whl")
    return built


def _seen_packages() -> list[str]:
    """The folders the running interpreter imports installed packages from, in its order: its site-packages
    (a virtualenv's own, and the base's too if the virtualenv includes them) and the user's, if it reads it."""
    sites = {*site.getsitepackages(), site.getusersitepackages()}
    return [folder for folder in sys.path if folder in sites]


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new venv with the wheel installed; its dependencies are the ones the tests run with, nothing downloaded.

    ``venv --system-site-packages`` would show it the base interpreter's packages, not an activated virtualenv's;
    a ``.pth`` file lists the running interpreter's package folders instead. Its lines are folders only: the
    ``.pth`` files inside them are not run, so the checkout's editable install cannot shadow the wheel, whose
    own folder comes first anyway.
    """
    folder = tmp_path_factory.mktemp("wheel")
    environment = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(environment)], check=True)
    python = str(environment / "bin" / "python")
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(purelib) / "_the_tests_packages.pth").write_text("".join(f"{path}\n" for path in _seen_packages()))
    pip = [python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--force-reinstall"]
    subprocess.run([*pip, str(wheel)], check=True, cwd=folder)
    return environment


def test_the_wheel_ships_the_sample_workspace_only(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    shipped = sorted(name.removeprefix("contextgrid/_dashboard/") for name in names if "/_dashboard/" in name)
    sample = ROOT / "sample_data" / "workspace"
    expected = ["app.py", ".streamlit/config.toml", *(f"pages/{path.name}" for path in (ROOT / "pages").glob("*.py"))]
    expected += [f"sample_data/workspace/{path.relative_to(sample)}" for path in sample.rglob("*") if path.is_file()]
    assert shipped == sorted(expected)  # not the hand-made workspace, the corpus nor a __pycache__


def test_the_wheel_carries_the_dashboard_and_the_sample(venv: Path, tmp_path: Path) -> None:
    script = (
        "import contextgrid, contextgrid.cli.app as app, contextgrid.workspace.sample as sample\n"
        "print(contextgrid.__file__); print(app.app_script()); print(sample.SAMPLE)\n"
    )
    found = subprocess.run(
        [str(venv / "bin" / "python"), "-c", script], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    package, app, sample = (Path(line) for line in found.stdout.splitlines())
    installed = venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    assert package == installed / "contextgrid" / "__init__.py"
    assert app == installed / "contextgrid" / "_dashboard" / "app.py"
    assert sample == installed / "contextgrid" / "_dashboard" / "sample_data" / "workspace"
    assert (app.parent / ".streamlit" / "config.toml").is_file()
    assert sorted(path.name for path in (app.parent / "pages").glob("*.py")) == sorted(
        path.name for path in (ROOT / "pages").glob("*.py")
    )
    assert (sample / "contextgrid.toml").read_bytes() == (ROOT / "sample_data" / "workspace" / MANIFEST).read_bytes()


def test_the_dashboards_streamlit_settings_apply_from_any_folder(venv: Path, tmp_path: Path) -> None:
    # What `streamlit run SCRIPT` does first (streamlit/web/cli.py): the settings beside the script count.
    script = (
        "import streamlit.config as config\n"
        "from contextgrid.cli.app import app_script\n"
        "config._main_script_path = str(app_script())\n"
        "config.get_config_options(force_reparse=True)\n"
        "names = ['runner.magicEnabled', 'server.fileWatcherType', 'browser.gatherUsageStats', 'client.toolbarMode']\n"
        "print(*(config.get_option(name) for name in names))\n"
    )
    found = subprocess.run(
        [str(venv / "bin" / "python"), "-c", script], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    # No usage statistics, no Deploy button nor visitor-wide "Clear cache": nothing leaves the machine.
    assert found.stdout.split() == ["False", "none", "False", "viewer"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class _Lines:
    """A process's stdout read on a thread, so a test can wait for a line with a deadline."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        self.changed = threading.Condition()
        threading.Thread(target=self._read, args=(process,), daemon=True).start()

    def _read(self, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            with self.changed:
                self.lines.append(line)
                self.changed.notify_all()

    def wait_for(self, text: str, deadline: float) -> str:
        with self.changed:
            while not any(text in line for line in self.lines):
                remaining = deadline - time.monotonic()
                assert remaining > 0, f"no line with {text!r} in time; the server printed: {''.join(self.lines)}"
                self.changed.wait(remaining)
            return next(line for line in self.lines if text in line)


@contextmanager
def _serving(venv: Path, cwd: Path, *arguments: str) -> Iterator[tuple[str, _Lines]]:
    port = _free_port()
    command = [str(venv / "bin" / "contextgrid"), "app", *arguments, "--port", str(port), "--headless"]
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = _Lines(process)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + DEADLINE
    try:
        while True:
            assert process.poll() is None, f"the server stopped: {''.join(lines.lines)}"
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=5) as response:
                    if response.read() == b"ok":
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                assert time.monotonic() < deadline, f"no answer from {url}; the server printed: {''.join(lines.lines)}"
                time.sleep(0.2)  # polling a condition (the health check), not waiting for time
        yield url, lines
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_contextgrid_app_serves_the_sample_from_any_folder(venv: Path, tmp_path: Path) -> None:
    with _serving(venv, tmp_path) as (url, lines):
        with urllib.request.urlopen(url, timeout=30) as response:
            assert response.status == 200
            assert b"<title>" in response.read()
        scored = lines.wait_for("contextgrid: scored", time.monotonic() + DEADLINE)
        assert str(venv) in scored
        assert str(Path("_dashboard") / "sample_data" / "workspace") in scored
    assert not [line for line in lines.lines if "usage statistics" in line], "".join(lines.lines)


def test_contextgrid_app_serves_a_users_workspace(venv: Path, tmp_path: Path) -> None:
    workspace = tmp_path / "my workspace"
    shutil.copytree(ROOT / "sample_data" / "handmade", workspace)
    with _serving(venv, tmp_path, str(workspace)) as (url, lines):
        with urllib.request.urlopen(url, timeout=30) as response:
            assert response.status == 200
        scored = lines.wait_for("contextgrid: scored", time.monotonic() + DEADLINE)
        assert f"scored {workspace}" in scored


def test_the_wheel_carries_the_reports_plotly_js(venv: Path, tmp_path: Path) -> None:
    script = "from contextgrid.render.report import plotly_js\nprint(plotly_js()[:60])\n"
    found = subprocess.run(
        [str(venv / "bin" / "python"), "-c", script], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert "plotly.js (cartesian - minified)" in found.stdout
