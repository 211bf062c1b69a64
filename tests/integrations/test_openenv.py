"""OpenEnv: the facade served by OpenEnv's own server, played by OpenEnv's own clients.

openenv-core 0.3.0 is installed (without its web UI); its ``GenericEnvClient``
and ``MCPToolClient`` talk to the facade over ``/ws`` unchanged, and its HTTP
routes are checked with plain requests.
"""

from __future__ import annotations

import contextlib
import json
import pathlib
import socket
import subprocess
import sys
import time

import httpx
import pytest
from openenv.core import GenericEnvClient
from openenv.core.env_server.mcp_types import CallToolAction
from openenv.core.mcp_client import MCPToolClient
from websockets.sync.client import connect

from sandworld.integrations.openenv import SandworldEnvironment
from sandworld.local import free_port
from tests.integrations.helpers import reference

pytestmark = pytest.mark.slow  # the facade process imports FastAPI and fastmcp: ~10 s to start

FACADE = pathlib.Path(__file__).resolve().parents[2] / "clients/python/sandworld/integrations/openenv"


@pytest.fixture(scope="module")
def facade_and_log(api, tmp_path_factory):
    """The facade in its own process, as ``python -m`` runs it, on a free port; its stderr in a file."""
    port = free_port()
    log = tmp_path_factory.mktemp("facade") / "stderr.log"
    with log.open("wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "sandworld.integrations.openenv", "--world", "coinpurse",
                                 "--sandworld-url", api, "--port", str(port)],
                                stdout=subprocess.DEVNULL, stderr=err)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            assert proc.poll() is None, log.read_text()
            time.sleep(0.1)
        yield url, log
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def facade(facade_and_log):
    return facade_and_log[0]


def test_openenvs_client_plays_a_coinpurse_task_to_a_score_of_one(facade):
    with GenericEnvClient(base_url=facade).sync() as env:
        first = env.reset(task_id="cp-04", seed=1)
        obs = first.observation
        assert obs["task_id"] == "cp-04" and obs["instruction"] and not first.done
        assert {"get_balance", "submit"} <= {t["name"] for t in obs["tools"]}
        setup = reference("coinpurse", {"environment_version": _world_version(), "task_id": "cp-04", "seed": 1,
                                        "seed_digest": None})
        for tool, arguments in setup.solution:
            step = env.step(CallToolAction(tool_name=tool, arguments=arguments))
            assert step.observation["result"]["ok"] is True and not step.done and step.reward == 0.0
        end = env.step(CallToolAction(tool_name="submit", arguments={"output": setup.output}))
        assert end.done and end.reward == 1.0 and end.observation["result"]["pass"] is True
        assert env.state()["step_count"] == len(setup.solution)


def _world_version() -> str:
    from sw_runtime.worlds import get_world

    return get_world("coinpurse").version


def test_openenvs_mcp_client_lists_and_calls_tools_and_a_refusal_is_data(facade):
    with MCPToolClient(base_url=facade).sync() as env:
        env.reset(task_id="cp-01", seed=0)
        names = [t.name for t in env.list_tools()]
        assert "get_balance" in names and names[-1] == "submit"
        assert env.call_tool("get_balance")["ok"] is True
        refused = env.call_tool("pay_request", request_id="rq-nope")
        assert refused["ok"] is False and refused["error"]["code"]


def test_the_http_routes_of_openenvs_contract(facade):
    with httpx.Client(base_url=facade, timeout=30) as c:
        assert c.get("/health").json()["status"] == "healthy"
        reset = c.post("/reset", json={"task_id": "cp-01", "seed": 0}).json()
        assert reset["done"] is False and reset["observation"]["instruction"]
        listed = c.post("/step", json={"action": {"type": "list_tools"}}).json()
        assert "tools" in listed["observation"]
        assert "properties" in c.get("/schema").json()["action"]


def test_a_client_that_leaves_ends_its_session_without_a_traceback(facade_and_log):
    # openenv-core 0.3.0's /ws handler closes the socket once the client is gone, and Starlette answers
    # that with WebSocketDisconnect: every session's end logged a 60-line traceback (a race when the
    # client closes politely, certain when it drops the connection, as here).
    url, log = facade_and_log
    with connect(url.replace("http://", "ws://") + "/ws") as ws:
        ws.send(json.dumps({"type": "reset", "data": {"task_id": "cp-01", "seed": 0}}))
        assert json.loads(ws.recv(timeout=30))["type"] == "observation"
        ws.socket.shutdown(socket.SHUT_RDWR)  # gone without a close frame
    with GenericEnvClient(base_url=url).sync() as env:  # the facade serves on, and a polite close is quiet too
        assert env.reset(task_id="cp-01", seed=0).observation["instruction"]
    time.sleep(1.0)
    assert "Traceback" not in log.read_text(), log.read_text()


def test_sessions_run_concurrently_and_the_contract_files_ship():
    assert SandworldEnvironment.SUPPORTS_CONCURRENT_SESSIONS is True
    spec = (FACADE / "openenv.yaml").read_text()
    assert "runtime: fastapi" in spec and "app: sandworld.integrations.openenv.app:app" in spec
    assert "sandworld.integrations.openenv.app:app" in (FACADE / "Dockerfile").read_text()
