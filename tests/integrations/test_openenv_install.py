"""OpenEnv's install as docs/INTEGRATIONS.md writes it: it resolves beside the server (whose MCP
door pins mcp<2) without gradio, and in a fresh venv it runs the OpenEnv example to a clean end
against a real server."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from tests.integrations.test_docs import DOC, blocks

pytestmark = pytest.mark.slow  # pip resolves against the index: tens of seconds

ROOT = pathlib.Path(__file__).resolve().parents[2]


def documented_install() -> list:
    """The ``sh`` block that installs OpenEnv, as argument lists."""
    (block,) = [b for b in blocks("sh") if "[openenv]" in b]
    return [shlex.split(line.split("#")[0]) for line in block.splitlines() if line.strip()]


def client_copy(tmp_path) -> pathlib.Path:
    """The client's sources, copied so that pip's build leaves nothing in the checkout."""
    dest = tmp_path / "clients" / "python"
    shutil.copytree(ROOT / "clients" / "python", dest, ignore=shutil.ignore_patterns("build", "*.egg-info",
                                                                                   "__pycache__"))
    return dest


def pip(python, *args, cwd) -> subprocess.CompletedProcess:
    r = subprocess.run([str(python), "-m", "pip", *args, "--disable-pip-version-check"], cwd=cwd,
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    return r


def test_the_documented_openenv_install_is_two_pip_commands():
    commands = documented_install()
    assert commands == [["pip", "install", "./clients/python[openenv]"],
                        ["pip", "install", "--no-deps", "openenv-core==0.3.0"]]


def test_the_facades_image_installs_as_documented():
    dockerfile = (ROOT / "clients/python/sandworld/integrations/openenv/Dockerfile").read_text()
    assert "pip install --no-cache-dir './clients/python[openenv]'" in dockerfile
    assert 'pip install --no-cache-dir --no-deps "openenv-core==0.3.0"' in dockerfile


def test_the_openenv_extra_resolves_beside_the_server_without_gradio(tmp_path):
    report = tmp_path / "report.json"
    # the extra together with the server (its mcp<2 pin), as one resolve
    pip(sys.executable, "install", "--dry-run", "--ignore-installed", "--quiet", "--report", str(report),
        "./clients/python[openenv]", ".", cwd=ROOT)
    picked = {i["metadata"]["name"].lower(): i["metadata"]["version"] for i in json.loads(report.read_text())["install"]}
    assert int(picked["mcp"].split(".")[0]) < 2 and int(picked["fastmcp"].split(".")[0]) == 3, picked
    assert "gradio" not in picked and "openenv-core" not in picked  # openenv-core goes in with --no-deps
    # and the extra alone (a trainer node with the client only) resolves to the same mcp major
    pip(sys.executable, "install", "--dry-run", "--ignore-installed", "--quiet", "--report", str(report),
        "./clients/python[openenv]", cwd=ROOT)
    alone = {i["metadata"]["name"].lower(): i["metadata"]["version"] for i in json.loads(report.read_text())["install"]}
    assert int(alone["mcp"].split(".")[0]) < 2 and "gradio" not in alone, alone


def test_a_fresh_venv_with_the_documented_install_runs_the_openenv_example(tmp_path, api):
    client_copy(tmp_path)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    for command in documented_install():
        assert command[:2] == ["pip", "install"]
        pip(python, *command[1:], "--quiet", cwd=tmp_path)
    (example,) = [b for b in blocks("python") if "GenericEnvClient" in b]
    script = tmp_path / "openenv_example.py"
    script.write_text(example)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    r = subprocess.run([str(python), str(script)], capture_output=True, text=True, timeout=180,
                       env={**env, "SANDWORLD_API_URL": api}, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip().splitlines()[-1] == "True 1.0", r.stdout
    assert r.stderr == "", r.stderr[-3000:]  # a clean end: no WebSocketDisconnect traceback
    assert not re.search(r"^gradio", pip(python, "list", "--format=freeze", cwd=tmp_path).stdout, flags=re.M)
