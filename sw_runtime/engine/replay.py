"""A task's reference solution played on a start state, outside any live episode.

The calls run through ``Episode.answer``, the path every agent's call takes,
on a throwaway episode: the same decoding, tool, reactions and clock. A
reference solution is the task's own proof that it can be solved, so a call
of it that is refused or fails is a bug in the task, and raises
``ReferenceFailed`` naming the step, rather than being skipped.
"""

from __future__ import annotations

import orjson

from .episode import Episode
from .users import ASK_USER


class ReferenceFailed(RuntimeError):
    """A reference solution's call did not succeed."""


def replay(world, start, calls: list, seed: int = 0):
    """Apply ``[(tool, arguments), ...]`` to a fork of ``start`` as steps
    1..n and return the end Store. ``ask_user`` calls (a question to the
    user) change no state and are passed over."""
    ep = Episode(id="ep_reference", world=world, task=None, seed=seed, setup=None, checks=[], start_passes=[],
                 start=start, seed_digest="", agent_name=None, created_at="", step_limit=max(1, len(calls)),
                 clock=world.clock(max(1, len(calls))))
    ep.args_cap = 1 << 62  # the reference's arguments are the task's own: keep them whole
    for n, (name, arguments) in enumerate(calls, start=1):
        if name == ASK_USER:
            ep.steps += 1  # the step still passes (the clock moves as in an episode)
            continue
        parts = ep.answer(name, orjson.dumps(arguments))
        if ep.trace.rows[-1][4] is not True:
            answer = orjson.loads(b"".join(parts) + b"}")
            raise ReferenceFailed(
                f"{world.name}: step {n} of a reference solution ({name}) failed: {answer.get('error')}"
            )
    return ep.store
