"""The exact solver as the runner's player ``solver``: its verdict, and on a win its line replayed through the play loop.

Extra columns: ``nodes`` searched; with ``bases=1`` (games whose shared base
is chosen) ``bases_won`` / ``bases_unknown``, 13-bit masks of the base ranks
that win / stayed unresolved; with ``most_home=1`` ``most_home``, the most
cards home of any position reachable (exact when proved lost).
"""

from __future__ import annotations

from typing import Any

from ..game import Game, State
from ..core.outcome import Result
from ..players.loop import Scripted, play
from ..players.record import GameRecord
from .answer import base_to_choose, solve


def play_deal(state: State, seed: int, deal: int, budget_nodes: int, budget_seconds: float,
              table_size: int, bases: int, max_moves: int, portfolio: int = 1, most_home: int = 0,
              dead_end: int = 0) -> GameRecord:
    """Solve ``state``; the record of the solution replayed (positions, empty piles, base), with the verdict as result."""
    per_base = bool(bases) and base_to_choose(state.rules, state.array)
    res = solve(Game(state.rules), state, budget_nodes=budget_nodes, budget_seconds=budget_seconds,
                table_size=table_size, bases=per_base, portfolio=bool(portfolio), most_home=bool(most_home),
                dead_end=bool(dead_end))
    extra: dict[str, Any] = {"nodes": int(res.nodes)}
    if res.most_home is not None:
        extra["most_home"] = res.most_home
    if res.bases is not None:
        extra["bases_won"] = sum(1 << b for b, r in res.bases.items() if r is Result.WON)
        extra["bases_unknown"] = sum(1 << b for b, r in res.bases.items() if r is Result.UNKNOWN)
    record = play(state, Scripted(res.moves), max_moves=len(res.moves))
    record.result = res.result
    record.extra = extra
    return record


def settle_deal(state: State, seed: int, deal: int, budget_nodes: int, budget_seconds: float, table_size: int,
                max_moves: int, portfolio: int = 1, dead_end: int = 1) -> GameRecord:
    """The player ``settle``: the solver on one deal, deeper (its budget), the base chosen by the search."""
    return play_deal(state, seed, deal, budget_nodes, budget_seconds, table_size, 0, max_moves, portfolio=portfolio,
                     dead_end=dead_end)
