"""MCP door: an episode's (or a run's) tools over MCP's streamable HTTP transport.

Served with the official ``mcp`` Python SDK as the server library; see
``server.py``.
"""

from .server import McpDoor, mcp_name

__all__ = ["McpDoor", "mcp_name"]
