"""Every bash example in docs/ runs as written against a real server.

Each bash block runs on its own, in a fresh shell (a reader may start at any
section, so no block may use a variable an earlier one set), with the
documented address replaced by the test server's. Each must exit 0 and no
answer may be a server error. Install lines
(``pip install …``) are left out: the suite runs inside the installed project.
An output a doc shows as a comment right under its command (``# {"key":null,…}``)
must be what the command printed.
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest

from tests.conftest import running_server
from tests.test_readme import bash_blocks

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = sorted(p for p in (ROOT / "docs").glob("*.md") if bash_blocks(p))


def shown_outputs(block: str) -> list:
    """The outputs a bash block shows: a ``# `` comment right under a command, with
    its ``#  `` continuation lines; prose after two spaces and ``(`` is not output."""
    out, after_command = [], False
    lines = block.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("# ") and after_command:
            text = line[2:]
            if "  (" in text:
                text = text.split("  (")[0]
            else:
                while i + 1 < len(lines) and lines[i + 1].startswith("#  "):
                    i += 1
                    text += lines[i][2:]
            out.append(text)
            after_command = False
        else:
            after_command = bool(line.strip()) and not line.lstrip().startswith("#")
        i += 1
    return out


def _bare(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_shown_outputs_are_the_comments_under_commands():
    block = "# what comes next\ncurl -s x\n# {\"a\": 1,\n#  \"b\": 2}\n\n# a heading\necho y\n# y  (and prose)\n"
    assert shown_outputs(block) == ['{"a": 1, "b": 2}', "y"]


@pytest.fixture(scope="module")
def server_url():
    with running_server() as url:
        yield url


BLOCKS = [(doc, i) for doc in DOCS for i in range(len(bash_blocks(doc)))]


@pytest.mark.parametrize("doc,index", BLOCKS, ids=[f"{doc.name}-{i}" for doc, i in BLOCKS])
def test_doc_examples_run(doc, index, server_url, tmp_path):
    block = bash_blocks(doc)[index]
    lines = [ln for ln in block.splitlines() if not re.match(r"\s*(\.venv/bin/)?(python3? -m )?pip install", ln)]
    script = "set -euo pipefail\n" + "\n".join(lines)
    script = script.replace("http://127.0.0.1:8787/api/v1", server_url)
    script = script.replace("http://127.0.0.1:8787", server_url.removesuffix("/api/v1"))
    # The docs call `sandworld` as an activated .venv has it (README): this interpreter's bin folder.
    env = {**os.environ, "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")}
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    assert r.returncode == 0, f"{doc.name} block {index}:\n{block}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
    assert "internal_error" not in r.stdout, r.stdout[-2000:]
    for shown in shown_outputs(block):
        assert _bare(shown) in _bare(r.stdout), f"{doc.name} shows {shown!r}; the command printed:\n{r.stdout[-2000:]}"


def _listed(doc: str, before: str) -> list:
    """The field list a doc gives in backticks right after ``before``."""
    text = (ROOT / "docs" / doc).read_text()
    found = re.search(re.escape(before) + r"\s*`([^`]*)`", text)
    assert found, f"{doc} has no field list after {before!r}"
    fields = found.group(1).replace("\n", " ").strip()
    fields = fields[1:-1] if fields.startswith("{") else fields
    return [f.split(":")[0].strip() for f in fields.split(",") if not f.strip().startswith(("{", "id:"))]


def test_the_answers_have_the_fields_the_docs_list(server_url):
    import httpx

    with httpx.Client(base_url=server_url, timeout=30) as http:
        ep = http.post("/environments/coinpurse/episodes", json={"task_id": "cp-12", "seed": 2}).json()
        eid = ep["episode_id"]
        step = http.post(f"/episodes/{eid}/step", json={"tool": "list_requests", "arguments": {}}).json()
        snap = http.post(f"/episodes/{eid}/snapshots").json()
        dump = http.get(f"/episodes/{eid}/state").json()
        submit = http.post(f"/episodes/{eid}/submit", json={"output": "x"}).json()
        read = http.get(f"/episodes/{eid}").json()
    assert _listed("API.md", "answers") == list(step)
    assert _listed("API.md", "{\"output\": \"the agent's final answer\"}      (the body may be empty)\n```\n\nanswers"
                   ) == list(submit)
    assert _listed("API.md", "one row per check:") == list(submit["checks"][0])
    assert _listed("API.md", "one entry per answered call,") == [
        "result | error" if k == "result" else k for k in read["trace"][0]]
    assert _listed("FORKS.md", "answers 201") == list(snap)
    assert _listed("FORKS.md", "state[?collections=account,contacts]\n```\n\nanswers") == list(dump)
