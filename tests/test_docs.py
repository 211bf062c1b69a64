"""Every bash example in docs/ runs as written against a real server.

A doc's bash blocks run in order in one shell (so a block may use a variable
an earlier one set), with the documented address replaced by the test
server's. Each must exit 0 and no answer may be a server error. Install lines
(``pip install …``) are left out: the suite runs inside the installed project.
"""

from __future__ import annotations

import pathlib
import re
import subprocess

import pytest

from tests.conftest import running_server
from tests.test_readme import bash_blocks

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = sorted(p for p in (ROOT / "docs").glob("*.md") if bash_blocks(p))


@pytest.fixture(scope="module")
def server_url():
    with running_server() as url:
        yield url


@pytest.mark.parametrize("doc", DOCS, ids=[p.name for p in DOCS])
def test_doc_examples_run(doc, server_url, tmp_path):
    lines = "\n".join(bash_blocks(doc)).splitlines()
    lines = [ln for ln in lines if not re.match(r"\s*(\.venv/bin/)?(python3? -m )?pip install", ln)]
    script = "set -euo pipefail\n" + "\n".join(lines)
    script = script.replace("http://127.0.0.1:8787/api/v1", server_url)
    script = script.replace("http://127.0.0.1:8787", server_url.removesuffix("/api/v1"))
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 0, f"{doc.name}:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
    assert "internal_error" not in r.stdout, r.stdout[-2000:]
