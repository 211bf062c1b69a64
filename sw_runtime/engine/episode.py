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
from . import faults
from .users import ASK_USER, ASK_USER_TOOL

log = logging.getLogger("sandworld.engine")

OPEN, SUBMITTED = "open", "submitted"


class Episode:
    __slots__ = (
        "id", "world", "task", "seed", "setup", "checks", "start_passes", "start", "store",
        "seed_digest", "digest", "steps", "status", "trace", "calls", "agent_name",
        "created_at", "born", "touched", "evaluation", "step_limit", "clock", "signals", "fault_profile",
        "tracker", "user", "stale", "forked_from", "start_kind", "snapshot_id", "__weakref__",
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
        self.tracker = None  # signals.Signals when signals are on
        self.user = None  # users.ScriptedUser / LlmUser on tasks with hidden facts
        # stale_read episodes keep the state as of before the latest write
        self.stale = self.store.fork() if fault_profile == "stale_read" else None
        # Where the state came from (forks.py, custom_seeds.py, snapshots.py).
        self.forked_from = None
        self.start_kind = "seed"  # or "state" (custom) or "snapshot"
        self.snapshot_id = None

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
        mutated = schema_valid = False
        reactions = ()
        fault = None
        if tool_name == ASK_USER and self.user is not None:
            ok, payload = self.user.answer(self, arguments)
            schema_valid = ok or payload.get("code") != "invalid_arguments"
        elif tool is None:
            ok, payload = False, {
                "code": "unknown_tool",
                "message": f"no tool {tool_name!r} in {self.world.name}; "
                f"the episode's tools are: {', '.join(self.tool_names())}",
            }
        else:
            args, error = decode_args(tool, arguments)
            schema_valid = error is None
            if error is not None:
                ok, payload = False, error
            elif self.fault_profile is not None and faults.applies(self.fault_profile, tool) \
                    and faults.hits(self.fault_profile, self.seed, n):
                fault = self.fault_profile
                ok, payload, mutated, reactions = self._faulted(tool, args, n, at)
            else:
                if self.stale is not None and tool.writes:
                    self.stale = self.store.fork()  # what a stale read will see next
                ok, payload, mutated, reactions = self._run(tool, args, n, at, self.store)
        answer = {"step": n, "tool": tool_name, "ok": ok, ("result" if ok else "error"): payload, "at": at}
        if reactions and fault is None:
            answer["reactions"] = reactions
        self.calls.append((tool_name, ok, mutated))
        entry = {
            "seq": n,
            "at": at,
            "tool": tool_name,
            "arguments": arguments,
            "ok": ok,
            ("result" if ok else "error"): payload,
            "mutated": mutated,
            "state_digest": self.digest,
            "reactions": list(reactions),
        }
        if fault is not None:
            entry["fault"] = fault
        if self.tracker is not None:
            answer["signals"] = entry["signals"] = self.tracker.after_step(self, schema_valid, mutated, fault)
        self.trace.append(entry)
        return answer

    def _run(self, tool, args, n: int, at: str, store):
        """Run a decoded call against ``store``; answer (ok, payload, mutated, reactions)."""
        before = store.accumulator
        ctx = Context(store, n, at, self.world.epoch_ms + n * 1000 * self.world.seconds_per_step, self.seed)
        reactions = ()
        try:
            result = tool.fn(ctx, args)
            ok, payload = True, result
            rules = self.world.reactions_by_tool.get(tool.name)
            if rules:
                reactions = [rx for rule in rules for rx in (rule.fire(ctx, args, result) or ())]
        except Refused as r:
            ok, payload = False, r.as_error()
        except Exception:  # a bug in a world must not take the server down
            log.exception("tool %s.%s failed in episode %s", self.world.name, tool.name, self.id)
            ok, payload = False, {
                "code": "internal_error",
                "message": f"the tool {tool.name} failed inside the server; this is a bug in the world",
            }
        mutated = store is self.store and store.accumulator != before
        if mutated:
            self.digest = store.digest()
        return ok, payload, mutated, reactions

    def _faulted(self, tool, args, n: int, at: str):
        """A call hit by the episode's fault profile (see engine/faults.py)."""
        profile = self.fault_profile
        if profile == "timeout_after_commit":
            _ok, _payload, mutated, reactions = self._run(tool, args, n, at, self.store)
            return False, faults.timeout_error(tool.name), mutated, reactions
        if profile == "timeout_before_commit":
            return False, faults.timeout_error(tool.name), False, ()
        if profile == "rate_limited":
            return False, faults.rate_limited_error(tool.name), False, ()
        if profile == "server_error":
            return False, faults.server_error(tool.name), False, ()
        # stale_read: a read answered from the state before the latest write
        ok, payload, _m, _r = self._run(tool, args, n, at, self.stale if self.stale is not None else self.store)
        return ok, payload, False, ()

    def tool_names(self) -> list:
        names = sorted(self.world.tools_by_name)
        return names + [ASK_USER] if self.user is not None else names

    def tool_definitions(self) -> list:
        """The tools this episode offers: the world's, plus ask_user when the
        task has details only the user knows."""
        defs = [t.definition() for t in self.world.tools]
        if self.user is not None:
            defs.append(ASK_USER_TOOL.definition())
        return defs

    @property
    def training(self) -> bool:
        """Signals or faults make an episode a training one: evals leave it out."""
        return self.signals or self.fault_profile is not None

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
            "user_simulator": self.user.kind if self.user is not None else None,
            "training": self.training,
            "start": self.start_kind,
            "snapshot_id": self.snapshot_id,
            "forked_from": self.forked_from,
            "seed_digest": self.seed_digest,
            "digest": self.digest,
        }


def decode_args(tool, arguments):
    """Decode a call's arguments with the tool's params Struct: (args, None) or (None, error)."""
    try:
        return msgspec.convert(arguments, tool.params), None
    except msgspec.ValidationError as e:
        return None, {"code": "invalid_arguments", "message": f"invalid arguments for {tool.name}: {e}"}
