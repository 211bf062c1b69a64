"""Throughput of one server process over HTTP, measured in one run.

Starts a real server (``python -m sw_runtime serve`` on a free port of
127.0.0.1, one process; ``--core pure`` for the pure-Python state core) and
drives it from this process, which is the load generator: a separate process
from the server, request bodies pre-encoded with orjson before the clock
starts, raw HTTP/1.1 on keep-alive connections, answers not decoded while
timed (a sample is decoded afterwards to count refusals and slot errors).
The client's and the server's CPU use are measured beside each figure, so a
client that became the bottleneck shows.

(a) ``/batch`` steps/s on coinpurse: >= 1,000 live episodes over many seeds
    and all tasks, 1,000 calls per batch, 40 % get_balance, 30 % list_requests,
    30 % writes (send_money and request_money of small amounts, decline_request
    and pay_request of the seed's pending requests: most succeed, some are
    refused), ``--inflight`` batches in flight. Digest and trace are always on.
(b) the same with ``"signals": true`` at create; n/a when the server refuses
    the flag or ignores it (step answers without anything more).
(c) single ``/episodes/{id}/step`` steps/s over 32 concurrent connections.
(d) the floor: as many calls as (a) made, through the dummy world's ``noop``.
    Then the ratios (a)/(d), (a)/(c) and (b)/(a).
(e) GRPO-shaped ``/batch``: the mix of (a) on groups of ``--group-size``
    episodes per (task, seed) whose first ``--shared-calls`` calls are the
    same, as the samples of one prompt are; measured in the rounds of (a).
    The read cache's hit rate (from ``/healthz``) is given for (a) and (e).
Also: episodes created per second through ``POST /batch/episodes`` on cached
seeds (groups of 64 on one task and seed), p50/p99 latency of a 1,000-call
``/batch`` under the steady load of (a), and episodes submitted per second
through ``POST /batch/submit`` (episodes of (a), ~90 steps each).

Episodes are used in generations: each gets at most ``--steps-per-episode``
calls (under the 200-step limit); when a generation is used up, the clock
stops while the next one is created and encoded.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

API = "/api/v1"
WRITES = ("send_money", "request_money", "decline_request", "pay_request")


# -- the workload ------------------------------------------------------------------


class SeedFacts:
    """What the client needs to aim writes at a seed's start state."""

    __slots__ = ("contacts", "open_contacts", "pending")

    def __init__(self, seed: int):
        from sw_runtime.worlds.coinpurse.state import generate

        state = generate(seed)
        self.contacts = sorted(state["contacts"])
        self.open_contacts = sorted(k for k, c in state["contacts"].items() if not c["blocked"])
        self.pending = sorted(k for k, r in state["requests"].items() if r["status"] == "pending") or ["rq-01"]


def coinpurse_call(rng: random.Random, eid: str, facts: SeedFacts) -> dict:
    """One call of the (a) mix: 40 % get_balance, 30 % list_requests, 30 % writes."""
    r = rng.random()
    if r < 0.40:
        return {"episode_id": eid, "tool": "get_balance", "arguments": {}}
    if r < 0.70:
        return {"episode_id": eid, "tool": "list_requests", "arguments": {}}
    if r < 0.80:  # small amounts: refused only once the daily limit is reached
        args = {"contact_id": rng.choice(facts.open_contacts), "amount": rng.randrange(100, 600), "note": "bench"}
        return {"episode_id": eid, "tool": "send_money", "arguments": args}
    if r < 0.88:  # any contact: refused when it is a blocked one
        args = {"contact_id": rng.choice(facts.contacts), "amount": rng.randrange(100, 5000), "note": "bench"}
        return {"episode_id": eid, "tool": "request_money", "arguments": args}
    if r < 0.96:  # a pending request: the first decline succeeds, the next not_pending
        return {"episode_id": eid, "tool": "decline_request", "arguments": {"request_id": rng.choice(facts.pending)}}
    return {"episode_id": eid, "tool": "pay_request", "arguments": {"request_id": rng.choice(facts.pending)}}


def noop_call(rng: random.Random, eid: str, facts) -> dict:
    return {"episode_id": eid, "tool": "noop", "arguments": {}}


class Workload:
    """Creates generations of episodes on the server and pre-encodes their calls."""

    def __init__(self, conn: C.Conn, args, rng: random.Random):
        self.conn, self.args, self.rng = conn, args, rng
        self.seeds = list(range(1000, 1000 + args.seeds))
        self.facts: dict = {}
        self.tasks: dict = {}
        self.episodes: dict = {}  # world -> every episode id created for the timed phases
        self.groups_made = 0  # GRPO groups created so far (each on the next (task, seed))

    async def world_tasks(self, world: str) -> list:
        if world not in self.tasks:
            env = await self.conn.json(C.get(f"{API}/environments/{world}"))
            self.tasks[world] = [t["id"] for t in env["tasks"]]
        return self.tasks[world]

    def seed_facts(self, seed: int) -> SeedFacts:
        got = self.facts.get(seed)
        if got is None:
            got = self.facts[seed] = SeedFacts(seed)
        return got

    async def create(self, items: list, chunk: int = 1024) -> list:
        """Create episodes through the batch create; any slot error is fatal here."""
        out = []
        for i in range(0, len(items), chunk):
            res = await self.conn.json(C.post(f"{API}/batch/episodes", orjson.dumps({"episodes": items[i:i + chunk]})))
            for slot in res["results"]:
                if "episode_id" not in slot:
                    raise RuntimeError(f"batch create failed an item: {slot}")
            out += res["results"]
        return out

    async def episodes_for(self, world: str, n: int, signals: bool = False, group: int = 1) -> list:
        """``n`` new episodes; with ``group``, that many in a row share a (task, seed)."""
        tasks = await self.world_tasks(world)
        items = []
        for i in range(n):
            g = i // group + self.groups_made
            item = {"environment": world, "task_id": tasks[g % len(tasks)], "seed": self.seeds[g % len(self.seeds)]}
            if signals:
                item["signals"] = True
            items.append(item)
        if group > 1:  # the next generation's groups start where these end
            self.groups_made += -(-n // group)
        eps = [(ep["episode_id"], ep["seed"]) for ep in await self.create(items)]
        self.episodes.setdefault(world, []).extend(e for e, _ in eps)
        return eps

    def calls(self, world: str, eps: list, per_episode: int) -> list:
        """Pre-encoded calls, round-robin over the episodes so each gets ``per_episode``."""
        make = coinpurse_call if world == "coinpurse" else noop_call
        rng, out = self.rng, []
        for _ in range(per_episode):
            for eid, seed in eps:
                facts = self.seed_facts(seed) if world == "coinpurse" else None
                out.append(orjson.dumps(make(rng, eid, facts)))
        return out

    async def batch_generation(self, world: str, signals: bool = False) -> list:
        """Raw ``/batch`` requests of ``--batch-size`` calls over a new generation."""
        a = self.args
        eps = await self.episodes_for(world, a.episodes, signals)
        frags = self.calls(world, eps, a.steps_per_episode)
        b = a.batch_size
        return [
            C.post(f"{API}/batch", b'{"calls":[' + b",".join(frags[i:i + b]) + b"]}")
            for i in range(0, len(frags) - b + 1, b)
        ]

    async def grpo_generation(self) -> list:
        """(e): ``/batch`` requests over a generation of GRPO groups: ``--group-size``
        episodes per (task, seed) whose first ``--shared-calls`` calls are the
        same (the group's samples agree at first), then drawn per episode."""
        a = self.args
        size = a.group_size
        eps = await self.episodes_for("coinpurse", a.episodes - a.episodes % size or size, group=size)
        groups = [eps[i:i + size] for i in range(0, len(eps), size)]
        rng, frags = self.rng, []
        for step in range(a.steps_per_episode):
            for members in groups:
                facts = self.seed_facts(members[0][1])
                shared = coinpurse_call(rng, "", facts) if step < a.shared_calls else None
                for eid, _seed in members:
                    call = dict(shared, episode_id=eid) if shared else coinpurse_call(rng, eid, facts)
                    frags.append(orjson.dumps(call))
        b = a.batch_size
        return [
            C.post(f"{API}/batch", b'{"calls":[' + b",".join(frags[i:i + b]) + b"]}")
            for i in range(0, len(frags) - b + 1, b)
        ]

    async def step_generation(self, world: str, per_episode: int) -> list:
        """Raw single-step requests over a new generation."""
        eps = await self.episodes_for(world, self.args.episodes)
        out = []
        for frag in self.calls(world, eps, per_episode):
            call = orjson.loads(frag)
            body = orjson.dumps({"tool": call["tool"], "arguments": call["arguments"]})
            out.append(C.post(f"{API}/episodes/{call['episode_id']}/step", body))
        return out


# -- driving the server ------------------------------------------------------------


class Meter:
    """Wall time, client CPU and server CPU over the timed segments only."""

    def __init__(self, pid: int):
        self.pid, self.wall, self.client, self.server, self.busy = pid, 0.0, 0.0, 0.0, 0.0

    def start(self):
        self._t, self._c = time.perf_counter(), time.process_time()
        self._s, self._b = C.cpu_seconds(self.pid), C.machine_busy_seconds()

    def stop(self):
        self.wall += time.perf_counter() - self._t
        self.client += time.process_time() - self._c
        self.server += C.cpu_seconds(self.pid) - self._s
        self.busy += C.machine_busy_seconds() - self._b

    def others(self) -> float:
        """CPUs' worth of work by other processes of the machine meanwhile (noise)."""
        return max(0.0, self.busy - self.server - self.client) / self.wall if self.wall else 0.0

    def per_cpu(self, count: float) -> float | None:
        """``count`` per second of server CPU: the rate with a whole core, less sensitive to a busy machine."""
        return count / self.server if self.server > 0 else None

    def note(self, count: float | None = None, unit: str = "steps") -> str:
        if not self.wall:
            return ""
        rate = self.per_cpu(count) if count else None
        per = f"{rate:,.0f} {unit} per server CPU-second; " if rate else ""
        return (f"{per}server CPU {self.server / self.wall:.0%}, client CPU {self.client / self.wall:.0%}, "
                f"other processes {self.others():.2f} CPU")


async def drive(conns: list, next_generation, meter: Meter, *, seconds=None, limit=None, keep_every=0):
    """Send pre-encoded requests over ``conns`` (each keeps one in flight) until
    ``seconds`` of timed work or ``limit`` requests; answers ``(done, latencies, kept)``."""
    done, lat, kept = 0, [], []
    while True:
        requests = await next_generation()  # the clock is stopped while a generation is made
        if limit is not None:
            requests = requests[: limit - done]
        it = iter(requests)
        meter.start()
        deadline = time.perf_counter() + (seconds - meter.wall) if seconds is not None else math.inf

        async def worker(conn):
            nonlocal done
            perf = time.perf_counter
            for raw in it:
                t = perf()
                if t > deadline:
                    break
                status, body = await conn.request(raw)
                lat.append(perf() - t)
                if status != 200:
                    raise RuntimeError(f"HTTP {status}: {body[:300]!r}")
                done += 1
                if keep_every and done % keep_every == 0:
                    kept.append(body)

        await asyncio.gather(*(worker(c) for c in conns))
        meter.stop()
        if seconds is not None and meter.wall >= seconds:
            break
        if limit is not None and done >= limit:
            break
        if not requests:
            raise RuntimeError("a generation made no requests: raise --episodes or --steps-per-episode")
    return done, lat, kept


def tally(kept: list) -> dict:
    """Outcomes in the decoded sample of ``/batch`` answers."""
    ok, refused, slot = Counter(), Counter(), Counter()
    for body in kept:
        for r in orjson.loads(body)["results"]:
            if "step" not in r:
                slot[r["error"]["code"]] += 1
            elif r["ok"]:
                ok[r["tool"]] += 1
            else:
                refused[(r["tool"], r["error"]["code"])] += 1
    return {"ok": ok, "refused": refused, "slot": slot}


def percentile(values: list, q: float) -> float | None:
    if not values:
        return None
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


async def probe_signals(w: Workload) -> str | None:
    """None when signals work; else why (b) is n/a."""
    tasks = await w.world_tasks("coinpurse")
    items = [{"environment": "coinpurse", "task_id": tasks[0], "seed": w.seeds[0], "signals": flag}
             for flag in (False, True)]
    res = (await w.conn.json(C.post(f"{API}/batch/episodes", orjson.dumps({"episodes": items}))))["results"]
    if "episode_id" not in res[1]:
        return f"refused ({res[1]['error']['code']})"
    calls = [{"episode_id": r["episode_id"], "tool": "get_balance", "arguments": {}} for r in res]
    plain, signalled = (await w.conn.json(C.post(f"{API}/batch", orjson.dumps({"calls": calls}))))["results"]
    if set(signalled) == set(plain):
        return "ignored (step answers carry nothing more)"
    return None


class Profiler:
    """py-spy recording the server during (a), when ``--profile`` is given."""

    def __init__(self, path: str | None, pid: int, native: bool):
        self.path, self.proc = path, None
        if path:
            exe = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
            if not Path(exe).exists():
                raise SystemExit("--profile needs py-spy: pip install py-spy")
            cmd = [exe, "record", "--pid", str(pid), "--format", "raw", "--output", path, "--rate", "200",
                   "--nolineno"] + (["--native"] if native else [])
            self.log = tempfile.TemporaryFile()
            self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=self.log)
            time.sleep(1.0)  # let it attach

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.seek(0)
        why = self.log.read().decode(errors="replace")[-2000:]
        self.log.close()
        if not Path(self.path).is_file():
            raise RuntimeError(f"py-spy wrote no profile (root or ptrace rights are needed):\n{why}")


def top_functions(path: str, n: int = 15) -> list:
    """(function, self share, total share) from py-spy's raw (collapsed) stacks, most self time first."""
    self_t, total_t, samples = Counter(), Counter(), 0
    with open(path) as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack:
                continue
            k = int(count)
            frames = stack.split(";")
            samples += k
            self_t[frames[-1]] += k
            for fr in set(frames):
                total_t[fr] += k
    return [(fn, c / samples, total_t[fn] / samples) for fn, c in self_t.most_common(n)]


async def run(args, progress) -> dict:
    rng = random.Random(args.rng_seed)
    rows, extra = [], {}
    env = {"SW_READ_CACHE": str(args.read_cache)} if args.read_cache is not None else None
    server_args = ("--durability", args.durability) if args.durability else ()
    if args.api_key:
        # Keys on: a fresh data folder with one key, sent on every request.
        from sw_runtime.security.keys import KeyStore

        data_dir = tempfile.mkdtemp(prefix="sw-bench-keys-")
        C.HEADERS = f"authorization: Bearer {KeyStore(data_dir).create('bench', 'episodes:read,episodes:write')[0]}\r\n"
        server_args += ("--auth", "keys", "--data-dir", data_dir)
    with C.server(args.core, env=env, args=server_args) as (host, port, pid):
        progress("server up")
        setup = await C.Conn.open(host, port)
        w = Workload(setup, args, rng)
        conns = [await C.Conn.open(host, port) for _ in range(args.inflight)]

        # Warm the seed cache and the code paths, untimed.
        for s in w.seeds:
            w.seed_facts(s)
        await w.episodes_for("coinpurse", min(args.episodes, len(w.seeds) * 2))
        progress("warm-up")

        # Batch create on cached seeds: groups of --group-size on one (task, seed).
        tasks = await w.world_tasks("coinpurse")
        groups = [(tasks[i % len(tasks)], w.seeds[i % len(w.seeds)]) for i in range(args.groups)]
        await w.create([{"environment": "coinpurse", "task_id": t, "seed": s} for t, s in groups])  # warm setups
        item_bytes = [orjson.dumps({"environment": "coinpurse", "task_id": t, "seed": s}) for t, s in groups]
        body = b'{"episodes":[' + b",".join(b for b in item_bytes for _ in range(args.group_size)) + b"]}"
        create_req = C.post(f"{API}/batch/episodes", body)
        per_request = args.groups * args.group_size
        meter_create = Meter(pid)
        created, create_lat, create_kept = await drive(
            [setup], _fixed(create_req, args.create_requests), meter_create, limit=args.create_requests, keep_every=1
        )
        first = orjson.loads(create_kept[0])["results"]
        bad = [r for r in first if "episode_id" not in r]
        if bad:
            raise RuntimeError(f"batch create failed items: {bad[:3]}")
        digests = {r["seed_digest"] for r in first[: args.group_size]}
        create_rate = created * per_request / meter_create.wall
        progress("batch create")

        # (a) coinpurse /batch, and (b) the same with signals on, in alternating
        # rounds: live episodes accumulate over the run (nothing is evicted),
        # and a phase measured later would pay for a larger heap. Alternating
        # gives (a) and (b) the same conditions, so (b)/(a) is fair.
        why_not = await probe_signals(w)
        rounds = 1 if args.profile else max(1, args.rounds)
        meter_a, meter_b, meter_e = Meter(pid), Meter(pid), Meter(pid)
        n_a = n_b = n_e = 0
        cache_a, cache_e = [0, 0], [0, 0]  # read-cache hits and misses during (a) and (e)
        lat_a, kept_a = [], []
        a_episodes = []
        profiler = Profiler(args.profile if args.profile_phase == "a" else None, pid, args.native)
        try:
            for r in range(1, rounds + 1):
                mark = len(w.episodes["coinpurse"])
                before = await cache_counts(setup)
                n, lat, kept = await drive(conns, lambda: w.batch_generation("coinpurse"), meter_a,
                                           seconds=args.seconds * r / rounds, keep_every=10)
                add_counts(cache_a, before, await cache_counts(setup))
                n_a, lat_a, kept_a = n_a + n, lat_a + lat, kept_a + kept
                a_episodes += w.episodes["coinpurse"][mark:]
                if args.grpo:
                    before = await cache_counts(setup)
                    n, _, _ = await drive(conns, w.grpo_generation, meter_e, seconds=args.seconds * r / rounds)
                    add_counts(cache_e, before, await cache_counts(setup))
                    n_e += n
                if why_not is None:
                    n, _, _ = await drive(conns, lambda: w.batch_generation("coinpurse", signals=True), meter_b,
                                          seconds=args.seconds * r / rounds)
                    n_b += n
        finally:
            profiler.stop()
        steps_a = n_a * args.batch_size / meter_a.wall
        steps_e = n_e * args.batch_size / meter_e.wall if n_e else None
        t_a = tally(kept_a)
        progress("(a) coinpurse /batch and (b) with signals")

        steps_b, cpu_b, note_b = None, None, why_not or ""
        if why_not is None:
            steps_b = n_b * args.batch_size / meter_b.wall
            cpu_b = meter_b.per_cpu(n_b * args.batch_size)
            note_b = meter_b.note(n_b * args.batch_size) + f"; measured in {rounds} rounds alternating with (a)"

        # (d) the floor: as many calls through dummy's noop
        meter_d = Meter(pid)
        profiler = Profiler(args.profile if args.profile_phase == "d" else None, pid, args.native)
        try:
            n_d, _, kept_d = await drive(conns, lambda: w.batch_generation("dummy"), meter_d, limit=n_a, keep_every=10)
        finally:
            profiler.stop()
        steps_d = n_d * args.batch_size / meter_d.wall
        t_d = tally(kept_d)
        progress("(d) noop floor")

        # (c) single /step over --connections connections
        step_conns = [await C.Conn.open(host, port) for _ in range(args.connections)]
        per_episode_c = max(1, min(args.steps_per_episode, 20))
        meter_c = Meter(pid)
        profiler = Profiler(args.profile if args.profile_phase == "c" else None, pid, args.native)
        try:
            n_c, lat_c, _ = await drive(step_conns, lambda: w.step_generation("coinpurse", per_episode_c), meter_c,
                                        seconds=args.seconds)
        finally:
            profiler.stop()
        steps_c = n_c / meter_c.wall
        client_us = meter_c.client / max(1, n_c) * 1e6
        for c in step_conns:
            c.close()
        progress("(c) single /step")

        # Batch submit of the episodes (a) stepped.
        todo = a_episodes[: args.submit_max]
        submit_reqs = [
            C.post(f"{API}/batch/submit", orjson.dumps({"episodes": [{"episode_id": e} for e in todo[i:i + 1024]]}))
            for i in range(0, len(todo), 1024)
        ]
        meter_s = Meter(pid)
        n_s, _, kept_s = await drive([setup], _fixed_list(submit_reqs), meter_s, limit=len(submit_reqs), keep_every=1)
        scored = [r for body in kept_s for r in orjson.loads(body)["results"] if "pass" in r]
        submitted = len(scored)
        mean_steps = sum(r["steps"] for r in scored) / max(1, submitted)
        submit_rate = submitted / meter_s.wall if meter_s.wall else None
        health = await setup.json(C.get("/healthz"))
        server_rss = C.rss_bytes(pid)
        progress("batch submit")
        for c in conns:
            c.close()
        setup.close()

    writes_ok = sum(n for tool, n in t_a["ok"].items() if tool in WRITES)
    writes_refused = sum(n for (tool, _code), n in t_a["refused"].items() if tool in WRITES)
    codes = Counter()
    for (_tool, code), n in t_a["refused"].items():
        codes[code] += n
    sampled = sum(t_a["ok"].values()) + sum(t_a["refused"].values())
    slot_errors = sum(t_a["slot"].values()) + sum(t_d["slot"].values())
    if slot_errors:
        raise RuntimeError(f"slot errors in the sample: {t_a['slot'] + t_d['slot']}")
    by_tool = Counter(t_a["ok"])
    for (tool, _code), n in t_a["refused"].items():
        by_tool[tool] += n
    share = {tool: n / sampled for tool, n in by_tool.items()}
    mix = ", ".join(f"{t} {share.get(t, 0):.0%}" for t in ("get_balance", "list_requests", *WRITES))
    refused_share = writes_refused / max(1, writes_ok + writes_refused)
    top_codes = ", ".join(f"{c} {n}" for c, n in codes.most_common(4))

    p50, p99 = percentile(lat_a, 0.50), percentile(lat_a, 0.99)
    ratio = lambda x, y: (x / y) if (x is not None and y) else None  # noqa: E731
    r_ad, r_ac, r_ba = ratio(steps_a, steps_d), ratio(steps_a, steps_c), ratio(steps_b, steps_a)
    ge = lambda v, t: None if v is None else v >= t  # noqa: E731
    calls_a, calls_d = n_a * args.batch_size, n_d * args.batch_size
    cpu_a, cpu_c, cpu_d = meter_a.per_cpu(calls_a), meter_c.per_cpu(n_c), meter_d.per_cpu(calls_d)

    def per_cpu_ratio(x, y):
        return f"per server CPU-second: {x / y:.3g}" if x and y else ""

    rows += [
        C.row("(a) coinpurse /batch", steps_a, "steps/s", ">= 200,000", ge(steps_a, 200_000),
              f"{calls_a:,} calls in {meter_a.wall:.1f} s; {args.inflight} batches in flight; {meter_a.note(calls_a)}; "
              f"{hit_note(cache_a)}"),
        C.row("(e) GRPO groups /batch", steps_e, "steps/s", "", None,
              f"groups of {args.group_size} episodes on one (task, seed), the first {args.shared_calls} calls the "
              f"same in a group, then drawn per episode; {meter_e.note(n_e * args.batch_size)}; {hit_note(cache_e)}"
              if n_e else "--no-grpo"),
        C.row("(b) (a) with signals", steps_b, "steps/s", "", None, note_b),
        C.row("(c) single /step", steps_c, "steps/s", "", None,
              f"{args.connections} connections; {meter_c.note(n_c)}; client {client_us:.0f} µs CPU per request"),
        C.row("(d) dummy noop /batch (floor)", steps_d, "steps/s", "", None,
              f"{calls_d:,} calls; {meter_d.note(calls_d)}"),
        C.row("(a)/(d)", r_ad, "", ">= 0.5", ge(r_ad, 0.5), per_cpu_ratio(cpu_a, cpu_d)),
        C.row("(a)/(c)", r_ac, "", ">= 20", ge(r_ac, 20), per_cpu_ratio(cpu_a, cpu_c)),
        C.row("(b)/(a)", r_ba, "", ">= 0.5", ge(r_ba, 0.5),
              per_cpu_ratio(cpu_b, cpu_a) if r_ba is not None else note_b),
        C.row("batch create, cached seeds", create_rate, "episodes/s", ">= 50,000", ge(create_rate, 50_000),
              f"{args.create_requests} requests of {args.groups} groups x {args.group_size}; "
              f"{percentile(create_lat, 0.5) * 1e3:.0f} ms per request; group shares one seed_digest: "
              f"{len(digests) == 1}; {meter_create.note(created * per_request, 'episodes')}"),
        C.row("/batch latency p50", p50 * 1e3 if p50 is not None else None, "ms", "", None,
              f"{args.batch_size} calls, during (a), {len(lat_a)} batches"),
        C.row("/batch latency p99", p99 * 1e3 if p99 is not None else None, "ms", "<= 20",
              None if p99 is None else p99 * 1e3 <= 20),
        C.row("batch submit", submit_rate, "episodes/s", "", None,
              f"{submitted:,} episodes of (a), {mean_steps:.0f} steps each on average, 1,024 per request; "
              f"{meter_s.note(submitted, 'episodes')}"),
    ]
    if args.profile:
        extra["profile"] = [{"function": fn, "self": round(a, 4), "total": round(b, 4)}
                            for fn, a, b in top_functions(args.profile, 15)]
        profiled = next(r for r in rows if r["measure"].startswith(f"({args.profile_phase})"))
        profiled["note"] += f"; profiled with py-spy ({args.profile})"
    extra["workload"] = {
        "mix_sampled": mix,
        "writes_refused": f"{refused_share:.0%} of writes refused ({top_codes})",
        "server_rss_mib": round(server_rss / 2**20),
        "live_episodes_at_end": health["episodes"],
        "core": args.core,
    }
    return extra | {"rows": rows}


async def cache_counts(conn) -> tuple:
    """The server's read-cache (hits, misses) so far; zeros when it has none."""
    rc = (await conn.json(C.get("/healthz"))).get("read_cache") or {}
    return rc.get("hits", 0), rc.get("misses", 0)


def add_counts(total: list, before: tuple, after: tuple) -> None:
    total[0] += after[0] - before[0]
    total[1] += after[1] - before[1]


def hit_note(counts: list) -> str:
    looked = counts[0] + counts[1]
    return f"read cache: {counts[0] / looked:.0%} of {looked:,} pure reads hit" if looked else "read cache: no lookups"


def _fixed(raw: bytes, n: int):
    async def gen():
        return [raw] * n

    return gen


def _fixed_list(requests: list):
    async def gen():
        return requests

    return gen


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--core", choices=["cython", "pure"], default="cython", help="the server's state core")
    p.add_argument("--seconds", type=float, default=8.0, help="timed seconds for each of (a), (b) and (c)")
    p.add_argument("--rounds", type=int, default=4,
                   help="(a) and (b) alternate in this many rounds, so both meet the same heap (1 with --profile)")
    p.add_argument("--episodes", type=int, default=2000, help="live episodes per generation (>= 1,000 for (a))")
    p.add_argument("--seeds", type=int, default=500, help="distinct seeds the episodes spread over")
    p.add_argument("--batch-size", type=int, default=1000, help="calls per /batch")
    p.add_argument("--steps-per-episode", type=int, default=180,
                   help="calls per episode in a generation (the server allows 200)")
    p.add_argument("--inflight", type=int, default=2, help="/batch requests in flight (connections) in (a), (b), (d)")
    p.add_argument("--connections", type=int, default=32, help="concurrent connections in (c)")
    p.add_argument("--groups", type=int, default=16, help="(task, seed) groups per batch-create request")
    p.add_argument("--group-size", type=int, default=64, help="episodes per group (a GRPO group)")
    p.add_argument("--create-requests", type=int, default=10, help="timed batch-create requests")
    p.add_argument("--shared-calls", type=int, default=10,
                   help="(e): calls every episode of a GRPO group makes alike before they diverge")
    p.add_argument("--no-grpo", dest="grpo", action="store_false", help="skip (e), the GRPO-shaped phase")
    p.add_argument("--read-cache", type=int, metavar="N",
                   help="the server's SW_READ_CACHE (pure-read answers per generation; 0 turns the cache off)")
    p.add_argument("--submit-max", type=int, default=4096, help="episodes of (a) submitted through batch submit")
    p.add_argument("--api-key", action="store_true",
                   help="serve with --auth keys and send an API key on every request (the cost of keys on)")
    p.add_argument("--durability", choices=["fsync", "write", "none"],
                   help="the server's --durability (its default: write, an action log in a scratch data folder; "
                        "none: no log, to see what the log costs)")
    p.add_argument("--rng-seed", type=int, default=0, help="seed of the workload's random choices")
    p.add_argument("--profile", metavar="FILE",
                   help="record the server with py-spy during (a) into FILE (collapsed stacks) and print the "
                        "top 15 functions; (a) is then measured under the profiler")
    p.add_argument("--profile-phase", choices=("a", "c", "d"), default="a",
                   help="with --profile: the phase recorded: (a) coinpurse (default), (c) single /step or (d) the noop floor")
    p.add_argument("--native", action="store_true", help="with --profile: include C frames (py-spy --native)")
    C.common_args(p)
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    if args.groups * args.group_size > 4096:
        raise SystemExit("--groups x --group-size must be at most 4,096 (the server's items per request)")
    C.use_uvloop()
    progress = C.Progress(args.progress, total=8)
    out = asyncio.run(run(args, progress))
    params = {k: v for k, v in vars(args).items() if k not in ("json", "progress")}
    rep = C.report("bench_batch", params, out.pop("rows"), **out)
    C.emit(rep, args.json)
    if not args.json:
        for k, v in rep["workload"].items():
            print(f"  {k}: {v}")
        for p in rep.get("profile", []):
            print(f"  {p['self']:6.1%} self {p['total']:6.1%} total  {p['function']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
