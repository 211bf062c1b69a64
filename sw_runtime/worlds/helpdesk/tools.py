"""Helpdesk's tools: Zendesk Support's REST operations, named after them
(``zendesk.tickets.update`` is Update Ticket, ``PUT /api/v2/tickets/{ticket_id}.json``).

Reads (``reads.py``) are safe; the writes (``writes.py``: create, update, update
many, merge) are guarded, each with a sandbox preview. Arguments are Zendesk's
path and query parameters plus its request body, merged into one object
(``{"ticket_id": 1042, "ticket": {"status": "solved"}}``), which is exactly what
a request to Zendesk's path carries (sw_runtime/runs/addresses.py).
"""

from __future__ import annotations

from . import reads, writes

TOOLS = reads.TOOLS + writes.TOOLS
