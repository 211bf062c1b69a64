"""``GET /episodes/{id}/state``: an episode's records and digest.

The answer is a state dump that ``sandworld digest`` reads as is: run it on
the whole dump and it prints ``digest``. ``?collections=a,b`` returns only
those collections; ``digest`` is still the whole state's, and
``collections_digest`` is the digest of what was returned (what ``sandworld
digest`` prints for that dump).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route
from sw_core_ext import Store

from .. import errors
from ..security.gate import principal_of
from .common import API, endpoint, json_response


def routes(engine, settings) -> list:
    @endpoint
    async def state(request: Request):
        ep = engine.get(request.path_params["id"], principal_of(request).project)
        store = ep.store
        names = store.collections
        raw = request.query_params.get("collections")
        if raw is not None:
            wanted = [n.strip() for n in raw.split(",") if n.strip()]
            unknown = [n for n in wanted if not store.has_collection(n)]
            if not wanted or unknown:
                raise errors.InvalidRequest(
                    f"collections={raw!r} names {'no collection' if not wanted else 'unknown ' + ', '.join(unknown)}; "
                    f"{ep.world.name}'s collections are {', '.join(names)}"
                )
            names = list(dict.fromkeys(wanted))
        collections = store.to_dict(names)
        body = {
            "episode_id": ep.id,
            "environment": ep.world.name,
            "steps": ep.steps,
            "digest": ep.digest,
            "collections": collections,
        }
        if raw is not None:
            body["collections_digest"] = Store(collections).digest()
        return json_response(body)

    return [Route(f"{API}/episodes/{{id}}/state", state, methods=["GET"])]
