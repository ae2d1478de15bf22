"""Greedy, re-implemented as a compiled plug-in: the same moves as the built-in `greedy`.

    castle run --game streets-and-alleys --player examples/players/greedy_compiled.py:MyGreedy --deals 10000
"""

import numpy as np
from numba import njit

from sim.players.plugin import EVALUATION, compiled, kit


@compiled(*EVALUATION)
@njit(cache=True)
def MyGreedy(v, moves, n):
    """A move home whenever one leads somewhere new, else the best-scoring move to a position not seen yet."""
    best, best_score = -1, -np.inf
    for k in range(n):  # a foundation move first, the best of them
        if kit.to_foundation(moves[k]):
            kit.push(v, moves[k])
            if not kit.seen(v):
                s = kit.score(v)
                if s > best_score:
                    best, best_score = moves[k], s
            kit.pop(v)
    if best >= 0:
        return best
    for k in range(n):
        kit.push(v, moves[k])
        if not kit.seen(v):
            s = kit.score(v)
            if s > best_score:
                best, best_score = moves[k], s
        kit.pop(v)
    return best
