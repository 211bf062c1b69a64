"""The OpenAPI document: every route, generated from the request Structs, and a
live server that keeps to it under schemathesis."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import httpx
import pytest
from sandworld.local import local_server
from starlette.routing import Route

from sw_runtime import schemas
from sw_runtime.app import build_app
from sw_runtime.api import openapi


def test_every_route_the_app_serves_is_in_the_document():
    doc = openapi.build()
    served = {(m, r.path) for r in build_app().routes if isinstance(r, Route) for m in r.methods - {"HEAD"}}
    documented = {(m.upper(), p) for p, item in doc["paths"].items() for m in item}
    assert served - documented - set(openapi.EXTRA) == set()
    assert documented - served == set()


def test_request_bodies_are_the_structs_that_decode_them():
    doc = openapi.build()
    step = doc["components"]["schemas"]["Step"]
    assert set(step["properties"]) == set(schemas.Step.__struct_fields__)
    assert step["additionalProperties"] is False and step["required"] == ["tool"]
    body = doc["paths"]["/api/v1/episodes/{id}/step"]["post"]["requestBody"]
    assert body["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Step"}
    create = doc["paths"]["/api/v1/environments/{env}/episodes"]["post"]
    assert create["requestBody"]["required"] is False and "201" in create["responses"]


def test_each_operation_names_its_scope_and_its_errors():
    doc = openapi.build()
    step = doc["paths"]["/api/v1/episodes/{id}/step"]["post"]
    assert step["security"] == [{"apiKey": ["episodes:write"]}]
    assert {"401", "403", "404", "409", "429"} <= set(step["responses"])
    assert doc["paths"]["/healthz"]["get"]["security"] == []
    ids = [op["operationId"] for item in doc["paths"].values() for op in item.values()]
    assert len(ids) == len(set(ids))


def test_the_server_serves_the_document(api):
    root = api.rsplit("/api/v1", 1)[0]
    doc = httpx.get(f"{root}/openapi.json").json()
    assert doc["openapi"] == "3.1.0" and doc == openapi.build() | {"paths": doc["paths"]}


# -- schemathesis ------------------------------------------------------------

CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"


@pytest.mark.slow
def test_a_live_server_keeps_to_its_document_under_schemathesis(tmp_path):
    """>= 50 generated cases per operation; zero server errors, zero answers
    that break the document. Bounded: a fixed seed, no shrinking."""
    cli = shutil.which("schemathesis", path=os.path.dirname(sys.executable))
    assert cli, "schemathesis is a dev dependency: reinstall with ./scripts/test"
    with local_server("--data-dir", str(tmp_path / "data")) as url:
        root = url.rsplit("/api/v1", 1)[0]
        started = time.monotonic()
        run = subprocess.run(
            [cli, "run", f"{root}/openapi.json", "--max-examples", "50", "--checks", CHECKS,
             "--phases", "examples,coverage,fuzzing", "--workers", "2", "--seed", "1", "--no-shrink",
             "--warnings", "off", "--suppress-health-check", "all", "--request-timeout", "30"],
            capture_output=True, text=True, timeout=600, cwd=tmp_path,
        )
    report = run.stdout[-6000:] + run.stderr[-2000:]
    assert run.returncode == 0, report
    assert time.monotonic() - started < 600
