"""How the worlds write money: integer cents as ``$1234.56``.

One helper for every world, so a world's texts, its tasks' output checks and
an agent told by the policy how to write amounts all agree on the same
characters: no thousands separator unless the app groups them (receivables'
invoices do), and a leading ``-`` for a credit (``-$5.00``).
"""

from __future__ import annotations


def dollars(cents: int, grouped: bool = False) -> str:
    """``$1234.56`` (``$1,234.56`` when ``grouped``), ``-$5.00`` for a negative amount."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    whole = f"{cents // 100:,}" if grouped else f"{cents // 100}"
    return f"{sign}${whole}.{cents % 100:02d}"


def dollars_bare(cents: int) -> str:
    """``1234.56``: what an output check looks for, with or without the ``$``."""
    return dollars(cents).replace("$", "")
