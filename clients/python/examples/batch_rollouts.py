"""1,000 episodes stepped together through ``/batch``.

Starts N episodes over coinpurse's tasks and seeds in one request
(``/batch/episodes``), then plays every episode's reference solution turn by
turn: each turn is one ``/batch`` request carrying the next call of every
episode still playing. Then it submits them all in one request
(``/batch/submit``) and prints what it took. Each episode checks its own
answers, so a result delivered to the wrong episode would show up as a
failed episode.

``--policy random`` plays random calls instead (every episode should fail).
The server URL comes from ``SANDWORLD_API_URL`` (default http://127.0.0.1:8787/api/v1)::

    sandworld serve &
    python clients/python/examples/batch_rollouts.py --episodes 1000
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter

from rich.console import Console
from rich.table import Table

from sandworld import BatchStepper
from sandworld.evaluation.agents import random_arguments, reference_setup


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--episodes", type=int, default=1000, help="how many episodes (default: %(default)s)")
    p.add_argument("--seeds", type=int, default=50,
                   help="seeds 0..N-1 are spread over the episodes (default: %(default)s)")
    p.add_argument("--policy", choices=["reference", "random"], default="reference",
                   help="what each episode plays (default: %(default)s)")
    args = p.parse_args(argv)
    console = Console()

    with BatchStepper(agent_name="batch-example") as stepper:
        tasks = [t["id"] for t in stepper.client.environment("coinpurse")["tasks"]]
        specs = [{"environment": "coinpurse", "task_id": tasks[i % len(tasks)], "seed": (i // len(tasks)) % args.seeds}
                 for i in range(args.episodes)]
        t0 = time.perf_counter()
        envs = stepper.reset(specs)
        t_created = time.perf_counter()

        rng = random.Random(0)
        plans, outputs = [], []
        for env in envs:
            obs = env.observation
            setup = reference_setup(obs["environment"], obs["environment_version"], obs["task_id"], obs["seed"],
                                    obs["seed_digest"])
            if args.policy == "reference":
                plans.append(list(setup.solution))
                outputs.append(setup.output)
            else:
                tools = obs["tools"]
                picks = [rng.choice(tools) for _ in range(rng.randint(1, 4))]
                plans.append([(t["name"], random_arguments(t["parameters"], rng, [])) for t in picks])
                outputs.append("")

        steps, requests, refused = 0, 0, Counter()
        t_planned = time.perf_counter()  # the plans are made in this process: not the server's time
        for turn in range(max(map(len, plans))):
            actions = [plan[turn] if turn < len(plan) else None for plan in plans]
            for result in stepper.step(envs, actions):
                if result is not None:
                    steps += 1
                    if not result.get("ok"):
                        refused[result["error"]["code"]] += 1
            requests += 1
        t_stepped = time.perf_counter()
        evaluations = stepper.submit(envs, outputs)
        t_done = time.perf_counter()

    passed = sum(bool(ev.get("pass")) for ev in evaluations)
    table = Table(title=f"{args.episodes} coinpurse episodes through /batch ({args.policy} policy)",
                  title_justify="left")
    table.add_column("phase")
    table.add_column("requests", justify="right")
    table.add_column("seconds", justify="right")
    table.add_column("rate", justify="right")
    table.add_row("create (/batch/episodes)", "1+", f"{t_created - t0:.3f}",
                  f"{len(envs) / (t_created - t0):,.0f} episodes/s")
    table.add_row("step (/batch)", str(requests), f"{t_stepped - t_planned:.3f}",
                  f"{steps / max(t_stepped - t_planned, 1e-9):,.0f} steps/s")
    table.add_row("submit (/batch/submit)", "1+", f"{t_done - t_stepped:.3f}",
                  f"{len(envs) / (t_done - t_stepped):,.0f} episodes/s")
    console.print(table)
    refusals = ", ".join(f"{code} ×{n}" for code, n in refused.most_common()) or "none"
    console.print(f"episodes: {len(envs)}  steps: {steps}  refused calls: {refusals}  passed: {passed}/{len(envs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
