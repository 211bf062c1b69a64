"""The ``sandworld`` command."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from . import __version__


# Modules with a ``register(subparsers)`` function adding their commands.
COMMAND_MODULES: list = ["sandworld.evaluation.commands", "sw_runtime.bench_cmd", "sw_runtime.worldkit.commands",
                         "sw_runtime.security.keys_cmd", "sw_runtime.cluster.commands", "sw_runtime.ui.commands"]


def _serve(args) -> int:
    import logging

    import uvicorn

    from .app import build_app
    from .config import Settings, SettingsError
    from .security.exposure import refuse_open_bind

    retention = args.retention_days * 86400.0 if args.retention_days is not None else None
    settings = Settings.from_env(
        idle_timeout=args.idle_timeout, max_body=args.max_body, step_limit=args.step_limit, shard=args.shard,
        auth=args.auth, data_dir=args.data_dir, durability=args.durability, retention=retention,
        max_age=args.max_age, max_episodes=args.max_episodes,
    )
    try:
        settings.validate()
    except SettingsError as e:
        print(f"sandworld serve: {e}", file=sys.stderr)
        return 2
    refused = refuse_open_bind(args.host, settings.auth, args.insecure)
    if refused:
        print(f"sandworld serve: {refused}", file=sys.stderr)
        return 2
    # Absolute, so that a cluster's shards (other processes, other working folders) find the same folder.
    settings.data_dir = os.path.abspath(settings.data_dir)
    if args.replicas is not None or args.address is not None:
        return _serve_cluster(args, settings)
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    import sw_core_ext

    from .worlds import registry

    worlds = ", ".join(sorted(registry()))
    sock = _bind(args.host, args.port)  # before saying we serve: a busy port fails here
    if sock is None:
        return 2
    print(
        f"sandworld {__version__}: serving {worlds} on http://{args.host}:{args.port}/api/v1 "
        f"(state core: {sw_core_ext.IMPLEMENTATION})",
        flush=True,
    )
    from .api import protocol

    config = uvicorn.Config(
        build_app(settings),
        host=args.host,
        port=args.port,
        loop="uvloop",
        http=protocol.configured(settings),  # httptools, with read timeouts and a header limit
        log_level=args.log_level,
        access_log=args.access_log,
        timeout_keep_alive=30,
    )
    uvicorn.Server(config).run(sockets=[sock])
    return 0


def _bind(host: str, port: int):
    """A listening socket on (host, port), or None after saying why not."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        print(f"sandworld serve: cannot listen on {host}:{port}: {e.strerror or e}; is another server running "
              f"there? Stop it, or pick another port with --port", file=sys.stderr)
        return None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def _serve_cluster(args, settings) -> int:
    if args.replicas is None:
        print("sandworld serve: --address joins a Ray cluster to run shards on; say how many with --replicas N",
              file=sys.stderr)
        return 2
    if args.replicas < 1:
        print("sandworld serve: --replicas must be 1 or more", file=sys.stderr)
        return 2
    if args.shard is not None:
        print("sandworld serve: --shard numbers a lone server; with --replicas the shards are numbered "
              "0..N-1 for you", file=sys.stderr)
        return 2
    from .api import protocol
    from .app import build_app
    from .cluster.serve import serve_cluster

    # Handed down, as build_app is: the cluster door imports neither the app nor the HTTP door.
    return serve_cluster(args.replicas, build_app, host=args.host, port=args.port, address=args.address, settings=settings,
                         name=args.name, log_level=args.log_level, protocol=protocol.configured,
                         shared_storage=args.shared_data)


def _digest(args) -> int:
    import orjson

    from sw_core_ext import Store

    try:
        with open(args.file, "rb") as f:
            data = orjson.loads(f.read())
    except OSError as e:
        print(f"sandworld digest: cannot read {args.file}: {e.strerror}", file=sys.stderr)
        return 2
    except orjson.JSONDecodeError as e:
        print(f"sandworld digest: {args.file} is not valid JSON: {e}", file=sys.stderr)
        return 2
    composite = isinstance(data, dict) and isinstance(data.get("environments"), list) and len(data["environments"]) > 1
    if isinstance(data, dict) and isinstance(data.get("collections"), dict):
        data = data["collections"]
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        print(
            "sandworld digest: expected a JSON object of collection -> {id: record}, "
            'or an object with a "collections" key holding one',
            file=sys.stderr,
        )
        return 2
    try:
        if composite:  # a composite episode's dump: world.collection keys, one digest per world, combined
            from .worlds.composite import combine, nest

            print(combine({world: Store(state).digest() for world, state in nest(data).items()}))
            return 0
        store = Store(data)
    except (TypeError, ValueError, KeyError) as e:
        print(f"sandworld digest: the state cannot be hashed: {e}", file=sys.stderr)
        return 2
    print(store.digest())
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="sandworld",
        description="Sandworld runtime: a rollout server for tool-using AI agents.",
    )
    p.add_argument("--version", action="version", version=f"sandworld {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    s = sub.add_parser("serve", help="serve every world over HTTP", description="Serve every world over HTTP.")
    s.add_argument("--host", default="127.0.0.1", help="address to bind (default: %(default)s)")
    s.add_argument("--port", type=int, default=8787, help="port to bind (default: %(default)s)")
    s.add_argument("--idle-timeout", type=float, default=None, metavar="SECONDS",
                   help="evict episodes idle this long (default: 1800, or SW_IDLE_TIMEOUT)")
    s.add_argument("--max-body", type=int, default=None, metavar="BYTES",
                   help="largest request body accepted (default: 64 MiB, or SW_MAX_BODY)")
    s.add_argument("--step-limit", type=int, default=None, metavar="N",
                   help="steps allowed per episode (default: 200, or SW_STEP_LIMIT)")
    s.add_argument("--max-age", type=float, default=None, metavar="SECONDS",
                   help="end episodes older than this (default: 86400, or SW_MAX_AGE)")
    s.add_argument("--max-episodes", type=int, default=None, metavar="N",
                   help="open episodes per server; past it, create answers 429 (default: 500000)")
    s.add_argument("--shard", type=int, default=None, help="this server's shard number in a cluster (default: 0)")
    s.add_argument("--auth", choices=["none", "keys"], default=None,
                   help="'keys': every /api/v1 request needs an API key (`sandworld keys create`); "
                        "default: none, or SW_AUTH")
    s.add_argument("--insecure", action="store_true",
                   help="allow binding a non-loopback address without --auth keys (anyone who reaches the port "
                        "can read and drive every episode)")
    s.add_argument("--data-dir", default=None, metavar="DIR",
                   help="folder for the action log, the results store (each shard uses DIR/shard-NN), keys and "
                        "webhooks (default: ./sandworld-data, or SW_DATA_DIR)")
    s.add_argument("--durability", default=None, choices=["fsync", "write", "none"],
                   help="fsync: every answer is on disk first (survives a power cut); write (default): every "
                        "answer is in the log first (survives a killed server); none: memory only")
    s.add_argument("--retention-days", type=float, default=None, metavar="DAYS",
                   help="days the results of ended episodes are kept; 0 keeps them forever (default: 30)")
    s.add_argument("--replicas", type=int, default=None, metavar="N",
                   help="serve N shards as Ray actors on ports PORT..PORT+N-1 (needs Ray: "
                        "pip install 'sandworld-runtime[cluster]'); see docs/CLUSTER.md")
    s.add_argument("--address", default=None, metavar="RAY_ADDRESS",
                   help="with --replicas: join this Ray cluster (auto, or ray://HOST:10001) instead of "
                        "starting an embedded one")
    s.add_argument("--name", default="sandworld",
                   help="with --replicas: the cluster's name; its Ray actors are NAME-shard-0… "
                        "(sandworld.ray.RayShards(NAME) finds them; default: %(default)s)")
    s.add_argument("--shared-data", action="store_true",
                   help="with --replicas: the data folder is on storage every Ray node mounts at the same path, "
                        "so a shard whose node is lost restarts on another node and replays its log there "
                        "(default: per-node storage; such a shard waits for its node; docs/CLUSTER.md)")
    s.add_argument("--log-level", default="warning", choices=["debug", "info", "warning", "error"],
                   help="log level (default: %(default)s)")
    s.add_argument("--access-log", action="store_true", help="log every request")
    s.set_defaults(run=_serve)

    d = sub.add_parser("digest", help="recompute the digest of a state dump",
                       description="Recompute the sha256 state digest of a state dump (see docs/DIGEST.md).")
    d.add_argument("file", metavar="STATE.json",
                   help='a JSON object of collection -> {id: record}, or one with a "collections" key '
                        '(a composite episode\'s dump, with its "environments", is hashed per world and combined)')
    d.set_defaults(run=_digest)

    # Commands that live with their own area register themselves here.
    for module in COMMAND_MODULES:
        importlib.import_module(module).register(sub)
    return p


def main(argv: list | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 0
    from sandworld.cli import run_command  # no traceback for `| head` or Ctrl-C

    return run_command(args)


if __name__ == "__main__":
    sys.exit(main())
