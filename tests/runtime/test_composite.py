"""Composite episodes over HTTP: one episode over two or three worlds, on a
real server (create, /batch across worlds, forks, seed envelopes, the state
dump and its digest, and a SIGKILL with the log replayed)."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys

import httpx
import pytest
from sandworld.local import local_server_process

from tests.runtime.test_api import assert_error

PAIR = ["codehost", "offsite-planning"]


@contextlib.contextmanager
def server(*args):
    with local_server_process(*args) as (url, proc):
        with httpx.Client(base_url=url, timeout=60) as http:
            yield http, proc


@pytest.fixture(scope="module")
def http():
    with server("--durability", "none") as (client, _):
        yield client


def create(http, **body):
    r = http.post("/episodes", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def batch(http, calls):
    r = http.post("/batch", json={"calls": calls})
    assert r.status_code == 200, r.text
    return r.json()["results"]


def both_worlds(eid):
    return [
        {"episode_id": eid, "tool": "issues.create", "arguments": {"owner": "acme", "repo": "api", "title": "Flaky CI"}},
        {"episode_id": eid, "tool": "slack.chat.postMessage",
         "arguments": {"channel": "C_ENGINEERING", "text": "Filed the flaky CI issue"}},
        {"episode_id": eid, "tool": "repos.get", "arguments": {"owner": "acme", "repo": "api"}},
    ]


def test_a_composite_episode_answers_its_worlds_and_one_tool_list(http):
    ep = create(http, environments=PAIR, seed=3)
    assert ep["environment"] == "codehost+offsite-planning"
    assert ep["environments"] == PAIR
    versions = {w["name"]: w["version"] for w in http.get("/environments").json()["environments"]}
    assert ep["environment_versions"] == {w: versions[w] for w in PAIR}
    names = {t["name"] for t in ep["tools"]}
    assert {"pulls_merge", "slack_chat_postMessage", "calendar_events_insert"} <= names
    # the same worlds in another order are the same composite, and a path names it too
    again = create(http, environments=list(reversed(PAIR)), seed=3)
    assert again["seed_digest"] == ep["seed_digest"]
    r = http.post("/environments/offsite-planning+codehost/episodes", json={"seed": 3})
    assert r.status_code == 201 and r.json()["seed_digest"] == ep["seed_digest"]
    # one world through /episodes is that world, with today's digest
    one = create(http, environments=["coinpurse"], seed=2)
    alone = http.post("/environments/coinpurse/episodes", json={"seed": 2}).json()
    assert one["environment"] == "coinpurse" and "environments" not in one
    assert one["seed_digest"] == alone["seed_digest"]


@pytest.mark.parametrize("worlds, named", [
    (["codehost", "coinpurse", "quickbasket", "receivables"], "at most 3"),
    (["codehost", "codehost"], "codehost named twice"),
    (["codehost", "flight-desk"], "'flight-desk'"),
    ([], "one to three"),
])
def test_a_bad_set_of_worlds_is_a_400_that_names_it(http, worlds, named):
    r = http.post("/episodes", json={"environments": worlds})
    assert_error(r, 400, "invalid_request")
    assert named in r.json()["error"]["message"]


def test_a_batch_steps_both_worlds_and_a_fork_shares_the_digest_until_it_writes(http):
    eid = create(http, environments=PAIR, seed=3)["episode_id"]
    results = batch(http, both_worlds(eid) + [{"episode_id": eid, "tool": "no.such.tool"}])
    assert [r["ok"] for r in results] == [True, True, True, False]
    assert results[3]["error"]["code"] == "unknown_tool"
    src = http.get(f"/episodes/{eid}").json()
    fork = http.post(f"/episodes/{eid}/fork", json={"n": 1}).json()["episodes"][0]
    assert fork["digest"] == src["digest"]
    # a read leaves them equal; a write in either world parts them
    batch(http, [{"episode_id": fork["episode_id"], "tool": "slack.conversations.list", "arguments": {}}])
    assert http.get(f"/episodes/{fork['episode_id']}").json()["digest"] == src["digest"]
    batch(http, [{"episode_id": fork["episode_id"], "tool": "issues.create",
                  "arguments": {"owner": "acme", "repo": "web", "title": "Only in the fork"}}])
    assert http.get(f"/episodes/{fork['episode_id']}").json()["digest"] != src["digest"]
    assert http.get(f"/episodes/{eid}").json()["digest"] == src["digest"]
    # the state dump is keyed world.collection, and `sandworld digest` recomputes its digest
    dump = http.get(f"/episodes/{eid}/state").json()
    assert dump["environments"] == PAIR and "codehost.issues" in dump["collections"]
    assert set(dump["digests"]) == set(PAIR)
    out = subprocess.run([sys.executable, "-m", "sw_runtime", "digest", "/dev/stdin"], input=json.dumps(dump),
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == dump["digest"] == src["digest"]
    # the submit's state_diff is keyed by world
    ev = http.post(f"/episodes/{eid}/submit", json={"output": "done"}).json()
    assert set(ev["state_diff"]) == set(PAIR)
    assert ev["state_diff"]["codehost"]["issues"]["created"]


@pytest.mark.slow
def test_a_composite_episode_survives_a_sigkill_with_its_trace_and_digest(tmp_path):
    with server("--data-dir", str(tmp_path)) as (http, proc):
        eid = create(http, environments=PAIR, seed=5)["episode_id"]
        batch(http, both_worlds(eid))
        fork_id = http.post(f"/episodes/{eid}/fork", json={"n": 1}).json()["episodes"][0]["episode_id"]
        batch(http, [{"episode_id": fork_id, "tool": "slack.chat.postMessage",
                      "arguments": {"channel": "C_GENERAL", "text": "from the fork"}}])
        before = {e: http.get(f"/episodes/{e}").json() for e in (eid, fork_id)}
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    with server("--data-dir", str(tmp_path)) as (http, _):
        for e, then in before.items():
            now = http.get(f"/episodes/{e}").json()
            assert now["digest"] == then["digest"] and now["trace"] == then["trace"]
            assert now["environments"] == PAIR
        assert before[eid]["digest"] != before[fork_id]["digest"]
        # and the episode goes on in both worlds
        results = batch(http, both_worlds(eid)[:2])
        assert all(r["ok"] for r in results)


def test_a_seed_envelope_replaces_one_world_and_boots_the_other_from_the_seed(http):
    default = http.get(f"/episodes/{create(http, environments=PAIR, seed=4)['episode_id']}/state").json()
    office = {c.split(".", 1)[1]: recs for c, recs in default["collections"].items()
              if c.startswith("offsite-planning.")}
    office["slack_messages"] = {}
    ep = create(http, environments=PAIR, seed=4, state={"offsite-planning": office})
    dump = http.get(f"/episodes/{ep['episode_id']}/state").json()
    assert dump["digests"]["codehost"] == default["digests"]["codehost"]  # booted from seed 4
    assert dump["digests"]["offsite-planning"] != default["digests"]["offsite-planning"]
    assert dump["collections"]["offsite-planning.slack_messages"] == {}
    # a key naming a world the episode lacks
    r = http.post("/episodes", json={"environments": PAIR, "state": {"coinpurse": {}}})
    assert_error(r, 400, "invalid_request")
    assert "$.coinpurse" in r.text and "'coinpurse' is not a world of this episode" in r.text
    # /seeds/validate answers per world
    r = http.post("/environments/codehost+offsite-planning/seeds/validate",
                  json={"state": {"offsite-planning": office}, "seed": 4})
    body = r.json()
    assert r.status_code == 200 and body["valid"] is True
    assert body["worlds"]["codehost"] == {"source": "seed", "seed": 4, "valid": True, "issues": [],
                                          "digest": default["digests"]["codehost"]}
    assert body["worlds"]["offsite-planning"]["source"] == "state"
    assert body["checked"] == ["offsite-planning"] and body["unchecked"] == []  # 003's: whose parser ran
    bad = dict(office, slack_messages={"x": {"nope": 1}})
    r = http.post("/environments/codehost+offsite-planning/seeds/validate", json={"state": {"offsite-planning": bad}})
    body = assert_error(r, 422, "invalid_seed")  # 003's refusal, with the verdict per world
    assert body["issue_count"] == len(body["issues"]) and body["worlds"]["codehost"]["valid"] is True
    assert body["worlds"]["offsite-planning"]["issues"][0]["path"].startswith("$.offsite-planning.slack_messages")


def test_checks_name_world_collections_and_no_collateral_covers_every_world(http):
    ep = create(http, environments=PAIR, seed=1, checks=[
        {"kind": "record_exists", "collection": "offsite-planning.slack_messages",
         "where": {"text": "Filed the flaky CI issue"}},
        {"kind": "no_collateral", "allow": [{"collection": "offsite-planning.slack_messages"}]},
    ])
    eid = ep["episode_id"]
    batch(http, both_worlds(eid))
    ev = http.post(f"/episodes/{eid}/submit", json={"output": ""}).json()
    rows = {c["id"]: c for c in ev["checks"]}
    assert rows["custom-1"]["pass"] is True
    assert rows["custom-2"]["pass"] is False and "codehost.issues" in rows["custom-2"]["detail"]
    r = http.post("/episodes", json={"environments": PAIR, "checks": [
        {"kind": "record_exists", "collection": "issues", "where": {}}]})
    assert_error(r, 400, "invalid_request")
    assert "codehost.issues" in r.json()["error"]["message"]  # the message lists the qualified names
    lines = http.post("/checks/render", json={"environment": "codehost+offsite-planning", "checks": [
        {"kind": "record_exists", "collection": "codehost.issues", "where": {"title": "x"}}]}).json()["lines"]
    assert "codehost.issues" in lines[0]


def test_sandbox_mode_and_faults_and_signals_work_on_a_composite(http):
    eid = create(http, environments=PAIR, seed=2, mode="sandbox")["episode_id"]
    res = batch(http, both_worlds(eid))
    assert res[0]["result"]["sandbox"] is True and res[1]["result"]["sandbox"] is True
    assert http.post(f"/episodes/{eid}/submit", json={}).json()["state_diff"] == {}
    eid = create(http, environments=PAIR, seed=2, fault_profile="server_error")["episode_id"]
    codes = {r["error"]["code"] for r in batch(http, both_worlds(eid) * 8) if not r["ok"]}
    assert "server_error" in codes
    eid = create(http, environments=PAIR, seed=2, signals=True, checks=[
        {"kind": "record_exists", "collection": "codehost.issues", "where": {"title": "Flaky CI"}}])["episode_id"]
    first = batch(http, both_worlds(eid)[:1])[0]
    assert first["signals"]["progress"] == 1.0


def test_a_slack_post_gets_a_colleagues_answer_while_codehost_is_in_the_episode(http):
    from sw_runtime.worlds.offsite_planning.tasks import q4_quickstart

    eid = create(http, environments=PAIR, seed=0)["episode_id"]
    (tool, args) = q4_quickstart()[2]  # the post to #leadership that the leaders answer
    results = batch(http, [{"episode_id": eid, "tool": "repos.get", "arguments": {"owner": "acme", "repo": "api"}},
                           {"episode_id": eid, "tool": tool, "arguments": args}])
    assert all(r["ok"] for r in results)
    assert "reactions" not in results[0]
    assert [r["user"] for r in results[1]["reactions"]] == ["U_ERIK", "U_MARI"]
    trace = http.get(f"/episodes/{eid}").json()["trace"]
    assert trace[1]["reactions"] == results[1]["reactions"]


def test_batch_create_takes_composite_items_and_a_bad_item_fails_its_slot_only(http):
    r = http.post("/batch/episodes", json={"episodes": [
        {"environments": PAIR, "seed": 1}, {"environment": "codehost+offsite-planning", "seed": 1},
        {"environments": ["codehost", "codehost"]}, {"environment": "coinpurse", "seed": 1}]})
    assert r.status_code == 200, r.text
    slots = r.json()["results"]
    assert slots[0]["seed_digest"] == slots[1]["seed_digest"] and slots[0]["environments"] == PAIR
    assert slots[2]["error"]["code"] == "invalid_request" and "codehost named twice" in slots[2]["error"]["message"]
    assert slots[3]["environment"] == "coinpurse"


def test_a_cross_app_task_asks_the_user_and_its_signals_reach_the_reference(http):
    """xa-04 needs a detail only the user knows: ask_user answers it; with
    signals on, the reference solution's steps carry progress and
    reference_progress to 1 across both worlds, and the submit passes."""
    from sw_runtime.worlds import get_world

    ep = create(http, environments=PAIR, task_id="xa-04", seed=7, signals=True)
    assert "ask_user" in {t["name"] for t in ep["tools"]}
    world = get_world("codehost+offsite-planning")
    setup = world.tasks_by_id["xa-04"].setup(world.seed_store(7))
    last = None
    for tool, args in setup.solution:
        last = http.post(f"/episodes/{ep['episode_id']}/step", json={"tool": tool, "arguments": args}).json()
        assert last["ok"], last
        if tool == "ask_user":
            assert last["result"]["answer"]
    assert last["signals"]["progress"] == 1.0 and last["signals"]["reference_progress"] == 1.0
    ev = http.post(f"/episodes/{ep['episode_id']}/submit", json={"output": setup.output}).json()
    assert ev["pass"] is True and ev["score"] == 1.0
