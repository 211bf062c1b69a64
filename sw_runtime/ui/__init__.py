"""The viewer: web pages for episodes, traces, the server and evaluation runs.

A door like ``sw_runtime.api``: ``pages.py`` serves ``/ui/`` on every
``sandworld serve`` (reading ``sw_runtime.service`` only), ``evalruns.py``
serves the runs of a results file for ``sandworld view`` (reading it with the
client's ``sandworld.evaluation``). Templates and static files ship in this
package (docs/VIEWER.md).
"""

from .pages import routes

__all__ = ["routes"]
