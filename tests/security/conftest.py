"""Servers with keys on, and keys to call them with (real servers, real sockets)."""

from __future__ import annotations

import contextlib

import httpx
import pytest
from sandworld.local import local_server

from sw_runtime.security.keys import KeyStore

ALL = "episodes:read,episodes:write,webhooks:read,webhooks:write,keys:read"


@pytest.fixture
def data_dir(tmp_path):
    return str(tmp_path / "data")


@pytest.fixture
def make_key(data_dir):
    """``make_key(project, scopes)`` -> the key's secret, in the test's data folder."""
    store = KeyStore(data_dir)

    def make(project: str = "alpha", scopes: str = ALL) -> str:
        return store.create(project, scopes)[0]

    make.store = store
    yield make
    store.close()


@contextlib.contextmanager
def keyed_server(data_dir: str, *args: str, env: dict | None = None):
    """A server with ``--auth keys`` on the data folder; yields its API URL."""
    with local_server("--auth", "keys", "--data-dir", data_dir, *args, env=env) as url:
        yield url


def client(url: str, key: str | None) -> httpx.Client:
    headers = {"authorization": f"Bearer {key}"} if key else {}
    return httpx.Client(base_url=url, headers=headers, timeout=30)


class Keys(dict):
    """Secrets by name, and the server's API URL."""

    url: str
    data_dir: str


@pytest.fixture(scope="module")
def keyed(tmp_path_factory):
    """One server with keys on, shared by a module's tests, and keys for it:
    ``alpha`` and ``beta`` (every scope, two projects), ``reader`` (alpha,
    episodes:read), ``writer`` (alpha, episodes:write), ``hooks`` (alpha,
    webhooks only), ``revoked`` (alpha, every scope, revoked)."""
    data_dir = str(tmp_path_factory.mktemp("keyed") / "data")
    store = KeyStore(data_dir)
    keys = Keys(
        alpha=store.create("alpha", ALL)[0],
        beta=store.create("beta", ALL)[0],
        reader=store.create("alpha", "episodes:read")[0],
        writer=store.create("alpha", "episodes:write")[0],
        hooks=store.create("alpha", "webhooks:read,webhooks:write")[0],
    )
    secret, info = store.create("alpha", ALL)
    store.revoke(info.id)
    keys["revoked"] = secret
    store.close()
    with keyed_server(data_dir) as url:
        keys.url, keys.data_dir = url, data_dir
        yield keys
