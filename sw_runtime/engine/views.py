"""What the engine answers about an episode, as plain dicts: the body of a
create, of a fork, of a read, and the state dump. Every door encodes these
the same way, so a route never assembles an answer itself."""

from __future__ import annotations

import orjson
from sw_core_ext import Store

from .. import errors
from .lifetimes import wall_of

API = "/api/v1"


def next_links(ep) -> dict:
    """Where to step and submit the episode."""
    base = f"{API}/episodes/{ep.id}"
    return {"step": f"{base}/step", "submit": f"{base}/submit"}


# Pre-encoded pieces of a create's answer, the same for every episode of a
# world (and task): its tools and its policy are kilobytes of JSON, and
# encoding them again for each of the 1,024 episodes of a batch create was a
# quarter of its time. Keyed by the objects' ids; the objects are kept with
# the entry so an id is never reused while it is there.
_FRAGMENTS: dict = {}


def _fragment(key: tuple, owner, make):
    """The JSON of ``make()``, made once per ``key`` while ``owner`` (the
    world the key's ids come from) is the same object."""
    got = _FRAGMENTS.get(key)
    if got is None or got[0] is not owner:
        if len(_FRAGMENTS) > 10_000:  # worlds made on the fly (tests, scaffolds): stay bounded
            _FRAGMENTS.clear()
        got = _FRAGMENTS[key] = (owner, orjson.Fragment(orjson.dumps(make())))
    return got[1]


def _identity(ep) -> dict:
    """Which episode: the first fields of every answer about one (and, for a
    composite, its worlds and their versions)."""
    body = {
        "episode_id": ep.id,
        "environment": ep.world.name,
        "environment_version": ep.world.version,
        "task_id": ep.task.id if ep.task else None,
        "seed": ep.seed,
        "agent_name": ep.agent_name,
    }
    parts = getattr(ep.world, "parts", None)
    if parts:
        body["environments"] = ep.world.environments
        body["environment_versions"] = ep.world.environment_versions
    return body


def _options(ep) -> dict:
    """How it was started: the options a create answers and a read repeats."""
    return {
        "signals": ep.signals,
        "fault_profile": ep.fault_profile,
        "mode": "sandbox" if ep.sandbox else "live",
        "trigger": ep.trigger,
        "user_simulator": ep.user.kind if ep.user is not None else None,
        "scoring": ep.scoring,
        "training": ep.training,
    }


def expires_at(ep) -> str | None:
    """When an open episode ends if nothing touches it: the earlier of its
    idle deadline and its hard one (``lifetimes.py``); None once it has ended."""
    if ep.ended_by is not None or ep.status == "submitted" or ep.idle_timeout is None:
        return None
    return wall_of(min(ep.touched + ep.idle_timeout, ep.born + (ep.max_age or ep.idle_timeout)))


def lifetime(ep) -> dict:
    """What a heartbeat answers: the episode's deadline and its windows."""
    return {"episode_id": ep.id, "status": ep.status, "expires_at": expires_at(ep),
            "idle_timeout_seconds": ep.idle_timeout, "timeout_seconds": ep.max_age}


def summary(ep) -> dict:
    """An episode as a list or a read shows it: who it is, where it stands, how it started."""
    return {
        **_identity(ep),
        "status": ep.status,
        "ended_by": ep.ended_by,
        "steps": ep.steps,
        "step_limit": ep.step_limit,
        "step_budget": ep.task.step_budget if ep.task else None,
        "now": ep.clock[ep.steps],
        "created_at": ep.created_at,
        "expires_at": expires_at(ep),
        "idle_timeout_seconds": ep.idle_timeout,
        "timeout_seconds": ep.max_age,
        **_options(ep),
        "start": ep.start_kind,
        "snapshot_id": ep.snapshot_id,
        "forked_from": ep.forked_from,
        "seed_digest": ep.seed_digest,
        "digest": ep.digest,
    }


def created(ep) -> dict:
    """What creating an episode answers (the reference's fields, plus ours).
    ``tools`` and ``policy`` are ``orjson.Fragment``s: encode it with orjson."""
    world, task = ep.world, ep.task

    def policy():
        if task is not None and task.policy:
            return f"{world.policy}\n\n{task.policy}"
        return world.policy

    return {
        **_identity(ep),
        "instruction": ep.setup.instruction if ep.setup else None,
        "policy": _fragment(("policy", id(world), id(task)), world, policy),
        "tools": _fragment(("tools", id(world), ep.user is not None), world, ep.tool_definitions),
        "step_limit": ep.step_limit,
        "step_budget": ep.task.step_budget if ep.task else None,
        **_options(ep),
        "checks": [{"id": c.id, "kind": c.__struct_config__.tag, "label": c.label, "source": c.source}
                   for c in ep.checks if c.source == "custom"],
        "seed_digest": ep.seed_digest,
        "now": ep.clock[0],
        "expires_at": expires_at(ep),
        "idle_timeout_seconds": ep.idle_timeout,
        "timeout_seconds": ep.max_age,
        "next": next_links(ep),
    }


def forked(ep) -> dict:
    """One fork, as a fork answers it. Its tools, policy and instruction are
    the source's: the client already has them."""
    return {
        "episode_id": ep.id,
        "forked_from": ep.forked_from,
        "steps": ep.steps,
        "digest": ep.digest,
        "now": ep.clock[ep.steps],
        "expires_at": expires_at(ep),
        "next": next_links(ep),
    }


def fork_group(src, children: list) -> dict:
    """A fork's whole answer: the source as it stood, and each branch."""
    return {
        "forked_from": src.id,
        "steps": src.steps,
        "digest": src.digest,
        "episodes": [forked(c) for c in children],
    }


def full(ep) -> dict:
    """An episode read back: its summary, its whole trace and its evaluation."""
    body = summary(ep)
    body["trace"] = ep.trace.entries()
    body["evaluation"] = ep.evaluation
    return body


def state_names(ep, collections: list | None = None) -> list:
    """The collections a state dump of ``ep`` holds: all, or the ``collections``
    asked for (``InvalidRequest`` naming any unknown one)."""
    store = ep.store
    names = store.collections
    if collections is None:
        return names
    wanted = [n.strip() for n in collections if n.strip()]
    unknown = [n for n in wanted if not store.has_collection(n)]
    if not wanted or unknown:
        raise errors.InvalidRequest(
            f"collections={','.join(collections)!r} names "
            f"{'no collection' if not wanted else 'unknown ' + ', '.join(unknown)}; "
            f"{ep.world.name}'s collections are {', '.join(names)}"
        )
    return list(dict.fromkeys(wanted))


def state_head(ep) -> dict:
    """A state dump's fields other than its collections (a composite's names
    its worlds and each one's digest)."""
    body = {"episode_id": ep.id, "environment": ep.world.name, "steps": ep.steps, "digest": ep.digest}
    if getattr(ep.world, "parts", None):
        body["environments"] = ep.world.environments
        body["digests"] = ep.store.digests()
    if getattr(ep, "changes_only", False):  # an ended episode whose start cannot be rebuilt (ended_state.py)
        body["changes_only"] = True
    return body


def state(ep, collections: list | None = None) -> dict:
    """The state dump that ``sandworld digest`` reads as is. With
    ``collections``, only those (``digest`` stays the whole state's, and
    ``collections_digest`` is the digest of what was returned)."""
    dump = ep.store.to_dict(state_names(ep, collections))
    body = state_head(ep)
    body["collections"] = dump
    if collections is not None:
        body["collections_digest"] = Store(dump).digest()  # over the names as dumped (world.collection in a composite)
    return body
