"""Build the Cython state core: ``sw_core_ext._store`` and ``sw_core_ext._calls``.

Everything else (metadata, packages, scripts) is in pyproject.toml; this file
exists only to declare the extensions. Cython is a build requirement, so the
generated C is never committed: ``pip install -e .`` cythonizes ``_store.pyx``
and ``_calls.pyx`` (again only when they changed) and compiles them. The
extensions need no OpenSSL headers or link flags: ``_store`` finds libcrypto
at import time.
"""

from Cython.Build import cythonize
from setuptools import Extension, setup

DIRECTIVES = {
    "language_level": 3,
    # The indexing in _store.pyx is over fixed C arrays and lists it built
    # itself; None-ness of typed fields is checked explicitly where it can occur.
    "boundscheck": False,
    "wraparound": False,
    "initializedcheck": False,
    "cdivision": True,
    "embedsignature": True,
}

extensions = [
    Extension("sw_core_ext._store", ["sw_core_ext/_store.pyx"]),
    Extension("sw_core_ext._calls", ["sw_core_ext/_calls.pyx"]),  # a call's bookkeeping
]

setup(
    ext_modules=cythonize(extensions, compiler_directives=DIRECTIVES),
    # The generated C is a build product, not package data (1 MB in a wheel).
    exclude_package_data={"sw_core_ext": ["*.c"]},
)
