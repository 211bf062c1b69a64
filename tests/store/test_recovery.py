"""Nothing acknowledged is lost: a killed server, restarted on its data
folder, comes back with every episode, step, digest, trace, ending and
idempotency key it answered (real servers, real SIGKILL)."""

from __future__ import annotations

import contextlib
import signal
import threading
import zlib

import httpx
import pytest
from sandworld.local import local_server_process

from tests.fakes import fake_model
from tests.runtime.test_api import assert_error, create

pytestmark = pytest.mark.slow


@contextlib.contextmanager
def server(data_dir, *args, env=None):
    with local_server_process("--data-dir", str(data_dir), *args, env=env) as (url, proc):
        with httpx.Client(base_url=url, timeout=60) as http:
            yield http, proc


def root_get(http, path):
    return httpx.get(str(http.base_url).removesuffix("/api/v1/") + path, timeout=10)


def test_sigkill_mid_batch_loses_no_acknowledged_step(tmp_path):
    acked: dict = {}  # episode id -> the step answers the server acknowledged
    with server(tmp_path) as (http, proc):
        ids = [create(http, "coinpurse", task_id="cp-02", seed=i)["episode_id"] for i in range(8)]
        tools = ["get_balance", "list_requests", "list_contacts", "list_transactions"]
        first = root_get(http, "/healthz").json()
        stop = threading.Event()

        def drive():
            n = 0
            while not stop.is_set():
                calls = [{"episode_id": e, "tool": tools[(n + i) % 4], "arguments": {}} for i, e in enumerate(ids)]
                n += 1
                try:
                    r = http.post("/batch", json={"calls": calls * 3})
                except httpx.TransportError:
                    return  # killed mid-request: this batch was never acknowledged
                for res in r.json()["results"]:
                    if res.get("step"):
                        acked.setdefault(res["episode_id"], []).append(res)

        t = threading.Thread(target=drive)
        t.start()
        while sum(map(len, acked.values())) < 300:
            t.join(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        stop.set()
        t.join()
    with server(tmp_path) as (http, _):
        health = root_get(http, "/healthz").json()
        assert health["boot_id"] != first["boot_id"]
        assert health["replay"]["mismatches"] == 0 and health["replay"]["steps"] >= 300
        for eid, answers in acked.items():
            got = http.get(f"/episodes/{eid}").json()
            assert got["status"] == "open" and got["steps"] >= len(answers)
            for answer in answers:
                entry = got["trace"][answer["step"] - 1]
                assert entry["seq"] == answer["step"] and entry["at"] == answer["at"]
                assert entry["tool"] == answer["tool"] and entry["ok"] == answer["ok"]
                assert entry["result"] == answer["result"]
            last = answers[-1]["step"]
            digest_then = got["trace"][last - 1]["state_digest"]
            assert digest_then == got["trace"][last - 1]["state_digest"]
        # and the episodes go on from where they were
        eid = ids[0]
        before = http.get(f"/episodes/{eid}").json()["steps"]
        r = http.post(f"/episodes/{eid}/step", json={"tool": "get_balance", "arguments": {}})
        assert r.status_code == 200 and r.json()["step"] == before + 1


def test_everything_acknowledged_comes_back_the_same(tmp_path):
    with server(tmp_path) as (http, proc):
        a = create(http, "coinpurse", task_id="cp-01", seed=3)["episode_id"]
        http.post(f"/episodes/{a}/step", json={"tool": "list_requests", "arguments": {}})
        forks = http.post(f"/episodes/{a}/fork", json={"n": 2}).json()["episodes"]
        child = forks[0]["episode_id"]
        http.post(f"/episodes/{child}/step", json={"tool": "get_balance", "arguments": {}})
        snap = http.post(f"/episodes/{child}/snapshots").json()["snapshot_id"]
        from_snap = create(http, "coinpurse", snapshot_id=snap)["episode_id"]
        done = create(http, "dummy", task_id="dm-01")["episode_id"]
        http.post(f"/episodes/{done}/step", json={"tool": "set", "arguments": {"key": "it-01", "value": 11}})
        scored = http.post(f"/episodes/{done}/submit", json={"output": "ok"}).json()
        before = {e: http.get(f"/episodes/{e}").json() for e in (a, child, forks[1]["episode_id"], from_snap)}
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    with server(tmp_path) as (http, _):
        for eid, was in before.items():
            now = http.get(f"/episodes/{eid}").json()
            for field in ("digest", "steps", "trace", "seed_digest", "forked_from", "snapshot_id", "status"):
                assert now[field] == was[field], (eid, field)
        assert http.get(f"/snapshots/{snap}").status_code == 200
        kept = http.get(f"/episodes/{done}").json()
        assert kept["status"] == "ended" and kept["ended_by"] == "finished"
        assert kept["evaluation"]["score"] == scored["score"] and kept["evaluation"]["digest"] == scored["digest"]
        assert_error(http.post(f"/episodes/{done}/step", json={"tool": "noop"}), 409, "episode_closed")


def test_a_keyed_create_retried_across_a_restart_returns_the_same_episode(tmp_path):
    body = {"task_id": "dm-01", "seed": 7}
    key = {"Idempotency-Key": "create-7f3a"}
    with server(tmp_path) as (http, proc):
        first = http.post("/environments/dummy/episodes", json=body, headers=key)
        assert first.status_code == 201
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    with server(tmp_path) as (http, _):
        again = http.post("/environments/dummy/episodes", json=body, headers=key)
        assert again.status_code == 201 and again.headers["idempotent-replayed"] == "true"
        assert again.json()["episode_id"] == first.json()["episode_id"]
        assert http.get(f"/episodes/{first.json()['episode_id']}").json()["status"] == "open"


def test_a_replayed_step_that_lands_elsewhere_is_reported(tmp_path):
    with server(tmp_path) as (http, proc):
        eid = create(http, "dummy", task_id="dm-01")["episode_id"]
        http.post(f"/episodes/{eid}/step", json={"tool": "set", "arguments": {"key": "it-01", "value": 11}})
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    log = tmp_path / "shard-00" / "actions.log"
    header, *lines = log.read_bytes().splitlines()
    digest = lines[-1].split(b'"sha256:')[1].split(b'"')[0]
    # A world that answers differently, not a damaged line: the line is checksummed anew.
    payloads = [line.partition(b" ")[2].replace(digest, b"0" * 64) for line in lines]
    log.write_bytes(b"".join([header + b"\n", *(b"%08x %s\n" % (zlib.crc32(p), p) for p in payloads)]))
    with server(tmp_path) as (http, _):
        replay = root_get(http, "/healthz").json()["replay"]
        assert replay["mismatches"] == 1


def test_without_durability_an_old_id_says_the_server_restarted(tmp_path):
    with server(tmp_path, "--durability", "none") as (http, proc):
        eid = create(http, "dummy")["episode_id"]
        assert root_get(http, "/healthz").json()["durability"] == "none"
    with server(tmp_path, "--durability", "none") as (http, _):
        err = assert_error(http.get(f"/episodes/{eid}"), 404, "not_found")
        assert "restarted" in err["message"] and "memory" in err["message"]
    assert not (tmp_path / "shard-00").exists()


def test_an_llm_users_replies_come_back_from_the_log_without_asking_the_model(tmp_path):
    with fake_model(lambda messages: f"Reply to {messages[-1]['content']!r} after {len(messages)} messages") as model:
        env = {"SW_USER_SIM": "sim-1", "SW_USER_SIM_URL": model.url}
        with server(tmp_path, env=env) as (http, proc):
            eid = create(http, "coinpurse", task_id="cp-14", seed=3, user_simulator="llm")["episode_id"]
            ask = {"tool": "ask_user", "arguments": {"question": "How much should I send?"}}
            assert http.post(f"/episodes/{eid}/step", json=ask).json()["ok"] is True
            batch = http.post("/batch", json={"calls": [
                {"episode_id": eid, "tool": "ask_user", "arguments": {"question": "Are you sure?"}},
                {"episode_id": eid, "tool": "get_balance"},
            ]}).json()["results"]
            assert all(r["ok"] for r in batch)
            before = http.get(f"/episodes/{eid}").json()
            asked = len(model.requests)
            assert asked == 2
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        model.reply = None  # the model now fails: a replay that asked it would not land on the same digests
        with server(tmp_path, env=env) as (http, _):
            replay = root_get(http, "/healthz").json()["replay"]
            assert replay["mismatches"] == 0 and replay["replies"] == 2 and replay["steps"] == 3
            now = http.get(f"/episodes/{eid}").json()
            assert now["trace"] == before["trace"] and now["digest"] == before["digest"]
            assert [e["result"]["answer"] for e in now["trace"][:2]] == [
                "Reply to 'How much should I send?' after 2 messages", "Reply to 'Are you sure?' after 4 messages"]
        assert len(model.requests) == asked  # the model was not asked again


def test_a_runs_tool_calls_are_logged_before_they_are_answered_and_replay_past_the_step_limit(tmp_path):
    # A 001 run with its own max_calls past the server's step limit (200), called through the real
    # APIs' paths (not /step): every acknowledged call is back after a SIGKILL, with no mismatch.
    gmail = "/gmail.googleapis.com/gmail/v1/users/me/messages"
    with server(tmp_path) as (http, proc):
        base = str(http.base_url).removesuffix("/api/v1/")
        run = httpx.post(f"{base}/v1/runs", headers={"authorization": "Bearer any-key"}, timeout=30, json={
            "environment": "offsite-planning", "task": "Schedule the Q4 offsite", "max_calls": 400,
            "agent": {"name": "ops-assistant", "revision": "1"}}).json()
        auth = {"authorization": f"Bearer {run['token']}"}
        with httpx.Client(base_url=run["tools_url"], headers=auth, timeout=30) as tools:
            for _ in range(230):
                assert tools.get(gmail, params={"q": "offsite"}).status_code == 200
        before = http.get(f"/episodes/{run['episode_id']}").json()
        assert before["steps"] == 230
        proc.send_signal(signal.SIGKILL)  # right after the last answer: nothing else was logged since
        proc.wait()
    with server(tmp_path) as (http, _):
        replay = root_get(http, "/healthz").json()["replay"]
        assert replay["mismatches"] == 0 and replay["steps"] == 230
        now = http.get(f"/episodes/{run['episode_id']}").json()
        assert now["steps"] == 230 and now["digest"] == before["digest"] and now["trace"] == before["trace"]
        # the run's own limit came back too: the episode takes call 231, past the server's 200
        r = http.post(f"/episodes/{run['episode_id']}/step", json={"tool": "gmail.labels.list", "arguments": {}})
        assert r.status_code == 200, r.text
