"""``sandworld cluster list|add|drain``: look at and resize a running cluster.

Each command joins the Ray the cluster runs on (``--address``, default
``auto``: the Ray of this machine), finds the cluster by ``--name`` and acts
through its membership (``members.py``) and its shard actors (``launch.py``).
Clients see the change at their next ``GET /api/v1/cluster``.
"""

from __future__ import annotations

import sys


def register(sub) -> None:
    c = sub.add_parser("cluster", help="list, add or drain the shards of a running cluster",
                       description="Look at and resize a cluster started with sandworld serve --replicas N.")
    verbs = c.add_subparsers(dest="verb", metavar="COMMAND")
    common = []
    ls = verbs.add_parser("list", help="every shard: its URL, node and state",
                          description="List every shard of the cluster: URL, node and state (serving, draining, down).")
    common.append(ls)
    add = verbs.add_parser("add", help="start one more shard",
                           description="Start one more shard, as the cluster started its others, on the node with "
                                       "the fewest shards (or --node). It lives until drained or the cluster stops.")
    add.add_argument("--node", default=None, metavar="NODE_ID", help="the Ray node id to start it on")
    common.append(add)
    drain = verbs.add_parser("drain", help="drain a shard: no new episodes; it leaves when its episodes end",
                             description="Drain SHARD: it takes no new episodes and leaves the cluster once its "
                                         "open episodes end, or after --deadline seconds (those still open are "
                                         "ended then, scored and stored, ended_by: drained).")
    drain.add_argument("shard", type=int, metavar="SHARD", help="the shard's number")
    drain.add_argument("--deadline", type=float, default=300.0, metavar="SECONDS",
                       help="seconds to wait for the open episodes to end (default: %(default)s)")
    common.append(drain)
    for p in common:
        p.add_argument("--address", default="auto", metavar="RAY_ADDRESS",
                       help="the Ray the cluster runs on (default: %(default)s, the Ray of this machine)")
        p.add_argument("--name", default="sandworld", help="the cluster's name (default: %(default)s)")
    ls.set_defaults(run=_list)
    add.set_defaults(run=_add)
    drain.set_defaults(run=_drain)
    c.set_defaults(run=lambda args: (c.print_help(), 2)[1])


def _join(args) -> bool:
    from .launch import NAMESPACE
    from .ray_setup import RayMissing, connect

    try:
        connect(args.address, NAMESPACE)
    except RayMissing as e:
        print(f"sandworld cluster: {e}", file=sys.stderr)
        return False
    except Exception as e:  # no Ray there
        print(f"sandworld cluster: cannot join the Ray at {args.address}: {type(e).__name__}: {e}", file=sys.stderr)
        return False
    return True


def _list(args) -> int:
    from rich.console import Console
    from rich.table import Table

    from . import members

    if not _join(args):
        return 2
    rows = members.entries(args.name)
    if not rows:
        print(f"sandworld cluster: no cluster named {args.name!r} on this Ray", file=sys.stderr)
        return 1
    t = Table(title=f"cluster {args.name}")
    for col in ("shard", "url", "node", "labels", "state"):
        t.add_column(col)
    for e in rows:
        node = e.get("node") or {}
        t.add_row(str(e["shard"]), e["url"], (e.get("node_id") or "")[:12], ",".join(node.get("labels", [])), e["state"])
    Console().print(t)
    return 0


def _add(args) -> int:
    from .launch import add_shard

    if not _join(args):
        return 2
    try:
        made = add_shard(args.name, node_id=args.node)
    except RuntimeError as e:
        print(f"sandworld cluster add: {e}", file=sys.stderr)
        return 1
    print(f"shard {made['shard']}: {made['url']} (node {made['node_id'][:12]})")
    return 0


def _drain(args) -> int:
    from .launch import drain_shard

    if not _join(args):
        return 2
    print(f"draining shard {args.shard} (up to {args.deadline:g} s)...", flush=True)
    try:
        out = drain_shard(args.shard, args.name, deadline=args.deadline)
    except RuntimeError as e:
        print(f"sandworld cluster drain: {e}", file=sys.stderr)
        return 1
    print(f"shard {out['shard']} drained and left the cluster; {out['ended']} open episode(s) ended (drained)")
    return 0
