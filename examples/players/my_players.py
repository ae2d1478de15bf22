"""Two players of one idea, the guide's example (README, "Write your own player"): put a card home when one
can go, else make the move that leaves the cards the foundations need next the least buried.

    castle run --game streets-and-alleys --player my_players.py:Digger --player my_players.py:FastDigger --deals 2000
"""

import numpy as np
from numba import njit

from sim.core.moves import to_foundation
from sim.players.plugin import Param, compiled, kit


class Digger:
    """A card home if one can go, else the move that leaves the next needed cards least buried (Python)."""

    params = (Param("empty", 2, "worth of an empty pile, in buried cards", lo=0, hi=10),)

    def __init__(self, seed=0, deal=0, empty=2):
        self.empty = empty
        self.seen = set()  # the positions this game has passed through: never go back to one

    def choose(self, state):
        self.seen.add(state.hash())
        best, best_score = None, None
        for a in state.actions().tolist():
            if to_foundation(a):
                return a
            state.push(a)
            if state.hash() not in self.seen:
                score = self.empty * state.empty_piles - buried(state)
                if best_score is None or score > best_score:
                    best, best_score = a, score
            state.pop_action()
        return best  # None (no new position to go to) gives up


def buried(state):
    """Cards lying on each suit's next card for its foundation."""
    position = state.position()
    total = 0
    for suit in range(4):
        base, home = position.bases[suit], position.foundations[suit]
        if base < 0 or home == 13:
            continue
        card = suit * 13 + (base + home) % 13
        for pile in position.piles:
            if card in pile:
                total += len(pile) - 1 - pile.index(card)
    return total


@compiled(Param("empty", 2, "worth of an empty pile, in buried cards", lo=0, hi=10))
@njit(cache=True)
def FastDigger(v, moves, n):
    """Digger, compiled: the same moves, played inside the runner's compiled loop."""
    best, best_score = -1, -np.inf
    for k in range(n):
        a = moves[k]
        if kit.to_foundation(a):
            return a
        kit.push_move(v, 0, k)  # the k-th of the decision's own moves (level 0 of its look-ahead)
        if not kit.seen(v):
            score = v.params[0] * kit.empty_piles(v) - fast_buried(v)
            if score > best_score:
                best, best_score = a, score
        kit.pop(v)
    return best  # -1 gives up


@njit(cache=True)
def fast_buried(v):
    total = 0
    depth = kit.depths(v)
    for suit in range(4):
        base, home = kit.base(v, suit), kit.home(v, suit)
        if base >= 0 and home < 13:
            total += max(depth[suit * 13 + (base + home) % 13], 0)
    return total
