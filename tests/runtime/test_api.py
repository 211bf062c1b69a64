"""The episode API over HTTP, against a real server."""

from __future__ import annotations

import httpx

from tests.conftest import running_server


def create(http, env="dummy", **body):
    r = http.post(f"/environments/{env}/episodes", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def assert_error(r, status, code):
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    return body["error"]


def test_healthz(api):
    r = httpx.get(api.removesuffix("/api/v1") + "/healthz")
    assert r.status_code == 200 and r.json()["ok"] is True


def test_environments_list_every_world(http):
    envs = {e["name"]: e for e in http.get("/environments").json()["environments"]}
    assert {"coinpurse", "dummy"} <= set(envs)
    assert envs["coinpurse"]["version"] == "1.1.0"


def test_environment_shows_tools_and_tasks(http):
    env = http.get("/environments/coinpurse").json()
    assert env["name"] == "coinpurse" and env["version"] == "1.1.0"
    names = {t["name"] for t in env["tools"]}
    assert {"get_balance", "list_requests", "pay_request", "decline_request", "send_money"} <= names
    for t in env["tools"]:
        assert set(t) == {"name", "description", "parameters", "class"}
        assert t["parameters"]["type"] == "object"
        assert t["class"] == ("safe" if t["name"].startswith(("get_", "list_")) else "guarded"), t["name"]
    ids = [t["id"] for t in env["tasks"]]
    assert [f"cp-{i:02d}" for i in range(1, 13)] == [i for i in ids if i <= "cp-12"][:12]
    assert all(t["title"] for t in env["tasks"])


def test_create_answers_the_reference_fields(http):
    ep = create(http, "coinpurse", task_id="cp-12", seed=2, agent_name="my-agent-v3")
    for field in ("episode_id", "environment", "environment_version", "task_id", "seed", "instruction",
                  "policy", "tools", "next", "seed_digest"):
        assert field in ep
    assert ep["episode_id"].startswith("ep_")
    assert ep["environment"] == "coinpurse" and ep["environment_version"] == "1.1.0"
    assert ep["task_id"] == "cp-12" and ep["seed"] == 2 and ep["agent_name"] == "my-agent-v3"
    assert ep["next"] == {
        "step": f"/api/v1/episodes/{ep['episode_id']}/step",
        "submit": f"/api/v1/episodes/{ep['episode_id']}/submit",
    }
    assert ep["seed_digest"].startswith("sha256:") and len(ep["seed_digest"]) == 71


def test_free_play_has_no_task(http):
    ep = create(http, "coinpurse", seed=5)
    assert ep["task_id"] is None and ep["instruction"] is None
    ev = http.post(f"/episodes/{ep['episode_id']}/submit").json()
    assert ev["pass"] is None and ev["score"] is None and ev["checks"] == []


def test_same_seed_same_digest_other_seed_differs(http):
    a = create(http, "coinpurse", seed=7)["seed_digest"]
    b = create(http, "coinpurse", seed=7)["seed_digest"]
    c = create(http, "coinpurse", seed=8)["seed_digest"]
    assert a == b != c


def test_step_answers_with_the_simulated_clock(http):
    ep = create(http, task_id="dm-01", seed=1)
    url = f"/episodes/{ep['episode_id']}/step"
    answers = [http.post(url, json={"tool": "noop", "arguments": {}}).json() for _ in range(4)]
    assert [a["step"] for a in answers] == [1, 2, 3, 4]
    assert answers[3] == {"step": 4, "tool": "noop", "ok": True, "result": {}, "at": "2026-01-01T00:00:28.000Z"}


def test_coinpurse_clock_matches_the_reference(http):
    ep = create(http, "coinpurse", task_id="cp-04", seed=1)
    url = f"/episodes/{ep['episode_id']}/step"
    for _ in range(4):
        last = http.post(url, json={"tool": "get_balance"}).json()
    assert last["step"] == 4 and last["at"] == "2026-03-05T18:00:28.000Z"


def test_refused_and_invalid_calls_are_data_and_count_as_steps(http):
    ep = create(http, task_id="dm-01", seed=1)
    url = f"/episodes/{ep['episode_id']}/step"
    r = http.post(url, json={"tool": "teleport", "arguments": {}})
    assert r.status_code == 200 and r.json()["ok"] is False and r.json()["error"]["code"] == "unknown_tool"
    r = http.post(url, json={"tool": "set", "arguments": {"key": "it-01", "value": "ten"}})
    assert r.status_code == 200 and r.json()["error"]["code"] == "invalid_arguments"
    assert "value" in r.json()["error"]["message"]
    r = http.post(url, json={"tool": "set", "arguments": {"key": "it-01", "value": 1, "extra": 2}})
    assert r.json()["error"]["code"] == "invalid_arguments"
    r = http.post(url, json={"tool": "set", "arguments": ["not", "an", "object"]})
    assert r.json()["error"]["code"] == "invalid_arguments"
    r = http.post(url, json={"tool": "get", "arguments": {"key": "it-99"}})
    assert r.json()["error"]["code"] == "not_found" and r.json()["step"] == 5
    state = http.get(f"/episodes/{ep['episode_id']}").json()
    assert state["steps"] == 5 and state["digest"] == ep["seed_digest"]


def test_trace_records_every_call(http):
    ep = create(http, task_id="dm-01", seed=4)
    eid = ep["episode_id"]
    http.post(f"/episodes/{eid}/step", json={"tool": "get", "arguments": {"key": "it-01"}})
    http.post(f"/episodes/{eid}/step", json={"tool": "set", "arguments": {"key": "it-01", "value": 3}})
    http.post(f"/episodes/{eid}/step", json={"tool": "get", "arguments": {"key": "nope"}})
    got = http.get(f"/episodes/{eid}").json()
    assert got["status"] == "open" and got["steps"] == 3 and got["seed_digest"] == ep["seed_digest"]
    t = got["trace"]
    assert [e["seq"] for e in t] == [1, 2, 3]
    assert set(t[0]) == {"seq", "at", "tool", "arguments", "ok", "result", "mutated", "state_digest", "reactions"}
    assert set(t[2]) == {"seq", "at", "tool", "arguments", "ok", "error", "mutated", "state_digest", "reactions"}
    assert t[0]["mutated"] is False and t[0]["state_digest"] == ep["seed_digest"]
    assert t[1]["mutated"] is True and t[1]["state_digest"] != ep["seed_digest"]
    assert t[1]["arguments"] == {"key": "it-01", "value": 3}
    assert t[2]["ok"] is False and t[2]["state_digest"] == t[1]["state_digest"] == got["digest"]


def test_submit_answers_the_reference_shape_and_closes(http):
    ep = create(http, task_id="dm-01", seed=2)
    eid = ep["episode_id"]
    item = http.post(f"/episodes/{eid}/step", json={"tool": "get", "arguments": {"key": "it-01"}}).json()
    value = item["result"]["value"] + 10
    http.post(f"/episodes/{eid}/step", json={"tool": "set", "arguments": {"key": "it-01", "value": value}})
    r = http.post(f"/episodes/{eid}/submit", json={})
    assert r.status_code == 200
    ev = r.json()
    for field in ("episode_id", "pass", "score", "steps", "write_steps", "tool_errors", "checks",
                  "failure_kind", "mask_sample", "state_diff", "digest", "seed_digest"):
        assert field in ev
    assert ev["pass"] is True and ev["score"] == 1.0 and ev["steps"] == 2 and ev["write_steps"] == 1
    assert ev["tool_errors"] == 0 and ev["failure_kind"] is None and ev["mask_sample"] is False
    assert ev["state_diff"] == {"items": {"created": [], "updated": ["it-01"], "removed": []}}
    for c in ev["checks"]:
        assert {"id", "label", "pass", "detail"} <= set(c)
    assert_error(http.post(f"/episodes/{eid}/step", json={"tool": "noop"}), 409, "episode_closed")
    again = http.post(f"/episodes/{eid}/submit")  # a second submit: the first result (003's idempotent finalize)
    assert again.status_code == 200 and again.json() == ev
    got = http.get(f"/episodes/{eid}").json()
    assert got["status"] == "submitted" and got["evaluation"]["pass"] is True


def test_do_nothing_does_not_pass(http):
    ep = create(http, task_id="dm-01", seed=2)
    ev = http.post(f"/episodes/{ep['episode_id']}/submit").json()
    # share (the default): no-collateral holds untouched and earns its weight; pass needs every check
    assert ev["pass"] is False and ev["score"] == 0.5 and ev["scoring"] == "share"
    ep = create(http, task_id="dm-01", seed=2, scoring="informative")
    ev = http.post(f"/episodes/{ep['episode_id']}/submit").json()
    assert ev["pass"] is False and ev["score"] == 0.0  # informative: what already held is not scored


def test_collateral_damage_costs_score(http):
    ep = create(http, task_id="dm-01", seed=2)
    eid = ep["episode_id"]
    http.post(f"/episodes/{eid}/step", json={"tool": "set", "arguments": {"key": "it-02", "value": 1}})
    ev = http.post(f"/episodes/{eid}/submit").json()
    nc = next(c for c in ev["checks"] if c["id"] == "no-collateral")
    assert nc["pass"] is False and nc["detail"] == "unexpected: items[~it-02]"
    assert ev["pass"] is False and ev["score"] == 0.0


def test_batch_answers_in_call_order_with_errors_in_slots(http):
    a = create(http, task_id="dm-01", seed=1)["episode_id"]
    b = create(http, task_id="dm-01", seed=2)["episode_id"]
    done = create(http, task_id="dm-01", seed=3)["episode_id"]
    http.post(f"/episodes/{done}/submit")
    calls = [
        {"episode_id": a, "tool": "set", "arguments": {"key": "it-00", "value": 11}},
        {"episode_id": b, "tool": "noop", "arguments": {}},
        {"episode_id": "ep_nope", "tool": "noop", "arguments": {}},
        {"episode_id": a, "tool": "get", "arguments": {"key": "it-00"}},
        {"episode_id": done, "tool": "noop", "arguments": {}},
        {"episode_id": a, "tool": "teleport", "arguments": {}},
        {"episode_id": a, "bogus": 1},
        {"tool": "noop"},
        {"episode_id": b, "tool": "get", "arguments": {"key": "it-04"}},
    ]
    r = http.post("/batch", json={"calls": calls})
    assert r.status_code == 200
    res = r.json()["results"]
    assert len(res) == len(calls)
    assert res[0]["episode_id"] == a and res[0]["ok"] and res[0]["step"] == 1
    assert res[1]["episode_id"] == b and res[1]["step"] == 1
    assert res[2] == {"episode_id": "ep_nope", "ok": False, "error": res[2]["error"]}
    assert res[2]["error"]["code"] == "not_found"
    assert res[3]["result"]["value"] == 11 and res[3]["step"] == 2  # same episode, in order
    assert res[4]["error"]["code"] == "episode_closed"
    assert res[5]["ok"] is False and res[5]["error"]["code"] == "unknown_tool" and res[5]["step"] == 3
    assert res[6]["error"]["code"] == "invalid_request" and "bogus" in res[6]["error"]["message"]
    assert res[7]["error"]["code"] == "invalid_request" and "episode_id" in res[7]["error"]["message"]
    assert res[8]["step"] == 2 and res[8]["episode_id"] == b


def test_unknown_route_and_wrong_method_use_the_envelope(http):
    assert_error(http.get("/nothing/here"), 404, "not_found")
    assert_error(http.get("/episodes/ep_x/step"), 405, "method_not_allowed")
    assert_error(http.delete("/environments"), 405, "method_not_allowed")


def test_unknown_things_are_404(http):
    assert_error(http.get("/environments/nope"), 404, "not_found")
    assert_error(http.post("/environments/nope/episodes", json={}), 404, "not_found")
    assert_error(http.get("/episodes/ep_missing"), 404, "not_found")
    assert_error(http.post("/episodes/ep_missing/step", json={"tool": "noop"}), 404, "not_found")
    assert_error(http.post("/episodes/ep_missing/submit"), 404, "not_found")


def test_bad_bodies_get_400(http):
    err = assert_error(http.post("/environments/dummy/episodes", json={"task_id": "dm-01", "foo": 1}),
                       400, "invalid_request")
    assert "foo" in err["message"]
    assert_error(http.post("/environments/dummy/episodes", content=b"{not json"), 400, "invalid_json")
    assert_error(http.post("/environments/dummy/episodes", json={"seed": "seven"}), 400, "invalid_request")
    assert_error(http.post("/environments/dummy/episodes", json={"seed": -1}), 400, "invalid_request")
    err = assert_error(http.post("/environments/dummy/episodes", json={"task_id": "dm-99"}), 400, "invalid_request")
    assert "dm-01" in err["message"]
    assert_error(http.post("/environments/dummy/episodes", json=[1, 2]), 400, "invalid_request")
    eid = create(http, task_id="dm-01")["episode_id"]
    assert_error(http.post(f"/episodes/{eid}/step", content=b""), 400, "invalid_json")
    assert_error(http.post(f"/episodes/{eid}/step", json={"arguments": {}}), 400, "invalid_request")
    assert_error(http.post(f"/episodes/{eid}/step", content=b"\xff\xfe"), 400, "invalid_json")
    assert_error(http.post("/batch", json={"calls": "nope"}), 400, "invalid_request")
    assert_error(http.post("/batch", content=b"[1,"), 400, "invalid_json")
    assert http.get(f"/episodes/{eid}").json()["steps"] == 0


def test_oversized_body_is_413_and_server_survives():
    with running_server("--max-body", "1024") as url:
        with httpx.Client(base_url=url) as http:
            big = {"calls": [{"episode_id": "x", "tool": "noop", "arguments": {"pad": "x" * 2000}}]}
            r = http.post("/batch", json=big)
            assert_error(r, 413, "payload_too_large")

            def chunks():
                for _ in range(10):
                    yield b" " * 512

            r = http.post("/batch", content=chunks())  # no Content-Length: counted while read
            assert_error(r, 413, "payload_too_large")
            assert http.get("/environments").status_code == 200


def test_step_limit_is_409_and_submit_still_works():
    with running_server("--step-limit", "3") as url:
        with httpx.Client(base_url=url) as http:
            eid = create(http, task_id="dm-01")["episode_id"]
            for _ in range(3):
                assert http.post(f"/episodes/{eid}/step", json={"tool": "noop"}).json()["ok"]
            assert_error(http.post(f"/episodes/{eid}/step", json={"tool": "noop"}), 409, "step_limit")
            res = http.post("/batch", json={"calls": [{"episode_id": eid, "tool": "noop"}]}).json()["results"]
            assert res[0]["error"]["code"] == "step_limit"
            ev = http.post(f"/episodes/{eid}/submit").json()
            assert ev["steps"] == 3 and ev["failure_kind"] == "step_limit"


def test_idle_episodes_are_ended_and_leave_memory():
    import time

    with running_server("--idle-timeout", "1") as url:
        with httpx.Client(base_url=url) as http:
            eid = create(http, task_id="dm-01")["episode_id"]
            deadline = time.monotonic() + 10
            while http.get(f"/episodes/{eid}").json()["status"] != "ended":
                assert time.monotonic() < deadline, "episode was never ended"
                time.sleep(0.3)
            assert http.get(f"/episodes/{eid}").json()["ended_by"] == "idle"  # from the results store
            err = assert_error(http.post(f"/episodes/{eid}/step", json={"tool": "noop"}), 409, "episode_closed")
            assert "idle" in err["message"]


def test_json_answers_end_with_a_newline(http):
    """So that `curl` output does not run into the next prompt or the next answer."""
    ep = http.post("/environments/coinpurse/episodes", json={"task_id": "cp-01"})
    eid = ep.json()["episode_id"]
    answers = [
        ep,
        http.get("/environments"),
        http.post(f"/episodes/{eid}/step", json={"tool": "get_balance"}),
        http.post("/batch", json={"calls": [{"episode_id": eid, "tool": "get_balance"}]}),
        http.post("/batch/episodes", json={"episodes": [{"environment": "dummy"}]}),
        http.post(f"/episodes/{eid}/submit"),
        http.get("/episodes/ep_nope"),  # the error envelope too
    ]
    for r in answers:
        assert r.headers["content-type"] == "application/json" and r.content.endswith(b"}\n"), r.content[-40:]


def test_every_list_route_refuses_an_unknown_query_parameter(http, api):
    hook = http.post("/webhooks", json={"url": "http://127.0.0.1:9/hook", "events": ["episode.created"]})
    assert hook.status_code == 201, hook.text
    for path in ("/episodes", "/snapshots", "/webhooks", f"/webhooks/{hook.json()['webhook_id']}/deliveries",
                 "/keys"):
        err = assert_error(http.get(path, params={"limit": 5, "bogus": "1"}), 400, "invalid_request")
        assert "'bogus'" in err["message"], (path, err)
        assert http.get(path, params={"limit": 5}).status_code == 200, path
    r = httpx.get(api.removesuffix("/api/v1") + "/v1/environments", params={"bogus": "1"})
    assert r.status_code == 400 and r.json()["error"]["type"] == "invalid_request" and "bogus" in r.text
    http.delete(f"/webhooks/{hook.json()['webhook_id']}")


def test_every_answer_carries_a_request_id_and_the_error_envelope_names_it(http, api):
    a, b = http.get("/environments"), http.get("/environments")
    assert a.headers["x-request-id"].startswith("req_") and a.headers["x-request-id"] != b.headers["x-request-id"]
    mine = http.get("/environments", headers={"x-request-id": "trace-42.a"})
    assert mine.headers["x-request-id"] == "trace-42.a"  # the caller's own id is echoed
    err = http.get("/episodes/ep_nope", headers={"x-request-id": "trace-43"})
    assert err.status_code == 404 and err.json()["error"]["request_id"] == "trace-43"
    err = http.post("/environments/dummy/episodes", content=b"{nope")
    assert err.json()["error"]["request_id"] == err.headers["x-request-id"]
    # a step's answer (the fast path) and 001's envelope on /v1 carry the header too; 001's body stays 001's
    eid = create(http)["episode_id"]
    assert http.post(f"/episodes/{eid}/step", json={"tool": "get", "arguments": {"key": "it-00"}}
                     ).headers["x-request-id"].startswith("req_")
    v1 = httpx.get(api.removesuffix("/api/v1") + "/v1/runs/run_nope")
    assert v1.status_code == 404 and v1.headers["x-request-id"] and set(v1.json()["error"]) == {"type", "message"}
    bad = http.get("/environments", headers={"x-request-id": "x" * 300})  # not an id: a fresh one instead
    assert bad.headers["x-request-id"].startswith("req_")


def test_the_real_apis_errors_keep_their_own_shape_beside_the_request_id(http, api):
    ep = create(http, "codehost")
    r = http.get(f"/episodes/{ep['episode_id']}/tools/api.github.com/repos/acme/nope",
                 headers={"authorization": f"Bearer {ep['tools_token']}"})
    assert r.status_code == 404 and r.headers["x-request-id"].startswith("req_")
    assert "request_id" not in r.text  # GitHub's body, as GitHub writes it
