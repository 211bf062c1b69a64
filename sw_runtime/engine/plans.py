"""What a create request makes of its body before any episode starts.

A ``Plan`` holds everything an episode's start takes from its request: the
world, the task set up on its start state, the checks and which of them pass
at the start, the options, the log's create body. It is made once per
request body (``Engine.plan``, where the request is validated) and each
episode starts from it (``Engine.start_from``). A batch create makes one per
distinct item: a GRPO group is many identical items on one (task, seed), and
validating, looking up and encoding the same item again for each of its
episodes was a sixth of a batch create.

Nothing in a plan is written by the episodes that start from it: they fork
its start state, and share its setup, checks and start passes as they
always shared a cached seed's.
"""

from __future__ import annotations


class Plan:
    __slots__ = ("environment", "world", "req", "task", "setup", "checks", "start_passes", "store",
                 "seed_digest", "clock", "trigger", "sim_model", "reference", "start_kind", "snapshot_id",
                 "logged", "checks_bytes")

    def __init__(self, *, environment, world, req, task, setup, checks, start_passes, store, seed_digest,
                 clock, trigger, sim_model, reference, start_kind, snapshot_id, logged):
        self.environment = environment  # the world's name as the request gave it (the log keeps that)
        self.world = world
        self.req = req  # the decoded schemas.CreateEpisode (or CreateItem)
        self.task = task
        self.setup = setup
        self.checks = checks
        self.start_passes = start_passes
        self.store = store  # the start state: never written, only forked
        self.seed_digest = seed_digest
        self.clock = clock
        self.trigger = trigger  # {"kind", "entity_id"}, copied into each episode
        self.sim_model = sim_model  # the llm user's model, or None for the scripted one
        self.reference = reference  # what the task's reference solution changes (signals), or None
        self.start_kind = start_kind  # "seed", "state" or "snapshot"
        self.snapshot_id = snapshot_id
        self.logged = logged  # the create body as the log writes it (msgspec.Raw), or None without a log
        self.checks_bytes = None  # the size of the request's own checks (the live budget counts them), once known
