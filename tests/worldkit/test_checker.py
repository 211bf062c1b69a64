"""``check_world``: every registered world passes it, and it catches what it
says it catches (bad schemas, a state that depends on the process, a reference
solution that fails, a task that passes when nothing is done)."""

from __future__ import annotations

import json as _json
import subprocess
import sys
import textwrap
from typing import Annotated

import msgspec
import pytest

import sw_runtime.worlds as worlds
from sw_runtime.verify import checks as C
from sw_runtime.worlds import registry
from sw_runtime.worldkit.checker import check_world, schema_problems, tool_problems
from sw_runtime.worlds.dummy import WORLD as DUMMY
from sw_runtime.worlds.task import Setup, Task
from sw_runtime.worlds.tool import Tool, json_schema
from sw_runtime.worlds.world import World


@pytest.mark.parametrize("name", sorted(registry()))
def test_every_registered_world_passes_check_world(name):
    report = check_world(name)  # seeds 0-49; determinism also in two other processes
    assert report.ok, report.summary()
    assert report.seeds == list(range(50))
    assert [s.name for s in report.sections] == ["tools", "state", "determinism"]
    assert "2 other processes" in report.sections[2].detail
    for t in report.tasks:
        assert (t.runs, t.passed, t.nothing_failed) == (50, 50, 50), t


def test_the_issue_worlds_are_registered():
    assert {"coinpurse", "quickbasket", "offsite-planning", "receivables", "codehost", "tracker", "airline", "billing",
            "helpdesk", "dummy"} <= set(registry())


def test_a_task_without_no_collateral_says_it_was_skipped():
    report = check_world("offsite-planning", seeds=range(2), processes=False)
    by_id = {t.task_id: t for t in report.tasks}
    assert by_id["task_schedule_q4_offsite"].collateral == "skipped: no no_collateral check"
    assert all(t.collateral == "checked" for t in report.tasks if t.task_id != "task_schedule_q4_offsite")


# -- it catches problems -------------------------------------------------------------------------------------------


def test_schema_problems():
    good = {"type": "object", "properties": {"a": {"type": "string", "minLength": 1}}, "required": ["a"],
            "additionalProperties": False}
    assert schema_problems(good) == []
    assert schema_problems({"type": "thing"}) == ["$.type: 'thing' is not a JSON Schema type"]
    assert "not inlined" in schema_problems({"properties": {"a": {"$ref": "#/$defs/A"}}})[0]
    assert "unknown JSON Schema keyword" in schema_problems({"type": "string", "minLenght": 2})[0]
    assert "not declared" in schema_problems({"type": "object", "properties": {}, "required": ["x"]})[0]
    assert "not a regular expression" in schema_problems({"type": "string", "pattern": "("})[0]
    assert "non-negative integer" in schema_problems({"type": "array", "minItems": -1})[0]
    assert "non-empty list" in schema_problems({"anyOf": []})[0]


class _Loose(msgspec.Struct):  # does not refuse unknown fields
    x: int = 0


def test_tool_problems():
    for t in DUMMY.tools:
        assert tool_problems(t) == []
    loose = Tool(name="bad name!", description="", params=_Loose, fn=lambda ctx, args: {}, writes=False,
                 schema={"type": "object", "properties": {"x": {"type": "integer", "$ref": "#/x"}}})
    problems = " | ".join(tool_problems(loose))
    assert loose.name == "bad_name_" and "tool name" not in problems  # served with _ (worlds/tool.py)
    assert "description" in problems
    assert "refuse unknown fields" in problems and "not inlined" in problems


def _world(name, tasks, tools=None, generate=None) -> World:
    return World(name=name, version="0.0.1", title=name, description="A broken world for the checker's tests.",
                 epoch=DUMMY.epoch, collections=DUMMY.collections, policy="", tools=tools or DUMMY.tools,
                 tasks=tasks, generate=generate or DUMMY.generate)


def _register(monkeypatch, world):
    monkeypatch.setattr(worlds, "_REGISTRY", {**registry(), world.name: world})


def test_it_catches_failing_references_and_tasks_that_pass_doing_nothing(monkeypatch):
    def wrong(store):
        s = DUMMY.tasks[0].setup(store)
        return Setup(instruction=s.instruction, checks=s.checks, solution=[("set", {"key": "it-01", "value": 1_000})])

    def free(store):
        return Setup(instruction="Do nothing.", checks=[C.NoWrites(id="none", label="Nothing changed",
                                                                   always_scored=True)], solution=[])

    def refused(store):
        return Setup(instruction="x", checks=DUMMY.tasks[0].setup(store).checks, solution=[("get", {"key": "nope"})])

    def long(store):
        s = DUMMY.tasks[0].setup(store)
        return Setup(instruction=s.instruction, checks=s.checks, solution=[("noop", {})] * 3 + s.solution)

    world = _world("broken-tasks", [Task("bt-01", "wrong", wrong), Task("bt-02", "free", free),
                                    Task("bt-03", "refused", refused), Task("bt-04", "long", long, step_budget=3)])
    _register(monkeypatch, world)
    report = check_world("broken-tasks", seeds=range(3), processes=False)
    assert not report.ok
    by_id = {t.task_id: t for t in report.tasks}
    assert "the reference solution scored" in by_id["bt-01"].problems[0]
    assert all("a do-nothing episode passes" in p for p in by_id["bt-02"].problems)
    assert "reference call 1 (get) was refused: not_found" in by_id["bt-03"].problems[0]
    assert "over the task's step budget of 3" in by_id["bt-04"].problems[0]


def test_it_catches_a_state_that_depends_on_the_process(tmp_path, monkeypatch):
    pkg = tmp_path / "hashworld"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(textwrap.dedent('''
        from sw_runtime.worlds.dummy import WORLD as DUMMY
        from sw_runtime.worlds.world import World

        def generate(seed):
            # hash() of a str changes with PYTHONHASHSEED: exactly what worlds must not do
            return {"items": {"it-00": {"id": "it-00", "value": (hash("salt") + seed) % 1000}}}

        WORLD = World(name="hash-world", version="0.0.1", title="Hash", description="Uses hash().",
                      epoch=DUMMY.epoch, collections=DUMMY.collections, policy="", tools=DUMMY.tools, tasks=[],
                      generate=generate)
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(worlds, "PACKAGES", {**worlds.PACKAGES, "hash-world": "hashworld:WORLD"})
    monkeypatch.setattr(worlds, "_REGISTRY", None)
    report = check_world("hash-world", seeds=range(2))
    det = report.sections[2]
    assert not det.ok and "another process" in det.problems[0], det


def test_it_catches_a_state_that_leaves_its_collections(monkeypatch):
    world = _world("stray", [], generate=lambda seed: {"items": {}, "extra": {}})
    _register(monkeypatch, world)
    report = check_world("stray", seeds=range(1), processes=False)
    assert not report.sections[1].ok and "not the world's" in report.sections[1].problems[0]


# -- the command ------------------------------------------------------------------------------------------------------


def sandworld(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sw_runtime", *args], capture_output=True, text=True, timeout=300)


def test_check_world_command():
    r = sandworld("check-world", "dummy", "quickbasket", "--seeds", "3")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "dummy 1.0.0: ok" in r.stdout and "qb-15" in r.stdout and "3/3" in r.stdout
    assert "All 2 world(s) pass." in r.stdout
    bad = sandworld("check-world", "no-such-world")
    assert bad.returncode == 2 and "unknown world no-such-world" in bad.stdout
    assert sandworld("check-world", "--help").returncode == 0


def test_tool_schemas_stand_alone_and_keep_field_descriptions():
    """Every $ref is inlined (no $defs left behind), and a description given
    beside a struct-typed field survives the inlining."""
    schema = json_schema(_Args)
    assert "$defs" not in schema
    assert schema["properties"]["start"]["description"] == "When it starts"
    assert schema["properties"]["end"]["description"] == "A date."
    for world in registry().values():
        for t in world.tools:
            text = _json.dumps(t.schema)
            assert "$ref" not in text and "$defs" not in text, (world.name, t.name)


class _When(msgspec.Struct):
    """A date."""

    date: str


class _Args(msgspec.Struct):
    start: Annotated[_When, msgspec.Meta(description="When it starts")]
    end: _When
