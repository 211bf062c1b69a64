"""``sandworld new-world``: a copy of the dummy world that works at once."""

from __future__ import annotations

import importlib
import subprocess
from pathlib import Path
import sys

import pytest

import sw_runtime.worlds as worlds
from sw_runtime.worldkit.checker import check_world
from sw_runtime.worlds.scaffold import ScaffoldError, default_prefix, new_world


def sandworld(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sw_runtime", *args], capture_output=True, text=True, timeout=120)


def test_new_world_command_makes_a_project_whose_world_passes_check_world(tmp_path, monkeypatch):
    r = sandworld("new-world", "flight-desk", "--path", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert f"pip install -e {tmp_path}" in r.stdout
    assert "sandworld check-world flight-desk" in r.stdout
    project = (tmp_path / "pyproject.toml").read_text()
    assert '[project.entry-points."sandworld.worlds"]\nflight-desk = "flight_desk:WORLD"' in project
    assert (tmp_path / "README.md").exists()
    source = (tmp_path / "flight_desk" / "__init__.py").read_text()
    assert source.startswith('"""The flight-desk world') and "\nfrom ." not in source  # imports made absolute

    monkeypatch.syspath_prepend(str(tmp_path))
    world = importlib.import_module("flight_desk").WORLD
    assert world.name == "flight-desk" and world.title == "Flight Desk" and world.version == "0.1.0"
    assert [t.id for t in world.tasks] == ["fd-01"]
    assert {"noop", "get", "set"} == set(world.tools_by_name)

    monkeypatch.setattr(worlds, "PACKAGES", {**worlds.PACKAGES, "flight-desk": "flight_desk:WORLD"})
    monkeypatch.setattr(worlds, "_REGISTRY", None)
    report = check_world("flight-desk", seeds=range(5))  # the two other processes import it too
    assert report.ok, report.summary()


def test_new_world_options(tmp_path):
    made = new_world("tiny", tmp_path, prefix="ty", title="Tiny Shop")
    assert made.prefix == "ty" and made.module == "tiny" and made.package == "tiny" and made.project == tmp_path
    assert made.entry_point == 'tiny = "tiny:WORLD"'
    text = (made.path / "__init__.py").read_text()
    assert 'id="ty-01"' in text and 'title="Tiny Shop"' in text and 'name="tiny"' in text
    assert default_prefix("offsite-planning") == "op" and default_prefix("quickbasket") == "qu"


@pytest.mark.parametrize(("name", "why"), [
    ("Bad_Name", "not a world name"),
    ("-x", "not a world name"),
    ("coinpurse", "already registered"),
    ("class", "a Python keyword"),
])
def test_new_world_refuses(tmp_path, name, why):
    with pytest.raises(ScaffoldError, match=why):
        new_world(name, tmp_path)


def test_new_world_refuses_a_directory_that_is_not_empty(tmp_path):
    (tmp_path / "taken").mkdir()
    with pytest.raises(ScaffoldError, match="already exists"):
        new_world("taken", tmp_path)
    r = sandworld("new-world", "taken", "--path", str(tmp_path))
    assert r.returncode == 2 and "already exists" in r.stderr


def test_new_world_refuses_a_path_inside_the_source_tree():
    with pytest.raises(ScaffoldError, match="inside the sandworld source tree"):
        new_world("inside", Path(worlds.__file__).parent / "nowhere")
