"""The README's GRPO-from-a-prefix example runs as written against a real server."""

from __future__ import annotations

import subprocess

from tests.conftest import running_server
from tests.test_readme import ROOT, bash_blocks, json_values


def test_readme_fork_example_runs_as_written():
    block = next(b for b in bash_blocks(ROOT / "README.md") if "/fork" in b)
    assert "http://127.0.0.1:8787/api/v1" in block
    with running_server() as url:
        script = "set -euo pipefail\n" + block.replace("http://127.0.0.1:8787/api/v1", url)
        r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    preview, *group = json_values(r.stdout)
    assert preview["dry_run"] is True and preview["ok"] is True and preview["step"] == 2
    assert preview["would_change"]["requests"]["updated"] == ["rq-16"]
    assert [g["steps"] for g in group] == [3, 3, 3, 1]
    assert group[0]["score"] == 1.0 and all(g["score"] < 1.0 for g in group[1:])
    assert len({g["episode_id"] for g in group}) == 4
