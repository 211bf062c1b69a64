"""The ``.pyi`` stub types every public member both implementations of ``Store`` have."""

from __future__ import annotations

import ast
import pathlib

from sw_core_ext import _store_py

STUB = pathlib.Path(_store_py.__file__).with_name("_store.pyi")


def _stubbed() -> tuple[set, set]:
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    top = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    top |= {t.id for n in tree.body if isinstance(n, ast.AnnAssign) for t in [n.target]}
    store = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Store")
    members = {n.name for n in store.body if isinstance(n, ast.FunctionDef)}
    members |= {n.target.id for n in store.body if isinstance(n, ast.AnnAssign)}
    return top, members


def test_the_stub_covers_the_public_api():
    top, members = _stubbed()
    public = {n for n in dir(_store_py.Store) if not n.startswith("_")} | {"__init__"}
    assert public <= members, public - members
    assert {"DIGEST_DOMAIN", "Store", "canonical_json", "record_hash", "digest_of_acc"} <= top


def test_the_compiled_store_has_what_the_stub_promises():
    import pytest

    compiled = pytest.importorskip("sw_core_ext._store")
    _, members = _stubbed()
    store = compiled.Store({"a": {"x": {"v": 1}}})
    missing = {m for m in members if m != "__init__" and not hasattr(store, m)}
    assert not missing
