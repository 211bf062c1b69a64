"""The HTTP connection: uvicorn's httptools protocol with read timeouts, a
header size limit, and its own errors in the JSON envelope.

uvicorn reads headers and bodies for as long as a client cares to send
them, so a few hundred slow connections hold every descriptor and every
good request fails. Here a request's headers must arrive within
``HEADER_TIMEOUT`` seconds of its first byte (a connection that sends
nothing is closed after the keep-alive timeout, as an idle one is),
the body may pause at most ``BODY_TIMEOUT`` seconds between chunks, and the
request line plus headers may take at most ``MAX_HEADER_BYTES``. A client
(an IP) holds at most ``MAX_CLIENT_CONNECTIONS`` connections: past it, its
oldest connection that is not running a request is closed to make room
(a client opening slow connections only ever evicts its own), and a new
one is refused only when every one of them is busy. What
uvicorn answers itself (a request it cannot parse) leaves in the envelope
``{"error": {"code", "message"}}`` like every other error.
"""

from __future__ import annotations

import resource

import orjson
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from .. import errors

HEADER_TIMEOUT = 10.0
BODY_TIMEOUT = 30.0
MAX_HEADER_BYTES = 64 * 1024
MAX_CLIENT_CONNECTIONS = 64


def error_bytes(status: int, code: str, message: str) -> bytes:
    """A whole HTTP response carrying the error envelope; the connection closes after it."""
    body = orjson.dumps({"error": {"code": code, "message": message}})
    return b"".join([
        STATUS_LINE[status], b"content-type: application/json\r\n",
        b"content-length: %d\r\n" % len(body), b"connection: close\r\n\r\n", body,
    ])


class _HeadersTooLarge(Exception):
    pass


class _OneWrite:
    """The connection's transport as a response sees it: what the response
    writes leaves in one ``writelines`` when it completes, or at the end of the
    loop's turn if it goes on (a stream). uvicorn writes the status line and
    headers, then the body: two system calls per answer, a third of a single
    ``/step``'s server time here. Everything else is the transport's own."""

    __slots__ = ("_transport", "_loop", "_held")

    def __init__(self, transport, loop):
        self._transport, self._loop, self._held = transport, loop, []

    def write(self, data) -> None:
        if not self._held:
            self._loop.call_soon(self.flush)
        self._held.append(data)

    def flush(self) -> None:
        if self._held:
            held, self._held = self._held, []
            if not self._transport.is_closing():
                self._transport.writelines(held)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def __getattr__(self, name):
        return getattr(self._transport, name)


def configured(settings) -> type:
    """The protocol class with the server's settings (``uvicorn.run(http=...)``)."""
    return type("SandworldProtocol", (SandworldProtocol,), {
        "header_timeout": settings.header_timeout, "body_timeout": settings.body_timeout,
        "max_header_bytes": settings.max_header_bytes,
        "max_client_connections": settings.max_client_connections or _auto_connections(), "clients": {},
    })


def _auto_connections() -> int:
    """A quarter of the descriptors this process may open, at least 64: one
    client never holds them all, and slow ones never starve the rest."""
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return max(64, (soft if soft != resource.RLIM_INFINITY else 1 << 20) // 4)


class SandworldProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, bounded (see the module docstring)."""

    header_timeout = HEADER_TIMEOUT
    body_timeout = BODY_TIMEOUT
    max_header_bytes = MAX_HEADER_BYTES
    max_client_connections = MAX_CLIENT_CONNECTIONS
    clients: dict = {}  # client IP -> {protocol: None}, oldest first (per configured class: per server)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # One timer per connection, moved lazily: arming sets a deadline, and
        # the timer, when it fires before the deadline, waits again for it.
        # Cancelling and making a timer at every phase of every request cost
        # a few per cent of a single /step.
        self._timer = None
        self._timer_at = 0.0
        self._deadline = None  # loop time, or None: nothing to wait for
        self._why = None  # what a timeout answers; None: the connection was idle, close it quietly
        self._header_bytes = 0
        self._too_large = False
        self._busy = False  # a request's headers are in and its response not yet sent
        self._client = None
        self._late_headers = f"the request headers did not arrive within {self.header_timeout:g} s"
        self._late_body = f"the request body paused for more than {self.body_timeout:g} s"

    def _arm(self, seconds: float, why: str | None) -> None:
        self._deadline = deadline = self.loop.time() + seconds
        self._why = why
        if self._timer is None or deadline < self._timer_at:
            if self._timer is not None:
                self._timer.cancel()
            self._timer_at = deadline
            self._timer = self.loop.call_at(deadline, self._check)

    def _disarm(self) -> None:
        self._deadline = None

    def _check(self) -> None:
        self._timer = None
        if self._deadline is None:
            return
        if self.loop.time() < self._deadline:  # moved since the timer was made
            self._timer_at = self._deadline
            self._timer = self.loop.call_at(self._deadline, self._check)
        elif self._why is None:
            self._idle()
        else:
            self._timed_out(self._why)

    def _timed_out(self, why: str) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(error_bytes(errors.RequestTimeout.status, errors.RequestTimeout.code, why))
            self.transport.close()

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._one_write = _OneWrite(transport, self.loop)
        # A connection that sends nothing is closed like an idle keep-alive
        # one; the header timeout starts with a request's first byte.
        self._arm(self.timeout_keep_alive, None)
        peer = transport.get_extra_info("peername")
        self._client = peer[0] if peer else None
        mine = self.clients.setdefault(self._client, {})
        mine[self] = None
        if len(mine) > self.max_client_connections:
            self._make_room(mine)

    def _make_room(self, mine: dict) -> None:
        """Close this client's oldest connection that runs no request (idle, or
        still sending its headers); with none, refuse this new one (429)."""
        for other in mine:
            if other is not self and not other._busy:
                other._idle()
                mine.pop(other, None)
                return
        self.transport.write(error_bytes(
            errors.RateLimited.status, errors.RateLimited.code,
            f"this client holds {len(mine) - 1} connections, each running a request; at most "
            f"{self.max_client_connections} (SW_MAX_CLIENT_CONNECTIONS): reuse connections (keep-alive)"))
        self.transport.close()

    def _idle(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()

    def connection_lost(self, exc) -> None:
        mine = self.clients.get(self._client)
        if mine is not None:
            mine.pop(self, None)
            if not mine:
                del self.clients[self._client]
        self._disarm()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._header_bytes = 0
        self._arm(self.header_timeout, self._late_headers)

    def _count(self, n: int) -> None:
        self._header_bytes += n
        if self._header_bytes > self.max_header_bytes:
            self._too_large = True
            raise _HeadersTooLarge()

    def on_url(self, url: bytes) -> None:
        self._count(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count(len(name) + len(value) + 4)
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._busy = True
        self._arm(self.body_timeout, self._late_body)
        super().on_headers_complete()
        if self.cycle is not None:
            self.cycle.transport = self._one_write

    def on_body(self, body: bytes) -> None:
        self._arm(self.body_timeout, self._late_body)
        super().on_body(body)

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def on_response_complete(self) -> None:
        self._busy = False
        self._one_write.flush()  # before anything may close the connection
        super().on_response_complete()

    def send_400_response(self, msg: str) -> None:
        self._disarm()
        if self._too_large:
            data = error_bytes(errors.HeadersTooLarge.status, errors.HeadersTooLarge.code,
                               f"the request line and headers pass {self.max_header_bytes} bytes, the most this "
                               "server reads")
        else:
            data = error_bytes(errors.InvalidRequest.status, errors.InvalidRequest.code, f"{msg.rstrip('.')}: the bytes sent are not valid HTTP/1.1")
        self.transport.write(data)
        self.transport.close()
