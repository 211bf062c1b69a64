"""Billing's tools: Stripe's operations by the ``stripe`` SDK's names.

Reads (``reads.py``) are safe; every write (``writes.py``, ``subscriptions.py``)
is guarded; ``Invoice.create_preview`` is a safe read that changes nothing.
The runs dialect serves them at Stripe's own paths
(``{tools_url}/api.stripe.com/v1/...``, ``sw_runtime/runs/addresses.py``).
"""

from __future__ import annotations

from . import reads, subscriptions, writes

TOOLS = [*reads.TOOLS, *subscriptions.TOOLS, *writes.TOOLS]
