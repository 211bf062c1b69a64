"""Worlds as plugins: the ``sandworld.worlds`` entry-point group.

The built-in worlds are registered through it, and a world in a package of
its own, made by ``sandworld new-world --path`` and installed with pip, is
served and passes ``check-world`` without a line of this project changed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import time
from importlib import metadata

import httpx
import pytest
from sandworld.local import free_port

import sw_runtime.worlds as worlds
from sw_runtime.worlds import BUILTIN, GROUP, discover, registry


def test_the_built_in_worlds_are_registered_by_entry_points():
    declared = {ep.name: ep.value for ep in metadata.entry_points(group=GROUP)
                if ep.dist is not None and ep.dist.name == worlds.DISTRIBUTION}
    assert declared == BUILTIN  # pyproject.toml and the source-tree fallback agree
    assert set(BUILTIN) <= set(discover())
    assert {"coinpurse", "quickbasket", "offsite-planning", "receivables", "codehost", "tracker", "airline", "billing",
            "helpdesk", "dummy"} <= set(registry())


def test_the_environments_listing_has_the_worlds_and_their_tasks(http):
    listed = {e["name"]: e["tasks"] for e in http.get("/environments").json()["environments"]}
    seven = {"coinpurse", "quickbasket", "offsite-planning", "receivables", "codehost", "tracker", "dummy"}
    assert seven <= set(listed) and sum(listed[n] for n in seven) >= 97
    assert listed["airline"] == 25 and listed["billing"] >= 25 and listed["helpdesk"] == 25
    tools = http.get("/environments/receivables").json()["tools"]
    assert all(t["class"] in ("safe", "guarded") for t in tools)


def test_an_entry_point_must_name_its_world():
    with pytest.raises(SystemExit, match="holds the world 'dummy'"):
        worlds.load("not-dummy", "sw_runtime.worlds.dummy:WORLD")
    assert worlds.load("dummy", "sw_runtime.worlds.dummy").name == "dummy"  # a module: its WORLD


def _run(*cmd, **kw) -> subprocess.CompletedProcess:
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return r


@pytest.mark.slow
def test_a_world_in_its_own_package_installed_with_pip_is_served_and_passes_check_world(tmp_path):
    project = tmp_path / "tide-tables"
    _run(sys.executable, "-m", "sw_runtime", "new-world", "tide-tables", "--path", str(project))

    # A fresh venv that sees this one's packages (a .pth file) but installs into its own site-packages,
    # so the test venv is left as it was.
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", str(venv))
    python = str(venv / "bin" / "python")
    site = _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip()
    with open(os.path.join(site, "sandworld-test-parent.pth"), "w") as f:
        # addsitedir, not a bare path: the editable install of this project is itself a .pth file there
        f.write(f"import site; site.addsitedir({sysconfig.get_paths()['purelib']!r})\n")
    _run(sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-deps",
         "--no-build-isolation", "-e", str(project), cwd=tmp_path)

    listed = _run(python, "-c", "from sw_runtime.worlds import PACKAGES; print(PACKAGES['tide-tables'])").stdout
    assert listed.strip() == "tide_tables:WORLD"
    check = _run(python, "-m", "sw_runtime", "check-world", "tide-tables", "--seeds", "3", cwd=tmp_path)
    assert "tide-tables 0.1.0: ok" in check.stdout and "All 1 world(s) pass." in check.stdout

    port = free_port()
    server = subprocess.Popen([python, "-m", "sw_runtime", "serve", "--host", "127.0.0.1", "--port", str(port)],
                              cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
        names = {e["name"] for e in httpx.get(f"{base}/api/v1/environments").json()["environments"]}
        assert {"tide-tables", "coinpurse", "receivables"} <= names
        ep = httpx.post(f"{base}/api/v1/environments/tide-tables/episodes", json={"task_id": "tt-01"}).json()
        step = httpx.post(f"{base}/api/v1/episodes/{ep['episode_id']}/step",
                          json={"tool": "get", "arguments": {"key": "it-01"}}).json()
        assert step["ok"] is True
    finally:
        server.terminate()
        server.wait(timeout=10)
