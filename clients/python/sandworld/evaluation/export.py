"""``sandworld export``: a run's traces as a dataset.

JSON Lines, one episode per line, each self-contained: what the agent was
given (``instruction``, ``policy``, ``tools``), what it did (``trace``: every
call with its arguments, answer, simulated time and state digest), what it
answered (``output``) and how it was judged (``pass``, ``score``, ``checks``,
the full ``evaluation``). ``status`` and ``training`` say whether the episode
counts in the run's statistics; filter on them for training data.

``messages`` writes one OpenAI-style chat transcript per trial, the shape SFT
trainers read: ``{"messages": [system (policy), user (instruction),
assistant with tool_calls, tool results, ..., assistant (output)], "tools":
[...], "metadata": {...}}``. Each call of the trace becomes one assistant
turn with one tool call (the trace does not record which calls a model made
together). ``parquet`` writes one row per trial (the jsonl fields, nested
values as JSON text) with pyarrow, imported only then.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..tools import model_name, to_openai_chat
from .store import Store

FORMATS = ("jsonl", "messages", "parquet")
_EXT = {"jsonl": "jsonl", "messages": "messages.jsonl", "parquet": "parquet"}


def rows(store: Store, run_id: str):
    run = store.run(run_id)
    meta = run["meta"]
    tools = meta.get("tools", [])
    for t in store.trials(run_id, with_trace=True):
        ev = t.get("evaluation") or {}
        yield {
            "run_id": run_id,
            "episode_id": t["episode_id"],
            "environment": t.get("world") or run["world"],
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
            "tools": tools.get(t.get("world"), []) if isinstance(tools, dict) else tools,
            "trace": t.get("trace") or [],
            "output": t["output"],
            "pass": t["pass"],
            "score": t["score"],
            "checks": ev.get("checks", []),
            "error": t["error"],
            "evaluation": ev or None,
        }


def messages(row: dict) -> dict:
    """One trial as an OpenAI-style chat transcript (see the module docstring)."""
    out = []
    if row.get("policy"):
        out.append({"role": "system", "content": row["policy"]})
    out.append({"role": "user", "content": row.get("instruction") or ""})
    for entry in row.get("trace") or []:
        call_id = f"call_{entry['seq']}"
        out.append({"role": "assistant", "content": None, "tool_calls": [{
            "id": call_id, "type": "function",
            "function": {"name": model_name(entry["tool"]),
                         "arguments": json.dumps(entry.get("arguments"), ensure_ascii=False)}}]})
        answer = {"ok": True, "result": entry.get("result")} if entry.get("ok") else \
            {"ok": False, "error": entry.get("error")}
        out.append({"role": "tool", "tool_call_id": call_id, "content": json.dumps(answer, ensure_ascii=False)})
    out.append({"role": "assistant", "content": row.get("output") or ""})
    meta = {k: row[k] for k in ("run_id", "episode_id", "environment", "environment_version", "task_id", "seed",
                                "trial", "agent", "status", "training", "pass", "score")}
    return {"messages": out, "tools": to_openai_chat(row.get("tools") or []), "metadata": meta}


def _parquet(store: Store, run_id: str, path: Path) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ValueError("--format parquet needs pyarrow: pip install pyarrow "
                         "(or pip install 'sandworld[parquet]')") from None
    nested = ("tools", "trace", "checks", "evaluation")
    table = [{k: (json.dumps(v, ensure_ascii=False) if k in nested else v) for k, v in row.items()}
             for row in rows(store, run_id)]
    pq.write_table(pa.Table.from_pylist(table), path)


def export(store: Store, run_id: str, out: str | Path | None = None, fmt: str = "jsonl") -> Path | None:
    """Write the run's episodes; ``out`` ``-`` writes to stdout (returns None).
    Default path: ``<data dir>/exports/<run_id>.<jsonl|messages.jsonl|parquet>``."""
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r}: one of {', '.join(FORMATS)}")
    run_id = store.run(run_id)["run_id"]  # "latest" resolved; an unknown run fails before any file is made
    shape = messages if fmt == "messages" else (lambda row: row)
    if out == "-":
        if fmt == "parquet":
            raise ValueError("parquet is written to a file: give --out PATH")
        for row in rows(store, run_id):
            sys.stdout.write(json.dumps(shape(row), ensure_ascii=False) + "\n")
        return None
    path = Path(out) if out is not None else store.data_dir / "exports" / f"{run_id}.{_EXT[fmt]}"
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "parquet":
        _parquet(store, run_id, path)
        return path
    with path.open("w", encoding="utf-8") as f:
        for row in rows(store, run_id):
            f.write(json.dumps(shape(row), ensure_ascii=False) + "\n")
    return path
