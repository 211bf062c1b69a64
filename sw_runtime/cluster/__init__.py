"""Scale-out: shards of Sandworld as Ray actors, one server per port.

- ``shard``: ``ShardServer``, one full server (HTTP on its port, plus the Ray-native door);
- ``door``: what the Ray calls run on the shard's service;
- ``launch``: ``Cluster.start``/``stop``, used by ``sandworld serve --replicas N``;
- ``ray_setup``: Ray as an optional dependency, started small;
- ``serve``: the command's run loop.

Ray is imported only when a cluster starts (``pip install 'sandworld-runtime[cluster]'``).
See docs/CLUSTER.md.
"""
