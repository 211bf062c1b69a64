"""Shards on a real local Ray: each a full server on its own port, reached
over HTTP and through the Ray-native handle, and brought back by Ray on the
same port after its process is killed."""

from __future__ import annotations

import os
import re
import signal
import socket
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import httpx
import orjson
import pytest

from sandworld import BatchStepper, Retry, SandworldClient, SandworldEnv, errors
from sandworld.routing import shard_of

from sw_runtime.cluster.shard import _listen

from tests.runtime.test_protocol import envelope, raw

from .conftest import answers

pytestmark = pytest.mark.slow

# Rides out a restart on a busy machine: connect_wait lifts the fast give-up on a server this client
# has not reached yet (it meets shard 1 for the first time while shard 1 is down).
PATIENT = Retry(attempts=60, backoff=0.1, max_backoff=2.0, connect_wait=150.0)


def test_every_shard_lists_the_whole_cluster(cluster):
    listings = [httpx.get(f"{u}/cluster").json() for u in cluster.urls]
    expected = [{"shard": i, "url": u} for i, u in enumerate(cluster.urls)]
    assert [[{"shard": s["shard"], "url": s["url"]} for s in x["shards"]] for x in listings] == [expected, expected]
    assert [x["shard"] for x in listings] == [0, 1]
    # each shard's node and state, from the cluster's membership (one node here)
    for shard in listings[0]["shards"]:
        assert shard["state"] == "serving" and shard["node_id"] and shard["node"]["ip"]


def test_a_client_given_one_url_spreads_episodes_and_routes_calls(cluster):
    with SandworldClient(cluster.urls[1]) as client:
        envs = [SandworldEnv(client=client) for _ in range(4)]
        for env in envs:
            env.reset("coinpurse", task_id="cp-01")
            assert env.step("get_balance").step == 1
        assert Counter(shard_of(e.episode_id) for e in envs) == {0: 2, 1: 2}
        assert {shard_of(e.episode_id): e.url for e in envs} == dict(enumerate(cluster.urls))
        # a bare id goes to the shard it names
        assert [client.step(e.episode_id, "get_balance").step for e in envs] == [2, 2, 2, 2]


def test_one_batch_over_both_shards_comes_back_in_call_order(cluster):
    with BatchStepper(base_url=cluster.urls[0]) as stepper:
        envs = stepper.group("coinpurse", 6, task_id="cp-01", seed=2)
        assert Counter(shard_of(e.episode_id) for e in envs) == {0: 3, 1: 3}
        results = stepper.step_many([(e, "get_balance", {}) for e in envs for _ in range(2)])
        evaluations = stepper.submit(envs)
    assert [r.episode_id for r in results] == [e.episode_id for e in envs for _ in range(2)]
    assert [r.step for r in results] == [1, 2] * 6
    assert [ev.steps for ev in evaluations] == [2] * 6


def test_the_ray_handle_creates_steps_and_submits_on_both_shards(shards):
    assert len(shards) == 2
    created = [shards.create("coinpurse", {"task_id": "cp-01", "seed": 5}) for _ in range(4)]
    ids = [c["episode_id"] for c in created]
    assert [shard_of(i) for i in ids] == [0, 1, 0, 1]
    calls = [{"episode_id": i, "tool": "get_balance", "arguments": {}} for i in ids + ids[::-1]]
    calls.append({"episode_id": ids[0].replace("ep_0_", "ep_1_"), "tool": "get_balance", "arguments": {}})
    out = shards.batch({"calls": calls})["results"]
    assert [r["episode_id"] for r in out] == [c["episode_id"] for c in calls]
    assert [r.get("step") for r in out[:-1]] == [1, 1, 1, 1, 2, 2, 2, 2]
    assert out[-1]["ok"] is False and out[-1]["error"]["code"] == "not_found"  # one bad call fails its slot only
    # bytes in, bytes out: the same JSON as POST /batch
    raw = shards.batch(orjson.dumps({"calls": calls[:1]}))
    assert isinstance(raw, bytes) and orjson.loads(raw)["results"][0]["step"] == 3
    ev = shards.submit(ids[1], {"output": "done"})
    assert ev["steps"] == 2 and ev["episode_id"] == ids[1]
    assert shards.submit(ids[1]) == ev  # a second submit answers the first evaluation (003's finalize)
    with pytest.raises(errors.NotFound):
        shards.create("no-such-world")
    # an idempotency key replays the first answer, as over HTTP
    first = shards.create("coinpurse", {"task_id": "cp-01"}, key="ray-key-1")
    assert shards.create("coinpurse", {"task_id": "cp-01"}, key="ray-key-1") == first


def test_the_handle_and_http_reach_the_same_episodes(cluster, shards):
    obs = shards.create("coinpurse", {"task_id": "cp-01"}, shard=1)
    with SandworldClient(cluster.urls[0]) as client:
        assert client.step(obs["episode_id"], "get_balance").step == 1
    out = shards.batch([{"episode_id": obs["episode_id"], "tool": "get_balance", "arguments": {}}])
    assert out["results"][0]["step"] == 2


def _until_refused(url: str) -> None:
    port = int(url.split(":")[2].split("/")[0])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except ConnectionRefusedError:
            return
        time.sleep(0.005)
    raise AssertionError(f"port {port} still accepts connections 30 s after its shard was killed")


def _pid(shards, shard: int) -> int:
    import ray

    return ray.get(shards.actors[shard].ready.remote(), timeout=60)["pid"]


def test_a_killed_shard_comes_back_on_its_port_with_its_episodes_while_the_other_answers(cluster, shards):
    with SandworldClient(cluster.urls[0]) as client:
        envs = [SandworldEnv(client=client) for _ in range(2)]
        for env in envs:
            env.reset("coinpurse", task_id="cp-01")
        lost, kept = sorted(envs, key=lambda e: -shard_of(e.episode_id))  # lost is on shard 1
        first = lost.step("list_requests")  # acknowledged before the kill
        old_pid = _pid(shards, 1)

        os.kill(old_pid, signal.SIGKILL)
        began = time.monotonic()
        _until_refused(cluster.urls[1])  # down: a request sent before this could die with the process
        with ThreadPoolExecutor(2) as pool, SandworldClient(cluster.urls[0], retry=PATIENT) as patient:
            # Calls to the dead shard, at once: over HTTP (a client with no open connection to it, so it
            # meets refused connections and retries) and through Ray (the handle waits out the restart).
            over_http = pool.submit(patient.step, lost.episode_id, "get_balance")
            over_ray = pool.submit(shards.batch, [{"episode_id": lost.episode_id, "tool": "get_balance"}])
            # shard 0 keeps answering, over HTTP and through Ray, while shard 1 is down
            assert kept.step("get_balance").step == 1
            assert shards.batch([{"episode_id": kept.episode_id, "tool": "get_balance"}])["results"][0]["step"] == 2
            # both calls reach the restarted shard, which replayed its own action log: the episode is back
            # and goes on from where it was (the two calls land in either order)
            by_http = over_http.result(timeout=150)
            slot = over_ray.result(timeout=150)["results"][0]
            assert sorted([by_http.step, slot["step"]]) == [2, 3]
        assert time.monotonic() - began < 150
        # shard 1 is back on its own port, as a new process
        assert httpx.get(cluster.urls[1].removesuffix("/api/v1") + "/healthz", timeout=5).status_code == 200
        assert _pid(shards, 1) != old_pid
        trace = httpx.get(f"{cluster.urls[1]}/episodes/{lost.episode_id}").json()["trace"]
        assert trace[0]["tool"] == "list_requests" and trace[0]["result"] == first.result
        assert trace[0]["at"] == first.get("at")
        health = httpx.get(cluster.urls[1].removesuffix("/api/v1") + "/healthz").json()
        assert health["replay"]["episodes"] >= 1 and health["replay"]["mismatches"] == 0
        # and it takes new episodes again, under the same URL
        new = shards.create("coinpurse", {"task_id": "cp-01"}, shard=1)
        assert client.step(new["episode_id"], "get_balance").step == 1
        assert httpx.get(f"{cluster.urls[1]}/cluster").json()["shard"] == 1


def test_episodes_from_a_snapshot_start_on_the_snapshots_shard(cluster, shards):
    with SandworldClient(cluster.urls[0]) as client:
        src = client.create_episode("coinpurse", task_id="cp-01", seed=4, url=cluster.urls[1])
        client.step(src.episode_id, "send_money", {"contact_id": "ct-02", "amount": 100, "note": "x"})
        snap = httpx.post(f"{cluster.urls[1]}/episodes/{src.episode_id}/snapshots").json()
        assert shard_of(snap["snapshot_id"]) == 1
        # round-robin would put half of these on shard 0, which does not hold the snapshot
        starts = [client.create_episode("coinpurse", task_id="cp-01", snapshot_id=snap["snapshot_id"])
                  for _ in range(3)]
        starts += client.create_episodes([{"environment": "coinpurse", "snapshot_id": snap["snapshot_id"]}] * 2)
    starts.append(shards.create("coinpurse", {"snapshot_id": snap["snapshot_id"]}))
    assert [shard_of(o["episode_id"]) for o in starts] == [1] * 6
    assert {o["seed_digest"] for o in starts} == {snap["digest"]}


def test_a_restarted_shard_waits_for_its_port_while_another_socket_holds_it(cluster, shards):
    # A restart that raised "address in use" would be final (Ray restarts a process that died, not a
    # constructor that failed): the shard would stay down for good. It waits for its port instead.
    port = int(cluster.urls[1].split(":")[2].split("/")[0])
    before = cluster.output().count("is still in use; waiting")
    old_pid = _pid(shards, 1)
    os.kill(old_pid, signal.SIGKILL)
    _until_refused(cluster.urls[1])
    holder = socket.socket()
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # past the dead shard's own closing sockets
    holder.bind(("127.0.0.1", port))
    holder.listen(1)  # a listening socket: no server can bind beside it
    try:
        deadline = time.monotonic() + 150
        while cluster.output().count("is still in use; waiting") == before:
            assert time.monotonic() < deadline, f"the restarted shard never met its held port:\n{cluster.output()}"
            time.sleep(0.1)
    finally:
        holder.close()
    # it comes back, as a new process, once the port is free
    while not answers(cluster.urls[1]):
        assert time.monotonic() < deadline, f"the shard did not come back on its freed port:\n{cluster.output()}"
        time.sleep(0.1)
    assert _pid(shards, 1) != old_pid
    assert httpx.get(f"{cluster.urls[1]}/cluster", timeout=30).json()["shard"] == 1


def _drop(*socks: socket.socket) -> None:
    """Close with a reset, so no TIME_WAIT keeps a port."""
    for sock in socks:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        sock.close()


def test_listen_fails_at_once_on_a_taken_port_or_waits_for_it_when_asked():
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    # what takes a dead shard's port: an outbound connection with it as its local port (no SO_REUSEADDR)
    server = socket.create_server(("127.0.0.1", 0))
    held = socket.socket()
    held.bind(("127.0.0.1", port))
    held.connect(server.getsockname())
    accepted, _ = server.accept()
    try:
        t = time.monotonic()
        with pytest.raises(RuntimeError, match="cannot listen on 127.0.0.1:.*in use"):
            _listen("127.0.0.1", port, 1)
        with pytest.raises(RuntimeError, match="after waiting 0.5 s"):
            _listen("127.0.0.1", port, 1, wait=0.5)
        assert time.monotonic() - t < 5
    finally:
        threading.Timer(0.5, _drop, [held, accepted]).start()
    sock = _listen("127.0.0.1", port, 1, wait=30)  # the connection is gone after 0.5 s
    assert sock.getsockname()[1] == port
    sock.close()
    server.close()


def test_every_shard_applies_the_servers_connection_limits(cluster):
    # the header size limit and the header read timeout of a lone server (sw_runtime.api.protocol)
    big = b"x-filler: " + b"a" * (70 * 1024) + b"\r\n"
    for url in cluster.urls:
        status, err = envelope(raw(url, b"GET /healthz HTTP/1.1\r\nhost: x\r\n" + big + b"\r\n"))
        assert status == 431 and err["code"] == "headers_too_large"
    t = time.monotonic()
    with ThreadPoolExecutor(len(cluster.urls)) as pool:  # headers that never end, to both shards at once
        timed_out = list(pool.map(lambda u: envelope(raw(u, b"GET /healthz HTTP/1.1\r\nhost: x\r\n", wait=15)),
                                cluster.urls))
    assert [(status, err["code"]) for status, err in timed_out] == [(408, "request_timeout")] * len(cluster.urls)
    assert time.monotonic() - t < 25  # the default header timeout is 10 s


def test_a_composite_episode_lives_on_one_shard_and_a_batch_steps_both_its_worlds(cluster, shards):
    pair = ["codehost", "offsite-planning"]
    with BatchStepper(base_url=cluster.urls[0]) as stepper:
        envs = stepper.group(pair, 4, seed=2)
        assert Counter(shard_of(e.episode_id) for e in envs) == {0: 2, 1: 2}
        calls = [(e, tool, args) for e in envs for tool, args in (
            ("repos.get", {"owner": "acme", "repo": "api"}), ("slack.conversations.list", {}))]
        results = stepper.step_many(calls)
    assert all(r.ok for r in results) and [r.step for r in results] == [1, 2] * 4
    for e in envs:  # each episode's calls to both worlds were answered by the shard its id names
        url = cluster.urls[shard_of(e.episode_id)]
        assert httpx.get(f"{url}/episodes/{e.episode_id}").json()["environments"] == pair
    made = shards.create(pair, {"seed": 2})
    assert made["environments"] == pair and made["seed_digest"] == envs[0].observation["seed_digest"]
    # the handle serves names model APIs accept, and takes a tool's alias as its served name (issue 34, item 9)
    assert all(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", t["name"]) for t in made["tools"])
    both = shards.batch([{"episode_id": made["episode_id"], "tool": name, "arguments": {"owner": "acme", "repo": "api"}}
                         for name in ("repos.get", "repos_get")])["results"]
    assert [(r["tool"], r["ok"]) for r in both] == [("repos_get", True)] * 2 and both[0]["result"] == both[1]["result"]


def _twins(shards, shard: int) -> list:
    """Two episodes of one task and seed on ``shard``: the same calls answer them alike."""
    return [shards.create("coinpurse", {"task_id": "cp-01", "seed": 11}, shard=shard)["episode_id"]
            for _ in range(2)]


def _same_but_ids(a: dict, b: dict) -> bool:
    strip = [{k: v for k, v in r.items() if k != "episode_id"} for r in a["results"]]
    return strip == [{k: v for k, v in r.items() if k != "episode_id"} for r in b["results"]]


def test_a_batch_on_this_machine_comes_through_shared_memory_as_it_comes_inline(shards):
    from sandworld import ray_shared

    if not ray_shared.available():
        pytest.skip("shared-memory batches are Linux-only")
    a, b = _twins(shards, 0)
    tools = [("get_balance", {}), ("list_requests", {"status": "pending"}), ("get_balance", {})]
    shared = shards.batch({"calls": [{"episode_id": a, "tool": t, "arguments": x} for t, x in tools]})
    assert shards._blocks.free and 0 not in shards._inline  # a block was lent, and taken back
    shards._inline.add(0)  # the same calls through Ray's reply
    try:
        inline = shards.batch({"calls": [{"episode_id": b, "tool": t, "arguments": x} for t, x in tools]})
    finally:
        shards._inline.discard(0)
    assert [r["step"] for r in shared["results"]] == [1, 2, 3]
    assert _same_but_ids(shared, inline)  # same steps, observations and digests
    # an error answer comes through the block too, raised as over HTTP
    with pytest.raises(errors.ApiError) as refused:
        shards.batch(b'{"calls": "not a list"}')
    assert 400 <= refused.value.status < 500 and 0 not in shards._inline


def test_a_block_the_shard_cannot_reach_sends_the_batch_inline(shards):
    import ray

    from sandworld import ray_shared

    if not ray_shared.available():
        pytest.skip("shared-memory batches are Linux-only")
    block = ray_shared.Block()
    try:  # a path and token that are not one block (a shard on another machine sees no such file)
        assert ray.get(shards.actors[1].batch_shared.remote(block.where, b"x" * 16, 2)) == (ray_shared.NOT_HERE, None)
        assert ray.get(shards.actors[1].batch_shared.remote("/proc/1/fd/999999", block.token, 2)) == (
            ray_shared.NOT_HERE, None)
    finally:
        block.close()
    a, b = _twins(shards, 1)
    shards._blocks.take_back(_Elsewhere())  # the next block lent is one the shard cannot reach
    try:
        out = shards.batch({"calls": [{"episode_id": a, "tool": "get_balance", "arguments": {}}]})
        assert out["results"][0]["step"] == 1
        assert 1 in shards._inline  # that shard's batches go inline from now on
        again = shards.batch({"calls": [{"episode_id": b, "tool": "get_balance", "arguments": {}}]})
        assert _same_but_ids(out, again)
    finally:
        shards._inline.discard(1)


class _Elsewhere:
    """A block as a handle on another machine would lend it: its path names nothing here."""

    def __init__(self):
        from sandworld import ray_shared

        self.inner = ray_shared.Block()
        self.where, self.token = "/proc/1/fd/999999", self.inner.token

    def put(self, body):
        return self.inner.put(body)

    def answer(self, out):
        return self.inner.answer(out)

    def close(self):
        self.inner.close()


def test_a_batch_sent_to_the_shard_it_names_answers_as_one_the_handle_routes(cluster, shards):
    a, b = _twins(shards, 1)
    calls = lambda eid: orjson.dumps({"calls": [{"episode_id": eid, "tool": "get_balance", "arguments": {}}]})  # noqa: E731
    routed = orjson.loads(shards.batch(calls(a)))
    given = shards.batch(calls(b), shard=1)
    assert isinstance(given, bytes) and _same_but_ids(routed, orjson.loads(given))
    # a view of the answer where it lies, decoded at once, says the same
    import asyncio

    async def view():
        out = await shards.batch_async(calls(b), shard=1, copy=False)
        assert isinstance(out, memoryview)
        return orjson.loads(out)

    assert orjson.loads(given)["results"][0]["step"] + 1 == asyncio.run(view())["results"][0]["step"]
    # told the wrong shard, the batch goes there and answers as that shard's /batch does
    wrong = orjson.loads(shards.batch(calls(a), shard=0))
    over_http = httpx.post(f"{cluster.urls[0]}/batch", content=calls(a),
                           headers={"content-type": "application/json"}).json()
    assert wrong == over_http and wrong["results"][0]["ok"] is False
    with pytest.raises(errors.SandworldError) as none:
        shards.batch(calls(a), shard=2)
    assert none.value.code == "no_shard"


@pytest.mark.parametrize("path", ["socket", "ray"])
def test_batches_waiting_for_one_shard_go_in_one_call_and_answer_as_each_alone(shards, path):
    import asyncio

    from sandworld import ray, ray_shared

    if not ray_shared.available():
        pytest.skip("shared-memory batches are Linux-only")
    pairs = [_twins(shards, 0) for _ in range(5)]
    sent = []
    if path == "socket":  # each call over the shard's local socket
        call, name = shards._over_socket, "_over_socket"

        async def counted(shard, where):
            sent.append(("batch_shared_many", len(where)))
            return await call(shard, where)
    else:  # each call an actor call
        call, name = shards._call, "_call"

        async def counted(shard, method, *args, **kw):
            sent.append((method, len(args[0]) if method == "batch_shared_many" else 1))
            return await call(shard, method, *args, **kw)

    tools = [("get_balance", {}), ("list_requests", {"status": "pending"})]
    body = lambda eid: orjson.dumps({"calls": [{"episode_id": eid, "tool": t, "arguments": x} for t, x in tools]})  # noqa: E731

    async def together():
        return await asyncio.gather(*(shards.batch_async(body(a)) for a, _ in pairs),
                                    shards.batch_async(b'{"calls": "not a list"}'), return_exceptions=True)

    setattr(shards, name, counted)
    before = dict(shards.paths)
    if path == "ray":
        _socket_off(shards, 0)
    try:
        out = asyncio.run(together())
    finally:
        delattr(shards, name)
        shards._lanes[0].endpoint = ray.UNKNOWN
    assert shards.paths[path] - before[path] == len(pairs) + 1
    # LANES calls went at once; the batches that came meanwhile went together in the next
    assert sent[:ray.LANES] == [("batch_shared_many", 1)] * ray.LANES
    assert len(sent) < len(pairs) + 1 and max(n for _, n in sent) > 1
    assert isinstance(out[-1], errors.ApiError) and 400 <= out[-1].status < 500  # its own batch's error only
    alone = [shards.batch(body(b)) for _, b in pairs]  # each twin alone, one call per batch
    assert all(_same_but_ids(orjson.loads(o), orjson.loads(a)) for o, a in zip(out, alone))
    assert shards._lanes[0].busy == 0 and not shards._lanes[0].waiting


def _socket_off(shards, shard: int) -> None:
    from sandworld import ray

    shards._lanes[shard].drop_lines()
    shards._lanes[shard].endpoint = ray.NONE


def _endpoint(shards, shard: int) -> dict:
    import ray

    status, found = ray.get(shards.actors[shard].local_socket.remote(), timeout=60)
    assert status == 200 and found is not None
    return found


def _local_only():
    from sandworld import ray_socket

    if not ray_socket.available():
        pytest.skip("the shard's local socket goes with the shared blocks: Linux only")


def test_a_batch_on_this_machine_goes_over_the_shards_socket_and_answers_what_http_does(cluster, shards):
    from sandworld import ray

    _local_only()
    found = _endpoint(shards, 1)
    assert os.stat(os.path.dirname(found["path"])).st_mode & 0o777 == 0o700  # only this user enters
    a, b = _twins(shards, 1)
    c = _twins(shards, 1)[0]
    tools = [("get_balance", {}), ("list_requests", {"status": "pending"}), ("nope", {}),
             ("send_money", {"contact_id": "ct-02", "amount": 100, "note": "x"}), ("get_balance", {})]
    body = lambda eid: orjson.dumps({"calls": [{"episode_id": eid, "tool": t, "arguments": x} for t, x in tools]})  # noqa: E731
    before = shards.paths["socket"]
    over_socket = shards.batch(body(a), shard=1)
    assert shards.paths["socket"] == before + 1  # no actor call
    over_http = httpx.post(f"{cluster.urls[1]}/batch", content=body(b), headers={"content-type": "application/json"})
    assert over_http.status_code == 200
    # byte for byte, but for the episode ids (and the line end HTTP puts after a body)
    assert over_socket.replace(a.encode(), b.encode()) + b"\n" == over_http.content
    _socket_off(shards, 1)  # and as an actor call answers them
    try:
        over_ray = shards.batch(body(c), shard=1)
    finally:
        shards._lanes[1].endpoint = ray.UNKNOWN
    assert over_socket.replace(a.encode(), c.encode()) == over_ray and shards.paths["socket"] == before + 1
    # a batch the service refuses answers its error, raised as over HTTP
    with pytest.raises(errors.ApiError) as refused:
        shards.batch(b'{"calls": "not a list"}', shard=1)
    assert 400 <= refused.value.status < 500 and shards.paths["socket"] == before + 2


def test_the_shards_socket_refuses_a_wrong_token_and_the_handle_then_calls_through_ray(shards):
    import asyncio

    from sandworld import ray, ray_socket

    _local_only()
    found = _endpoint(shards, 0)
    with pytest.raises(ray_socket.Refused):
        asyncio.run(ray_socket.Line.open(found["path"], b"x" * ray_socket.TOKEN))

    async def hello():
        line = await ray_socket.Line.open(found["path"], found["token"])
        line.close()

    asyncio.run(hello())  # the right token is let in
    a, b = _twins(shards, 0)
    call = lambda eid: {"calls": [{"episode_id": eid, "tool": "get_balance", "arguments": {}}]}  # noqa: E731
    try:
        for endpoint in ((found["path"], b"y" * ray_socket.TOKEN),  # a wrong token
                         ("/nonexistent/sandworld/batch.sock", found["token"])):  # a path of another machine
            shards._lanes[0].drop_lines()
            shards._lanes[0].endpoint, shards._lanes[0].reached = endpoint, False  # as if just asked
            before = dict(shards.paths)
            out = shards.batch(call(a if endpoint[0] == found["path"] else b))
            assert out["results"][0]["step"] == 1 and shards.paths["ray"] == before["ray"] + 1
            assert shards._lanes[0].endpoint is ray.NONE  # Ray's path for that shard from now on
    finally:
        shards._lanes[0].endpoint = ray.UNKNOWN
    assert shards.batch(call(a))["results"][0]["step"] == 2 and shards._lanes[0].endpoint[0] == found["path"]


def test_a_killed_shards_batch_goes_through_ray_and_the_next_over_its_new_socket(cluster, shards):
    _local_only()
    a, b = _twins(shards, 1)
    call = lambda eid: {"calls": [{"episode_id": eid, "tool": "get_balance", "arguments": {}}]}  # noqa: E731
    assert shards.batch(call(a))["results"][0]["step"] == 1
    old = shards._lanes[1].endpoint
    assert shards._lanes[1].lines and old[0] == _endpoint(shards, 1)["path"]  # a connection kept open
    before = dict(shards.paths)
    os.kill(_pid(shards, 1), signal.SIGKILL)
    _until_refused(cluster.urls[1])
    # the kept connection is broken: the batch goes through Ray, which waits out the restart
    out = shards.batch(call(a))["results"][0]
    assert out["step"] == 2  # the restarted shard replayed the episode's log
    assert shards.paths["ray"] == before["ray"] + 1 and shards.paths["socket"] == before["socket"]
    # the next batch asks the restarted shard for its socket, and goes there
    assert shards.batch(call(b))["results"][0]["step"] == 1
    assert shards.paths["socket"] == before["socket"] + 1
    new = shards._lanes[1].endpoint
    assert new[0] != old[0] and new[1] != old[1] and new[0] == _endpoint(shards, 1)["path"]
    assert not os.path.exists(os.path.dirname(old[0]))  # the dead shard's directory was swept
