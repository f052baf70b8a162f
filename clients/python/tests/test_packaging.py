"""`pip install ./clients/python` installs the package (its modules and its py.typed marker) where it is asked to,
and what it installed imports and runs from there, outside the repository."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from conftest import HERE


def test_pip_installs_the_package(tmp_path: Path) -> None:
    source = tmp_path / "source"
    # Built from a copy: setuptools leaves its build directory in the tree it builds.
    shutil.copytree(HERE.parent, source, ignore=shutil.ignore_patterns("tests", "__pycache__", "build", "*.egg-info"))
    target = tmp_path / "installed"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
         "--no-build-isolation", "--target", str(target), str(source)],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert (target / "flowbus" / "py.typed").exists() and (target / "flowbus" / "presenter.py").exists()
    imported = subprocess.run(
        [sys.executable, "-c", "import flowbus, flowbus.blocking; print(flowbus.__file__, flowbus.Step('x'))"],
        capture_output=True, text=True, cwd=tmp_path, env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    assert imported.returncode == 0 and str(target) in imported.stdout, imported.stderr
