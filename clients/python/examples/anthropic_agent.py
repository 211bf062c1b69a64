"""Claude as the agent: the loop of the API reference, on the Python client.

The episode's tools are served in the Messages API shape, so the loop takes a
few lines: start an episode, hand Claude the instruction, the policy and the
tools, run every ``tool_use`` block as a step, feed the results back, and
submit Claude's final answer when it stops calling tools.

Skipped cleanly (exit code 0, a line saying why) when the ``anthropic``
package is not installed, ``ANTHROPIC_API_KEY`` is not set, or the API cannot
be reached. ``ANTHROPIC_BASE_URL`` points the SDK elsewhere (a gateway, or a
local stand-in). The Sandworld server URL comes from ``SANDWORLD_API_URL``::

    pip install anthropic
    export ANTHROPIC_API_KEY=...
    sandworld serve &
    python clients/python/examples/anthropic_agent.py --task cp-12 --seed 2
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
from urllib.parse import urlsplit

from sandworld import SandworldEnv
from sandworld.tools import calls_from_anthropic, to_anthropic

DEFAULT_MODEL = "claude-opus-5-5"
SKIPPED = "skipped:"


def skip(reason: str) -> int:
    print(f"{SKIPPED} {reason}")
    return 0


def reachable(url: str, timeout: float = 5.0) -> str | None:
    """None if a TCP connection to the URL's host opens, else why not."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname, port), timeout=timeout):
            return None
    except OSError as e:
        return f"cannot reach {parts.hostname}:{port} ({e})"


def run(client, model: str, environment: str, task: str, seed: int, max_turns: int) -> int:
    env = SandworldEnv(agent_name=f"anthropic:{model}")
    ep = env.reset(environment, task_id=task, seed=seed)
    # The episode's own tool list: it includes ask_user on tasks with a simulated user.
    tools = to_anthropic(ep.tools)
    messages = [{"role": "user", "content": ep.instruction}]
    answer = ""
    for _ in range(max_turns):
        response = client.messages.create(model=model, max_tokens=16000, system=ep.policy, tools=tools,
                                          messages=messages)
        messages.append({"role": "assistant", "content": response.content})
        calls = calls_from_anthropic(response.content)
        answer = "".join(b.text for b in response.content if b.type == "text") or answer
        if response.stop_reason != "tool_use" or not calls:
            break
        results = []
        for call_id, name, arguments in calls:
            obs = env.step(name, arguments)
            verdict = "ok" if obs.ok else obs.error["code"]
            print(f"  step {obs.get('step')}: {name}({json.dumps(arguments)}) -> {verdict}")
            results.append({"type": "tool_result", "tool_use_id": call_id, "content": json.dumps(obs),
                            "is_error": not obs.ok})
        messages.append({"role": "user", "content": results})
    evaluation = env.submit(answer)
    env.close()
    print(f"{task} seed {seed}: pass={evaluation.passed} score={evaluation.score} steps={evaluation.steps}")
    for check in evaluation.checks:
        print(f"  [{'x' if check.get('pass') else ' '}] {check['id']}: {check.get('label', '')}"
              + (f" ({check['detail']})" if check.get("detail") and not check.get("pass") else ""))
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--environment", default="coinpurse", help="the world (default: %(default)s)")
    p.add_argument("--task", default="cp-12", help="the task (default: %(default)s)")
    p.add_argument("--seed", type=int, default=2, help="the seed (default: %(default)s)")
    p.add_argument("--model", default=os.environ.get("ANTHROPIC_MODEL", DEFAULT_MODEL),
                   help="the Claude model (default: $ANTHROPIC_MODEL or %(default)s)")
    p.add_argument("--max-turns", type=int, default=30, help="model turns at most (default: %(default)s)")
    args = p.parse_args(argv)

    try:
        import anthropic
    except ImportError:
        return skip("the anthropic package is not installed (pip install anthropic)")
    if not os.environ.get("ANTHROPIC_API_KEY"):
        return skip("ANTHROPIC_API_KEY is not set")
    client = anthropic.Anthropic(timeout=120.0, max_retries=2)
    why = reachable(str(client.base_url))
    if why:
        return skip(f"the Anthropic API is unreachable: {why}")
    try:
        return run(client, args.model, args.environment, args.task, args.seed, args.max_turns)
    except anthropic.APIConnectionError as e:
        return skip(f"the Anthropic API is unreachable: {e}")


if __name__ == "__main__":
    sys.exit(main())
