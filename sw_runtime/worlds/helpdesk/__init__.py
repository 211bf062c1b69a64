"""Helpdesk: a Zendesk Support twin, Brightwater Outfitters' ``brightwater.zendesk.com``.

Tickets in every status with public replies and internal notes, end users,
agents and admins in organisations and groups, macros, views, SLA policies
with breach times, custom ticket fields, satisfaction ratings and a small
help center. Tools are Zendesk's REST operations (``zendesk.tickets.update``,
``zendesk.search``...) taking Zendesk's bodies (``{"ticket": {...}}``) and
answering its shapes; a run also serves them on Zendesk's own paths,
``{tools_url}/brightwater.zendesk.com/api/v2/tickets/{id}.json`` and the rest
(sw_runtime/runs/addresses.py), where ``zenpy`` works unchanged.

- ``content.py``: names, companies, products, background subjects
- ``state.py``: the seeded account (``plant.py`` adds the tasks' situations, ``records.py`` makes the records)
- ``schema.py``: the records as types
- ``sla.py``: SLA targets and breach times, shared by the tools and the tasks
- ``search.py``: Zendesk's search query syntax
- ``tools.py``: the tools, from ``reads.py`` (19 safe) and ``writes.py`` (4 guarded); ``shapes.py`` holds
  Zendesk's errors and pagination
- ``cast.py``: who plays which part, found by content
- ``tasks.py``: hd-01 to hd-25, from ``tasks_queue.py``, ``tasks_tickets.py`` and ``tasks_refusals.py``
  (``task_parts.py`` holds what they share)
- ``policy.md``: the rules the agent is given
"""

from __future__ import annotations

from ..world import from_package

WORLD = from_package(
    __name__,
    name="helpdesk",
    version="1.0.0",
    title="Helpdesk",
    description=("A Zendesk Support twin: tickets with comments, internal notes and audits, users, organizations, "
                 "groups, macros, views, SLA policies, ticket fields, satisfaction ratings and help center "
                 "articles, served as Zendesk's REST operations."),
)

__all__ = ["WORLD"]
