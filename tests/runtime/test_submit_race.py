"""Submit is atomic: while the judge scores an episode it is `submitting`,
and steps, forks and a second submit answer 409, so the judge is called once;
/batch/submit honours Idempotency-Key (real servers, a real local judge)."""

from __future__ import annotations

import threading
import time

import httpx

from tests.conftest import running_server
from tests.fakes import fake_model
from tests.runtime.test_api import assert_error, create


def test_a_submit_waiting_on_the_judge_refuses_steps_forks_and_a_second_submit():
    def slow_judge(messages):
        time.sleep(1.5)
        return "yes\nFine."

    with fake_model(slow_judge) as model:
        env = {"SW_JUDGE_URL": model.url, "SW_JUDGE_MODEL": "judge-1"}
        with running_server(env=env) as url, httpx.Client(base_url=url, timeout=30) as http:
            eid = create(http, "coinpurse", checks=[{"kind": "rubric", "text": "Polite?"}])["episode_id"]
            first = {}
            t = threading.Thread(target=lambda: first.update(r=http.post(f"/episodes/{eid}/submit",
                                                                          json={"output": "Thanks!"})))
            t.start()
            time.sleep(0.5)  # the judge is thinking
            assert http.get(f"/episodes/{eid}").json()["status"] == "submitting"
            assert_error(http.post(f"/episodes/{eid}/step", json={"tool": "get_balance"}), 409, "episode_submitting")
            assert_error(http.post(f"/episodes/{eid}/fork", json={"n": 1}), 409, "episode_submitting")
            assert_error(http.post(f"/episodes/{eid}/submit", json={"output": "Other"}), 409, "episode_submitting")
            res = http.post("/batch", json={"calls": [{"episode_id": eid, "tool": "get_balance"}]}).json()
            assert res["results"][0]["error"]["code"] == "episode_submitting"
            t.join()
            ev = first["r"].json()
            assert first["r"].status_code == 200 and ev["pass"] is True
            assert len(model.requests) == 1  # the judge was asked once
            got = http.get(f"/episodes/{eid}").json()
            assert got["status"] == "submitted" and got["evaluation"]["score"] == ev["score"] and got["steps"] == 0


def test_batch_submit_retried_with_its_key_answers_the_first_scores(http):
    ids = [create(http, task_id="dm-01", seed=900 + i)["episode_id"] for i in range(3)]
    http.post(f"/episodes/{ids[0]}/step", json={"tool": "set", "arguments": {"key": "it-01", "value": 11}})
    body = {"episodes": [{"episode_id": e, "output": "done"} for e in ids]}
    key = {"Idempotency-Key": "batch-submit-1"}
    first = http.post("/batch/submit", json=body, headers=key)
    again = http.post("/batch/submit", json=body, headers=key)
    assert first.status_code == again.status_code == 200
    assert again.headers["idempotent-replayed"] == "true" and again.json() == first.json()
    assert [r["episode_id"] for r in first.json()["results"]] == ids
    assert all("score" in r for r in first.json()["results"])
    unkeyed = http.post("/batch/submit", json=body).json()["results"]  # the same body without a key
    assert unkeyed == first.json()["results"]  # submitted already: the same scores, not scored again
    assert_error(http.post("/batch/submit", json={"episodes": []}, headers=key), 409, "idempotency_key_reused")
