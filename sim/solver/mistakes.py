"""Where players go wrong: the ladder's rungs on one deal, each game they lose on a winnable deal reviewed by the solver.

The runner's player ``mistakes`` solves a deal once, then plays each rung of
:data:`RUNGS` on it; for every rung that loses a deal the solver won, its
game is reviewed (:func:`~.review.review`, sharing the deal's one judge, so
the rungs' questions cost little after the first) and the first mistake is
classified (:func:`kind`). One row per deal: its verdict and, in the column
``review``, one JSON object per rung (``rung``, ``won``, ``first_mistake``:
the move number, ``cards_home``: cards home before it, ``kind``, how many
moves would have kept the deal there, the unresolved interval if any).

The kinds of first mistake are :mod:`.kinds`' (``castle play --review`` says them too).
"""

from __future__ import annotations

import json
from typing import Any

from ..game import Game, State
from ..core.outcome import Result
from ..players.record import GameRecord
from .judge import Judge
from .kinds import KINDS, kind  # noqa: F401  (the kinds are this module's rows' words)
from .review import review

#: the rungs reviewed, cheapest first (changing them changes the rows: bump the player's version)
RUNGS = ("greedy", "strategist", "lookahead", "nmcs:budget=200000", "beam:budget=250000,spread=4,width=8",
         "beam:budget=4000000,width=32")
def play_deal(state: State, seed: int, deal: int, budget_nodes: int, question_nodes: int, budget_seconds: float,
              table_size: int, max_moves: int) -> GameRecord:
    """Solve the deal; play every rung; review each game a rung lost on a won deal (one judge for all)."""
    from ..players.loop import Scripted, play, play_choice
    from ..players.registry import parse_player
    from .answer import solve

    game = Game(state.rules)
    res = solve(game, state.copy(), budget_nodes=budget_nodes, budget_seconds=budget_seconds, table_size=table_size,
                dead_end=True)
    reviews: list[dict[str, Any]] = []
    judge = Judge(game, budget_nodes=question_nodes, table_size=table_size)
    if res.result is Result.WON:
        judge.learn_line(state.array, res.moves)
    for label in RUNGS:
        rec = play_choice(parse_player(label), state.copy(), seed, deal)
        row: dict[str, Any] = {"rung": label, "won": rec.result is Result.WON}
        if res.result is Result.WON and rec.result is not Result.WON:
            r = review(game, state.copy(), rec.moves, judge=judge, budget_nodes=question_nodes)
            row["unresolved"] = list(r.unresolved) if r.unresolved else None
            if r.first_mistake is not None:
                before = state.copy()
                for m in rec.moves[: r.first_mistake]:
                    before.push(m)
                row.update(first_mistake=r.first_mistake + 1, cards_home=before.cards_home, moves=len(rec.moves),
                           kind=kind(before, rec.moves[r.first_mistake], r.alternatives), keeping=len(r.alternatives))
        reviews.append(row)
    judge.free()
    record = play(state, Scripted(res.moves), max_moves=len(res.moves))
    record.result = res.result
    record.extra = {"nodes": int(res.nodes), "review": json.dumps(reviews, separators=(",", ":"))}
    return record
