"""verl: ``to_verl`` against verl's tool-schema model, and the agent loop on verl's own code.

verl cannot be imported without torch, which CI never installs, so verl (the
release the client's ``verl`` extra pins) is installed with ``--no-deps`` and
its files are loaded by ``verl_source``: ``verl/tools/schemas.py`` as it is,
and the agent-loop classes (``AgentLoopBase`` with its Continuous Token
helpers, ``AgentLoopOutput``, ``register``) from ``agent_loop.py``'s own
source. ``SW_TEST_VERL_ROOT`` points the tests at another verl tree (an
unpacked wheel's ``verl/``), which is how the releases were compared.
"""

from __future__ import annotations

import ast
import asyncio
import importlib.util
import re
import sys
import types

import httpx
import pytest

from sandworld import AsyncSandworldClient
from sandworld.integrations.verl import AGENT_NAME, VerlEpisode, to_verl
from sandworld.tools import served_name
from tests.integrations import verl_source
from tests.integrations.helpers import hermes, every_tool, reference


def verl_model():
    """verl's ``OpenAIFunctionToolSchema``, from its own ``verl/tools/schemas.py``."""
    root = verl_source.verl_root()
    if root is None:
        pytest.skip("verl is not installed: pip install --no-deps 'verl==0.9.1'")
    spec = importlib.util.spec_from_file_location("_verl_tool_schemas", root / "tools" / "schemas.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # it imports pydantic only
    return module.OpenAIFunctionToolSchema


def test_the_served_schemas_are_what_verl_refuses(api):
    refused = [t for _, t in every_tool(api) if not _valid_raw(t)]
    assert refused, "no served tool needs converting: the to_verl test below proves nothing"


def _valid_raw(tool) -> bool:
    try:
        verl_model().model_validate({"type": "function", "function": tool})
        return True
    except Exception:
        return False


def test_verls_model_accepts_every_tool_of_every_world_and_enums_and_descriptions_are_kept(api):
    model = verl_model()
    tools = every_tool(api)
    assert {world for world, _ in tools} >= {"coinpurse", "quickbasket", "offsite-planning"}
    for world, tool in tools:
        (converted,) = to_verl([tool])
        parsed = model.model_validate(converted)
        assert served_name(parsed.function.name) == tool["name"]
        for name, prop in tool["parameters"]["properties"].items():
            out = parsed.function.parameters.properties[name]
            assert isinstance(out.type, str), (world, tool["name"], name)
            assert out.description.startswith(prop.get("description", "")), (tool["name"], name)
            enum = prop.get("enum") or next((v["enum"] for v in prop.get("anyOf", []) if "enum" in v), None)
            assert out.enum == enum, (tool["name"], name)
        assert parsed.function.parameters.required == tool["parameters"].get("required", [])


def test_an_optional_argument_is_flattened_to_its_type():
    tool = {"name": "list_contacts", "description": "d", "parameters": {"type": "object", "properties": {
        "query": {"description": "text", "anyOf": [{"type": "string", "maxLength": 9}, {"type": "null"}],
                  "default": None}}, "required": []}}
    (out,) = to_verl([tool])
    prop = out["function"]["parameters"]["properties"]["query"]
    assert prop["type"] == "string" and prop["description"] == 'text JSON Schema: {"default":null,"maxLength":9}'


def test_the_episode_an_agent_loop_drives_scores_one_with_a_scripted_policy(api):
    async def rollout():
        async with AsyncSandworldClient(api) as client:
            episode = VerlEpisode(client, "coinpurse")
            obs = await episode.start(task_id="cp-04", seed=1)
            assert [m["role"] for m in episode.messages()] == ["system", "user"]
            setup = reference("coinpurse", obs)
            for tool, arguments in setup.solution:
                (message,) = await episode.act(hermes(tool, arguments))
                assert message["role"] == "tool" and '"ok":true' in message["content"]
            assert await episode.act(setup.output) == []  # no tool call: the answer is final
            return await episode.finish(setup.output)

    assert asyncio.run(rollout()) == 1.0
    assert AGENT_NAME == "sandworld_agent"


# -- the agent loop on verl's own AgentLoopBase -------------------------------------------------
# verl_source loads AgentLoopBase (its ct_build_initial_tokens, ct_merge_assistant_token and
# ct_merge_context_msg, on verl's own ContinuousTokenBuilder), AgentLoopOutput and register from the
# installed verl's files; the tokenizer is a real fast tokenizer (one token per byte) with a chat
# template. The model is scripted: server_manager.generate answers token_ids and log_probs, as verl's
# TokenOutput does.


class _Server:
    """``server_manager``: each generate answers the next scripted turn, with a logprob per token."""

    def __init__(self, tokenizer, turns, together=None):
        self.tokenizer, self.turns, self.logprobs, self.together = tokenizer, list(turns), [], together

    async def generate(self, request_id, prompt_ids, sampling_params, **multimodal):
        assert sampling_params == {"temperature": 1.0} and isinstance(prompt_ids, list)
        if self.together is not None:
            await self.together.wait()  # one batched generation answers every sample's turn
        ids = self.tokenizer.encode(self.turns.pop(0) + "<|end|>\n")
        logprobs = [-(len(self.logprobs) + i + 1) / 1000 for i in range(len(ids))]
        self.logprobs += logprobs
        return types.SimpleNamespace(token_ids=ids, log_probs=logprobs, num_preempted=None, extra_fields={},
                                     routed_experts=None)


@pytest.fixture
def loop_cls(api, monkeypatch):
    """``SandworldAgentLoop`` built on the installed verl's own agent-loop code."""
    import sandworld.integrations.verl as module

    if verl_source.verl_root() is None:
        pytest.skip("verl is not installed: pip install --no-deps 'verl==0.9.1'")
    verl = verl_source.verl_agent_loop(monkeypatch)
    monkeypatch.setenv("SANDWORLD_API_URL", api)
    cls = module._build_agent_loop()
    assert verl._agent_loop_registry[AGENT_NAME] == {"_target_": "sandworld.integrations.verl.SandworldAgentLoop"}
    return cls


async def _closed(cls, result):
    """``result``, after closing the loop class's client in the event loop that made it."""
    await cls._client.aclose()
    return result


def _make(cls, server, tokenizer, **config):
    trainer, data = verl_source.config(**config)
    return cls(trainer, server, tokenizer, None, object, data)


async def _script(api, task_id="cp-04", seed=1):
    async with AsyncSandworldClient(api) as client:
        probe = VerlEpisode(client, "coinpurse")
        setup = reference("coinpurse", await probe.start(task_id=task_id, seed=seed))
    return setup, [hermes(tool, arguments) for tool, arguments in setup.solution] + [setup.output]


def test_the_pinned_verl_has_the_api_the_loop_calls():
    # verl 0.7 and 0.8 have no Continuous Token helpers on AgentLoopBase, 0.9.0 has no
    # ct_merge_context_msg: 0.9.1 is the first release with all three.
    if verl_source.verl_root() is None:
        pytest.skip("verl is not installed")
    base = verl_source.agent_loop_source(verl_source.verl_root())["AgentLoopBase"]
    methods = {n.name: [a.arg for a in n.args.args + n.args.kwonlyargs] for n in base.body
               if isinstance(n, ast.AsyncFunctionDef)}
    assert methods.get("ct_build_initial_tokens", [])[:3] == ["self", "messages", "tools"], verl_source.verl_version()
    assert methods.get("ct_merge_assistant_token") == ["self", "runtime_token_ids", "assistant_token_ids",
                                                       "response_mask", "response_logprobs", "assistant_logprobs"]
    assert methods.get("ct_merge_context_msg") == ["self", "previous_messages", "updated_messages",
                                                   "runtime_token_ids", "response_mask", "response_logprobs", "tools"]
    pyproject = (verl_source.pathlib.Path(__file__).resolve().parents[2] / "clients/python/pyproject.toml").read_text()
    assert re.search(r'verl = \["verl>=0\.9\.1,<0\.10"\]', pyproject)


def test_the_agent_loop_runs_an_episode_to_its_score_with_verls_own_base(api, loop_cls):
    tokenizer = verl_source.byte_tokenizer()

    async def rollout():
        setup, turns = await _script(api)
        server = _Server(tokenizer, turns)
        loop = _make(loop_cls, server, tokenizer)
        out = await loop.run({"temperature": 1.0}, raw_prompt=[], data_source="sandworld",
                             extra_info={"environment": "coinpurse", "task_id": "cp-04", "seed": 1})
        return await _closed(loop_cls, (out, setup, server))

    out, setup, server = asyncio.run(rollout())
    assert out.reward_score == 1.0 and out.num_turns == 2 * (len(setup.solution) + 1)
    assert len(out.response_ids) == len(out.response_mask) == len(out.response_logprobs)
    generated = tokenizer.decode([t for t, m in zip(out.response_ids, out.response_mask) if m == 1])
    assert generated.endswith(setup.output + "<|end|>\n") and generated.count("<tool_call>") == len(setup.solution)
    tool_text = tokenizer.decode([t for t, m in zip(out.response_ids, out.response_mask) if m == 0])
    assert tool_text.count("<|tool|>") == len(setup.solution) and '"ok":true' in tool_text
    # the logprobs of the generated tokens, in order, and 0.0 on the tool tokens (verl's ToolAgentLoop)
    assert [lp for lp, m in zip(out.response_logprobs, out.response_mask) if m == 1] == server.logprobs
    assert {lp for lp, m in zip(out.response_logprobs, out.response_mask) if m == 0} == {0.0}
    assert "<|user|>" in tokenizer.decode(out.prompt_ids)
    assert out.extra_fields["tool_rewards"] == [] and out.extra_fields["turn_scores"] == []


def test_a_rows_episode_options_reach_the_episode_and_signals_give_tool_rewards(api, loop_cls):
    tokenizer = verl_source.byte_tokenizer()

    async def rollout():
        setup, turns = await _script(api, "cp-04", 1)
        loop = _make(loop_cls, _Server(tokenizer, turns), tokenizer)
        out = await loop.run({"temperature": 1.0}, raw_prompt=[], extra_info={
            "environment": "coinpurse", "task_id": "cp-04", "seed": 1, "scoring": "informative",
            "signals": True, "agent_name": "verl-options"})
        return await _closed(loop_cls, (out, setup))

    out, setup = asyncio.run(rollout())
    episode = httpx.get(f"{api}/episodes/{out.extra_fields['episode_id']}").json()
    assert episode["scoring"] == "informative" and episode["signals"] is True
    assert episode["agent_name"] == "verl-options"
    rewards = out.extra_fields["tool_rewards"]
    assert len(rewards) == len(setup.solution) and sum(rewards) > 0  # progress_delta per call, verl's tool reward
    trace = [e["signals"]["progress_delta"] for e in episode["trace"]]
    assert rewards == trace


def test_concurrent_samples_share_batch_requests(api, loop_cls):
    tokenizer = verl_source.byte_tokenizer()

    async def rollouts(n):
        setup, turns = await _script(api)
        together = asyncio.Barrier(n)
        loops = [_make(loop_cls, _Server(tokenizer, turns, together), tokenizer) for _ in range(n)]
        outs = await asyncio.gather(*(loop.run({"temperature": 1.0}, raw_prompt=[], extra_info={
            "environment": "coinpurse", "task_id": "cp-04", "seed": 1, "batch_window": 0.02}) for loop in loops))
        return await _closed(loop_cls, (outs, setup))

    outs, setup = asyncio.run(rollouts(8))
    assert [o.reward_score for o in outs] == [1.0] * 8
    batcher = loop_cls._batcher
    assert batcher.calls == 8 * len(setup.solution) and batcher.requests <= 2 * len(setup.solution)


@pytest.mark.parametrize("window", [0, 0.002], ids=["per step", "batched"])
def test_a_sample_that_uses_up_the_step_limit_is_submitted_not_crashed(monkeypatch, window):
    # verl's ToolAgentLoop turns a tool's failure into text and goes on; a Sandworld episode past its
    # step limit takes no more calls, so the loop ends the sample there and submits it.
    from sandworld.local import local_server

    import sandworld.integrations.verl as module

    if verl_source.verl_root() is None:
        pytest.skip("verl is not installed")
    verl_source.verl_agent_loop(monkeypatch)
    tokenizer = verl_source.byte_tokenizer()
    with local_server("--step-limit", "2") as url:
        monkeypatch.setenv("SANDWORLD_API_URL", url)
        cls = module._build_agent_loop()

        async def rollout():
            setup, turns = await _script(url)
            loop = _make(cls, _Server(tokenizer, turns), tokenizer)
            out = await loop.run({"temperature": 1.0}, raw_prompt=[], extra_info={
                "environment": "coinpurse", "task_id": "cp-04", "seed": 1, "batch_window": window})
            return await _closed(cls, (out, setup))

        out, setup = asyncio.run(rollout())
        episode = httpx.get(f"{url}/episodes/{out.extra_fields['episode_id']}").json()
    assert len(setup.solution) > 2 and episode["steps"] == 2 and episode["evaluation"] is not None
    assert out.reward_score == episode["evaluation"]["score"] < 1.0
