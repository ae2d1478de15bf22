"""The line shortener's kernel against a plain walk of the same rule: every line of up to ``depth`` moves from each
position, in the move generator's order, the one landing furthest along the line kept (the shortest, then the first
found). The kernel skips a position its walk reached before by a line no longer; the lines must come out the same."""

from __future__ import annotations

import numpy as np
import pytest

from sim.core.moves import MAX_MOVES
from sim.core.outcome import Result
from sim.game import Game
from sim.kernels.apply_undo import apply, undo
from sim.kernels.hashing import position_hash
from sim.kernels.legal import SCRATCH_SIZE, legal_actions
from sim.kernels.shorten import shorten
from sim.solver.answer import solve


def _plain_pass(s, r, actions, depth):
    """One pass of the shortener, walked in Python with no position skipped."""
    s = s.copy()
    furthest = {}
    tokens = []
    furthest[int(position_hash(s, r))] = 0
    for k, a in enumerate(actions):
        tokens.append(apply(s, r, a))
        furthest[int(position_hash(s, r))] = k + 1
    for t in reversed(tokens):
        undo(s, r, t)
    n, scratch, out, i = len(actions), np.empty(SCRATCH_SIZE, np.int64), [], 0
    while i < n:
        best = [i, 0, []]

        def visit(length, seq):
            moves = np.empty(MAX_MOVES, np.int64)
            for a in moves[:legal_actions(s, r, moves, scratch)]:
                token = apply(s, r, a)
                seq.append(int(a))
                j = furthest.get(int(position_hash(s, r)), -1)
                if j > best[0] or (j == best[0] and j > i and len(seq) < best[1]):
                    best[:] = [j, len(seq), list(seq)]
                if len(seq) < depth and j != n:
                    visit(length + 1, seq)
                seq.pop()
                undo(s, r, token)

        visit(0, [])
        for a in best[2]:
            apply(s, r, a)
        out += best[2]
        i = best[0]
    return out


@pytest.mark.parametrize("name, depth, deals", [
    ("streets-and-alleys", 2, range(1, 9)), ("beleaguered-castle", 2, range(1, 9)),
    ("selective-castle@pysol", 2, range(1, 4)), ("chessboard", 3, range(1, 4)),
])
def test_the_kernel_keeps_the_line_a_plain_walk_keeps(name, depth, deals):
    game, compared = Game(name), 0
    for deal in deals:
        state = game.deal(deal)
        res = solve(game, state, budget_nodes=50_000, portfolio=False, shorten=False)
        if res.result is not Result.WON:
            continue
        actions = np.array([m.action for m in res.moves], np.int64)
        out = np.empty(len(actions), np.int64)
        n = int(shorten(state.array.copy(), game.rules_array, actions, len(actions), depth, out))
        assert out[:n].tolist() == _plain_pass(state.array, game.rules_array, actions, depth)
        compared += n < len(actions)
    assert compared >= 1
