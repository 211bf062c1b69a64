"""TRL: the environment_factory class, its schemas and a rollout, as GRPOTrainer runs them.

TRL itself installs torch, which CI never does. Its tool-schema path does not
need it: GRPOTrainer (trl 1.16, trainer/grpo_trainer.py, ``__init__`` and
``_generate_and_score_completions``) makes one instance with no arguments,
lists the public functions of its class (except ``reset`` and
``get_reward``) as tools, renders each with ``transformers.utils.get_json_schema``
(through ``apply_chat_template(tools=…)``), calls ``reset(**row)`` per row,
calls ``tools[name](**arguments)`` for each tool call and appends ``str(result)``,
and passes ``environments=`` to the reward functions. These tests do exactly
that, with transformers installed.
"""

from __future__ import annotations

import inspect

import pytest
from transformers.utils import get_json_schema

from sandworld.integrations import _schema
from sandworld.integrations.trl import PROMPT, dataset_rows, environment_class, reward_func
from sandworld.tools import model_name
from sw_runtime.worlds import get_world
from tests.integrations.helpers import every_tool, reference


@pytest.fixture
def made():
    """``environment_class`` for the test, each class's connections closed after it."""
    classes = []

    def make(world, api):
        classes.append(environment_class(world, base_url=api))
        return classes[-1]

    yield make
    for cls in classes:
        cls.close()


def trl_tools(instance) -> dict:
    """The tool dict GRPOTrainer builds for one environment instance."""
    return {member: getattr(instance, member)
            for member, _ in inspect.getmembers(type(instance), predicate=inspect.isfunction)
            if member not in ("reset", "get_reward") and not member.startswith("_")}


def _restored(schema_prop: dict) -> dict:
    """A property as the model sees it: the schema keys plus the constraints in the description."""
    out = {k: v for k, v in schema_prop.items() if k not in ("description", "nullable")}
    out.update(_schema.parse_note(schema_prop.get("description", "")))
    return out


def test_every_tool_of_every_world_keeps_every_constraint_through_get_json_schema(api, made):
    by_world = {}
    for world, tool in every_tool(api):
        by_world.setdefault(world, []).append(tool)
    for world, tools in by_world.items():
        instance = made(world, api)()
        methods = trl_tools(instance)
        assert set(methods) == {model_name(t["name"]) for t in tools}
        for tool in tools:
            schema = get_json_schema(methods[model_name(tool["name"])])["function"]
            assert schema["description"] == " ".join(tool["description"].split())
            served = tool["parameters"]
            assert sorted(schema["parameters"].get("required", [])) == sorted(served.get("required", []))
            for name, prop in served["properties"].items():
                flat, _ = _schema.flatten(prop)
                flat.pop("description", None)
                got = _restored(schema["parameters"]["properties"][name])
                assert got == flat, (world, tool["name"], name)
                assert schema["parameters"]["properties"][name]["description"].startswith(
                    " ".join(prop.get("description", "").split())[:40])


def test_constraints_like_maxlength_and_minimum_reach_the_schema(api, made):
    instance = made("coinpurse", api)()
    schema = get_json_schema(instance.add_contact)["function"]["parameters"]["properties"]["name"]
    assert schema["type"] == "string" and '"maxLength":80' in schema["description"]
    qb = made("quickbasket", api)()
    refund = get_json_schema(qb.request_refund)["function"]["parameters"]["properties"]
    assert refund["reason"]["enum"] == ["changed_mind", "damaged", "expired", "missing", "quality", "wrong_item"]
    assert _schema.parse_note(refund["items"]["description"])["items"]["properties"]["quantity"]["minimum"] == 1


def test_a_scripted_rollout_scores_one_as_grpo_trainer_drives_it(api, made):
    factory = made("coinpurse", api)
    instance = factory()
    (row,) = [r for r in dataset_rows("coinpurse", seeds=[1], base_url=api) if r["task_id"] == "cp-04"]
    assert row["prompt"] == [{"role": "user", "content": PROMPT}] and row["seed"] == 1
    observation = instance.reset(**row)
    assert isinstance(observation, str) and "Policy:" in observation
    setup = reference("coinpurse", instance._env.observation)
    assert setup.instruction in observation
    tools = trl_tools(instance)
    completion = []
    for tool, arguments in setup.solution:
        result = str(tools[model_name(tool)](**arguments))
        assert result.startswith('{"ok":true')
        completion += [{"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {
            "name": model_name(tool), "arguments": arguments}}]}, {"role": "tool", "name": tool, "content": result}]
    completion.append({"role": "assistant", "content": setup.output})
    assert reward_func(completions=[completion], environments=[instance], prompts=[row["prompt"]]) == [1.0]


def test_a_refused_call_is_an_answer_and_no_answer_earns_only_the_do_nothing_share(api, made):
    instance = made("coinpurse", api)()
    instance.reset(task_id="cp-04", seed=1, prompt=[])
    answer = instance.add_contact(handle="not a handle", name="X")
    assert answer.startswith('{"ok":false,"error":')
    # Under the default "share" rule a do-nothing run keeps the weight of the checks that
    # already hold at the start (docs/VERIFY.md): 0.2 on cp-04, never the task's 1.0.
    assert reward_func([[{"role": "assistant", "content": ""}]], environments=[instance]) == [0.2]


def test_reward_func_needs_the_environments():
    with pytest.raises(ValueError, match="environment_factory"):
        reward_func(["answer"])


def test_a_composite_episode_is_one_trl_environment_with_both_worlds_tools(api, made):
    factory = made(["codehost", "offsite-planning"], api)
    instance = factory()
    tools = trl_tools(instance)
    served = get_world("codehost+offsite-planning").served  # the solution names tools by their aliases
    assert {"pulls_merge", "slack_chat_postMessage"} <= set(tools)
    for name in ("pulls_merge", "slack_chat_postMessage"):
        get_json_schema(tools[name])  # GRPOTrainer renders every tool so
    observation = instance.reset(task_id="xa-01", seed=3, prompt=[])
    setup = reference("codehost+offsite-planning", instance._env.observation)
    assert setup.instruction in observation
    completion = []
    for tool, arguments in setup.solution:
        result = str(tools[served(tool)](**arguments))
        assert result.startswith('{"ok":true'), result
        completion.append({"role": "tool", "name": tool, "content": result})
    completion.append({"role": "assistant", "content": setup.output})
    assert reward_func(completions=[completion], environments=[instance]) == [1.0]


def test_a_rows_episode_options_reach_the_episode(api, made):
    instance = made("coinpurse", api)()
    instance.reset(task_id="cp-01", seed=0, prompt=[{"role": "user", "content": PROMPT}], scoring="informative",
                   signals=True, fault_profile="timeout_before_commit")
    obs = instance._env.observation
    assert obs["scoring"] == "informative" and obs["signals"] is True and obs["fault_profile"] == "timeout_before_commit"
    held = instance._env.episode()  # as the server holds it
    assert held["scoring"] == "informative" and held["signals"] is True


def test_tool_results_are_capped_for_the_completion_budget(api, made):
    cls = made("coinpurse", api)
    cls.max_result_chars = 200  # TRL counts tool results in max_completion_length
    instance = cls()
    instance.reset(task_id="cp-01", seed=0)
    text = instance.list_transactions()
    assert len(text) < 300 and "characters cut" in text


def test_get_reward_is_trls_hook_only_when_asked_and_scores_the_episode(api, made):
    plain = made("coinpurse", api)
    assert "get_reward" not in dict(inspect.getmembers(plain, predicate=inspect.isfunction))  # no second column
    cls = environment_class("coinpurse", base_url=api, get_reward=True)
    try:
        instance = cls()
        # GRPOTrainer (trl 1.16, __init__): a class function named get_reward makes the env own the reward
        members = dict(inspect.getmembers(type(instance), predicate=inspect.isfunction))
        assert "get_reward" in members and "get_reward" not in trl_tools(instance)
        instance.reset(task_id="cp-04", seed=1, prompt=[], scoring="informative")
        setup = reference("coinpurse", instance._env.observation)
        tools = trl_tools(instance)
        for tool, arguments in setup.solution:
            assert str(tools[model_name(tool)](**arguments)).startswith('{"ok":true')
        reward = instance.get_reward()
        assert reward == instance._env.evaluation["score"] and instance._env.evaluation["scoring"] == "informative"
        assert reward == 1.0 and instance.get_reward() == 1.0  # submitted once
    finally:
        cls.close()


def test_batched_tools_are_async_and_one_turns_calls_go_out_as_one_batch(api):
    # GRPOTrainer (trl 1.16, _tool_call_loop) sorts tool methods with inspect.iscoroutinefunction and, for
    # each rollout, runs the async calls of its turn with asyncio.gather on its daemon event loop
    # (run_coroutine_threadsafe(...).result()), then goes on to the next rollout.
    import asyncio
    import threading

    cls = environment_class("coinpurse", base_url=api, batch=True)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        rollouts = [cls() for _ in range(2)]
        for env in rollouts:
            env.reset(task_id="cp-04", seed=1, prompt=[])
        setup = reference("coinpurse", rollouts[0]._env.observation)
        for env in rollouts:
            tools = trl_tools(env)
            assert all(inspect.iscoroutinefunction(t) for t in tools.values())
            get_json_schema(tools["list_requests"])  # still renders as a tool

            async def turn(tools=tools):
                return await asyncio.gather(*(tools[model_name(t)](**a) for t, a in setup.solution),
                                            return_exceptions=True)

            results = asyncio.run_coroutine_threadsafe(turn(), loop).result()
            assert all(str(r).startswith('{"ok":true') for r in results), results
        assert cls._batcher.requests == 2 and cls._batcher.calls == 2 * len(setup.solution)
        assert reward_func([[{"role": "assistant", "content": setup.output}]] * 2, environments=rollouts) == [1.0] * 2
    finally:
        asyncio.run_coroutine_threadsafe(cls.aclose(), loop).result()
        cls.close()
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()
