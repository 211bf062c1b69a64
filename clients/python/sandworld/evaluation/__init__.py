"""The benchmark runner behind ``sandworld eval``, ``report`` and ``export``.

- ``runner``: runs an agent over tasks × seeds × trials (``run_eval``);
- ``agents``: the built-in agents and loading ``module:function``;
- ``store``: the SQLite database of runs and trials;
- ``summary``: per-task statistics and pass^k;
- ``report``: the markdown report and the pass-rate chart;
- ``export``: traces as a JSONL dataset;
- ``commands``: the command-line commands.
"""

from .runner import EvalConfig, EvalResult, run_eval

__all__ = ["EvalConfig", "EvalResult", "run_eval"]
