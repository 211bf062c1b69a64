"""Ray, optional: import it with a message that says how to install it, and
start (or join) it sized for a small machine."""

from __future__ import annotations

import logging
import os

INSTALL = "pip install 'sandworld-runtime[cluster]'  (or: pip install ray)"

# An embedded Ray's shared-memory object store: request and answer bytes
# pass through it, a few MB at a time; Ray's default (30 % of memory) would
# take gigabytes from a small machine for nothing.
_OBJECT_STORE = 256 * 1024 * 1024
# Answers up to this size travel inside the actor call's reply instead of
# through that object store. A 1,000-call coinpurse batch answers 1.3 MB, past
# Ray's 100 KB default, and each object-store trip costs the raylet a create,
# a seal, a fetch and a release: 5-6 % of a core at 30 batches a second on
# this 2-core machine, taken from the shards (bench/README.md, cluster section).
_INLINE_ANSWERS = 16 * 1024 * 1024


class RayMissing(RuntimeError):
    """Ray is not installed."""


def require_ray():
    """The ``ray`` module, or ``RayMissing`` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise RayMissing(f"the cluster runs its shards as Ray actors, and Ray is not installed: {INSTALL}") from None
    return ray


_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_ANY = ("0.0.0.0", "::", "")


def connect(address: str | None, namespace: str, host: str | None = None) -> bool:
    """Make sure this process is connected to Ray: to ``address`` (``auto``, or
    ``ray://host:10001``) when given, else to a new embedded local Ray whose
    own ports listen where the shards do (``host``: see ``_node_address``).
    True when this call started it (so the caller shuts it down)."""
    # Nothing leaves this machine unless asked to: no usage report to Ray's makers.
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray = require_ray()
    if ray.is_initialized():
        return False
    node = None if address or host is None else _node_address(host)
    # An embedded Ray admits only processes holding its token (~/.ray/auth_token,
    # made on first use): Ray's safe default, which it announces with a warning
    # on every start. The default is kept; the announcement is not.
    logging.getLogger("ray._private.authentication.authentication_token_setup").setLevel(logging.ERROR)
    quiet = {"include_dashboard": False, "logging_level": logging.WARNING, "log_to_driver": True}
    if address:
        from sandworld.ray import join  # joins as a trainer does: with the cluster's token when it has one

        join(address, namespace=namespace, log_to_driver=True)
    else:
        if node is not None:
            quiet["_node_ip_address"] = node
        ray.init(namespace=namespace, num_cpus=os.cpu_count() or 1, object_store_memory=_OBJECT_STORE,
                 _system_config={"max_direct_call_object_size": _INLINE_ANSWERS}, **quiet)
    return True


def _node_address(host: str) -> str | None:
    """Point an embedded Ray's own ports at ``host``, where the shards listen;
    the node address to give ``ray.init`` (None: Ray's own choice).

    On loopback, Ray's ports (GCS, raylet, object manager, each worker's gRPC
    server, the autoscaler's metrics) listen on loopback too: Ray binds them
    so exactly when the node's address is loopback, which it allows only with
    its one-machine switch off (``sandworld.ray.one_machine``). This process's
    children (the GCS, the raylet, the shards) inherit the switch. On another
    address Ray is told that it is the node's; Ray 2.60 still listens on every
    interface then (docs/CLUSTER.md). On every interface (0.0.0.0), Ray chooses.
    """
    if host in _ANY:
        return None
    if host in _LOOPBACK:
        from sandworld.ray import one_machine

        one_machine()
        return None
    return host.strip("[]")
