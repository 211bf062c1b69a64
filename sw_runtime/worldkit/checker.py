"""``check_world(name)``: what every world must satisfy before it is served.

The idea of Gymnasium's ``env_checker``, for worlds. Four sections:

- **tools**: every tool has a servable name, a description, and parameters
  that are a valid JSON-Schema object (``type: object``, ``$ref`` inlined,
  unknown fields refused, every keyword well formed);
- **state**: ``generate(seed)`` gives exactly the world's collections, with
  string ids and JSON records, and the world's ``state_schema`` accepts it;
- **determinism**: the same seed gives the same ``seed_digest`` and the same
  task setups, in this process and in two fresh interpreters with different
  ``PYTHONHASHSEED``s;
- **tasks**: on every seed (0 to 49 by default) each task's reference
  solution, run in-process through the engine, answers every call and passes
  with score 1, and changes nothing its ``no_collateral`` check does not
  allow (a task without one is marked "skipped" there); a do-nothing episode
  does not pass.

``python -m sw_runtime.worldkit.checker NAME`` prints the fingerprints the
determinism section compares (used by the two subprocesses).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field

import msgspec
import orjson

from .. import schemas
from ..config import Settings

DEFAULT_SEEDS = range(50)
DETERMINISM_SEEDS = range(3)
NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # served names: the model APIs' pattern (worlds/tool.py)

# -- the report --------------------------------------------------------------------------------------------------


@dataclass
class TaskResult:
    task_id: str
    runs: int = 0
    passed: int = 0  # reference solution: pass and score 1
    nothing_failed: int = 0  # do-nothing episodes that did not pass
    collateral: str = "checked"  # or "skipped: no no_collateral check"
    problems: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass
class Section:
    name: str
    problems: list = field(default_factory=list)
    detail: str = ""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass
class Report:
    world: str
    version: str
    seeds: list
    sections: list = field(default_factory=list)
    tasks: list = field(default_factory=list)  # TaskResult

    @property
    def ok(self) -> bool:
        return all(s.ok for s in self.sections) and all(t.ok for t in self.tasks)

    def problems(self) -> list:
        out = [f"{s.name}: {p}" for s in self.sections for p in s.problems]
        out += [f"{t.task_id}: {p}" for t in self.tasks for p in t.problems]
        return out

    def summary(self) -> str:
        if self.ok:
            tasks, seeds, runs = len(self.tasks), len(self.seeds), sum(t.runs for t in self.tasks)
            return (f"{self.world} {self.version}: ok ({tasks} task{'s' * (tasks != 1)} x "
                    f"{seeds} seed{'s' * (seeds != 1)}, {runs} reference episode{'s' * (runs != 1)})")
        shown = self.problems()
        more = f"\n  ... and {len(shown) - 20} more" if len(shown) > 20 else ""
        return f"{self.world} {self.version}: {len(shown)} problems\n  " + "\n  ".join(shown[:20]) + more


# -- JSON Schema ----------------------------------------------------------------------------------------------------

_TYPES = {"object", "array", "string", "integer", "number", "boolean", "null"}
_ANNOTATIONS = {"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "format",
                "$comment"}
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_ONE = ("items", "not", "additionalItems", "contains", "propertyNames", "if", "then", "else")
_NON_NEGATIVE = ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties",
                 "minContains", "maxContains")
_NUMBERS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
_KNOWN = (_ANNOTATIONS | set(_SCHEMA_LISTS) | set(_SCHEMA_ONE) | set(_NON_NEGATIVE) | set(_NUMBERS)
          | {"type", "properties", "required", "additionalProperties", "enum", "const", "pattern", "multipleOf",
             "uniqueItems", "patternProperties", "dependentRequired", "unevaluatedProperties"})


def schema_problems(schema, path: str = "$") -> list:
    """What is wrong with ``schema`` as a standalone JSON Schema (draft
    2020-12 keywords, ``$ref`` not allowed: a tool's schema must stand alone)."""
    if isinstance(schema, bool):
        return []
    if not isinstance(schema, dict):
        return [f"{path}: a schema is an object or a boolean, not {type(schema).__name__}"]
    out = []
    for key, value in schema.items():
        at = f"{path}.{key}"
        if key in ("$ref", "$defs", "definitions"):
            out.append(f"{at}: not inlined; a tool's schema must stand alone")
        elif key not in _KNOWN:
            out.append(f"{at}: unknown JSON Schema keyword")
        elif key == "type":
            kinds = value if isinstance(value, list) else [value]
            if not kinds or any(k not in _TYPES for k in kinds):
                out.append(f"{at}: {value!r} is not a JSON Schema type")
        elif key in ("properties", "patternProperties"):
            if not isinstance(value, dict):
                out.append(f"{at}: must be an object of schemas")
            else:
                for name, sub in value.items():
                    if key == "patternProperties":
                        try:
                            re.compile(name)
                        except re.error as e:
                            out.append(f"{at}.{name}: not a regular expression ({e})")
                    out += schema_problems(sub, f"{at}.{name}")
        elif key == "required":
            if not isinstance(value, list) or not all(isinstance(x, str) for x in value) or len(set(value)) != len(value):
                out.append(f"{at}: must be a list of distinct property names")
            else:
                missing = [x for x in value if x not in schema.get("properties", {})]
                if missing:
                    out.append(f"{at}: names properties that are not declared: {missing}")
        elif key in ("additionalProperties", "unevaluatedProperties") + _SCHEMA_ONE:
            out += schema_problems(value, at)
        elif key in _SCHEMA_LISTS:
            if not isinstance(value, list) or not value:
                out.append(f"{at}: must be a non-empty list of schemas")
            else:
                for i, sub in enumerate(value):
                    out += schema_problems(sub, f"{at}[{i}]")
        elif key == "enum":
            if not isinstance(value, list) or not value:
                out.append(f"{at}: must be a non-empty list")
        elif key in _NON_NEGATIVE:
            if type(value) is not int or value < 0:
                out.append(f"{at}: must be a non-negative integer")
        elif key in _NUMBERS:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                out.append(f"{at}: must be a number")
        elif key == "multipleOf":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                out.append(f"{at}: must be a number above 0")
        elif key == "pattern":
            try:
                re.compile(value)
            except (re.error, TypeError) as e:
                out.append(f"{at}: not a regular expression ({e})")
        elif key in ("title", "description", "format", "$comment") and not isinstance(value, str):
            out.append(f"{at}: must be a string")
    if "minimum" in schema and "maximum" in schema and not out and schema["minimum"] > schema["maximum"]:
        out.append(f"{path}: minimum is above maximum")
    return out


def tool_problems(tool) -> list:
    """What is wrong with one tool as served."""
    out = []
    d = tool.definition()
    if set(d) - {"class", "alias"} != {"name", "description", "parameters"}:
        out.append(f"{tool.name}: a definition has exactly name, description, parameters (and class, alias)")
    if d.get("class") not in ("safe", "guarded"):
        out.append(f"{tool.name}: a tool needs a class, safe or guarded (an unclassed tool is blocked in "
                   "sandbox mode)")
    if tool.preview is not None and (tool.cls != "guarded" or not tool.preview.startswith("would_")):
        out.append(f"{tool.name}: a preview key belongs to a guarded tool and starts with would_")
    if not NAME.match(tool.name):
        out.append(f"{tool.name!r}: a served tool name is 1 to 64 letters, digits, '_' or '-' (model APIs take no other)")
    if not isinstance(tool.description, str) or not tool.description.strip():
        out.append(f"{tool.name}: the description is what the agent reads; write one")
    if not isinstance(tool.writes, bool):
        out.append(f"{tool.name}: writes must be True or False")
    params = d["parameters"]
    if not isinstance(params, dict) or params.get("type") != "object" or not isinstance(params.get("properties"), dict):
        out.append(f"{tool.name}: parameters must be a JSON-Schema object with properties")
        return out
    if params.get("additionalProperties") is not False:
        out.append(f"{tool.name}: parameters must refuse unknown fields (forbid_unknown_fields=True)")
    out += [f"{tool.name}: {p}" for p in schema_problems(params)]
    try:
        json.dumps(d)
    except (TypeError, ValueError) as e:
        out.append(f"{tool.name}: the definition is not JSON: {e}")
    return out


# -- fingerprints: what must not depend on the process -------------------------------------------------------------


def fingerprints(world, seeds) -> dict:
    """``{seed: {"digest": seed_digest, "tasks": {task_id: sha256 of its setup}}}``."""
    out = {}
    for seed in seeds:
        store = world.seed_store(seed)  # a composite's holds one Store per world
        tasks = {}
        for task in world.tasks:
            s = task.setup(store.fork())
            blob = orjson.dumps([s.instruction, orjson.loads(msgspec.json.encode(s.checks)), s.solution, s.output,
                                 s.hidden_facts, s.persona], option=orjson.OPT_SORT_KEYS)
            tasks[task.id] = hashlib.sha256(blob).hexdigest()
        out[str(seed)] = {"digest": store.digest(), "tasks": tasks}
    return out


def _other_processes(name: str, seeds) -> list:
    """The fingerprints from two fresh interpreters with different hash seeds
    (run side by side). They import the world's package directly and see this
    process's ``sys.path``, so a world that is not in ``PACKAGES`` yet works."""
    from ..worlds import PACKAGES

    arg = ",".join(str(s) for s in seeds)
    cmd = [sys.executable, "-m", "sw_runtime.worldkit.checker", name, "--seeds", arg]
    if name in PACKAGES:
        cmd += ["--module", PACKAGES[name]]
    procs = []
    for hash_seed in ("1", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env))
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=600)
        if p.returncode != 0:
            raise RuntimeError(f"the fingerprint process failed:\n{stderr.decode(errors='replace')[-2000:]}")
        out.append(json.loads(stdout))
    return out


# -- the sections -------------------------------------------------------------------------------------------------


def _check_tools(world) -> Section:
    sec = Section("tools")
    for t in world.tools:
        sec.problems += tool_problems(t)
    if "ask_user" in world.tools_by_name:
        sec.problems.append("ask_user is the engine's own tool; a world must not define it")
    sec.detail = f"{len(world.tools)} tools, {sum(t.writes for t in world.tools)} write"
    return sec


def _check_state(world, seeds) -> Section:
    sec = Section("state")
    sizes = []
    for seed in seeds:
        state = world.generate(seed)
        parts = getattr(world, "parts", None)
        if parts:  # a composite: an envelope of its worlds' states, flattened to world.collection
            envelope = state
            state = {f"{w}.{c}": records for w, sub in envelope.items() for c, records in sub.items()}
        if not isinstance(state, dict) or set(state) != set(world.collections):
            sec.problems.append(f"seed {seed}: generate() gives collections {sorted(state) if isinstance(state, dict) else state!r}, "
                                f"not the world's {sorted(world.collections)}")
            continue
        for name, records in state.items():
            if not all(isinstance(rid, str) and rid for rid in records):
                sec.problems.append(f"seed {seed}: {name} has a record id that is not a non-empty string")
        try:
            orjson.dumps(state, option=orjson.OPT_SORT_KEYS)
        except TypeError as e:
            sec.problems.append(f"seed {seed}: the state is not JSON ({e})")
            continue
        if world.state_schema is not None:
            issues = world.state_schema.validate(envelope if parts else state)
            sec.problems += [f"seed {seed}: state_schema: {i.path}: {i.message}" for i in issues[:5]]
        sizes.append(sum(len(r) for r in state.values()))
        if len(sec.problems) > 20:
            break
    schema = "validated by its state_schema" if world.state_schema is not None else "no state_schema"
    if sizes:
        sec.detail = f"{min(sizes)}-{max(sizes)} records per seed, {schema}"
    return sec


def _span(seeds) -> str:
    return f"{min(seeds)}-{max(seeds)}" if seeds else "none"


def _check_determinism(world, seeds, processes: bool) -> Section:
    sec = Section("determinism")
    here = fingerprints(world, seeds)
    again = fingerprints(world, seeds)
    if here != again:
        sec.problems.append("the same seed gave different states or task setups in one process")
    digests = [v["digest"] for v in here.values()]
    if len(set(digests)) != len(digests):
        sec.problems.append("different seeds gave the same state")
    if processes:
        for i, other in enumerate(_other_processes(world.name, seeds), 1):
            for seed, fp in here.items():
                theirs = other.get(seed)
                if theirs is None or theirs["digest"] != fp["digest"]:
                    sec.problems.append(f"seed {seed}: another process (PYTHONHASHSEED #{i}) gave another "
                                        "seed_digest")
                elif theirs["tasks"] != fp["tasks"]:
                    bad = sorted(t for t in fp["tasks"] if theirs["tasks"].get(t) != fp["tasks"][t])
                    sec.problems.append(f"seed {seed}: another process gave other setups for {', '.join(bad)}")
        sec.detail = f"seeds {_span(seeds)}: same digests and setups here and in 2 other processes"
    else:
        sec.detail = f"seeds {_span(seeds)}: same digests and setups (in-process only)"
    return sec


def _run_task(engine, world, task, seed: int, result: TaskResult, first: bool) -> None:
    """One seed of one task: the reference episode, then a do-nothing one."""
    from .. import errors

    ep = engine.create(world.name, schemas.CreateEpisode(task_id=task.id, seed=seed))
    try:
        setup = ep.setup
        if first:
            _check_setup(task, setup, result)
        for n, (name, args) in enumerate(setup.solution, 1):
            answer = engine.step(ep.id, name, args)
            if not answer["ok"]:
                result.problems.append(f"seed {seed}: reference call {n} ({name}) was refused: "
                                       f"{answer['error'].get('code')}: {answer['error'].get('message')}")
                return
        ev = engine.submit(ep.id, setup.output)
    except errors.ApiError as e:
        result.problems.append(f"seed {seed}: the engine refused the reference episode: {e}")
        return
    finally:
        engine.episodes.pop(ep.id, None)
    result.runs += 1
    failing = [c for c in ev["checks"] if c["pass"] is not True]
    if ev["pass"] is True and ev["score"] == 1.0:
        result.passed += 1
    else:
        shown = "; ".join(f"{c['id']}: {c['detail']}" for c in failing[:3])
        result.problems.append(f"seed {seed}: the reference solution scored {ev['score']} ({shown})")
    nc = [c for c in ev["checks"] if c["kind"] == "no_collateral"]
    if not nc:
        result.collateral = "skipped: no no_collateral check"

    nothing = engine.create(world.name, schemas.CreateEpisode(task_id=task.id, seed=seed))
    try:
        ev = engine.submit(nothing.id, "")
    finally:
        engine.episodes.pop(nothing.id, None)
    if ev["pass"] is False:
        result.nothing_failed += 1
    else:
        result.problems.append(f"seed {seed}: a do-nothing episode passes")


def _check_setup(task, setup, result: TaskResult) -> None:
    """Once per task: the shape of its setup."""
    ids = [c.id for c in setup.checks]
    if not setup.checks:
        result.problems.append("the task has no checks")
    if len(ids) != len(set(ids)) or not all(ids):
        result.problems.append(f"check ids must be present and unique: {ids}")
    if not all(c.label for c in setup.checks):
        result.problems.append("every check needs a label")
    if not setup.instruction.strip():
        result.problems.append("the instruction is empty")
    if len(setup.solution) > task.step_budget:
        result.problems.append(f"the reference solution takes {len(setup.solution)} steps, over the task's "
                               f"step budget of {task.step_budget}")


def check_world(name: str, seeds=DEFAULT_SEEDS, *, determinism_seeds=DETERMINISM_SEEDS, processes: bool = True,
                progress=None) -> Report:
    """Check the registered world ``name`` (see the module's docstring).

    ``progress(done, total, what)`` is called as the work advances (the tasks
    section counts one per task and seed)."""
    from ..engine.engine import Engine
    from ..worlds import get_world

    world = get_world(name)
    seeds = list(seeds)
    determinism_seeds = list(determinism_seeds)
    report = Report(world=world.name, version=world.version, seeds=seeds)
    total = 3 + len(world.tasks) * len(seeds)
    done = 0

    def tick(what: str, n: int = 1):
        nonlocal done
        done += n
        if progress is not None:
            progress(done, total, what)

    for label, fn in (("tools", lambda: _check_tools(world)),
                      ("state", lambda: _check_state(world, seeds)),
                      ("determinism", lambda: _check_determinism(world, determinism_seeds, processes))):
        t0 = time.perf_counter()
        sec = fn()
        sec.seconds = time.perf_counter() - t0
        report.sections.append(sec)
        tick(label)

    engine = Engine(Settings())
    results = {t.id: TaskResult(t.id) for t in world.tasks}
    for task in world.tasks:
        res = results[task.id]
        for i, seed in enumerate(seeds):
            try:
                _run_task(engine, world, task, seed, res, first=i == 0)
            except Exception as e:  # a broken setup or tool: report it, go on
                res.problems.append(f"seed {seed}: {type(e).__name__}: {e}")
            tick(f"{task.id} seed {seed}")
            if len(res.problems) >= 5:
                res.problems.append("stopped after 5 problems")
                tick(f"{task.id} skipped", len(seeds) - i - 1)
                break
        report.tasks.append(res)
    return report


def main(argv=None) -> int:
    import argparse

    from ..worlds import get_world

    p = argparse.ArgumentParser(description="Print a world's seed digests and task-setup fingerprints as JSON.")
    p.add_argument("world")
    p.add_argument("--seeds", default="0,1,2", help="comma-separated seeds (default: 0,1,2)")
    p.add_argument("--module", default=None,
                   help="import the world from this module or module:attr (default: the registry)")
    args = p.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    if args.module:
        from ..worlds import load

        world = load(args.world, args.module)
    else:
        world = get_world(args.world)
    json.dump(fingerprints(world, seeds), sys.stdout, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
