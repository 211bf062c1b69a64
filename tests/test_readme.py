"""The README's tour runs as written against a real server."""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
import time

import httpx
import pytest

from sandworld.local import free_port
from tests.conftest import running_server

ROOT = pathlib.Path(__file__).resolve().parent.parent


def bash_blocks(path: pathlib.Path) -> list:
    return re.findall(r"```bash\n(.*?)```", path.read_text(), flags=re.S)


def tour_blocks() -> list:
    """The README's bash blocks after the two set-up commands, in order."""
    return bash_blocks(ROOT / "README.md")[1:]


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


def test_readme_names_a_smoke_subset_and_how_to_pick_a_port():
    text = " ".join((ROOT / "README.md").read_text().split())
    smoke = re.search(r"a smoke run of about a minute is `\./scripts/test ((?:tests/\S+ )+)-x -q`", text)
    assert smoke, "the README names no smoke subset of ./scripts/test"
    assert all((ROOT / path).is_file() for path in smoke.group(1).split()), smoke.group(1)
    port = re.search(r"`\./scripts/serve --port (\d+)` serves on another", text)
    assert port and f"`API=http://127.0.0.1:{port.group(1)}/api/v1`" in text


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
    assert [c["id"] for c in submit["checks"]] == ["original-paid", "copy-declined", "one-payment", "balance",
                                                  "no-collateral", "within-budget"]
    assert submit["checks"][-1]["detail"] == "4 steps of a budget of 8"  # as the README says
    assert submit["state_diff"] and submit["digest"].startswith("sha256:")


TOUR_CALLS = [("list_requests", {"status": "pending"}), ("list_contacts", {"query": "Luca"}),
              ("pay_request", {"request_id": "rq-16"}), ("decline_request", {"request_id": "rq-17"})]


@pytest.mark.parametrize("calls,failing", [
    ([*TOUR_CALLS, ("add_contact", {"handle": "@someone-new", "name": "Someone New"})], "no-collateral"),
    ([*TOUR_CALLS[:3], ("pay_request", {"request_id": "rq-17"})], "copy-declined"),
], ids=["add-a-contact", "pay-the-copy"])
def test_readme_tour_variants_fail_the_check_it_names(http, calls, failing):
    """"Pay the copy as well, or add a contact along the way, and the matching check fails with
    its reason": the reason the README shows is the one the server gives."""
    eid = http.post("/environments/coinpurse/episodes", json={"task_id": "cp-12", "seed": 2}).json()["episode_id"]
    for tool, args in calls:
        assert http.post(f"/episodes/{eid}/step", json={"tool": tool, "arguments": args}).json()["ok"]
    read = http.get(f"/episodes/{eid}").json()
    assert all(e["at"] and e["state_digest"].startswith("sha256:") for e in read["trace"])  # "reads it back"
    checks = http.post(f"/episodes/{eid}/submit", json={"output": "done"}).json()["checks"]
    assert failing in [c["id"] for c in checks if not c["pass"]]
    if failing == "no-collateral":
        detail = next(c["detail"] for c in checks if c["id"] == "no-collateral")
        assert f"`{detail}`" in (ROOT / "README.md").read_text().replace("\n", " ")


def test_readme_custom_checks_example_runs_as_written():
    block = next(b for b in bash_blocks(ROOT / "README.md") if '"checks"' in b)
    with running_server() as url:
        script = "set -euo pipefail\n" + block.replace("http://127.0.0.1:8787/api/v1", url)
        r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    read, pay, submit = json_values(r.stdout)
    # share weights: bill-paid 2, one-payment 1, balance 1, no-collateral 1, custom-1 1, custom-2 2
    # (output: only at submit); no-collateral holds from the start
    assert read["signals"]["progress"] == round(2 / 8, 2)  # and custom-1: list_requests was called
    assert pay["signals"]["progress"] == round(6 / 8, 2)
    assert pay["signals"]["reference_progress"] == 1.0
    assert submit["pass"] is True and submit["score"] == 1.0 and submit["training"] is True
    assert {"custom-1", "custom-2"} <= {c["id"] for c in submit["checks"]}


@pytest.mark.slow
@pytest.mark.timeout(1800)  # a first set-up downloads and builds: minutes
def test_a_fresh_clone_walks_through_the_readme(tmp_path):
    """The README as a newcomer meets it, in a fresh clone of the committed tree:
    ``./scripts/serve`` in one terminal (it creates ``.venv`` with only what serving needs, saying
    so as it goes), then every example block in order in another, twice (as people do), with
    ``sandworld`` through ``./scripts/sandworld``. The port is a free one instead of 8787; nothing
    else is changed. (Uncommitted changes are not in the clone: commit first.)"""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=120)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("SANDWORLD_API_URL", "VIRTUAL_ENV", "SW_EXTRAS")}
    log = (tmp_path / "serve.log").open("w")
    serve = subprocess.Popen([str(clone / "scripts" / "serve"), "--port", str(port)], cwd=clone, env=env,
                             stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        banner = serve.stdout.readline()  # after the set-up: nothing is claimed before it can serve
        setup = (tmp_path / "serve.log").read_text()
        assert "scripts: creating .venv" in setup and "Collecting" in setup and ".venv is ready" in setup, setup
        assert "serving" in banner and f"127.0.0.1:{port}/api/v1" in banner, (banner, setup)
        listed = subprocess.run([str(clone / ".venv" / "bin" / "python"), "-m", "pip", "list", "--format=json"],
                                capture_output=True, text=True).stdout
        installed = {p["name"].lower() for p in json.loads(listed)}
        assert "sandworld-runtime" in installed
        assert not installed & {"pytest", "locust", "cython"}  # dev tools come with ./scripts/test
        wait_for(f"http://127.0.0.1:{port}/healthz")
        # a second server on the same port fails before it claims to serve
        busy = subprocess.run([str(clone / "scripts" / "serve"), "--port", str(port)], cwd=clone, env=env,
                              capture_output=True, text=True, timeout=120)
        assert busy.returncode != 0 and "serving" not in busy.stdout
        assert f"cannot listen on 127.0.0.1:{port}" in busy.stderr and "--port" in busy.stderr
        script = "set -euo pipefail\n" + "\n".join(tour_blocks())
        script = script.replace("127.0.0.1:8787", f"127.0.0.1:{port}")
        for attempt in (1, 2):  # the fork example's idempotency key is new on every run
            r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=900, cwd=clone,
                               env={**env, "COLUMNS": "80"})
            assert r.returncode == 0, f"run {attempt}:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
            assert "internal_error" not in r.stdout
        out = r.stdout
        assert all(len(line) <= 80 for line in out.splitlines() if "│" in line or "─" in line)
        assert "pass^k over all tasks: k=1 1.00 · k=2 1.00" in out and "95% CI" in out
        assert "+100 *" in out  # compare: reference beats noop on every task, and the interval says so
        assert (clone / "transcripts.jsonl").read_text().count('"role": "tool"') > 0
        assert (clone / "sandworld-data" / "sandworld.db").exists()
        assert "report: " in out and "exported: transcripts.jsonl" in out
    finally:
        serve.terminate()
        serve.communicate(timeout=30)
        log.close()


def wait_for(url: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError(f"{url} did not answer")


# The README's blocks that start an episode and read its id with a Python one-liner.
EPISODE_BLOCKS = [i for i, b in enumerate(tour_blocks()) if "python3 -c" in b and "episode_id" in b]


CASES = [(i, "no server") for i in EPISODE_BLOCKS] + [
    (i, "no task") for i in EPISODE_BLOCKS if '"task_id": "cp-' in tour_blocks()[i]]


@pytest.mark.parametrize("index,case", CASES, ids=[f"block{i}-{case.replace(' ', '-')}" for i, case in CASES])
def test_the_examples_show_what_went_wrong_not_a_traceback(index, case):
    """Pasted into a shell (no ``set -e``), a block says what went wrong: curl's own error when no
    server listens, the server's message when the task does not exist; never a Python traceback."""
    block = tour_blocks()[index]
    if case == "no server":
        script = block.replace("http://127.0.0.1:8787/api/v1", f"http://127.0.0.1:{free_port()}/api/v1")
        r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
        says = "Failed to connect"
    else:
        with running_server() as url:
            script = re.sub(r'"task_id": "cp-\d+"', '"task_id": "cp-99"', block.replace("http://127.0.0.1:8787/api/v1", url))
            r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
        says = "no task 'cp-99'"
    assert "Traceback" not in r.stderr and says in r.stderr + r.stdout, r.stderr


@pytest.mark.parametrize("index", range(len(tour_blocks())))
def test_each_readme_block_runs_on_its_own(index, api, tmp_path):
    """A reader may start at any section: each block runs in a fresh shell against a running server
    (``./scripts/sandworld`` as the installed ``sandworld``, in a scratch folder)."""
    block = tour_blocks()[index]
    script = "set -euo pipefail\n" + block.replace("http://127.0.0.1:8787/api/v1", api)
    script = script.replace("./scripts/sandworld ", "sandworld ")
    env = {**os.environ, "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""),
           "COLUMNS": "80"}
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env)
    assert r.returncode == 0, f"block {index}:\n{block}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
    assert "internal_error" not in r.stdout and "Traceback" not in r.stderr, r.stderr[-2000:]
