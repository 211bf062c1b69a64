"""``from_package``: a world package's parts come from its layout, and what
the caller names wins."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sw_runtime.worlds.coinpurse import WORLD as COINPURSE
from sw_runtime.worlds.offsite_planning import WORLD as OFFSITE
from sw_runtime.worlds.receivables import WORLD as RECEIVABLES
from sw_runtime.worlds.world import from_package

LAYOUT = {
    "state.py": ('EPOCH = "2026-01-01T00:00:00.000Z"\nCOLLECTIONS = ("items",)\n\n\n'
                 'def generate(seed):\n    return {"items": {"it-0": {"id": "it-0", "value": seed}}}\n'),
    "schema.py": "SCHEMA = None\n",
    "tools.py": "TOOLS = []\n",
    "tasks.py": "TASKS = []\n",
    "policy.md": "Touch nothing.\n",
}


@pytest.fixture
def package(tmp_path, monkeypatch):
    root = tmp_path / "tiny_world"
    root.mkdir()
    (root / "__init__.py").write_text("")
    for name, text in LAYOUT.items():
        (root / name).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield root
    for name in [m for m in sys.modules if m == "tiny_world" or m.startswith("tiny_world.")]:
        del sys.modules[name]


def test_the_layout_gives_every_part_and_the_policy(package):
    w = from_package("tiny_world", name="tiny", version="0.1.0", title="Tiny", description="One item.")
    assert (w.epoch, w.collections, w.tools, w.tasks, w.state_schema) == ("2026-01-01T00:00:00.000Z", ("items",),
                                                                         [], [], None)
    assert w.generate(3) == {"items": {"it-0": {"id": "it-0", "value": 3}}}
    assert w.policy == "Touch nothing.\n" and w.triggers == {} and w.reactions == []


def test_named_fields_win_and_the_modules_they_cover_are_not_needed(package):
    (package / "tools.py").unlink()
    w = from_package("tiny_world", name="tiny", version="0.1.0", title="Tiny", description="x", tasks=[],
                     tools=[], epoch="2026-02-01T00:00:00.000Z")
    assert w.epoch == "2026-02-01T00:00:00.000Z" and w.tools == []


def test_the_bundled_worlds_take_their_optional_modules_where_they_have_them():
    assert set(RECEIVABLES.triggers) == {"invoice", "email_received", "cron"} and not COINPURSE.triggers
    assert OFFSITE.reactions and not RECEIVABLES.reactions
    policy = Path(sys.modules["sw_runtime.worlds.coinpurse"].__file__).with_name("policy.md")
    assert COINPURSE.policy == policy.read_text(encoding="utf-8")
