"""The planning players: beam search, iterated rollouts and nested Monte-Carlo search.

Each computes a whole line of play from the position it is asked about
(:func:`plan_decide`), keeps it in its workspace with the key of the
position before each move, and replays it on later calls as long as the
game follows it; when the line runs out without a win (or the game left
it) it plans again from where it stands with what is left of the deal's
node budget, and once that is spent it plays one policy step at a time.
A *node* is one position scored (:func:`.evaluate.evaluate`) or expanded;
budgets count them, so a player's games depend only on (seed, deal,
parameters), never on the clock.

- **beam** (:mod:`.beam`): layers of the ``width`` best positions by
  the evaluation, every position of the search at most once (64-bit
  position keys), safe foundation moves played alone; stops at a win,
  else the line ends at the best position met (most cards home, then
  score). Restarts with ``grow`` times the width while budget is left.
- **rollout** (:mod:`.rollouts`): the level-``L`` policy plays, from each
  child, the level-``L-1`` policy to its end and moves to the child whose
  line ends best (won, else most cards home, then score); level 0 is
  greedy (foundation moves first, else the best-scoring child).
- **nmcs** (:mod:`.rollouts`): the same nesting over playouts of greedy
  with random noise added to each child's score, remembering the best
  line met at each level and following it.

No line passes through a position the game has already seen, nor twice
through one position. The parameters all three read (the budget, the move
cap) are declared here; each search's own in its module.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.moves import MAX_MOVES
from .beam import plan_beam
from .hashing import apply_keyed, undo_keyed
from .rollouts import plan_nested, policy_step
from .seen import key

BEAM = 3
ROLLOUT = 4
NMCS = 5

# every planning player reads the parameter record's (:mod:`.params`) budget and max_moves

# slots of a planning player's meta array (workspace)
L_LEN = 0  #: moves in the plan
L_POS = 1  #: the next move of the plan to play
L_NODES = 2  #: nodes spent on this deal
L_CALLS = 3  #: moves played in this deal
L_SIZE = 4


@njit(cache=True)
def _replay_keys(s, r, ph, line, n, keys):
    """The key of the position before each move of ``line[:n]``, played from ``s`` (left as it was)."""
    toks = np.empty(max(n, 1), np.int64)
    for k in range(n):
        keys[k] = key(ph, s)
        toks[k] = apply_keyed(s, r, ph, line[k])
    for k in range(n - 1, -1, -1):
        undo_keyed(s, r, ph, toks[k])


@njit(cache=True)
def plan_decide(s, r, kind, w, rng, plan, plan_keys, lm, game, tb, ph, ebuf, gscratch):
    """The planning players' move from ``s``: the plan's next move while the game follows it, else a new plan, else one greedy step."""
    h = key(ph, s)
    pos = lm[L_POS]
    if pos < lm[L_LEN] and plan_keys[pos] == h:
        lm[L_POS] = pos + 1
        lm[L_CALLS] += 1
        return plan[pos]
    lm[L_LEN] = 0
    lm[L_POS] = 0
    max_len = w.max_moves - lm[L_CALLS]
    budget = w.budget - lm[L_NODES]
    if max_len > plan.shape[0]:
        max_len = plan.shape[0]
    if max_len > 0 and budget > 0:
        if kind == BEAM:
            n, spent = plan_beam(s, r, w, tb, ph, game, budget, max_len, plan, ebuf, gscratch)
        else:
            n, spent = plan_nested(s, r, w, tb, ph, game, kind == NMCS, budget, max_len, plan, rng, ebuf, gscratch)
        lm[L_NODES] += max(spent, 1)
        if n > 0:
            _replay_keys(s, r, ph, plan, n, plan_keys)
            lm[L_LEN] = n
            lm[L_POS] = 1
            lm[L_CALLS] += 1
            return plan[0]
    path = np.zeros(64, np.uint64)
    flags = np.zeros(65, np.int64)
    acts = np.empty(MAX_MOVES, np.int64)
    a, _ = policy_step(s, r, w, tb, ph, game, path, flags, acts, 0.0, rng, ebuf, gscratch)
    lm[L_CALLS] += 1
    return a
