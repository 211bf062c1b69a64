"""Private-network mode: API keys and scopes, rate limits, metrics, webhooks.

Off by default on loopback. ``Layer`` (``layer.py``) puts it together for
``build_app``; the doors in ``sw_runtime.api`` serve its routes; the service
decides what each caller's project may see. docs/SECURITY.md describes it.
"""
