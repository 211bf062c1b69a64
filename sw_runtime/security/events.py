"""The lifecycle events webhooks carry, and what each one says.

``episode.created`` when an episode starts (create, batch create, fork);
``episode.submitted`` when it is scored; ``episode.ended`` when it leaves
play for good, with its ``ending`` (``submitted``, or why it was evicted)
and its score (null when it ended without being scored).
"""

from __future__ import annotations

CREATED, SUBMITTED, ENDED = "episode.created", "episode.submitted", "episode.ended"
EVENTS = (CREATED, SUBMITTED, ENDED)


def _base(ep) -> dict:
    return {
        "episode_id": ep.id,
        "environment": ep.world.name,
        "task_id": ep.task.id if ep.task is not None else None,
        "seed": ep.seed,
        "agent_name": ep.agent_name,
        "project": ep.project,
    }


def created(ep) -> dict:
    return _base(ep)


def submitted(ep, evaluation: dict) -> dict:
    return {**_base(ep), "pass": evaluation.get("pass"), "score": evaluation.get("score"),
            "steps": evaluation.get("steps")}


def ended(ep, ending: str, evaluation: dict | None) -> dict:
    ev = evaluation or {}
    return {**_base(ep), "ending": ending, "pass": ev.get("pass"), "score": ev.get("score"), "steps": ep.steps}
