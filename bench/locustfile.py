"""Mixed load on one server with locust: agents and batch steppers at once.

Two kinds of users (``FastHttpUser``):

- ``AgentLoop`` plays an agent: starts a coinpurse episode (a random task and
  seed), reads its balance and requests, declines a pending request, sends a
  small payment to a contact, makes a few more reads and submits. Each call
  is one HTTP request, as an agent harness makes them.
- ``BatchStepper`` plays a trainer: starts ``--sw-batch-episodes`` episodes
  through ``POST /batch/episodes``, then steps all of them at once with one
  ``POST /batch`` after another (40 % get_balance, 30 % list_requests, 30 %
  writes), and submits them through ``POST /batch/submit`` before the step
  limit, to start a new group.

Run it headless against a server on 127.0.0.1, e.g.::

    sandworld serve --port 8787 &
    locust -f bench/locustfile.py --headless -u 12 -r 12 -t 60s \\
        --host http://127.0.0.1:8787 --csv /tmp/sw-locust --only-summary

Locust's client is one gevent process: it measures the server under a
realistic mix and shows its latencies, not the server's ceiling (that is
``bench_batch.py``). Steps per second through ``/batch`` are the batch
request rate times ``--sw-batch-size``.
"""

from __future__ import annotations

import json
import random

from locust import FastHttpUser, constant, events, task

API = "/api/v1"
JSON = {"content-type": "application/json"}


@events.init_command_line_parser.add_listener
def _options(parser):
    parser.add_argument("--sw-batch-episodes", type=int, default=1000, help="episodes a BatchStepper steps at once")
    parser.add_argument("--sw-batch-size", type=int, default=1000, help="calls per /batch")
    parser.add_argument("--sw-seeds", type=int, default=1000, help="seeds the episodes spread over")


def _tasks(client) -> list:
    with client.get(f"{API}/environments/coinpurse", name="environment", catch_response=True) as r:
        if r.status_code != 200:
            r.failure(f"HTTP {r.status_code}")
            return ["cp-01"]
        return [t["id"] for t in r.json()["tasks"]]


class AgentLoop(FastHttpUser):
    """One agent: create -> steps -> submit, one request per call."""

    weight = 5
    wait_time = constant(0)

    def on_start(self):
        self.tasks_ids = _tasks(self.client)
        self.rng = random.Random()

    def step(self, eid: str, tool: str, arguments: dict) -> dict:
        body = json.dumps({"tool": tool, "arguments": arguments})
        with self.client.post(f"{API}/episodes/{eid}/step", data=body, headers=JSON,
                              name=f"step {tool}", catch_response=True) as r:
            if r.status_code != 200:
                r.failure(f"HTTP {r.status_code}: {r.text[:200]}")
                return {}
            return r.json()

    @task
    def episode(self):
        opts = self.environment.parsed_options
        body = json.dumps({"task_id": self.rng.choice(self.tasks_ids), "seed": self.rng.randrange(opts.sw_seeds),
                           "agent_name": "locust"})
        with self.client.post(f"{API}/environments/coinpurse/episodes", data=body, headers=JSON,
                              name="create", catch_response=True) as r:
            if r.status_code != 201:
                r.failure(f"HTTP {r.status_code}: {r.text[:200]}")
                return
            eid = r.json()["episode_id"]
        self.step(eid, "get_balance", {})
        reqs = self.step(eid, "list_requests", {"status": "pending"}).get("result", {}).get("requests", [])
        if reqs:
            self.step(eid, "decline_request", {"request_id": self.rng.choice(reqs)["id"]})
        contacts = self.step(eid, "list_contacts", {}).get("result", {}).get("contacts", [])
        friends = [c for c in contacts if not c["blocked"]]
        if friends:
            self.step(eid, "send_money", {"contact_id": self.rng.choice(friends)["id"], "amount": 250,
                                          "note": "coffee"})
        self.step(eid, "list_transactions", {"limit": 5})
        self.step(eid, "get_balance", {})
        with self.client.post(f"{API}/episodes/{eid}/submit", data=b'{"output": "done"}', headers=JSON,
                              name="submit", catch_response=True) as r:
            if r.status_code != 200:
                r.failure(f"HTTP {r.status_code}: {r.text[:200]}")


class BatchStepper(FastHttpUser):
    """One trainer: a group of episodes stepped together through /batch."""

    weight = 1
    wait_time = constant(0)

    def on_start(self):
        self.tasks_ids = _tasks(self.client)
        self.rng = random.Random()
        self.ids: list = []
        self.batches_left = 0

    def new_group(self):
        opts = self.environment.parsed_options
        if self.ids:
            body = json.dumps({"episodes": [{"episode_id": e} for e in self.ids]})
            self.client.post(f"{API}/batch/submit", data=body, headers=JSON, name="batch submit")
        items = [{"environment": "coinpurse", "task_id": self.rng.choice(self.tasks_ids),
                  "seed": self.rng.randrange(opts.sw_seeds)} for _ in range(opts.sw_batch_episodes)]
        with self.client.post(f"{API}/batch/episodes", data=json.dumps({"episodes": items}), headers=JSON,
                              name="batch create", catch_response=True) as r:
            if r.status_code != 200:
                r.failure(f"HTTP {r.status_code}: {r.text[:200]}")
                self.ids = []
                return
            self.ids = [slot["episode_id"] for slot in r.json()["results"] if "episode_id" in slot]
        # Every episode gets about batch_size / episodes calls per batch; stay under the 200-step limit.
        per_batch = max(1, -(-opts.sw_batch_size // max(1, len(self.ids))))
        self.batches_left = 180 // per_batch
        # A few bodies, encoded once per group and used in turn: the client stays light.
        n = opts.sw_batch_size
        self.bodies = [json.dumps({"calls": [self.call(self.ids[(k * n + i) % len(self.ids)]) for i in range(n)]})
                       for k in range(8)] if self.ids else []

    def call(self, eid: str) -> dict:
        r = self.rng.random()
        if r < 0.4:
            return {"episode_id": eid, "tool": "get_balance", "arguments": {}}
        if r < 0.7:
            return {"episode_id": eid, "tool": "list_requests", "arguments": {}}
        if r < 0.8:
            return {"episode_id": eid, "tool": "send_money",
                    "arguments": {"contact_id": "c-001", "amount": 150, "note": "bench"}}
        if r < 0.9:
            return {"episode_id": eid, "tool": "request_money",
                    "arguments": {"contact_id": "c-002", "amount": 900, "note": "bench"}}
        return {"episode_id": eid, "tool": "decline_request",
                "arguments": {"request_id": f"rq-{self.rng.randint(1, 17):02d}"}}

    @task
    def batch(self):
        if self.batches_left <= 0 or not self.ids:
            self.new_group()
            if not self.ids:
                return
        n = self.environment.parsed_options.sw_batch_size
        self.batches_left -= 1
        with self.client.post(f"{API}/batch", data=self.bodies[self.batches_left % len(self.bodies)], headers=JSON,
                              name=f"batch {n} calls", catch_response=True) as r:
            if r.status_code != 200:
                r.failure(f"HTTP {r.status_code}: {r.text[:200]}")
