"""The Ray door of a shard: decode nothing, call the service, hand back
``(status, JSON bytes)`` exactly as the HTTP routes would answer."""

from __future__ import annotations

import httpx

from ..api.common import API


class ServiceDoor:
    """Each operation of the Ray-native handle, on the app's service."""

    def __init__(self, app):
        self.service = getattr(app.state, "service", None)
        # Until every operation is on the service, run it through the app's
        # own routes in-process (no socket): the same code as HTTP.
        self._asgi = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://shard")

    async def _post(self, path: str, body: bytes) -> tuple:
        r = await self._asgi.post(API + path, content=body, headers={"content-type": "application/json"})
        return r.status_code, r.content

    async def batch(self, body: bytes) -> tuple:
        return await self._post("/batch", body)

    async def create(self, environment: str, body: bytes) -> tuple:
        return await self._post(f"/environments/{environment}/episodes", body)

    async def create_many(self, body: bytes) -> tuple:
        return await self._post("/batch/episodes", body)

    async def submit(self, episode_id: str, body: bytes) -> tuple:
        return await self._post(f"/episodes/{episode_id}/submit", body)

    async def submit_many(self, body: bytes) -> tuple:
        return await self._post("/batch/submit", body)
