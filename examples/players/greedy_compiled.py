"""The built-in `greedy`, written again as a compiled plug-in: the same moves, at the built-in's speed.

`benchmarks/bench_plugins.py` plays it beside `greedy` and compares their rows deal by deal.

    castle run --game streets-and-alleys --player greedy_compiled.py:MyGreedy --player greedy --deals 10000
"""

import numpy as np
from numba import njit

from sim.players.plugin import EVALUATION, compiled, kit


@compiled(*EVALUATION)  # the evaluation's weights as parameters, greedy's defaults
@njit(cache=True)
def MyGreedy(v, moves, n):
    """A move home whenever one leads somewhere new (the best of them), else the best-scoring move to a new position."""
    best, best_score = -1, -np.inf
    for k in range(n):
        if kit.to_foundation(moves[k]):
            kit.push_move(v, 0, k)  # the k-th of the decision's own moves (level 0)
            if not kit.seen(v):
                s = kit.score(v)
                if s > best_score:
                    best, best_score = moves[k], s
            kit.pop(v)
    if best >= 0:
        return best
    for k in range(n):
        kit.push_move(v, 0, k)
        if not kit.seen(v):
            s = kit.score(v)
            if s > best_score:
                best, best_score = moves[k], s
        kit.pop(v)
    return best
