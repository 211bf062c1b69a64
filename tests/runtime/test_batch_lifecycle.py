"""The batched lifecycle: ``POST /batch/episodes`` and ``POST /batch/submit``,
against a real server (plus one in-process check that a group of one seed
generates its start state once)."""

from __future__ import annotations

import httpx
import msgspec

from sw_runtime import schemas
from sw_runtime.engine import views
from sw_runtime.engine.engine import Engine
from sw_runtime.worlds import get_world
from tests.conftest import running_server


def create(http, env="dummy", **body):
    r = http.post(f"/environments/{env}/episodes", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def batch_create(http, items):
    r = http.post("/batch/episodes", json={"episodes": items})
    assert r.status_code == 200, r.text
    res = r.json()["results"]
    assert len(res) == len(items)
    return res


def batch_submit(http, items):
    r = http.post("/batch/submit", json={"episodes": items})
    assert r.status_code == 200, r.text
    res = r.json()["results"]
    assert len(res) == len(items)
    return res


def assert_error(r, status, code):
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error"} and body["error"]["code"] == code
    return body["error"]


def assert_slot_error(slot, code):
    assert set(slot) <= {"episode_id", "ok", "error"} and slot["ok"] is False, slot
    assert slot["error"]["code"] == code, slot
    assert isinstance(slot["error"]["message"], str) and slot["error"]["message"]
    return slot["error"]


# -- create --------------------------------------------------------------------


def test_batch_create_answers_what_single_create_answers_in_order(http):
    items = [
        {"environment": "coinpurse", "task_id": "cp-12", "seed": 2, "agent_name": "a"},
        {"environment": "dummy", "task_id": "dm-01", "seed": 9},
        {"environment": "coinpurse", "seed": 5},
    ]
    res = batch_create(http, items)
    for item, got in zip(items, res):
        single = create(http, item["environment"], **{k: v for k, v in item.items() if k != "environment"})
        eid = got["episode_id"]
        assert eid.startswith("ep_") and eid != single["episode_id"]
        assert got["next"] == {"step": f"/api/v1/episodes/{eid}/step", "submit": f"/api/v1/episodes/{eid}/submit"}
        assert got["mcp_url"] == f"/api/v1/episodes/{eid}/mcp" and got["tools_token"] != single["tools_token"]
        for body in (got, single):  # the fields of each episode's own
            del body["episode_id"], body["next"], body["tools_token"], body["tools_url"], body["mcp_url"]
            del body["expires_at"]  # each started at its own moment
        assert got == single
    assert [r["environment"] for r in res] == ["coinpurse", "dummy", "coinpurse"]
    assert [r["seed"] for r in res] == [2, 9, 5]


def test_batch_created_episodes_step_and_submit(http):
    (ep,) = batch_create(http, [{"environment": "dummy", "task_id": "dm-01", "seed": 3}])
    eid = ep["episode_id"]
    got = http.post("/batch", json={"calls": [{"episode_id": eid, "tool": "get", "arguments": {"key": "it-01"}}]})
    value = got.json()["results"][0]["result"]["value"] + 10
    http.post(f"/episodes/{eid}/step", json={"tool": "set", "arguments": {"key": "it-01", "value": value}})
    (ev,) = batch_submit(http, [{"episode_id": eid}])
    assert ev["episode_id"] == eid and ev["pass"] is True and ev["steps"] == 2


def test_one_bad_item_fails_only_its_slot(http):
    items = [
        {"environment": "dummy", "seed": 1},
        {"environment": "atlantis", "seed": 1},
        {"environment": "coinpurse", "task_id": "cp-999"},
        {"environment": "dummy", "sede": 1},
        {"seed": 1},
        ["not", "an", "object"],
        {"environment": "dummy", "seed": -1},
        {"environment": "dummy", "seed": "one"},
        {"environment": "dummy", "fault_profile": "meteor"},
        {"environment": "dummy", "seed": 2},
    ]
    res = batch_create(http, items)
    assert res[0]["episode_id"].startswith("ep_") and res[0]["seed"] == 1
    assert "atlantis" in assert_slot_error(res[1], "not_found")["message"]
    assert "cp-999" in assert_slot_error(res[2], "invalid_request")["message"]
    assert "sede" in assert_slot_error(res[3], "invalid_request")["message"]
    assert "environment" in assert_slot_error(res[4], "invalid_request")["message"]
    assert_slot_error(res[5], "invalid_request")
    assert_slot_error(res[6], "invalid_request")
    assert_slot_error(res[7], "invalid_request")
    assert_slot_error(res[8], "invalid_request")
    assert res[9]["episode_id"].startswith("ep_") and res[9]["seed"] == 2
    for slot in res[1:9]:
        assert "episode_id" not in slot
    # the good ones are live episodes
    for good in (res[0], res[9]):
        assert http.get(f"/episodes/{good['episode_id']}").json()["status"] == "open"


def test_a_group_of_64_on_one_seed_shares_its_seed_digest(http):
    single = create(http, "coinpurse", task_id="cp-03", seed=4242)
    res = batch_create(http, [{"environment": "coinpurse", "task_id": "cp-03", "seed": 4242}] * 64)
    assert {r["seed_digest"] for r in res} == {single["seed_digest"]}
    assert len({r["episode_id"] for r in res}) == 64
    assert {r["instruction"] for r in res} == {single["instruction"]}
    # forks, not one shared state: a write to one leaves the others at the start
    a, b = res[0]["episode_id"], res[1]["episode_id"]
    calls = [{"episode_id": a, "tool": "request_money",
              "arguments": {"contact_id": "c-001", "amount": 100, "note": "lunch"}}]
    assert http.post("/batch", json={"calls": calls}).json()["results"][0]["ok"] is True
    assert http.get(f"/episodes/{a}").json()["digest"] != single["seed_digest"]
    assert http.get(f"/episodes/{b}").json()["digest"] == single["seed_digest"]


def test_a_group_generates_its_seed_and_task_setup_once(monkeypatch):
    world = get_world("coinpurse")
    task = world.tasks_by_id["cp-05"]
    counts = {"generate": 0, "setup": 0}
    generate, setup = world.generate, task.setup

    def counting_generate(seed):
        counts["generate"] += 1
        return generate(seed)

    def counting_setup(store):
        counts["setup"] += 1
        return setup(store)

    monkeypatch.setattr(world, "generate", counting_generate)
    object.__setattr__(task, "setup", counting_setup)  # Task is a frozen dataclass
    try:
        item = msgspec.Raw(b'{"environment": "coinpurse", "task_id": "cp-05", "seed": 777}')
        res = [views.created(ep) for ep, _plan in Engine().create_many([item] * 64)]
    finally:
        object.__setattr__(task, "setup", setup)
    assert len({r["episode_id"] for r in res}) == 64
    assert len({r["seed_digest"] for r in res}) == 1
    assert counts == {"generate": 1, "setup": 1}


# -- submit --------------------------------------------------------------------


def test_batch_submit_mixes_good_closed_and_unknown(http):
    eps = batch_create(http, [{"environment": "dummy", "task_id": "dm-01", "seed": 6}] * 3)
    a, b, closed = (e["episode_id"] for e in eps)
    assert http.delete(f"/episodes/{closed}").status_code == 200  # ended, not submitted: still episode_closed
    http.post(f"/episodes/{a}/step", json={"tool": "noop"})
    res = batch_submit(http, [
        {"episode_id": a, "output": "done"},
        {"episode_id": closed},
        {"episode_id": "ep_00nope"},
        {"output": "no id"},
        {"episode_id": b, "outptu": "typo"},
        {"episode_id": b},
        {"episode_id": a},
    ])
    assert res[0]["episode_id"] == a and res[0]["steps"] == 1 and res[0]["pass"] is False
    assert assert_slot_error(res[1], "episode_closed") and res[1]["episode_id"] == closed
    assert_slot_error(res[2], "not_found")
    assert res[2]["episode_id"] == "ep_00nope"
    assert "episode_id" in assert_slot_error(res[3], "invalid_request")["message"]
    assert res[3]["episode_id"] is None
    assert "outptu" in assert_slot_error(res[4], "invalid_request")["message"]
    assert res[5]["episode_id"] == b and res[5]["steps"] == 0  # the typo did not close b
    assert res[6] == res[0]  # in order: a was submitted by slot 0, so its evaluation again
    assert http.get(f"/episodes/{a}").json()["status"] == "submitted"


def test_batch_submit_answers_what_single_submit_answers(http):
    eps = batch_create(http, [{"environment": "dummy", "task_id": "dm-01", "seed": 8}] * 2)
    answers = []
    for ep in eps:
        eid = ep["episode_id"]
        value = http.post(f"/episodes/{eid}/step", json={"tool": "get", "arguments": {"key": "it-01"}}).json()
        http.post(f"/episodes/{eid}/step",
                  json={"tool": "set", "arguments": {"key": "it-01", "value": value["result"]["value"] + 10}})
    answers.append(http.post(f"/episodes/{eps[0]['episode_id']}/submit", json={"output": "ok"}).json())
    answers += batch_submit(http, [{"episode_id": eps[1]["episode_id"], "output": "ok"}])
    assert answers[0]["pass"] is True
    for a in answers:
        del a["episode_id"]
    assert answers[0] == answers[1]


# -- the request itself ----------------------------------------------------------


def test_malformed_batch_bodies_are_400(http):
    for route in ("/batch/episodes", "/batch/submit"):
        assert_error(http.post(route, content=b"{nope"), 400, "invalid_json")
        assert_error(http.post(route, content=b""), 400, "invalid_json")
        assert "episodes" in assert_error(http.post(route, json={}), 400, "invalid_request")["message"]
        assert_error(http.post(route, json={"episodes": {"a": 1}}), 400, "invalid_request")
        assert "extra" in assert_error(http.post(route, json={"episodes": [], "extra": 1}), 400,
                                       "invalid_request")["message"]
        assert http.post(route, json={"episodes": []}).json() == {"results": []}
        assert_error(http.get(route), 405, "method_not_allowed")


def test_items_per_request_are_limited_and_a_full_server_fails_the_rest():
    env = {"SW_MAX_BATCH_EPISODES": "4", "SW_MAX_EPISODES": "3"}
    with running_server(env=env) as url, httpx.Client(base_url=url, timeout=30) as http:
        item = {"environment": "dummy", "seed": 1}
        for route, body in (("/batch/episodes", item), ("/batch/submit", {"episode_id": "ep_x"})):
            err = assert_error(http.post(route, json={"episodes": [body] * 5}), 400, "invalid_request")
            assert "5 episodes" in err["message"] and "at most 4" in err["message"]
        res = batch_create(http, [item] * 4)  # the cap allows 3 live episodes
        assert all(r["episode_id"].startswith("ep_") for r in res[:3])
        err = assert_slot_error(res[3], "rate_limited")
        assert err["retry_after"] >= 1
        assert len(batch_submit(http, [{"episode_id": r["episode_id"]} for r in res[:3]])) == 3


def test_schemas_reuse_the_single_bodies():
    # A field added to the single create or submit body is accepted in a batch too.
    assert set(schemas.CreateEpisode.__struct_fields__) < set(schemas.CreateItem.__struct_fields__)
    assert set(schemas.CreateItem.__struct_fields__) - set(schemas.CreateEpisode.__struct_fields__) == {"environment"}
    assert set(schemas.SubmitItem.__struct_fields__) - set(schemas.Submit.__struct_fields__) == {"episode_id"}
