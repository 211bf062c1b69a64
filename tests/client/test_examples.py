"""Each example in clients/python/examples runs against a real server, as a
user runs it: a script, with the server URL in SANDWORLD_API_URL."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

from sandworld.evaluation.agents import reference_setup
from sw_core_ext import Store
from sw_runtime.worlds import registry
from tests.client.helpers import fake_messages_api, serve_app
from sandworld.local import free_port

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "clients" / "python" / "examples"


def example(name: str, *args: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    full.update(env or {})
    full["COLUMNS"] = "160"
    return subprocess.run([sys.executable, str(EXAMPLES / name), *args], capture_output=True, text=True,
                          timeout=timeout, env=full)


def test_grpo_rollouts_runs(api):
    r = example("grpo_rollouts.py", "--tasks", "cp-02,cp-12", "--seeds", "0-1", "--group", "8",
                env={"SANDWORLD_API_URL": api})
    assert r.returncode == 0, r.stderr
    assert "reward = score + shaping from signals" in r.stdout
    rows = re.findall(r"│ (cp-\d\d) +│ +(\d) │ +(\d)/8 │", r.stdout)
    assert sorted((task, seed) for task, seed, _ in rows) == [("cp-02", "0"), ("cp-02", "1"), ("cp-12", "0"),
                                                             ("cp-12", "1")]
    assert "32 rollouts in 4 groups" in r.stdout
    assert re.search(r"[1-4] groups have a learning signal", r.stdout)


def test_grpo_rollouts_from_a_forked_prefix_runs(api):
    r = example("grpo_rollouts.py", "--tasks", "cp-12", "--seeds", "2", "--group", "4", "--from-prefix", "2",
                env={"SANDWORLD_API_URL": api})
    assert r.returncode == 0, r.stderr
    assert "4 rollouts in 1 groups" in r.stdout


def test_batch_rollouts_steps_1000_episodes(api):
    r = example("batch_rollouts.py", "--episodes", "1000", env={"SANDWORLD_API_URL": api})
    assert r.returncode == 0, r.stderr
    assert "episodes: 1000" in r.stdout and "passed: 1000/1000" in r.stdout and "refused calls: none" in r.stdout


def test_anthropic_agent_is_skipped_without_a_key(api):
    r = example("anthropic_agent.py", env={"SANDWORLD_API_URL": api})
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("skipped:") and ("ANTHROPIC_API_KEY is not set" in r.stdout
                                                or "anthropic package is not installed" in r.stdout)


def test_anthropic_agent_is_skipped_when_the_api_is_unreachable(api):
    closed = f"http://127.0.0.1:{free_port()}"
    r = example("anthropic_agent.py", env={"SANDWORLD_API_URL": api, "ANTHROPIC_API_KEY": "sk-test",
                                           "ANTHROPIC_BASE_URL": closed})
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("skipped: the Anthropic API is unreachable")


def test_anthropic_agent_loop_solves_a_task_against_a_stand_in_model(api):
    """The loop of the API reference, end to end: a local Messages API plays
    the reference solution as tool_use blocks; the example runs each block as
    a step, feeds results back and submits the model's final text."""
    world = registry()["coinpurse"]
    digest = Store(world.generate(2), collections=world.collections).digest()
    setup = reference_setup("coinpurse", world.version, "cp-12", 2, digest)
    seen: list = []
    with serve_app(fake_messages_api(setup.solution, setup.output, seen)) as model_url:
        r = example("anthropic_agent.py", "--task", "cp-12", "--seed", "2", "--model", "stand-in",
                    env={"SANDWORLD_API_URL": api, "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": model_url})
    assert r.returncode == 0, r.stderr
    assert "cp-12 seed 2: pass=True score=1.0" in r.stdout
    first = seen[0]
    assert first["model"] == "stand-in" and first["system"] and first["messages"][0]["content"].startswith("Luca")
    assert all(set(t) >= {"name", "description", "input_schema"} for t in first["tools"])
    last = seen[-1]["messages"][-1]["content"]
    assert last[0]["type"] == "tool_result" and last[0]["tool_use_id"] == f"toolu_{len(setup.solution) - 1:03d}"
    assert len(seen) == len(setup.solution) + 1
