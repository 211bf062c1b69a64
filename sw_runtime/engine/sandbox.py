"""Sandbox mode (reference 004): guarded tools answer what they would have done.

An episode created with ``"mode": "sandbox"`` runs its ``safe`` tools as
usual. A ``guarded`` tool runs on a throwaway copy-on-write fork of the
state, so it validates and refuses exactly as the live call would, and its
answer is ``{"sandbox": true, <preview key>: <the live result>}`` (the
receivables world's ``would_send``, ``would_reply``, ...) or, for a tool
without a preview key, ``{"sandbox": true, "would_change": <state diff>}``.
The episode's state, digest and ``mutated`` flag stay as they were; the
preview is recorded in the trace like any result, so checks can score what
the agent would have done. A tool without a class is blocked.
"""

from __future__ import annotations

MODES = ("live", "sandbox")


def intercept(ep, tool, args, n: int, at: str):
    """Run a non-safe tool of a sandbox episode: ``(ok, payload)``, nothing written."""
    if tool.cls is None:
        return False, {
            "code": "unclassified_tool",
            "message": f"{tool.name} needs a tool class to run in a sandbox episode, and has none: the world "
            f"{ep.world.name} must declare it safe or guarded (cls=...); blocked, nothing was run",
        }
    scratch = ep.store.fork()
    ok, payload, _mutated, _reactions = ep._run(tool, args, n, at, scratch)
    if not ok:
        return False, payload
    if tool.preview:
        return True, {"sandbox": True, tool.preview: payload}
    return True, {"sandbox": True, "would_change": scratch.diff(ep.store)}
