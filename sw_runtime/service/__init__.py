"""The service: the one way in to the engine, for every door.

A door (the HTTP routes of ``sw_runtime.api``, the Ray actors of
``sw_runtime.cluster``, the runs API, MCP) decodes its transport, calls one
method of ``Service`` and encodes what it answers; it never touches the
engine. The service owns what is the same whatever the door: decoding bodies
into ``sw_runtime.schemas`` structs, idempotency keys, the waits on simulated
users and the judge, and the background sweep of idle episodes.

    svc = Service(settings)
    await svc.start()
    reply = await svc.create("coinpurse", b'{"task_id": "cp-12", "seed": 2}')
    answer = await svc.batch(b'{"calls": [...]}')   # bytes in, bytes out
    await svc.stop()
"""

from ..engine.browse import STATUSES, Filters
from ..engine.episode import ENDED_BY
from .operations import Service
from .reply import Reply

__all__ = ["ENDED_BY", "STATUSES", "Filters", "Reply", "Service"]
