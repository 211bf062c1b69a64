"""Private-network mode in one place: what ``build_app`` adds to a server.

``Layer(settings)`` holds the key store (when ``--auth keys``), the rate
limiter, this server's metrics registry, the webhook subscriptions and their
dispatcher. ``wrap(app)`` puts the gate and the metrics middleware around the
app; ``start``/``stop`` run in the app's lifespan.
"""

from __future__ import annotations

import os

from ..config import backoff
from .browser import BrowserGuard
from .deliveries import Dispatcher
from .gate import Gate
from .keys import KeyStore
from .limits import Limiter, Rule
from .metrics import Metrics, MetricsMiddleware
from .webhooks import Subscriptions

AUTH_MODES = ("none", "keys")


class Layer:
    def __init__(self, settings):
        settings.validate()  # one place says what a setting may be (config.py)
        self.settings = settings
        self.data_dir = settings.data_dir
        self.keys = KeyStore(settings.data_dir) if settings.auth == "keys" else None
        self.limiter = Limiter(Rule(settings.key_rate, max(1, settings.key_burst or int(settings.key_rate) or 1)),
                               Rule(settings.ip_rate, max(1, settings.ip_burst or int(settings.ip_rate) or 1)))
        self.metrics = Metrics()
        self.subscriptions = Subscriptions(settings.data_dir)
        self.webhooks = Dispatcher(self.subscriptions, queue_size=settings.webhook_queue,
                                   backoff=backoff(settings.webhook_backoff))

    def wrap(self, app, routes_of):
        """The app behind the gate, behind the browser checks (browser.py), timed
        by the metrics middleware (outermost, so refusals are counted too)."""
        guarded = BrowserGuard(Gate(app, self.keys, self.limiter), self.settings.allowed_hosts, self.keys is None)
        return MetricsMiddleware(guarded, self.metrics, routes_of)

    async def start(self) -> None:
        await self.webhooks.start()

    async def stop(self) -> None:
        await self.webhooks.stop()

    def data_dir_writable(self) -> bool:
        path = os.path.abspath(self.data_dir)
        while not os.path.exists(path):  # not made yet: the first existing parent must let us make it
            parent = os.path.dirname(path)
            if parent == path:
                return False
            path = parent
        return os.access(path, os.W_OK | os.X_OK)

