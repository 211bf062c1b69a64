"""Simulated users: the scripted user, and the llm user with replay."""

from __future__ import annotations

import httpx
import pytest

from sw_core_ext import Store
from sw_runtime.worlds import registry
from tests.conftest import running_server
from tests.fakes import fake_model


def setup_of(task_id, seed):
    world = registry()["coinpurse"]
    start = Store(world.generate(seed), collections=world.collections)
    return world.tasks_by_id[task_id].setup(start.fork())


def ask(http, eid, question):
    return http.post(f"/episodes/{eid}/step", json={"tool": "ask_user", "arguments": {"question": question}}).json()


def test_scripted_user_answers_by_topic_deterministically(http):
    setup = setup_of("cp-14", 3)
    ep = http.post("/environments/coinpurse/episodes", json={"task_id": "cp-14", "seed": 3}).json()
    assert "ask_user" in {t["name"] for t in ep["tools"]}
    eid = ep["episode_id"]
    a = ask(http, eid, "How much was your share?")
    assert a["ok"] is True and a["step"] == 1
    assert a["result"]["answer"] == next(iter(setup.hidden_facts.values()))
    b = ask(http, eid, "What is your favourite colour?")
    assert "not sure" in b["result"]["answer"]
    again = http.post("/environments/coinpurse/episodes", json={"task_id": "cp-14", "seed": 3}).json()["episode_id"]
    assert ask(http, again, "How much was your share?")["result"] == a["result"]
    bad = http.post(f"/episodes/{eid}/step", json={"tool": "ask_user", "arguments": {"q": "x"}}).json()
    assert bad["ok"] is False and bad["error"]["code"] == "invalid_arguments"


def test_tasks_without_hidden_facts_have_no_ask_user(http):
    ep = http.post("/environments/coinpurse/episodes", json={"task_id": "cp-04", "seed": 3}).json()
    assert "ask_user" not in {t["name"] for t in ep["tools"]}
    r = http.post(f"/episodes/{ep['episode_id']}/step", json={"tool": "ask_user", "arguments": {"question": "hi"}})
    assert r.json()["error"]["code"] == "unknown_tool"


def test_llm_user_needs_a_model(http):
    r = http.post("/environments/coinpurse/episodes", json={"task_id": "cp-14", "seed": 3, "user_simulator": "llm"})
    assert r.status_code == 400 and "SW_USER_SIM" in r.json()["error"]["message"]


def test_llm_user_is_asked_once_and_replays_without_the_model():
    setup = setup_of("cp-14", 3)
    fact = next(iter(setup.hidden_facts.values()))

    def person(messages):
        system = messages[0]["content"]
        assert fact in system and setup.instruction in system
        return f"It was {len(messages)} messages in: {fact}"

    with fake_model(person) as model:
        env = {"SW_USER_SIM": "sim-1", "SW_USER_SIM_URL": model.url}
        with running_server(env=env) as url, httpx.Client(base_url=url) as http:
            def play():
                ep = http.post("/environments/coinpurse/episodes",
                               json={"task_id": "cp-14", "seed": 3, "user_simulator": "llm"}).json()
                eid = ep["episode_id"]
                first = ask(http, eid, "How much should I send?")
                batch = http.post("/batch", json={"calls": [
                    {"episode_id": eid, "tool": "ask_user", "arguments": {"question": "Are you sure?"}},
                    {"episode_id": eid, "tool": "get_balance"},
                ]}).json()["results"]
                got = http.get(f"/episodes/{eid}").json()
                return first, batch, got

            first, batch, got = play()
            assert first["ok"] and fact in first["result"]["answer"]
            assert batch[0]["ok"] and batch[0]["step"] == 2 and batch[1]["step"] == 3
            assert got["user_simulator"] == "llm"
            assert [e["result"]["answer"] for e in got["trace"][:2]] == [first["result"]["answer"],
                                                                         batch[0]["result"]["answer"]]
            assert len(model.requests) == 2
            second_prompt = model.requests[1]["messages"]
            assert [m["role"] for m in second_prompt] == ["system", "user", "assistant", "user"]
            assert second_prompt[1]["content"] == "How much should I send?"

            # Replaying the same calls reproduces the same replies and digests, without the model.
            model.reply = None
            first2, batch2, got2 = play()
            assert first2["result"] == first["result"] and batch2[0]["result"] == batch[0]["result"]
            assert [e["state_digest"] for e in got2["trace"]] == [e["state_digest"] for e in got["trace"]]
            assert len(model.requests) == 2

            # A question never asked before needs the model, which now fails: 503 for that call only.
            ep = http.post("/environments/coinpurse/episodes",
                           json={"task_id": "cp-14", "seed": 3, "user_simulator": "llm"}).json()
            r = http.post(f"/episodes/{ep['episode_id']}/step",
                          json={"tool": "ask_user", "arguments": {"question": "Something new?"}})
            assert r.status_code == 503 and r.json()["error"]["code"] == "user_simulator_unavailable"
            res = http.post("/batch", json={"calls": [
                {"episode_id": ep["episode_id"], "tool": "ask_user", "arguments": {"question": "Another?"}},
                {"episode_id": ep["episode_id"], "tool": "get_balance"},
            ]}).json()["results"]
            assert res[0]["ok"] is False and res[0]["error"]["code"] == "user_simulator_unavailable"
            assert res[0]["episode_id"] == ep["episode_id"] and res[1]["ok"] and res[1]["step"] == 1


@pytest.mark.slow
def test_user_simulator_takes_a_model_and_refuses_unknown_ones_at_create():
    setup = setup_of("cp-14", 3)
    fact = next(iter(setup.hidden_facts.values()))
    with fake_model(lambda messages: f"Sure: {fact}", models=["sim-1", "sim-2"]) as model:
        env = {"SW_USER_SIM_URL": model.url, "SW_USER_SIM_KEY": "k-123"}
        with running_server(env=env) as url, httpx.Client(base_url=url) as http:
            create = {"task_id": "cp-14", "seed": 3}
            ep = http.post("/environments/coinpurse/episodes", json={**create, "user_simulator": {"model": "sim-2"}})
            assert ep.status_code == 201, ep.text
            assert ep.json()["user_simulator"] == "llm"
            assert fact in ask(http, ep.json()["episode_id"], "How much?")["result"]["answer"]
            assert model.requests[-1]["model"] == "sim-2"
            assert model.headers[-1]["authorization"] == "Bearer k-123"

            unknown = http.post("/environments/coinpurse/episodes", json={**create, "user_simulator": {"model": "gpt-9"}})
            assert unknown.status_code == 400 and "'gpt-9'" in unknown.json()["error"]["message"]
            assert "sim-1" in unknown.json()["error"]["message"]  # what the endpoint does serve
            word = http.post("/environments/coinpurse/episodes", json={**create, "user_simulator": "gpt-9"})
            assert word.status_code == 400 and '{"model"' in word.json()["error"]["message"]
            # "llm" without SW_USER_SIM names no model
            llm = http.post("/environments/coinpurse/episodes", json={**create, "user_simulator": "llm"})
            assert llm.status_code == 400 and "SW_USER_SIM" in llm.json()["error"]["message"]
            # batch create: the bad item fails in its slot, the good one starts
            results = http.post("/batch/episodes", json={"episodes": [
                {"environment": "coinpurse", **create, "user_simulator": {"model": "gpt-9"}},
                {"environment": "coinpurse", **create, "user_simulator": {"model": "sim-1"}},
            ]}).json()["results"]
            assert results[0]["ok"] is False and results[0]["error"]["code"] == "invalid_request"
            assert results[1]["episode_id"].startswith("ep_")


@pytest.mark.slow
def test_an_unreachable_user_simulator_is_a_503_at_create():
    from sandworld.local import free_port

    env = {"SW_USER_SIM_URL": f"http://127.0.0.1:{free_port()}/v1"}  # nothing listens there
    with running_server(env=env) as url, httpx.Client(base_url=url) as http:
        r = http.post("/environments/coinpurse/episodes",
                      json={"task_id": "cp-14", "seed": 3, "user_simulator": {"model": "sim-1"}})
        assert r.status_code == 503 and r.json()["error"]["code"] == "user_simulator_unavailable"
        assert "SW_USER_SIM_URL" in r.json()["error"]["message"]
    with running_server() as url, httpx.Client(base_url=url) as http:  # no endpoint configured at all
        r = http.post("/environments/coinpurse/episodes",
                      json={"task_id": "cp-14", "seed": 3, "user_simulator": {"model": "sim-1"}})
        assert r.status_code == 400 and "SW_USER_SIM_URL" in r.json()["error"]["message"]


@pytest.mark.slow
def test_the_llm_user_speaks_the_anthropic_messages_api():
    setup = setup_of("cp-14", 3)
    fact = next(iter(setup.hidden_facts.values()))

    def person(messages):
        assert messages[0]["role"] == "system" and fact in messages[0]["content"]
        return f"It is {fact}"

    with fake_model(person, models=["claude-sim"]) as model:
        root = model.url.removesuffix("/v1")  # the Anthropic SDK's base URL convention
        env = {"SW_USER_SIM_URL": root, "SW_USER_SIM_API": "anthropic", "SW_USER_SIM_KEY": "sk-ant"}
        with running_server(env=env) as url, httpx.Client(base_url=url) as http:
            ep = http.post("/environments/coinpurse/episodes",
                           json={"task_id": "cp-14", "seed": 3, "user_simulator": {"model": "claude-sim"}}).json()
            answer = ask(http, ep["episode_id"], "How much?")
            assert answer["ok"] and fact in answer["result"]["answer"]
            body, headers = model.requests[-1], model.headers[-1]
            assert body["model"] == "claude-sim" and "system" in body and body["max_tokens"] > 0
            assert headers["x-api-key"] == "sk-ant" and headers["anthropic-version"]
