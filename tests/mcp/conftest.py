"""The runs API's fixtures (a real server at its root, a /v1 client), shared."""

from tests.runs.conftest import base, v1  # noqa: F401  (fixtures)
