"""Which real service each tool copies, and where a run serves it.

A tool's provider comes from its operation's first part: the operation is
the real API's method name, the name the tool is declared under and its alias
(``gmail.messages.list``, served as ``gmail_messages_list``, is Gmail's;
``pulls.merge`` GitHub's, ``Refund.create`` Stripe's, ``zendesk.tickets.update``
Zendesk's). Worlds whose tools copy no real API
(coinpurse, quickbasket…) are served over MCP only, under the world's own name.
"""

from __future__ import annotations

# provider -> (its tools' name prefixes, [(surface, path under tools_url)])
PROVIDERS = {
    "google.gmail": (("gmail",), [("rest", "gmail.googleapis.com/gmail/v1"),
                                  ("mcp", "gmailmcp.googleapis.com/mcp/v1")]),
    "slack": (("slack",), [("web-api", "slack.com/api"), ("mcp", "mcp.slack.com/mcp")]),
    "google.calendar": (("calendar",), [("rest", "www.googleapis.com/calendar/v3")]),
    "github": (("repos", "issues", "pulls", "checks", "teams"), [("rest", "api.github.com")]),
    "jira": (("jira",), [("rest", "kestrel.atlassian.net")]),
    "stripe": (("Customer", "PaymentMethod", "Product", "Price", "Subscription", "Invoice", "InvoiceItem",
                "PaymentIntent", "Charge", "Refund", "Dispute", "Coupon", "PromotionCode", "BalanceTransaction",
                "Payout", "Event"), [("rest", "api.stripe.com")]),
    # Zendesk serves each account at its own subdomain; the built-in helpdesk world is brightwater's.
    "zendesk": (("zendesk",), [("rest", "brightwater.zendesk.com/api/v2")]),
}
_PROVIDER_OF = {prefix: provider for provider, (prefixes, _rows) in PROVIDERS.items() for prefix in prefixes}

# A per-provider MCP server's path -> the tool-name prefix it serves.
MCP_PATHS = {path: prefixes[0] for prefixes, rows in PROVIDERS.values() for s, path in rows if s == "mcp"}
MCP_PATHS["mcp"] = None  # mcp_url: every tool of the episode


def _prefix(tool: str) -> str:
    return tool.split(".", 1)[0]


def operation(world, tool: str) -> str:
    """001's operation name of the tool a call names (served name or alias):
    its alias, the real API's method name, when it has one."""
    t = world.tools_by_name.get(tool)
    return (t.alias or t.name) if t is not None else tool


def provider_of(world, tool: str) -> str:
    return _PROVIDER_OF.get(_prefix(operation(world, tool)), world.name)


def tool_rows(world) -> list:
    """``[(provider, surface, path)]`` for a world, in 001's order (Gmail, Slack, Calendar, then GitHub, Jira and
    Zendesk)."""
    prefixes = {_prefix(t.alias or t.name) for t in world.tools}
    rows = [(provider, surface, path)
            for provider, (known, surfaces) in PROVIDERS.items() if prefixes & set(known)
            for surface, path in surfaces]
    if not rows or prefixes - set(_PROVIDER_OF):
        rows.append((world.name, "mcp", "mcp"))
    return rows
