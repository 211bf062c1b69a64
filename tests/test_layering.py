"""The architecture as a contract: doors -> service -> engine -> worlds ->
verify -> core (``[tool.importlinter]`` in pyproject.toml). A module may import
from the layers below it, never from one above; ``lint-imports`` checks every
import, those inside functions too."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINT = Path(sys.executable).with_name("lint-imports")


def _lint(tree: Path) -> subprocess.CompletedProcess:
    # PYTHONPATH first: the tree under test, not the installed project.
    return subprocess.run([str(LINT), "--no-cache"], cwd=tree, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"})


def test_the_layers_hold():
    done = _lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 kept, 0 broken" in done.stdout


def _lint_with(tmp_path: Path, module: str, line: str) -> subprocess.CompletedProcess:
    """Lint a copy of the project with ``line`` added to ``module``."""
    for pkg in ("sw_runtime", "sw_core_ext"):
        shutil.copytree(ROOT / pkg, tmp_path / pkg, ignore=shutil.ignore_patterns("*.so", "*.c", "__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    path = tmp_path / module
    path.write_text(path.read_text() + "\n" + line + "\n")
    return _lint(tmp_path)


def test_an_import_that_runs_back_up_breaks_the_layers(tmp_path):
    done = _lint_with(tmp_path, "sw_runtime/verify/score.py", "from ..engine import episode  # runs back up")
    assert done.returncode != 0
    assert "sw_runtime.verify.score -> sw_runtime.engine.episode" in done.stdout, done.stdout


def test_a_door_that_skips_the_service_breaks_the_contract(tmp_path):
    done = _lint_with(tmp_path, "sw_runtime/api/common.py", "from ..engine.engine import Engine  # skips the service")
    assert done.returncode != 0
    assert "sw_runtime.api.common -> sw_runtime.engine.engine" in done.stdout, done.stdout
