"""The world-state core: collections of records, copy-on-write forks and
SHA-256 state digests.

The Cython extension (``_store``) is loaded when it was built; otherwise, or
when ``SW_PURE=1`` is set, the pure-Python twin (``_store_py``) with the same
behaviour. ``IMPLEMENTATION`` says which one this process uses.
"""

import os

if os.environ.get("SW_PURE", "") not in ("", "0"):
    from ._store_py import DIGEST_DOMAIN, Store, canonical_json, digest_of_acc, record_hash

    IMPLEMENTATION = "python"
else:
    try:
        from ._store import DIGEST_DOMAIN, Store, canonical_json, digest_of_acc, record_hash

        IMPLEMENTATION = "cython"
    except ImportError:  # not built (e.g. a source checkout without a compiler)
        from ._store_py import DIGEST_DOMAIN, Store, canonical_json, digest_of_acc, record_hash

        IMPLEMENTATION = "python"

__all__ = ["DIGEST_DOMAIN", "IMPLEMENTATION", "Store", "canonical_json", "digest_of_acc", "record_hash"]
