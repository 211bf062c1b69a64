"""Replaying a list of calls on a start state, outside any episode."""

from __future__ import annotations

from ..worlds.tool import Context
from .episode import decode_args


def replay(world, start, calls: list, seed: int = 0):
    """Apply ``[(tool, arguments), ...]`` to a fork of ``start`` as steps 1..n
    and return the end Store. Refused calls change nothing, as in an episode;
    reactions fire as they would."""
    store = start.fork()
    clock = world.clock(len(calls))
    for n, (name, arguments) in enumerate(calls, start=1):
        tool = world.tools_by_name.get(name)
        if tool is None:
            continue  # ask_user and unknown tools change no state
        args, error = decode_args(tool, arguments)
        if error is not None:
            continue
        ctx = Context(store, n, clock[n], world.epoch_ms + n * 1000 * world.seconds_per_step, seed)
        try:
            result = tool.fn(ctx, args)
        except Exception:  # a refusal changes nothing; a reference solution should not refuse
            continue
        for rule in world.reactions_by_tool.get(name, ()):
            rule.fire(ctx, args, result)
    return store
