"""The viewer's fixtures: real servers with real episodes, and a real browser.

The browser is Debian's chromium (``scripts/_venv.sh`` installs it as root),
driven by Playwright through ``executable_path``; where it cannot be had the
browser tests skip, saying why. ``SW_VIEWER_SHOTS=DIR`` keeps the tests'
screenshots in DIR (docs/img holds the ones docs/VIEWER.md shows).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from sandworld.evaluation.agents import reference_setup
from sandworld.local import free_port, local_server

from sw_runtime.security.keys import KeyStore

CHROMIUM = os.environ.get("SW_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
INJECTED = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'


def root_of(api_url: str) -> str:
    return api_url.rsplit("/api/v1", 1)[0]


def new_episode(http: httpx.Client, task_id: str, seed: int, agent: str, env: str = "coinpurse") -> dict:
    r = http.post(f"/environments/{env}/episodes", json={"task_id": task_id, "seed": seed, "agent_name": agent})
    assert r.status_code == 201, r.text
    return r.json()


def solve(http: httpx.Client, ep: dict) -> dict:
    """Run the task's reference solution and submit its answer: an episode that passes."""
    setup = reference_setup(ep["environment"], ep["environment_version"], ep["task_id"], ep["seed"])
    for tool, arguments in setup.solution:
        assert http.post(f"/episodes/{ep['episode_id']}/step", json={"tool": tool, "arguments": arguments}).is_success
    return http.post(f"/episodes/{ep['episode_id']}/submit", json={"output": setup.output}).json()


def populate(http: httpx.Client) -> dict:
    """Episodes to look at: one passed, one failed with an injected argument,
    one open, and a fork of the open one."""
    passed = new_episode(http, "cp-02", 1, "alice")
    solve(http, passed)
    failed = new_episode(http, "cp-02", 2, "bob")
    http.post(f"/episodes/{failed['episode_id']}/step",
              json={"tool": "list_contacts", "arguments": {"query": INJECTED}})
    http.post(f"/episodes/{failed['episode_id']}/submit", json={"output": INJECTED})
    live = new_episode(http, "cp-01", 3, "carol")
    http.post(f"/episodes/{live['episode_id']}/step", json={"tool": "get_balance", "arguments": {}})
    fork = http.post(f"/episodes/{live['episode_id']}/fork", json={}).json()
    return {"passed": passed["episode_id"], "failed": failed["episode_id"], "live": live["episode_id"],
            "fork": fork["episodes"][0]["episode_id"]}


@pytest.fixture(scope="package")
def viewer():
    """One open server (keys off) with a few episodes: ``(root URL, API client, ids)``."""
    with local_server() as api, httpx.Client(base_url=api, timeout=30) as http:
        yield root_of(api), http, populate(http)


@pytest.fixture(scope="package")
def keyed_viewer(tmp_path_factory):
    """A server with ``--auth keys``: its root URL, keys of projects alpha and beta (and an
    alpha key without episodes:read), and an episode of each project."""
    data_dir = str(tmp_path_factory.mktemp("viewer-keys") / "data")
    store = KeyStore(data_dir)
    keys = {"alpha": store.create("alpha", "episodes:read,episodes:write")[0],
            "beta": store.create("beta", "episodes:read,episodes:write")[0],
            "hooks": store.create("alpha", "webhooks:read")[0]}
    store.close()
    with local_server("--auth", "keys", "--data-dir", data_dir) as api:
        eps = {}
        for project in ("alpha", "beta"):
            with httpx.Client(base_url=api, headers={"authorization": f"Bearer {keys[project]}"}, timeout=30) as h:
                eps[project] = new_episode(h, "cp-01", 1, f"agent-{project}")["episode_id"]
        yield {"root": root_of(api), "api": api, "keys": keys, "episodes": eps}


@pytest.fixture(scope="package")
def chromium():
    """A headless chromium, or a skip that says why there is none."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed: ./scripts/test installs the dev extra")
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no chromium at {CHROMIUM}: as root, apt-get install -y chromium (./scripts/test does it)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield browser
        browser.close()


def _tab(chromium, bypass_csp: bool):
    """A fresh page (its own cookies) that fails the test on any script or console error
    (a 401 or 404 the test asked for aside)."""
    context = chromium.new_context(viewport={"width": 1200, "height": 900}, bypass_csp=bypass_csp)
    page = context.new_page()
    errors: list = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # a refused script or style (the pages' Content-Security-Policy) is a console error too
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" and "status of 40" not in m.text
            else None)
    page.script_errors = errors
    yield page
    context.close()
    assert not errors, f"script errors on the page: {errors}"


@pytest.fixture
def tab(chromium):
    """A page with the pages' Content-Security-Policy set aside: Playwright's own waits
    evaluate strings, and the injection test must show that the escaping alone keeps
    a script from running, not the policy behind it."""
    yield from _tab(chromium, bypass_csp=True)


@pytest.fixture
def strict_tab(chromium):
    """A page under the pages' Content-Security-Policy, as a person's browser has it."""
    yield from _tab(chromium, bypass_csp=False)


def shot(page, name: str, tmp_path: Path) -> Path:
    """A screenshot of the page: into SW_VIEWER_SHOTS when set (docs/img), else the test's folder."""
    keep = os.environ.get("SW_VIEWER_SHOTS")
    folder = Path(keep or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"viewer-{name}.png"
    page.screenshot(path=str(path))
    if keep:  # committed pictures: 256 colours are plenty for pages of text, at a third of the bytes
        from PIL import Image

        with Image.open(path) as im:
            im.convert("RGB").quantize(256).save(path, optimize=True)
    return path


def _eval(data_dir: str, agent: str) -> str:
    out = subprocess.run([sys.executable, "-m", "sw_runtime", "eval", "--world", "coinpurse", "--agent", agent,
                          "--tasks", "cp-01,cp-02,cp-03", "--seeds", "0-1", "--trials", "3", "--data-dir", data_dir,
                          "--no-progress"], capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stderr
    return re.search(r"^(run_\w+): \d+/\d+ passed", out.stdout, re.M).group(1)


@pytest.fixture(scope="package")
def results(tmp_path_factory):
    """A results file of two ``sandworld eval --trials 3`` runs (noop, then reference):
    ``(path, noop run id, reference run id)``."""
    data_dir = str(tmp_path_factory.mktemp("viewer-eval") / "data")
    noop = _eval(data_dir, "noop")
    ref = _eval(data_dir, "reference")
    return os.path.join(data_dir, "sandworld.db"), noop, ref


@contextlib.contextmanager
def viewing(path: str, *args: str):
    """``sandworld view PATH`` on a free port for the block; yields its root URL."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "sw_runtime", "view", path, "--port", str(port), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    root = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, proc.stdout.read().decode()
            try:
                if httpx.get(root + "/ui/runs", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "sandworld view did not answer in 30 s"
            time.sleep(0.1)
        yield root
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        proc.stdout.close()


@pytest.fixture(scope="package")
def eval_view(results):
    """``sandworld view`` on ``results``: ``(root URL, noop run id, reference run id)``."""
    path, noop, ref = results
    with viewing(path) as root:
        yield root, noop, ref
