"""Custom seeds: episodes that start from a state the client sends.

A custom state *replaces* the world's generated state; it is never merged
into it (a collection the state leaves out starts empty). It goes through the
world's own parser (``World.state_schema``) first, so the episode's tools
never meet a record they do not understand, and it is stored exactly as given:
the episode's ``seed_digest`` is the digest of the state sent.

A task on a custom state (or a snapshot) is set up on that state the way it
is set up on a seeded one: its instruction, checks and reference solution are
computed from what the state holds. A task that cannot find what it is about
(coinpurse's cp-04 needs a pending electric bill) refuses with 400 and says
why; free play (no ``task_id``) runs on any valid state.

Everything here is synchronous and touches only the new state, so the
service runs ``prepare`` and ``validate`` in a worker thread: parsing a 4 MiB state does not
stall other requests.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import errors
from ..verify.score import baseline
from . import seed_probe


@dataclass
class Start:
    """Where an episode starts when it is not a generated seed. Quacks like
    ``seeds.SeedState`` (``store``, ``digest``, ``setups``), so the engine
    starts from either the same way."""

    store: object  # never written, only forked
    digest: str
    kind: str  # "state" or "snapshot"
    snapshot_id: str | None = None
    seed: int = 0  # what the signals' reference replay seeds its randomness with
    setups: dict = field(default_factory=dict)  # task_id -> (Setup, start_passes)


def issues_of(world, state) -> list:
    """The world parser's issues with ``state`` as ``[{path, message}]``."""
    schema = world.state_schema
    if schema is None:
        return [{"path": "$", "message": f"{world.name} does not declare a state schema, so it takes no custom state"}]
    return [i.as_dict() for i in schema.validate(state)]


def invalid_state(world, issues: list) -> errors.InvalidRequest:
    first = issues[0]
    more = f" (and {len(issues) - 1} more issue{'s' if len(issues) > 2 else ''})" if len(issues) > 1 else ""
    return errors.InvalidRequest(
        f"the state is not a valid {world.name} state: {first['path']}: {first['message']}{more}; "
        f"see issues, or check a state with POST /api/v1/environments/{world.name}/seeds/validate",
        issues=issues,
    )


def resolve(world, req, task, snapshots, project: str | None = None) -> Start | None:
    """Where a create request starts: its ``state``, its snapshot (one of
    ``snapshots``, and of ``project``'s when given), or ``None`` for the
    world's seeded state."""
    state, snapshot_id = getattr(req, "state", None), getattr(req, "snapshot_id", None)
    if state is not None and snapshot_id is not None:
        raise errors.InvalidRequest("give either state or snapshot_id, not both: each replaces the seeded state")
    if state is not None:
        return prepare(world, state, task, req.seed)
    if snapshot_id is None:
        return None
    snap = snapshots.get(snapshot_id, project)
    if snap.world is not world:
        raise errors.InvalidRequest(
            f"snapshot {snapshot_id} holds a {snap.world.name} state; start it under "
            f"/api/v1/environments/{snap.world.name}/episodes"
        )
    if task is not None:
        set_up(world, task, snap.start)
    return snap.start


def prepare(world, state, task=None, seed: int = 0) -> Start:
    """Validate ``state``, build its store and set ``task`` up on it.
    Raises ``InvalidRequest`` (with ``issues``) when either fails."""
    issues = issues_of(world, state)
    if issues:
        raise invalid_state(world, issues)
    store = world.state_store(state, seed)
    start = Start(store=store, digest=store.digest(), kind="state", seed=seed)
    if task is not None:
        set_up(world, task, start)
    return start


def set_up(world, task, start) -> tuple:
    """``task`` made concrete for ``start`` (cached on it), or 400 saying why it cannot be."""
    got = start.setups.get(task.id)
    if got is None:
        try:
            # A fork: a careless setup must not write into the shared start.
            setup = task.setup(start.store.fork())
            got = (setup, baseline(setup.checks, start.store))
        except Exception as e:  # a task's setup reads whatever the state holds
            found = seed_probe.issues(task, start.store.fork(), e)
            raise errors.InvalidRequest(
                f"task {task.id} cannot be set up on this {start_name(start)}: {found[0]['path']}: "
                f"{found[0]['message']}. Start without task_id (free play), or give a state that has it",
                issues=found,
            ) from None
        start.setups[task.id] = got
    return got


def validate(world, state, task_id: str | None = None, seed: int = 0) -> dict:
    """What ``/seeds/validate`` answers (reference 003): ``{valid: true,
    checked, unchecked, issues: [], digest}`` (``digest``: what the episode
    would start with), or 422 ``invalid_seed`` with ``issues: [{path,
    message}]`` and ``issue_count``. ``checked`` names the worlds whose own
    parser ran on the state (a composite's: the parts the envelope gives;
    the others start from ``seed``); ``unchecked`` is always empty here: a
    world without a parser takes no custom state at all, which is an issue.
    With ``task_id``, also whether that task can be set up on it. A
    composite's answer adds ``worlds``: each world's own verdict, and
    whether it starts from the envelope (``"state"``) or from ``seed``."""
    issues = issues_of(world, state)
    per_world = _per_world(world, state, issues, seed)
    start = None
    if not issues:
        start = prepare(world, state, seed=seed)
        if per_world:
            for name, digest in start.store.digests().items():
                if per_world["worlds"][name]["valid"]:
                    per_world["worlds"][name]["digest"] = digest
        if task_id is not None:
            task = world.tasks_by_id.get(task_id)
            if task is None:
                issues = [{"path": "$.task_id", "message": f"no task {task_id!r} in {world.name}"}]
            else:
                try:
                    set_up(world, task, start)
                except errors.InvalidRequest as e:
                    issues = e.extra["issues"]
    if issues:
        first = issues[0]
        raise errors.InvalidSeed(
            f"the state would not start a {world.name} episode: {first['path']}: {first['message']}"
            + (f" (and {len(issues) - 1} more)" if len(issues) > 1 else ""),
            environment=world.name, issue_count=len(issues), issues=issues, checked=[], unchecked=[], **per_world)
    checked = [n for n, w in per_world["worlds"].items() if w["source"] == "state"] if per_world else [world.name]
    return {"valid": True, "checked": checked, "unchecked": [], "issues": [], "digest": start.digest, **per_world}


def _per_world(world, state, issues: list, seed: int) -> dict:
    """A composite's verdict per world (empty for one world)."""
    parts = getattr(world, "parts", None)
    if not parts:
        return {}
    given = state if isinstance(state, dict) else {}
    out = {}
    for name in parts:
        mine = [i for i in issues if i["path"] == f"$.{name}" or i["path"].startswith((f"$.{name}.", f"$.{name}["))]
        out[name] = {"source": "state" if name in given else "seed", "valid": not mine, "issues": mine}
        if name not in given:
            out[name]["seed"] = seed
    return {"worlds": out}


def start_name(start) -> str:
    return f"snapshot {start.snapshot_id}" if start.kind == "snapshot" else "state"
