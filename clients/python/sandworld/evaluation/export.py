"""``sandworld export``: a run's traces as a dataset.

JSON Lines, one episode per line, each self-contained: what the agent was
given (``instruction``, ``policy``, ``tools``), what it did (``trace``: every
call with its arguments, answer, simulated time and state digest), what it
answered (``output``) and how it was judged (``pass``, ``score``, ``checks``,
the full ``evaluation``). ``status`` and ``training`` say whether the episode
counts in the run's statistics; filter on them for training data.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .store import Store

FORMATS = ("jsonl",)


def rows(store: Store, run_id: str):
    run = store.run(run_id)
    meta = run["meta"]
    for t in store.trials(run_id, with_trace=True):
        ev = t.get("evaluation") or {}
        yield {
            "run_id": run_id,
            "episode_id": t["episode_id"],
            "environment": run["world"],
            "environment_version": run["world_version"],
            "task_id": t["task_id"],
            "seed": t["seed"],
            "trial": t["trial"],
            "agent": run["agent"],
            "agent_name": run["agent_name"],
            "status": t["status"],
            "training": t["training"],
            "instruction": t["instruction"],
            "policy": (meta.get("policies") or {}).get(t["task_id"]),
            "tools": meta.get("tools", []),
            "trace": t.get("trace") or [],
            "output": t["output"],
            "pass": t["pass"],
            "score": t["score"],
            "checks": ev.get("checks", []),
            "error": t["error"],
            "evaluation": ev or None,
        }


def export(store: Store, run_id: str, out: str | Path | None = None, fmt: str = "jsonl") -> Path | None:
    """Write the run's episodes; ``out`` ``-`` writes to stdout (returns None).
    Default path: ``<data dir>/exports/<run_id>.jsonl``."""
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r}: one of {', '.join(FORMATS)}")
    run_id = store.run(run_id)["run_id"]  # "latest" resolved; an unknown run fails before any file is made
    if out == "-":
        for row in rows(store, run_id):
            sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
        return None
    path = Path(out) if out is not None else store.data_dir / "exports" / f"{run_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for row in rows(store, run_id):
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path
