"""The ASGI app ``openenv.yaml`` names: the world in ``$SANDWORLD_WORLD``
(default coinpurse), the Sandworld server in ``$SANDWORLD_API_URL``."""

from __future__ import annotations

import os

from . import make_app

app = make_app(os.environ.get("SANDWORLD_WORLD", "coinpurse"))
