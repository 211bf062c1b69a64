"""``GET /api/v1/keys``: the caller's project's API keys, a page at a time.

Keys are made and revoked with the ``sandworld keys`` command, on the
server's machine; the API only lists them, never with their secrets.
"""

from __future__ import annotations

import os

from starlette.requests import Request
from starlette.routing import Route

from ..pagination import list_query
from ..security.gate import principal_of
from ..security.keys import FILE, KeyStore
from .common import API, endpoint, json_response


def routes(layer, service) -> list:
    store = layer.keys

    @endpoint
    async def listing(request: Request):
        page, _ = list_query(request.query_params)
        nonlocal store
        if store is None:  # keys off: list the folder's keys all the same, if it has any
            if not os.path.exists(os.path.join(layer.data_dir, FILE)):
                return json_response({"items": [], "next_cursor": None})
            store = KeyStore(layer.data_dir)
        return json_response(store.page(page, principal_of(request).project))

    return [Route(f"{API}/keys", listing, methods=["GET"])]
