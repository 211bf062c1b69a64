"""GRPO-style rollout groups with shaped rewards, and no model needed.

For each prompt (a task on a seed) it starts a group of K episodes in one
request, steps the whole group in lockstep through ``/batch`` (one request
per turn for all K), submits them in one request, and computes:

- a shaped return per rollout: the final score, plus half of each step's
  ``reference_progress_delta`` (dense credit for making the right changes,
  even when the end checks fail), minus 0.25 per step that touched something
  no correct solution touches (``collateral_violation``). Signals come from
  the server (``signals=True``); without them the return is the score alone;
- group-normalised advantages, GRPO's baseline: A_i = (R_i - mean R) / (std R + eps).

A scripted stochastic policy stands in for the model: it follows the task's
reference calls but skips some, slips in wrong calls (random tools, random
arguments) and sometimes forgets the final answer, so rollouts of one prompt
earn different rewards, which is what GRPO learns from.

``--from-prefix N`` branches the group from one episode instead: it plays the
first N reference calls once, then forks it K ways (copy-on-write, so the K
branches share the prefix's state for free) and lets each branch finish.

The server URL comes from ``SANDWORLD_API_URL`` (default http://127.0.0.1:8787/api/v1)::

    sandworld serve &
    python clients/python/examples/grpo_rollouts.py --tasks cp-02,cp-04,cp-12 --seeds 0-1 --group 8
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys

from rich.console import Console
from rich.table import Table

from sandworld import BatchStepper
from sandworld.evaluation.agents import random_arguments, reference_setup
from sandworld.evaluation.runner import parse_seeds

PROGRESS_WEIGHT = 0.5
COLLATERAL_PENALTY = 0.25


class ScriptedPolicy:
    """A stand-in for the model: the reference calls, noisily."""

    def __init__(self, rng: random.Random, skill: float):
        self.rng = rng
        self.skill = skill  # 1.0 follows the reference exactly; lower makes more mistakes

    def plan(self, solution: list, tools: list) -> list:
        """The calls one rollout will make, in order. Each reference call is
        made right with probability ``skill``; otherwise it is skipped, made
        with a near-miss argument (the next request, an amount a dollar off),
        or preceded by a random call."""
        calls = []
        for tool, arguments in solution:
            if self.rng.random() < self.skill:
                calls.append((tool, arguments))
                continue
            slip = self.rng.choice(("skip", "near-miss", "random-call"))
            if slip == "near-miss":
                calls.append((tool, {k: self._near(v) for k, v in arguments.items()}))
            elif slip == "random-call":
                wrong = self.rng.choice(tools)
                calls.append((wrong["name"], random_arguments(wrong["parameters"], self.rng, [])))
                calls.append((tool, arguments))
        return calls

    def _near(self, value):
        if isinstance(value, bool):
            return value
        if isinstance(value, int):
            return value + self.rng.choice((-100, 100))
        if isinstance(value, str) and value[-1:].isdigit():  # rq-16 -> rq-17, c-004 -> c-003
            head = value.rstrip("0123456789")
            digits = value[len(head):]
            return head + str(max(1, int(digits) + self.rng.choice((-1, 1)))).zfill(len(digits))
        return value

    def answer(self, output: str) -> str:
        return output if self.rng.random() < self.skill else ""


def shaped_return(steps: list, evaluation, shaped: bool) -> float:
    """The final score, plus the signal shaping when the server sends signals."""
    score = float(evaluation.get("score") or 0.0)
    if not shaped:
        return score
    signals = [s["signals"] for s in steps if s is not None and s.get("signals")]
    return score + sum(PROGRESS_WEIGHT * s["reference_progress_delta"]
                       - COLLATERAL_PENALTY * s["collateral_violation"] for s in signals)


def advantages(returns: list) -> list:
    mean = statistics.fmean(returns)
    std = statistics.pstdev(returns)
    return [(r - mean) / (std + 1e-6) if std > 0 else 0.0 for r in returns]


def rollout_group(stepper: BatchStepper, task: str, seed: int, k: int, policy: ScriptedPolicy,
                  prefix: int = 0) -> dict:
    """One prompt: K rollouts, their returns and advantages."""
    if prefix:
        # Play the first calls once, then branch K ways from there.
        (root,) = stepper.reset([{"environment": "coinpurse", "task_id": task, "seed": seed, "signals": True}])
        obs = root.observation
        setup = reference_setup(obs["environment"], obs["environment_version"], task, seed, obs["seed_digest"])
        head = [root.step(tool, args) for tool, args in setup.solution[:prefix]]
        envs = root.fork(k)
        tail = setup.solution[prefix:]
    else:
        envs = stepper.group("coinpurse", k, task_id=task, seed=seed, signals=True)
        obs = envs[0].observation
        setup = reference_setup(obs["environment"], obs["environment_version"], task, seed, obs["seed_digest"])
        head, tail = [], setup.solution
    plans = [policy.plan(tail, obs["tools"]) for _ in envs]
    history: list = [list(head) for _ in envs]
    for turn in range(max(map(len, plans), default=0)):
        actions = [plan[turn] if turn < len(plan) else None for plan in plans]
        for i, result in enumerate(stepper.step(envs, actions)):
            history[i].append(result)
    evaluations = stepper.submit(envs, [policy.answer(setup.output) for _ in envs])
    # Shape only if the server sent signals (an older one may not): then for every rollout alike.
    shaped = any(s is not None and s.get("signals") for h in history for s in h)
    returns = [shaped_return(h, ev, shaped) for h, ev in zip(history, evaluations)]
    return {
        "task": task, "seed": seed, "returns": returns, "advantages": advantages(returns),
        "passes": sum(bool(ev.get("pass")) for ev in evaluations), "scores": [ev.get("score") for ev in evaluations],
        "shaped": shaped, "steps": [len(h) for h in history],
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tasks", default="cp-02,cp-04,cp-12",
                   help="comma-separated coinpurse tasks (default: %(default)s)")
    p.add_argument("--seeds", default="0-1", help="seeds, e.g. 0-1 or 0,5 (default: %(default)s)")
    p.add_argument("--group", type=int, default=8, metavar="K", help="rollouts per prompt (default: %(default)s)")
    p.add_argument("--skill", type=float, default=0.6,
                   help="how often the policy does the right thing (default: %(default)s)")
    p.add_argument("--from-prefix", type=int, default=0, metavar="N",
                   help="fork each group from one episode after N reference calls (default: no prefix)")
    p.add_argument("--seed", type=int, default=0, help="the policy's random seed (default: %(default)s)")
    args = p.parse_args(argv)

    policy = ScriptedPolicy(random.Random(args.seed), args.skill)
    groups = []
    with BatchStepper(agent_name="grpo-example") as stepper:
        for task in [t.strip() for t in args.tasks.split(",") if t.strip()]:
            for seed in parse_seeds(args.seeds):
                groups.append(rollout_group(stepper, task, seed, args.group, policy, args.from_prefix))

    shaped = all(g["shaped"] for g in groups)
    table = Table(title=f"GRPO groups: K={args.group}, reward = "
                        + ("score + shaping from signals" if shaped else "final score (no signals)"),
                  title_justify="left")
    for col in ("task", "seed", "pass", "mean R", "std R", "min A", "max A", "advantages"):
        table.add_column(col, justify="left" if col in ("task", "advantages") else "right")
    for g in groups:
        r, a = g["returns"], g["advantages"]
        table.add_row(g["task"], str(g["seed"]), f"{g['passes']}/{len(r)}", f"{statistics.fmean(r):.3f}",
                      f"{statistics.pstdev(r):.3f}", f"{min(a):+.2f}", f"{max(a):+.2f}",
                      " ".join(f"{x:+.1f}" for x in a))
    console = Console(width=max(Console().width, 110))
    console.print(table)
    total = sum(len(g["returns"]) for g in groups)
    informative = sum(1 for g in groups if statistics.pstdev(g["returns"]) > 0)
    console.print(f"{total} rollouts in {len(groups)} groups; {informative} groups have a learning signal "
                  "(rewards that differ within the group)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
