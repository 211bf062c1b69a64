"""The lifecycle events the service announces (webhooks carry them), and what each says.

``episode.created`` when an episode starts (create, batch create, fork);
``episode.submitted`` when it is scored; ``episode.ended`` when it leaves
play for good, with its ``ending`` (``submitted``, or why it was evicted:
``idle``, ``max_age``) and its score (null when it ended unscored).
"""

from __future__ import annotations

CREATED, SUBMITTED, ENDED = "episode.created", "episode.submitted", "episode.ended"
EVENTS = (CREATED, SUBMITTED, ENDED)


def of(kind: str, ep, detail) -> list:
    """The events for what the engine reported: ``(kind, episode, detail)``
    with kind ``created``, ``submitted`` (detail: the evaluation) or
    ``evicted`` (detail: the ending)."""
    if kind == "created":
        return [(CREATED, _base(ep))]
    if kind == "submitted":
        scored = {"pass": detail.get("pass"), "score": detail.get("score"), "steps": detail.get("steps")}
        return [(SUBMITTED, {**_base(ep), **scored}), (ENDED, {**_base(ep), "ending": "submitted", **scored})]
    if kind == "evicted":
        return [(ENDED, {**_base(ep), "ending": detail, "pass": None, "score": None, "steps": ep.steps})]
    return []


def _base(ep) -> dict:
    return {
        "episode_id": ep.id,
        "environment": ep.world.name,
        "task_id": ep.task.id if ep.task is not None else None,
        "seed": ep.seed,
        "agent_name": ep.agent_name,
        "project": ep.project,
    }
