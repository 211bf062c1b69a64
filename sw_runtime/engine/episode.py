"""One episode: a world's state, the clock, the trace, and one call at a time.

Nothing here knows about HTTP. ``call`` runs one tool call and returns the
step's answer as a dict; refusals and bad arguments are ``ok: false`` results,
never exceptions. Conditions that stop a call before it runs (a closed
episode, the step limit) raise ``ApiError``s.
"""

from __future__ import annotations

import logging
import time

import msgspec

from .. import errors
from ..worlds.tool import Context, Refused

log = logging.getLogger("sandworld.engine")

OPEN, SUBMITTED = "open", "submitted"


class Episode:
    __slots__ = (
        "id", "world", "task", "seed", "setup", "checks", "start_passes", "start", "store",
        "seed_digest", "digest", "steps", "status", "trace", "calls", "agent_name",
        "created_at", "born", "touched", "evaluation", "step_limit", "clock", "signals", "fault_profile",
        "__weakref__",
    )

    def __init__(self, *, id, world, task, seed, setup, checks, start_passes, start, seed_digest,
                 agent_name, created_at, step_limit, clock, signals=False, fault_profile=None):
        self.id = id
        self.world = world
        self.task = task
        self.seed = seed
        self.setup = setup
        self.checks = checks
        self.start_passes = start_passes
        self.start = start
        self.store = start.fork()
        self.seed_digest = seed_digest
        self.digest = seed_digest
        self.steps = 0
        self.status = OPEN
        self.trace = []  # one dict per answered call
        self.calls = []  # (tool, ok, mutated): what the checks read
        self.agent_name = agent_name
        self.created_at = created_at
        self.born = self.touched = time.monotonic()
        self.evaluation = None
        self.step_limit = step_limit
        self.clock = clock
        self.signals = signals
        self.fault_profile = fault_profile

    # -- stepping ------------------------------------------------------------

    def check_open(self) -> None:
        if self.status != OPEN:
            raise errors.EpisodeClosed(f"episode {self.id} was submitted; start a new episode to go on")
        if self.steps >= self.step_limit:
            raise errors.StepLimit(
                f"episode {self.id} used all {self.step_limit} steps; submit it to be scored"
            )

    def call(self, tool_name: str, arguments) -> dict:
        """Run one tool call as the next step and answer it."""
        self.check_open()
        self.touched = time.monotonic()
        self.steps = n = self.steps + 1
        at = self.clock[n]
        tool = self.world.tools_by_name.get(tool_name)
        mutated = False
        if tool is None:
            ok, payload = False, {
                "code": "unknown_tool",
                "message": f"no tool {tool_name!r} in {self.world.name}; "
                f"the episode's tools are: {', '.join(sorted(self.world.tools_by_name))}",
            }
        else:
            ok, payload, mutated = self._run(tool, arguments, n, at)
        answer = {"step": n, "tool": tool_name, "ok": ok, ("result" if ok else "error"): payload, "at": at}
        self.calls.append((tool_name, ok, mutated))
        self.trace.append(
            {
                "seq": n,
                "at": at,
                "tool": tool_name,
                "arguments": arguments,
                "ok": ok,
                ("result" if ok else "error"): payload,
                "mutated": mutated,
                "state_digest": self.digest,
                "reactions": [],
            }
        )
        return answer

    def _run(self, tool, arguments, n: int, at: str):
        try:
            args = msgspec.convert(arguments, tool.params)
        except msgspec.ValidationError as e:
            return False, {"code": "invalid_arguments", "message": f"invalid arguments for {tool.name}: {e}"}, False
        store = self.store
        before = store.accumulator
        ctx = Context(store, n, at, self.world.epoch_ms + n * 1000 * self.world.seconds_per_step, self.seed)
        try:
            result = tool.fn(ctx, args)
            ok, payload = True, result
        except Refused as r:
            ok, payload = False, r.as_error()
        except Exception:  # a bug in a world must not take the server down
            log.exception("tool %s.%s failed in episode %s", self.world.name, tool.name, self.id)
            ok, payload = False, {
                "code": "internal_error",
                "message": f"the tool {tool.name} failed inside the server; this is a bug in the world",
            }
        mutated = store.accumulator != before
        if mutated:
            self.digest = store.digest()
        return ok, payload, mutated

    # -- views ---------------------------------------------------------------

    def summary(self) -> dict:
        return {
            "episode_id": self.id,
            "environment": self.world.name,
            "environment_version": self.world.version,
            "task_id": self.task.id if self.task else None,
            "seed": self.seed,
            "agent_name": self.agent_name,
            "status": self.status,
            "steps": self.steps,
            "step_limit": self.step_limit,
            "step_budget": self.task.step_budget if self.task else None,
            "now": self.clock[self.steps],
            "created_at": self.created_at,
            "signals": self.signals,
            "fault_profile": self.fault_profile,
            "seed_digest": self.seed_digest,
            "digest": self.digest,
        }
