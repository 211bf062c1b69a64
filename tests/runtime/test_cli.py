"""The ``sandworld`` command."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sw_runtime.worlds import registry


def sandworld(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sw_runtime", *args], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("command", [[], ["serve"], ["digest"]])
def test_every_command_has_help(command):
    r = sandworld(*command, "--help")
    assert r.returncode == 0 and "usage: sandworld" in r.stdout


def test_digest_of_a_dump_matches_the_seed_digest(http, tmp_path):
    world = registry()["coinpurse"]
    dump = tmp_path / "state.json"
    dump.write_text(json.dumps(world.generate(3)))
    ep = http.post("/environments/coinpurse/episodes", json={"seed": 3}).json()
    r = sandworld("digest", str(dump))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == ep["seed_digest"]
    wrapped = tmp_path / "wrapped.json"
    wrapped.write_text(json.dumps({"collections": world.generate(3), "digest": "ignored"}))
    assert sandworld("digest", str(wrapped)).stdout.strip() == ep["seed_digest"]


def test_digest_explains_bad_input(tmp_path):
    missing = sandworld("digest", str(tmp_path / "nope.json"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    r = sandworld("digest", str(bad))
    assert r.returncode == 2 and "not valid JSON" in r.stderr
    bad.write_text("[1, 2]")
    r = sandworld("digest", str(bad))
    assert r.returncode == 2 and "collection" in r.stderr
