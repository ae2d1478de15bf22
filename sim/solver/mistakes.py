"""Where players go wrong: the ladder's rungs on one deal, each game they lose on a winnable deal reviewed by the solver.

The runner's player ``mistakes`` solves a deal once, then plays each rung of
:data:`RUNGS` on it; for every rung that loses a deal the solver won, its
game is reviewed (:func:`~.review.review`, sharing the deal's one judge, so
the rungs' questions cost little after the first) and the first mistake is
classified (:func:`kind`). One row per deal: its verdict and, in the column
``review``, one JSON object per rung (``rung``, ``won``, ``first_mistake``:
the move number, ``cards_home``: cards home before it, ``kind``, how many
moves would have kept the deal there, the unresolved interval if any).

**The kinds of first mistake** (the first that fits, in this order): a base
chosen so that the rank below it is buried (``base``: Selective Castle's
first foundation move, where a move founding another rank would have kept
the deal); an empty pile filled (``empty pile``); a card sent home that the
tableau still needed (``sent home``: a foundation move where some other
move would have kept the deal); a card due home covered (``covered a card
due home``: the move lands on a pile holding, buried, the card its
foundation takes next); a built run broken (``broke a built run``: the
card moved rested on the card one rank above it); a low card covered
(``covered a low card``: the pile holds a card its foundation takes within
the next three); and ``other``. The kinds describe the move; the verdict
that it lost the deal is the solver's.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ..core.cards import make_card, rank_of
from ..game import Game, State
from ..core.moves import FOUNDATION, Move
from ..core.outcome import Result
from ..kernels import layout as L
from ..players.record import GameRecord
from .judge import Judge
from .review import review

#: the rungs reviewed, cheapest first (changing them changes the rows: bump the player's version)
RUNGS = ("greedy", "strategist", "lookahead", "nmcs:budget=200000", "beam:budget=250000,spread=4,width=8",
         "beam:budget=4000000,width=32")
KINDS = ("base", "empty pile", "sent home", "covered a card due home", "broke a built run", "covered a low card", "other")
LOW = 3  #: a low card: one its foundation takes within this many cards


def kind(state: State, move: Move, alternatives: list[Move]) -> str:
    """The kind of a first mistake (see the module's docstring) at the position ``state`` before it."""
    s = state.array
    src, dst, count = move.source, move.target, move.count
    foundation = dst == FOUNDATION
    if foundation and int(s[L.S_BASE]) < 0 and any(a.target == FOUNDATION for a in alternatives):
        return "base"
    if not foundation and int(s[L.S_HEIGHT + dst]) == 0:
        return "empty pile"
    if foundation:
        return "sent home"
    h = int(s[L.S_HEIGHT + dst])
    under = [int(s[L.S_CARDS + dst * L.CAP + i]) for i in range(h)]
    if any(c in _due(s, 1) for c in under):
        return "covered a card due home"
    hs = int(s[L.S_HEIGHT + src]) if src < FOUNDATION else 0
    if hs >= count + 1:
        moved, below = int(s[L.S_CARDS + src * L.CAP + hs - count]), int(s[L.S_CARDS + src * L.CAP + hs - count - 1])
        if rank_of(below) == rank_of(moved) + 1:
            return "broke a built run"
    if any(c in _due(s, LOW) for c in under):
        return "covered a low card"
    return "other"


def _due(s: np.ndarray, within: int) -> set[int]:
    """The cards the foundations take within the next ``within`` (for a shared base not chosen yet: none)."""
    due = set()
    for f in range(4):
        base = int(s[L.S_BASE + f])
        if base < 0:
            continue
        n = int(s[L.S_FOUND + f])
        due |= {make_card((base + n + k) % 13, f) for k in range(within) if n + k < 13}
    return due


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
