"""One heuristic two moves deep, written twice: as a Python class and as a compiled plug-in (same moves).

The score of a position: 10 per card home, 3 per empty pile, minus the cards lying on each suit's next
card for its foundation. A move is worth the best score two moves on (or one, where nothing follows).
`benchmarks/bench_plugins.py` times the two side by side.
"""

import numpy as np
from numba import njit

from sim.core.moves import to_foundation
from sim.players.plugin import compiled, kit


class TwoDeep:
    """Two moves deep, in Python."""

    def __init__(self, seed=0, deal=0):
        self.seen = set()

    def choose(self, state):
        self.seen.add(state.hash())
        best, best_value = None, None
        for a in state.actions().tolist():
            if to_foundation(a):
                return a
            state.push(a)
            if state.hash() not in self.seen:
                value = score(state)
                for b in state.actions().tolist():
                    state.push(b)
                    value = max(value, score(state))
                    state.pop_action()
                if best_value is None or value > best_value:
                    best, best_value = a, value
            state.pop_action()
        return best


def score(state):
    position = state.position()
    total = 10 * sum(position.foundations) + 3 * state.empty_piles
    for suit in range(4):
        base, home = position.bases[suit], position.foundations[suit]
        if base < 0 or home == 13:
            continue
        card = suit * 13 + (base + home) % 13
        for pile in position.piles:
            if card in pile:
                total -= len(pile) - 1 - pile.index(card)
    return total


@compiled()
@njit(cache=True)
def FastTwoDeep(v, moves, n):
    """Two moves deep, compiled."""
    best, best_value = -1, -np.inf
    for k in range(n):
        a = moves[k]
        if kit.to_foundation(a):
            return a
        kit.push_move(v, 0, k)  # the k-th of the decision's own moves: level 0
        if not kit.seen(v):
            value = fast_score(v)
            for j in range(kit.legal(v, 1)):  # the moves from there: level 1
                kit.push_move(v, 1, j)
                value = max(value, fast_score(v))
                kit.pop(v)
            if value > best_value:
                best, best_value = a, value
        kit.pop(v)
    return best


@njit(cache=True)
def fast_score(v):
    total = 10.0 * kit.cards_home(v) + 3.0 * kit.empty_piles(v)
    depth = kit.depths(v)
    for suit in range(4):
        base, home = kit.base(v, suit), kit.home(v, suit)
        if base >= 0 and home < 13:
            total -= max(depth[suit * 13 + (base + home) % 13], 0)
    return total
