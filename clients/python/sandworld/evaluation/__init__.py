"""The benchmark runner behind ``sandworld eval``, ``report`` and ``export``.

- ``runner``: runs an agent over tasks × seeds × trials (``run_eval``);
- ``agents``: the built-in agents and loading ``module:function``;
- ``store``: the SQLite database of runs and trials;
- ``summary``: per-task statistics and pass^k;
- ``report``: the markdown report and the pass-rate chart;
- ``export``: traces as a JSONL dataset;
- ``commands``: the command-line commands.
"""

__all__ = ["EvalConfig", "EvalResult", "run_eval"]


def __getattr__(name):
    # Imported on use: the runner needs rich (the `eval` extra), and the
    # client-only command line must list these commands without it.
    if name in __all__:
        from . import runner

        return getattr(runner, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
