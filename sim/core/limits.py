"""The solver's budgets and memory bound: defaults, and the one check of a table size.

Kept apart from the search so the command line and the player registry can
show them without loading the compiled kernels.
"""

from __future__ import annotations

DEFAULT_BUDGET_NODES = 100_000_000  #: about a minute and a half: the seconds bind first on a usual machine
DEFAULT_BUDGET_SECONDS = 60.0  #: CPU seconds of the solving process
DEFAULT_TABLE_SIZE = 1 << 27  #: at most 128M slots = 2 GB for all of a call's tables (they start small and grow)
MIN_TABLE_SIZE = 1024


def check_limits(budget_nodes: int, budget_seconds: float, table_size: int) -> str | None:
    """What is wrong with these limits, in words, or None: the one rule for ``castle solve`` and the ``solver`` player."""
    if budget_nodes < 1:
        return f"budget_nodes must be at least 1, not {budget_nodes}"
    if not budget_seconds > 0:
        return f"budget_seconds must be more than 0, not {budget_seconds}"
    if table_size < MIN_TABLE_SIZE or table_size & (table_size - 1):
        return f"table_size must be a power of two of at least {MIN_TABLE_SIZE}, not {table_size}"
    return None
