"""Is this client compatible with that server?

The server reports its version at ``GET /healthz``; the client compares the
two and warns (``IncompatibleServerWarning``) when their API generations
differ. The generation is the major version, or, while it is 0, the minor one
(0.1 and 0.2 may differ in /api/v1 details; see CHANGELOG.md's compatibility
policy). A warning, not an error: an older client often still works for the
routes it uses, and a trainer should not die at startup over it.
"""

from __future__ import annotations

import warnings

from .transport import __version__


class IncompatibleServerWarning(UserWarning):
    """The server's version is of another API generation than the client's."""


def generation(version: str) -> tuple | None:
    """``(major,)``, or ``(0, minor)`` for 0.x versions; ``None`` if unreadable."""
    try:
        parts = [int(p) for p in str(version).split("+")[0].split(".")[:2]]
    except ValueError:
        return None
    if not parts:
        return None
    return (0, parts[1] if len(parts) > 1 else 0) if parts[0] == 0 else (parts[0],)


def compatible(server_version: str, client_version: str = __version__) -> bool:
    """Whether a client of ``client_version`` speaks the API of ``server_version``.
    Unknown versions (a source tree never installed: 0.0.0) count as compatible."""
    s, c = generation(server_version), generation(client_version)
    if s is None or c is None or client_version.startswith("0.0.0"):
        return True
    return s == c


def check_server_version(server_version, *, where: str = "the server") -> bool:
    """Warn if the server's version is incompatible; return whether it is compatible."""
    if server_version is None or compatible(str(server_version)):
        return True
    warnings.warn(
        f"{where} runs Sandworld {server_version}, and this client is {__version__}: their /api/v1 generations "
        f"differ, so some calls may fail. Install a matching client: pip install 'sandworld=={server_version}'",
        IncompatibleServerWarning, stacklevel=3)
    return False
