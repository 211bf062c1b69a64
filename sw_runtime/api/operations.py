"""What operators and tools read: ``/readyz``, ``/metrics``, ``/openapi.json``.

Open to every caller, keys on or off (the gate lets them through): probes,
scrapers and client generators need no key. ``/healthz`` lives in ``app.py``.
"""

from __future__ import annotations

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from . import openapi
from .common import json_response


def routes(layer, service) -> list:
    document = None

    async def readyz(request: Request):
        checks = {"worlds_loaded": bool(service.environments()["environments"]),
                  "data_dir_writable": layer.data_dir_writable(), "log_writable": service.log_writable(),
                  "log_intact": service.log_intact()}
        ready = all(checks.values())
        return json_response({"ready": ready, "checks": checks}, 200 if ready else 503)

    async def metrics(request: Request):
        return Response(layer.metrics.render(), media_type=layer.metrics.content_type)

    async def openapi_json(request: Request):
        nonlocal document
        if document is None:
            document = orjson.dumps(openapi.build())
        return Response(document, media_type="application/json")

    return [
        Route("/readyz", readyz, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
        Route("/openapi.json", openapi_json, methods=["GET"]),
    ]
