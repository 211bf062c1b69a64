"""``sandworld eval --agent openai:MODEL`` / ``anthropic:MODEL``: real SDKs, real tool loops,
against model stand-ins on loopback that play each task's reference solution."""

from __future__ import annotations

import orjson
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from sandworld.evaluation.store import Store
from sandworld.evaluation.agents import reference_setup
from sw_runtime.worlds import registry
from tests.client.helpers import fake_messages_api, serve_app
from tests.client.test_eval import run_id_of, sandworld


def fake_chat_completions(plays: dict, seen: list) -> Starlette:
    """An OpenAI Chat Completions stand-in. ``plays`` maps a task's instruction
    to (solution, output): the n-th model turn of that conversation calls the
    n-th step of the solution as a tool call, then answers ``output``."""

    async def completions(request: Request) -> Response:
        body = orjson.loads(await request.body())
        seen.append(body)
        instruction = next(m["content"] for m in body["messages"] if m["role"] == "user")
        solution, output = plays[instruction]
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        message = {"role": "assistant", "content": None}
        if turn < len(solution):
            tool, arguments = solution[turn]
            message["tool_calls"] = [{"id": f"call_{turn}", "type": "function",
                                      "function": {"name": tool, "arguments": orjson.dumps(arguments).decode()}}]
            finish = "tool_calls"
        else:
            message["content"], finish = output, "stop"
        answer = {"id": f"chatcmpl-{turn}", "object": "chat.completion", "created": 0, "model": body["model"],
                  "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                  "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}}
        return Response(orjson.dumps(answer), media_type="application/json")

    return Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])


def plays_for(world: str, tasks: list, seeds: list) -> dict:
    version = registry()[world].version
    out = {}
    for task in tasks:
        for seed in seeds:
            setup = reference_setup(world, version, task, seed)
            out[setup.instruction] = (setup.solution, setup.output)
    return out


@pytest.mark.slow
def test_openai_agent_runs_a_tool_loop_and_the_report_has_pass_hat_k_and_intervals(api, tmp_path):
    seen: list = []
    # one seed: the stand-in knows a task by its instruction, which some tasks word alike on every seed
    with serve_app(fake_chat_completions(plays_for("coinpurse", ["cp-01", "cp-04"], [1]), seen)) as root:
        r = sandworld("eval", "--agent", "openai:fake-model", "--base-url", f"{root}/v1", "--tasks", "cp-01,cp-04",
                      "--seeds", "1", "--trials", "3", "--url", api, "--data-dir", str(tmp_path), "--report",
                      "--no-progress", env={"OPENAI_API_KEY": ""})
    run_id = run_id_of(r)
    assert f"{run_id}: 6/6 passed" in r.stdout
    with Store(tmp_path) as store:
        trials = store.trials(run_id, with_trace=True)
    assert len(trials) == 6 and all(t["pass"] and t["trace"] for t in trials)
    # the model saw the world's tools in the OpenAI shape, and read its calls' results back
    first = seen[0]
    assert first["model"] == "fake-model" and {t["type"] for t in first["tools"]} == {"function"}
    assert "pay_request" in {t["function"]["name"] for t in first["tools"]}
    assert any(m["role"] == "tool" and '"ok": true' in m["content"] for body in seen for m in body["messages"])
    report = (tmp_path / "reports" / f"{run_id}.md").read_text()
    assert "## pass^k" in report and "| task | pass^1 | pass^2 | pass^3 |" in report
    assert "95 % CI" in report and "Wilson" in report and "bootstrap" in report
    assert "k=1 1.00 · k=2 1.00 · k=3 1.00" in r.stdout and "95% CI" in r.stdout


@pytest.mark.slow
def test_anthropic_agent_runs_a_tool_loop(api, tmp_path):
    version = registry()["coinpurse"].version
    setup = reference_setup("coinpurse", version, "cp-04", 1)
    seen: list = []
    with serve_app(fake_messages_api(setup.solution, setup.output, seen)) as root:
        r = sandworld("eval", "--agent", "anthropic:fake-claude", "--base-url", root, "--tasks", "cp-04",
                      "--seeds", "1", "--url", api, "--data-dir", str(tmp_path), "--no-progress",
                      env={"ANTHROPIC_API_KEY": "test-key"})
    run_id = run_id_of(r)
    assert f"{run_id}: 1/1 passed" in r.stdout
    assert seen[0]["model"] == "fake-claude" and "input_schema" in seen[0]["tools"][0]
    assert seen[-1]["messages"][-1]["content"][0]["type"] == "tool_result"


def test_a_model_agent_without_a_model_is_refused(api, tmp_path):
    r = sandworld("eval", "--agent", "openai:", "--url", api, "--data-dir", str(tmp_path))
    assert r.returncode == 2 and "name a model" in r.stderr
