"""API keys: stored hashed, authenticated, revoked; the `sandworld keys` command."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest

from sw_runtime.pagination import page_request
from sw_runtime.security.keys import FILE, PREFIX, KeyStore, digest


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sw_runtime", *args], capture_output=True, text=True, timeout=60)


def test_a_key_is_stored_only_as_its_hash(tmp_path):
    store = KeyStore(str(tmp_path))
    secret, info = store.create("alpha", "episodes:read")
    assert secret.startswith(PREFIX) and len(secret) >= len(PREFIX) + 43
    rows = sqlite3.connect(tmp_path / FILE).execute("SELECT * FROM keys").fetchall()
    flat = " ".join(str(v) for row in rows for v in row)
    assert secret not in flat and digest(secret) in flat
    assert info.hint.startswith(secret[:12]) and len(info.hint) < 20


def test_authenticate_gives_the_project_and_scopes_and_revoke_stops_it(tmp_path):
    store = KeyStore(str(tmp_path))
    secret, info = store.create("alpha", "episodes:read,webhooks:read")
    p = store.authenticate(secret)
    assert (p.project, p.scopes, p.key_id) == ("alpha", frozenset({"episodes:read", "webhooks:read"}), info.id)
    assert store.authenticate(secret[:-1] + ("A" if secret[-1] != "A" else "B")) is None
    assert store.authenticate("not-a-key") is None
    store.revoke(info.id)
    assert store.authenticate(secret) is None


def test_unknown_scopes_and_bad_projects_are_refused(tmp_path):
    store = KeyStore(str(tmp_path))
    with pytest.raises(ValueError, match="unknown scope episodes:delete"):
        store.create("alpha", "episodes:delete")
    with pytest.raises(ValueError, match="not a valid name"):
        store.create("no spaces", "episodes:read")


def test_keys_page_in_creation_order_and_by_project(tmp_path):
    store = KeyStore(str(tmp_path))
    made = [store.create("alpha" if i % 2 else "beta", "episodes:read")[1].id for i in range(7)]
    seen, cursor = [], None
    while True:
        page = store.page(page_request(3, cursor))
        seen += [k["key_id"] for k in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == made
    assert [k["key_id"] for k in store.page(page_request(10), "alpha")["items"]] == made[1::2]


def test_the_keys_command_creates_lists_and_revokes(tmp_path):
    d = str(tmp_path / "data")
    made = run("keys", "create", "--project", "alpha", "--scopes", "episodes:read", "--data-dir", d)
    assert made.returncode == 0, made.stderr
    secret = made.stdout.strip().splitlines()[-1]
    key_id = made.stdout.split()[1]
    assert secret.startswith(PREFIX) and key_id.startswith("key_")
    listed = run("keys", "list", "--data-dir", d)
    assert listed.returncode == 0 and key_id in listed.stdout and "active" in listed.stdout
    assert secret not in listed.stdout
    assert run("keys", "revoke", key_id, "--data-dir", d).returncode == 0
    assert "revoked" in run("keys", "list", "--data-dir", d).stdout
    assert KeyStore(d).authenticate(secret) is None


def test_the_keys_command_says_what_went_wrong(tmp_path):
    d = str(tmp_path / "data")
    bad = run("keys", "create", "--project", "alpha", "--scopes", "everything", "--data-dir", d)
    assert bad.returncode == 2 and "unknown scope everything" in bad.stderr and "episodes:read" in bad.stderr
    gone = run("keys", "revoke", "key_nope", "--data-dir", d)
    assert gone.returncode == 2 and "no key 'key_nope'" in gone.stderr
    for args in (["keys", "--help"], ["keys", "create", "--help"], ["keys", "list", "--help"],
                 ["keys", "revoke", "--help"]):
        assert run(*args).returncode == 0
