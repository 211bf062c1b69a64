"""The benchmark runner behind ``sandworld eval``, ``report``, ``compare`` and ``export``.

- ``runner``: runs an agent over worlds × tasks × seeds × trials (``run_eval``), and resumes runs;
- ``agents``: the built-in agents and loading ``module:function``;
- ``models``: ``anthropic:MODEL`` and ``openai:MODEL`` agents (official SDKs, tool loops);
- ``store``: the SQLite database of runs and trials;
- ``stats``: pass^k, Wilson and bootstrap intervals, Newcombe differences;
- ``summary``: per-task statistics and the closing table;
- ``compare``: two runs, task by task;
- ``report``: the markdown report and the chart;
- ``export``: traces as JSONL, chat transcripts or Parquet;
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
