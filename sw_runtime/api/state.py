"""``GET /episodes/{id}/state``: an episode's records and digest.

The answer is a state dump that ``sandworld digest`` reads as is: run it on
the whole dump and it prints ``digest``. ``?collections=a,b`` returns only
those collections; ``digest`` is still the whole state's, and
``collections_digest`` is the digest of what was returned (what ``sandworld
digest`` prints for that dump). A large state is encoded in slices, the
server answering other requests meanwhile (``service/reads.py``).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from ..security.gate import project_of
from .common import API, endpoint, json_bytes_response


def routes(service) -> list:
    @endpoint
    async def state(request: Request):
        raw = request.query_params.get("collections")
        wanted = raw.split(",") if raw is not None else None
        return json_bytes_response(await service.state_json(request.path_params["id"], wanted,
                                                            project=project_of(request)))

    return [Route(f"{API}/episodes/{{id}}/state", state, methods=["GET"])]
