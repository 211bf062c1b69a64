"""docs/CLUSTER.md runs as written against a real two-shard cluster: every
``python`` block as its own script and the ``shell`` blocks in one bash, with
the documented addresses replaced by the test cluster's. The ``sh`` blocks
start clusters; tests/cluster/test_serve.py runs those commands."""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys

import pytest

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "CLUSTER.md"
SHARD0 = "http://127.0.0.1:8787/api/v1"
SHARD1 = "http://127.0.0.1:8788/api/v1"

pytestmark = pytest.mark.slow


def blocks(lang: str) -> list:
    return re.findall(rf"```{lang}\n(.*?)```", DOC.read_text(), flags=re.S)


def _local(text: str, cluster) -> str:
    text = text.replace(SHARD0, cluster.urls[0]).replace(SHARD1, cluster.urls[1])
    return text.replace('join("auto")', f'join("{cluster.ray_address}")')


def test_the_doc_has_the_blocks_its_tests_run():
    assert set(re.findall(r"```(\w+)\n", DOC.read_text())) == {"sh", "text", "python", "shell", "yaml"}
    assert [b.split()[0:2] for b in blocks("sh")] == [["./scripts/serve", "--replicas"], ["sandworld", "serve"]]
    assert "[docs/CLUSTER.md](docs/CLUSTER.md)" in (DOC.parents[1] / "README.md").read_text()


@pytest.mark.parametrize("index", range(len(blocks("python"))))
def test_python_block_runs(index, cluster, tmp_path):
    code = _local(blocks("python")[index], cluster)
    script = tmp_path / f"block_{index}.py"
    script.write_text(code)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=180, cwd=tmp_path)
    assert r.returncode == 0, f"python block {index} failed:\n{code}\n--- stderr ---\n{r.stderr[-3000:]}"
    assert "Traceback" not in r.stderr


def test_shell_blocks_answer_what_the_doc_shows(cluster):
    script = _local("\n".join(blocks("shell")), cluster)
    r = subprocess.run(["bash", "-euo", "pipefail", "-c", script], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    shown = json.loads(_local(next(b for b in blocks("text") if b.startswith('{"shard"')), cluster))
    got = json.loads(r.stdout)
    # node ids are new on every start: the doc's shape, with this cluster's values
    assert got["shard"] == shown["shard"]
    assert [(s["shard"], s["url"], s["state"]) for s in got["shards"]] == [
        (s["shard"], s["url"], s["state"]) for s in shown["shards"]]
    assert [set(s) for s in got["shards"]] == [set(s) for s in shown["shards"]]
