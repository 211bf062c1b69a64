"""Who can reach the server: refuse to open it to a network without keys.

On loopback only local processes can connect, so keys are off by default
(the README's two commands need none). Any other address is reachable from
the network; serving it without keys needs an explicit ``--insecure``.
"""

from __future__ import annotations

import functools
import ipaddress


# Asked of every request's peer and Host by the browser checks: parsing an
# address each time was 5.7 % of a single /step's server CPU (py-spy). Bounded,
# so a client sending many Host values cannot grow it.
@functools.lru_cache(maxsize=4096)
def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name other than localhost may resolve to anything


def refuse_open_bind(host: str, auth: str, insecure: bool) -> str | None:
    """Why ``serve`` must not start, or None when it may."""
    if auth == "keys" or insecure or is_loopback(host):
        return None
    return (f"--host {host} is reachable from the network, and without keys anyone who reaches it can read and "
            "drive every episode. Add --auth keys (make keys with `sandworld keys create`), or --insecure to "
            "serve it open anyway.")
