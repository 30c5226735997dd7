"""The public surface: __all__ says exactly what is exported, and `import contextgrid` stays light."""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import contextgrid

INIT = Path(contextgrid.__file__)
# Imported lazily, where they are used, never by `import contextgrid` itself.
HEAVY = ("streamlit", "pandas", "scipy", "pyarrow", "sklearn", "plotly")


def public_names_of_init() -> set[str]:
    """Every public name contextgrid/__init__.py imports or defines at top level."""
    names: set[str] = set()
    for node in ast.parse(INIT.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            names.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.asname or alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(target.id for target in node.targets if isinstance(target, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {name for name in names if not name.startswith("_")}


def isort_style_key(name: str) -> tuple[int, str]:
    """ruff's RUF022 order: SCREAMING_CASE constants, then CamelCase classes, then the rest."""
    if name.isupper():
        return (0, name)
    if name[0].isupper():
        return (1, name)
    return (2, name)


def test_all_lists_every_public_name_of_init_and_nothing_else() -> None:
    assert set(contextgrid.__all__) == public_names_of_init()


def test_every_name_in_all_exists() -> None:
    missing = [name for name in contextgrid.__all__ if not hasattr(contextgrid, name)]
    assert missing == []


def test_all_has_no_duplicates_and_is_sorted_isort_style() -> None:
    assert len(contextgrid.__all__) == len(set(contextgrid.__all__))
    assert contextgrid.__all__ == sorted(contextgrid.__all__, key=isort_style_key)


def submodules() -> list[ModuleType]:
    found = pkgutil.walk_packages(contextgrid.__path__, prefix="contextgrid.")
    return [importlib.import_module(info.name) for info in sorted(found, key=lambda info: info.name)]


MODULES = [module for module in (contextgrid, *submodules()) if hasattr(module, "__all__")]


@pytest.mark.parametrize("module", MODULES, ids=[module.__name__ for module in MODULES])
def test_every_submodules_all_names_exist(module: ModuleType) -> None:
    exported = module.__all__
    assert len(exported) == len(set(exported)), f"{module.__name__}.__all__ repeats a name"
    missing = [name for name in exported if not hasattr(module, name)]
    assert missing == [], f"{module.__name__}.__all__ names what it does not define"


# The heavy packages a fresh interpreter holds once it has imported contextgrid. (How long the import takes,
# bench/bench_import.py measures: a test asserts no wall-clock time.)
PROBE = f"""
import json, sys
import contextgrid
print(json.dumps(sorted(name for name in {HEAVY!r} if any(m == name or m.startswith(name + ".") for m in sys.modules))))
"""


def test_import_contextgrid_does_not_import_heavy_optional_packages() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(done.stdout) == []
