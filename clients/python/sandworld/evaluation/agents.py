"""Agents for ``sandworld eval``: the built-ins, and loading ``module:function``.

An agent is a function ``agent(env, obs) -> output``. The runner has already
started the episode: ``obs`` is its observation (``instruction``, ``policy``,
``tools``…), and the agent calls ``env.step(tool, arguments)`` as often as it
likes, then returns its final answer to the user (a string, or ``None``). The
runner submits it. A coroutine function gets an ``AsyncSandworldEnv`` and runs
on the runner's event loop; a plain function gets a ``SandworldEnv`` and runs
in a worker thread, so blocking model SDKs work as they are.

Built-ins:

- ``reference`` replays the task's reference solution and answers its
  reference output: the ceiling (every task passes).
- ``noop`` does nothing and answers nothing: the floor (no task passes).
- ``random`` calls random tools with arguments made from their schemas and
  from ids seen in earlier results: a noisy baseline.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import random as _random
import re

from .. import errors


@functools.lru_cache(maxsize=4096)
def reference_setup(environment: str, version: str, task_id: str, seed: int, seed_digest: str | None = None):
    """The task's ``Setup`` for this seed, computed in this process from the
    world package (instruction, checks, ``solution``, ``output``).

    The world's version and the start state's digest must match the server's,
    or the solution would be for a different world.
    """
    try:
        from sw_runtime.worlds import get_world
    except ImportError as e:  # a client-only install
        raise errors.SandworldError(f"the reference agent needs the server packages in this process: {e}") from None
    world = get_world(environment)
    if world.version != version:
        raise errors.SandworldError(
            f"the server runs {environment} {version} but this process has {world.version}: "
            "the reference solution would be for another world",
            code="version_mismatch",
        )
    store = world.seed_store(seed)  # a composite's holds one Store per world
    if seed_digest is not None and store.digest() != seed_digest:
        raise errors.SandworldError(
            f"{environment} seed {seed} starts at {seed_digest} on the server but {store.digest()} here",
            code="version_mismatch",
        )
    return world.tasks_by_id[task_id].setup(store.fork())


def _setup_for(obs):
    if not obs.get("task_id"):
        raise errors.SandworldError("the reference agent needs a task (free play has no reference)")
    return reference_setup(obs["environment"], obs["environment_version"], obs["task_id"], int(obs["seed"]),
                           obs.get("seed_digest"))


async def reference(env, obs):
    """Replay the task's reference solution; answer its reference output."""
    setup = _setup_for(obs)
    for tool, arguments in setup.solution:
        await env.step(tool, arguments)
    return setup.output


async def noop(env, obs):
    """Do nothing; answer nothing."""
    return None


_ID = re.compile(r"^(?:[a-z]{1,4}-[a-z0-9-]+|@[a-z0-9_-]{3,30})$")


def _harvest(value, seen: set) -> None:
    """Collect id-like strings (``rq-07``, ``c-004``, ``@maya-lin``) from a result."""
    if isinstance(value, dict):
        for v in value.values():
            _harvest(v, seen)
    elif isinstance(value, list):
        for v in value:
            _harvest(v, seen)
    elif isinstance(value, str) and _ID.match(value):
        seen.add(value)


def random_arguments(schema: dict, rng: _random.Random, seen: list) -> dict:
    """Arguments for a tool made from its JSON Schema: enums pick a value,
    strings often reuse an id seen earlier, numbers are small and positive."""
    out = {}
    required = set(schema.get("required") or ())
    for name, prop in (schema.get("properties") or {}).items():
        if name not in required and rng.random() < 0.5:
            continue
        out[name] = _value(prop, rng, seen)
    return out


def _value(prop: dict, rng, seen):
    options = prop.get("anyOf") or prop.get("oneOf")
    if options:
        concrete = [o for o in options if o.get("type") != "null"] or options
        return _value(rng.choice(concrete), rng, seen)
    if "enum" in prop:
        return rng.choice(prop["enum"])
    kind = prop.get("type")
    if kind == "integer":
        return rng.choice((rng.randint(1, 100) * 100, rng.randint(1, 99_999)))
    if kind == "number":
        return round(rng.uniform(1, 500), 2)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "array":
        return [_value(prop.get("items") or {}, rng, seen)]
    if kind == "object":
        return random_arguments(prop, rng, seen)
    if seen and rng.random() < 0.7:
        return rng.choice(seen)
    return rng.choice(("hello", "lunch", "@someone", "Maya", "Thanks!"))


async def random_agent(env, obs):
    """Call 1 to ``step_budget`` random tools with random arguments; answer nothing."""
    rng = _random.Random(obs.get("episode_id"))
    tools = obs.get("tools") or []
    seen: set = set()
    for _ in range(rng.randint(1, int(obs.get("step_budget") or 10))):
        tool = rng.choice(tools)
        result = await env.step(tool["name"], random_arguments(tool.get("parameters") or {}, rng, sorted(seen)))
        _harvest(result.get("result"), seen)
    return None


BUILTINS = {"reference": reference, "noop": noop, "random": random_agent}


def load(spec: str):
    """The agent function named by ``spec``: a built-in name or ``module:function``."""
    if spec in BUILTINS:
        return BUILTINS[spec]
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise errors.SandworldError(
            f"agent {spec!r} is neither a built-in ({', '.join(BUILTINS)}) nor an import path module:function",
            code="bad_agent",
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise errors.SandworldError(f"cannot import {module_name!r} for agent {spec!r}: {e}", code="bad_agent") from e
    fn = module
    for part in attr.split("."):
        fn = getattr(fn, part, None)
        if fn is None:
            raise errors.SandworldError(f"{module_name} has no {attr!r} (agent {spec!r})", code="bad_agent")
    if not callable(fn):
        raise errors.SandworldError(f"agent {spec!r} is not callable", code="bad_agent")
    return fn


def is_async(fn) -> bool:
    """A coroutine function, or an object whose ``__call__`` is one."""
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(type(fn), "__call__", None))
