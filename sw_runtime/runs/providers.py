"""Which real service each tool copies, and where a run serves it.

A tool's provider comes from its name's first part (``gmail.messages.list``
is Gmail's). Worlds whose tools copy no real API (coinpurse, quickbasket…)
are served over MCP only, under the world's own name.
"""

from __future__ import annotations

# tool-name prefix -> (provider, [(surface, path under tools_url)])
PROVIDERS = {
    "gmail": ("google.gmail", [("rest", "gmail.googleapis.com/gmail/v1"), ("mcp", "gmailmcp.googleapis.com/mcp/v1")]),
    "slack": ("slack", [("web-api", "slack.com/api"), ("mcp", "mcp.slack.com/mcp")]),
    "calendar": ("google.calendar", [("rest", "www.googleapis.com/calendar/v3")]),
}

# A per-provider MCP server's path -> the tool-name prefix it serves.
MCP_PATHS = {path: prefix for prefix, (_p, rows) in PROVIDERS.items() for s, path in rows if s == "mcp"}
MCP_PATHS["mcp"] = None  # mcp_url: every tool of the episode


def _prefix(tool: str) -> str:
    return tool.split(".", 1)[0]


def provider_of(world, tool: str) -> str:
    known = PROVIDERS.get(_prefix(tool))
    return known[0] if known is not None else world.name


def tool_rows(world) -> list:
    """``[(provider, surface, path)]`` for a world, in 001's order (Gmail, Slack, Calendar)."""
    prefixes = {_prefix(t.name) for t in world.tools}
    rows = [(provider, surface, path)
            for prefix, (provider, surfaces) in PROVIDERS.items() if prefix in prefixes
            for surface, path in surfaces]
    if not rows or prefixes - set(PROVIDERS):
        rows.append((world.name, "mcp", "mcp"))
    return rows
