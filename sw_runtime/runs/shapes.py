"""Reference 001's shapes: Environment, Run, trace entries, Evaluation, errors.

Pure encoding: plain values from the service in, 001's JSON objects out.
"""

from __future__ import annotations

import uuid

import msgspec

from .. import errors
from ..service.runs import BUDGET_ID, run_passed
from .providers import operation, provider_of, tool_rows

_NS = uuid.UUID("5d1c7a52-4c59-4d0b-9d1a-3b9c2f3e6a10")  # ids are stable: the same world, the same env_ id


def env_id(name: str) -> str:
    return f"env_{uuid.uuid5(_NS, name)}"


def version(world, created_at: str | None = None) -> dict:
    out = {"id": f"ver_{uuid.uuid5(_NS, world.name + '@' + world.version)}", "number": 1, "name": world.version}
    if created_at is not None:
        out["created_at"] = created_at
    return out


def check(c) -> dict:
    """A template check as 001 writes it: the kind's fields, ``description`` for our ``label``."""
    out = msgspec.to_builtins(c)
    out["description"] = out.pop("label", "")
    out.pop("always_scored", None)
    out["source"] = c.source
    return out


def environment(facts: dict, created_at: str) -> dict:
    """One environment: ``facts`` from the service (world, seed digest, tasks with their setups)."""
    world = facts["world"]
    return {
        "id": env_id(world.name),
        "slug": world.name,
        "name": world.title,
        "description": world.description,
        "version": version(world, created_at),
        "tools": [{"provider": p, "surface": s, "path": path} for p, s, path in tool_rows(world)],
        "tasks": [
            {"id": t.id, "title": t.title, "instructions": setup.instruction, "checks": [check(c) for c in setup.checks]}
            for t, setup in facts["tasks"]
        ],
        "seed_digest": facts["seed_digest"],
        "created_at": created_at,
    }


def tools_url(base: str, run_id: str) -> str:
    return f"{base}/v1/runs/{run_id}/tools"


def tool_urls(world, url: str) -> list:
    return [{"provider": p, "surface": s, "url": f"{url}/{path}"} for p, s, path in tool_rows(world)]


def run(f: dict, world, base: str, token: bool = False) -> dict:
    """A Run from ``Run.facts()``; ``token`` only where 001 shows it."""
    url = tools_url(base, f["id"])
    out = {
        "id": f["id"],
        "status": f["status"],
        "ended_by": f["ended_by"],
        "error": f["error"],
        "environment": {"id": env_id(world.name), "slug": world.name, "version": version(world)},
        "task": {"id": f["task_id"], "text": f["task_text"]},
        "agent": f["agent"],
        "tools_url": url,
        "mcp_url": f"{url}/mcp",
        "tools": tool_urls(world, url),
        "now": f["now"],
        "calls": f["calls"],
        "max_calls": f["max_calls"],
        "idle_timeout_seconds": f["idle_timeout_seconds"],
        "timeout_seconds": f["timeout_seconds"],
        "created_at": f["created_at"],
        "started_at": f["started_at"],
        "expires_at": f["expires_at"],
        "finished_at": f["finished_at"],
        "scored_at": f["scored_at"],
        "metadata": f["metadata"],
        "trace": {"calls": [call(e, world) for e in f["trace"]]} if f["trace"] is not None else None,
        "evaluation": evaluation(f["evaluation"], f["checks"], f["scored_at"]) if f["evaluation"] else None,
        "episode_id": f["episode_id"],
        "seed": f["seed"],
        "idle_expires_at": f["idle_expires_at"],
        "group_id": f["group_id"],
    }
    if token:
        out["token"] = f["token"]
    return out


def call(e: dict, world) -> dict:
    """One trace entry (ours) in 001's shape."""
    ok = e["ok"]
    err = None if ok else e["error"]
    return {
        "seq": e["seq"],
        "at": e["at"],
        "provider": provider_of(world, e["tool"]),
        "surface": e.get("surface", "step"),
        "operation": operation(world, e["tool"]),  # the real API's name (gmail.messages.list), as 001 shows it
        "arguments": e["arguments"],
        "result": e["result"] if ok else None,
        "status": "ok" if ok else "error",
        "error": {"type": err.get("code", "error"), "message": err.get("message", "")} if err is not None else None,
        "mutated": e["mutated"],
        "state_digest": e["state_digest"],
        "reactions": e["reactions"],
    }


def evaluation(ev: dict, checks: dict, at: str | None) -> dict:
    """Our evaluation in 001's shape (``score`` keeps our weighting; see docs/RUNS.md).

    001's checks are the task's and the custom ones, nothing else: the
    engine's ``within-budget`` row (000's) is not a check here but the
    ``step_budget`` field, and ``passed`` is 001's (every check passed)."""
    out = []
    budget = None
    for r in ev["checks"]:
        if r["id"] == BUDGET_ID:
            budget = {"budget": ev.get("step_budget"), "calls": ev["steps"], "within": r["pass"]}
            continue
        meta = checks.get(r["id"], {})
        judge = None
        if r["kind"] == "rubric" and r["pass"] is not None and r["detail"].startswith("judge "):
            judge = {"model": r["detail"][len("judge "):].split(":", 1)[0]}
        out.append({
            "id": r["id"],
            "kind": r["kind"],
            "description": r["label"] or meta.get("label", ""),
            "source": r["source"],
            "passed": r["pass"],
            "explanation": r["detail"],
            "judge": judge,
        })
    passed = run_passed(ev)
    return {"score": ev["score"], "passed": passed, "checks": out, "state_diff": ev["state_diff"],
            "evaluated_at": at, "digest": ev["digest"], "step_budget": budget}


# -- errors ---------------------------------------------------------------------------------------------------

# Our codes that 001 names otherwise; the status stays ours.
_TYPES = {
    "invalid_json": "invalid_request",
    "payload_too_large": "invalid_request",
    "episode_closed": "run_ended",
    "step_limit": "run_ended",
    "idempotency_key_reused": "idempotency_conflict",
}


def error(err: errors.ApiError) -> dict:
    """001's envelope ``{"error": {"type", "message"}}``."""
    return {"error": {"type": _TYPES.get(err.code, err.code), "message": err.message}}


def run_row(f: dict) -> dict:
    """A run as ``GET /v1/runs`` lists it (reference 003's compact rows); the
    whole run is ``GET /v1/runs/{id}``."""
    ev = f["evaluation"]
    return {
        "id": f["id"],
        "status": f["status"],
        "ended_by": f["ended_by"],
        "environment": f["environment"],
        "task": {"id": f["task_id"], "text": f["task_text"]},
        "agent": f["agent"],
        "group_id": f["group_id"],
        "calls": f["calls"],
        "score": ev["score"] if ev else None,
        "passed": run_passed(ev) if ev else None,
        "created_at": f["created_at"],
        "finished_at": f["finished_at"],
        "episode_id": f["episode_id"],
    }
