"""Run every core test on both implementations of the state core.

The Cython extension is imported directly, not through ``sw_core_ext`` (which
would quietly fall back to the twin): if it is not built, its half of the
suite errors instead of skipping. Build it with ``pip install -e .``.
"""

from __future__ import annotations

import importlib

import pytest

IMPLEMENTATIONS = {"cython": "sw_core_ext._store", "python": "sw_core_ext._store_py"}


def load(name: str):
    """The module of one implementation ("cython" or "python")."""
    try:
        return importlib.import_module(IMPLEMENTATIONS[name])
    except ImportError as exc:
        raise RuntimeError(
            "the Cython state core sw_core_ext._store is not built; run `pip install -e .`"
        ) from exc


@pytest.fixture(params=sorted(IMPLEMENTATIONS))
def impl(request):
    """The implementation module under test: ``impl.Store``, ``impl.record_hash``..."""
    return load(request.param)
