"""The exact solver: ``won`` (with a replayed win), ``lost`` (proved) or ``unknown`` (budget spent).

- :mod:`.answer`: :func:`solve`, the answer for one position, and the replay that confirms a win
- :mod:`.rounds`: the schedule of restarts over the compiled search, and the memory bound
- :mod:`.shorten`: shorter winning lines
- :mod:`.player`: the solver as the runner's player ``solver``
- :mod:`.limits`: budgets and table size, their defaults and their one check
- :mod:`.fcsolve`: Freecell Solver on our boards, the peer we agree with
- ``pruning.md``: each pruning rule, with its proof

Importing this package loads no compiled code; :func:`solve` does, on first use.
"""

from __future__ import annotations

from ..core.limits import DEFAULT_BUDGET_NODES, DEFAULT_BUDGET_SECONDS, DEFAULT_TABLE_SIZE

__all__ = ["solve", "solve_deal", "SolveResult", "ReplayError", "DEFAULT_BUDGET_NODES", "DEFAULT_BUDGET_SECONDS", "DEFAULT_TABLE_SIZE"]


def __getattr__(name: str):
    if name in ("solve", "solve_deal", "SolveResult", "ReplayError"):
        from . import answer

        return getattr(answer, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
