"""``python -m sandworld``: the ``sandworld`` command."""

import sys

from .cli import main

sys.exit(main())
