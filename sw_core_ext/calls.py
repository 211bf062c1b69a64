"""A call's bookkeeping (``_calls.pyx``, or its pure-Python twin ``_calls_py.py``).

Chosen as the state core is (``sw_core_ext.IMPLEMENTATION``): the compiled
module when the store is the compiled one and this module was built too,
else the twin, which behaves the same. ``IMPLEMENTATION`` says which.
"""

from . import IMPLEMENTATION as _CORE

if _CORE == "cython":
    try:
        from ._calls import answer, args_json, batch, bind, step

        IMPLEMENTATION = "cython"
    except ImportError:  # built before _calls.pyx existed: rebuild (setup.py build_ext)
        from ._calls_py import answer, args_json, batch, bind, step

        IMPLEMENTATION = "python"
else:
    from ._calls_py import answer, args_json, batch, bind, step

    IMPLEMENTATION = "python"

__all__ = ["IMPLEMENTATION", "answer", "args_json", "batch", "bind", "step"]
