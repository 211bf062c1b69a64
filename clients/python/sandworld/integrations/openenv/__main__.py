"""``python -m sandworld.integrations.openenv``: serve one world through OpenEnv's contract."""

from __future__ import annotations

import argparse
import os

import uvicorn

from . import make_app


def main(argv: list | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m sandworld.integrations.openenv",
                                description="Serve a Sandworld world through OpenEnv's HTTP/WebSocket contract.")
    p.add_argument("--world", default=os.environ.get("SANDWORLD_WORLD", "coinpurse"),
                   help="the world to serve (default: $SANDWORLD_WORLD or %(default)s)")
    p.add_argument("--sandworld-url", default=None, metavar="URL",
                   help="the Sandworld server's API URL (default: $SANDWORLD_API_URL or http://127.0.0.1:8787/api/v1)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: %(default)s)")
    p.add_argument("--port", type=int, default=8000, help="port to bind (default: %(default)s)")
    p.add_argument("--max-sessions", type=int, default=64, help="concurrent sessions (default: %(default)s)")
    args = p.parse_args(argv)
    uvicorn.run(make_app(args.world, args.sandworld_url, args.max_sessions), host=args.host, port=args.port,
                log_level="warning")


if __name__ == "__main__":
    main()
