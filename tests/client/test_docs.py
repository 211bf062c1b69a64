"""docs/CLIENT.md runs as written against a real server: every python block as
its own script, and the shell blocks in order in one bash and one folder,
with the documented address replaced by the test server's and this venv's
``sandworld`` command on the PATH. (They are fenced ``shell``, not ``bash``:
tests/test_docs.py runs the ``bash`` blocks of docs/ without the venv on the
PATH, where the ``sandworld`` command is not found.)

The two ``sh`` blocks set up what the others run against and are proven
elsewhere: ``pip install -e .`` (tests/client/test_packaging.py, and a
fresh-venv install) and ``sandworld serve`` (the server every test starts).
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest

from sw_runtime.worlds import registry
from tests.conftest import running_server

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "CLIENT.md"
DOCUMENTED = "http://127.0.0.1:8787/api/v1"


def blocks(lang: str) -> list:
    return re.findall(rf"```{lang}\n(.*?)```", DOC.read_text(), flags=re.S)


def test_the_tour_has_its_blocks():
    assert [b.strip() for b in blocks("sh")] == ["pip install -e .", "sandworld serve"]
    assert len(blocks("python")) >= 10 and len(blocks("shell")) >= 2
    fences = re.findall(r"```(\w+)\n", DOC.read_text())
    assert set(fences) == {"sh", "python", "shell"}  # nothing that no test runs


@pytest.fixture(scope="module")
def server():
    with running_server() as url:
        yield url


def _env(url: str) -> dict:
    env = dict(os.environ, SANDWORLD_API_URL=url, COLUMNS="160")
    env["PATH"] = f"{pathlib.Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # this venv's sandworld
    return env


@pytest.mark.parametrize("index", range(len(blocks("python"))))
def test_python_block_runs(index, server, tmp_path):
    code = blocks("python")[index]
    script = tmp_path / f"block_{index}.py"
    script.write_text(code)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                       env=_env(server), cwd=tmp_path)
    assert r.returncode == 0, f"python block {index} failed:\n{code}\n--- stderr ---\n{r.stderr}"


def test_shell_blocks_run_in_order(server, tmp_path):
    script = "\n".join(blocks("shell")).replace(DOCUMENTED, server)
    r = subprocess.run(["bash", "-euo", "pipefail", "-c", script], capture_output=True, text=True, timeout=300,
                       env=_env(server), cwd=tmp_path)
    assert r.returncode == 0, f"--- stdout ---\n{r.stdout[-3000:]}\n--- stderr ---\n{r.stderr[-3000:]}"
    assert list((tmp_path / "sandworld-data" / "reports").glob("run_*.md"))
    assert list((tmp_path / "sandworld-data" / "exports").glob("run_*.jsonl"))
    n = 5 * len(registry()["coinpurse"].tasks)
    passed = [(int(a), int(b)) for a, b in re.findall(r"run_\S+: (\d+)/(\d+) passed", r.stdout)]
    assert passed == [(n, n), (0, 2 * n), (10, 10)]  # reference, noop --trials 2, my_agent:solve
