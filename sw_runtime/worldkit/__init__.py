"""The kit for world authors: ``check-world`` runs a world through the engine
(its tools, seeded determinism, every task's reference solution and a
do-nothing run), and the ``new-world``/``check-world`` commands. It sits above
the engine, which it drives directly: it needs what no door shows (a task's
reference solution), so it is a tool beside the service, not a world's part.
"""
