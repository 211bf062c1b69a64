"""Reference 001's runs API under ``/v1`` and the tools at the real APIs' addresses.

- ``control.py``: the six ``/v1`` routes (environments, runs)
- ``gateway.py``: ``{tools_url}/{real host}/{real path}`` for runs and ``/api/v1`` episodes
- ``addresses.py``: each real method and path, and the tool it is
- ``coerce.py``: query and form text typed by a tool's schema
- ``requests.py``, ``shapes.py``: 001's bodies in, 001's objects out
- ``providers.py``: which real service a tool copies, and where it is served
"""
