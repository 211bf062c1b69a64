"""The README's tour runs as written against a real server."""

from __future__ import annotations

import json
import pathlib
import re
import subprocess

from tests.conftest import running_server

ROOT = pathlib.Path(__file__).resolve().parent.parent


def bash_blocks(path: pathlib.Path) -> list:
    return re.findall(r"```bash\n(.*?)```", path.read_text(), flags=re.S)


def json_values(text: str) -> list:
    dec, out, i = json.JSONDecoder(), [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        value, i = dec.raw_decode(text, i)
        out.append(value)
    return out


def test_readme_opens_with_the_two_commands():
    first = bash_blocks(ROOT / "README.md")[0]
    assert [line.split()[0] for line in first.strip().splitlines()] == ["./scripts/serve", "./scripts/test"]


def test_readme_tour_runs_as_written():
    tour = bash_blocks(ROOT / "README.md")[1]
    assert "http://127.0.0.1:8787/api/v1" in tour
    with running_server() as url:
        script = "set -euo pipefail\n" + tour.replace("http://127.0.0.1:8787/api/v1", url)
        r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    envs, step, batch, submit = json_values(r.stdout)
    assert "coinpurse" in {e["name"] for e in envs["environments"]}
    assert step["ok"] is True and step["step"] == 1
    assert [res["ok"] for res in batch["results"]] == [True, True, True]
    assert submit["pass"] is True and submit["score"] == 1.0
    assert {c["id"] for c in submit["checks"]} == {"original-paid", "copy-declined", "one-payment", "balance",
                                                  "no-collateral"}


def test_readme_custom_checks_example_runs_as_written():
    block = next(b for b in bash_blocks(ROOT / "README.md") if '"checks"' in b)
    with running_server() as url:
        script = "set -euo pipefail\n" + block.replace("http://127.0.0.1:8787/api/v1", url)
        r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    read, pay, submit = json_values(r.stdout)
    # scored weights: bill-paid 2, one-payment 1, balance 1, custom-1 1, custom-2 2 (output: only at submit)
    assert read["signals"]["progress"] == round(1 / 7, 2)  # custom-1: list_requests was called
    assert pay["signals"]["progress"] == round(5 / 7, 2)
    assert pay["signals"]["reference_progress"] == 1.0
    assert submit["pass"] is True and submit["score"] == 1.0 and submit["training"] is True
    assert {"custom-1", "custom-2"} <= {c["id"] for c in submit["checks"]}
