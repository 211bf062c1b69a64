"""``sandworld keys``: create, list and revoke API keys in a data folder.

The server reads the same ``keys.sqlite``; a key made here works at once and
one revoked here stops working within a second, without a restart.
"""

from __future__ import annotations

import argparse
import sys

DEFAULT_DATA_DIR = "./sandworld-data"


def register(sub) -> None:
    k = sub.add_parser(
        "keys", help="create, list and revoke API keys",
        description="Manage the API keys a server started with --auth keys accepts. Keys live hashed in "
                    "keys.sqlite in the data folder; changes take effect within a second, without a restart.",
    )
    ks = k.add_subparsers(dest="keys_command", metavar="ACTION")
    k.set_defaults(run=lambda args: (k.print_help(), 0)[1])

    def data_dir(p):
        p.add_argument("--data-dir", default=DEFAULT_DATA_DIR, metavar="DIR",
                       help="the server's data folder (default: %(default)s)")

    from .scopes import SCOPES

    c = ks.add_parser("create", help="make a key for a project and print it (shown once)",
                      description="Make a key for a project with the given scopes. The key is printed once: "
                                  "only its hash is kept.",
                      epilog="scopes: " + "; ".join(f"{s} ({what})" for s, what in SCOPES.items()))
    c.add_argument("--project", required=True, help="the project the key belongs to; it sees only its episodes")
    c.add_argument("--scopes", default="episodes:read,episodes:write",
                   help="comma-separated scopes (default: %(default)s)")
    data_dir(c)
    c.set_defaults(run=_create)

    ls = ks.add_parser("list", help="list keys (never their secrets)", description="List the keys as a table.")
    ls.add_argument("--project", default=None, help="only this project's keys")
    data_dir(ls)
    ls.set_defaults(run=_list)

    r = ks.add_parser("revoke", help="revoke a key by its id",
                       description="Revoke a key: it stops working within a second.")
    r.add_argument("key_id", help="the key's id (key_…), as `sandworld keys list` shows it")
    data_dir(r)
    r.set_defaults(run=_revoke)


def _store(args):
    from .keys import KeyStore

    return KeyStore(args.data_dir)


def _create(args: argparse.Namespace) -> int:
    try:
        secret, info = _store(args).create(args.project, args.scopes)
    except ValueError as e:
        print(f"sandworld keys create: {e}", file=sys.stderr)
        return 2
    print(f"Created {info.id} for project {info.project} with scopes {', '.join(info.scopes)}.")
    print("The key (shown once; only its hash is kept):")
    print(secret)
    print("Send it as `Authorization: Bearer <key>`, or set SANDWORLD_API_KEY for the Python client.",
          file=sys.stderr)
    return 0


def _list(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    keys = _store(args).all(args.project)
    if not keys:
        print("No keys" + (f" for project {args.project}" if args.project else "") +
              f" in {args.data_dir}. Make one with `sandworld keys create --project NAME`.")
        return 0
    table = Table("id", "key", "project", "scopes", "created", "status")
    for k in keys:
        d = k.describe()
        table.add_row(d["key_id"], d["hint"], d["project"], ", ".join(d["scopes"]), d["created_at"],
                      f"revoked {d['revoked_at']}" if d["revoked"] else "active")
    Console(width=160).print(table)
    return 0


def _revoke(args: argparse.Namespace) -> int:
    info = _store(args).revoke(args.key_id)
    if info is None:
        print(f"sandworld keys revoke: no key {args.key_id!r} in {args.data_dir}; "
              "`sandworld keys list` shows the ids", file=sys.stderr)
        return 2
    print(f"Revoked {info.id} (project {info.project}).")
    return 0
