"""The MCP example as a new user runs it: a fresh venv with the client's ``mcp`` extra,
which gives the newest ``mcp`` on the index (2.x today), not the server's pinned 1.x."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "clients" / "python" / "examples" / "mcp_agent.py"


@pytest.fixture(scope="module")
def new_user_python(tmp_path_factory):
    """A venv of its own holding ``pip install './clients/python[mcp]'`` (a copy of the
    client, so the build leaves nothing in the checkout)."""
    tmp = tmp_path_factory.mktemp("new-user")
    client = tmp / "python"
    shutil.copytree(ROOT / "clients" / "python", client, ignore=shutil.ignore_patterns("build", "*.egg-info",
                                                                                     "__pycache__"))
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    r = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        f"{client}[mcp]"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return python


@pytest.mark.slow
def test_the_mcp_example_runs_on_the_mcp_a_new_user_gets(new_user_python, api):
    version = subprocess.run([str(new_user_python), "-c", "import importlib.metadata as m; print(m.version('mcp'))"],
                             capture_output=True, text=True, check=True).stdout.strip()
    assert int(version.split(".")[0]) >= 2, version  # the SDK's current major, not the server's pin
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    r = subprocess.run([str(new_user_python), str(EXAMPLE)], capture_output=True, text=True, timeout=120,
                       env={**env, "SANDWORLD_API_URL": api})
    assert r.returncode == 0, r.stderr
    assert "MCP server lists 22 tools" in r.stdout
    assert "steps: 6  pass: True  score: 1.0" in r.stdout
    assert "FAIL" not in r.stdout
