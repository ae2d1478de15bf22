"""The rollout and nmcs players' search: nested levels of greedy playouts.

The level-``L`` policy plays, from each child, the level-``L-1`` policy to
its end and moves to the child whose line ends best; level 0 is greedy
(:func:`policy_step`). Rollout (Yan, Diaconis, Rusmevichientong & Van Roy
2004) nests plain greedy; nmcs (Cazenave 2009) adds random noise to each
child's score in its playouts and remembers and follows the best line met
at each level. :func:`plan_nested` is their entry point from
:mod:`.planners`, which keeps and replays the line. Their own parameters
(level, noise) are fields of the one parameter record, :mod:`.params`.

A line never passes twice through one position: the positions of the
current path are kept in a hash set (:func:`_set_on`).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..core.moves import FOUNDATION, MAX_MOVES, N_TARGETS
from .evaluate import WON_BONUS, evaluate
from .hashing import apply_keyed, undo_keyed
from .layout import is_won
from .legal import legal_actions
from .home_first import forced, score
from .rng import rand_unit
from .seen import key, power_of_two_at_least, seen, slot

# the rollouts read the parameter record's (:mod:`.params`) level and noise

#: a line scoring this much is won: its score holds ``WON_BONUS``, which no other term comes near
WON_LINE = WON_BONUS / 10

#: what every level of one search shares (:func:`plan_nested` makes it), by name
Search = namedtuple("Search", [
    "r",  # the rules
    "w",  # the parameter record (:mod:`.params`): the score's weights, level, noise
    "tb",  # the score's tables
    "ph",  # the position's pile keys (its hash, kept as moves are played)
    "game",  # the positions the game has been through (its player's seen-set)
    "path",  # the current line's positions (:func:`_set_on`)
    "flags",  # whether each is on it, and their count
    "noise",  # nmcs: the uniform draw added to each score of its playouts (0: rollout)
    "memo",  # nmcs: follow the best line met so far
    "rng",  # the playouts' random stream
    "spent",  # nodes spent so far (one slot)
    "budget",  # nodes to spend before the rest is a playout
    "ebuf",  # the evaluation's move buffer
    "gscratch",  # the move generator's scratch
])


@njit(cache=True)
def _set_on(table, flags, h, on):
    """Put ``h`` on the path (``on`` = 1) or take it off (0); keys stay, so the set never needs deletion.

    ``flags[-1]`` counts the keys; a set three-quarters full takes no new
    ones (a playout may then pass a position twice; its length still bounds it).
    """
    i = slot(table, h)
    if table[i] == 0:
        if 4 * (flags[-1] + 1) > 3 * table.shape[0]:
            return
        table[i] = h
        flags[-1] += 1
    flags[i] = on


@njit(cache=True)
def _on_path(table, flags, h):
    i = slot(table, h)
    return table[i] == h and flags[i] != 0


@njit(cache=True)
def policy_step(s, r, w, tb, ph, game, path, flags, acts, noise, rng, ebuf, gscratch):
    """Level 0: a safe foundation move, else the best-scoring foundation move, else the best-scoring move
    (``noise`` > 0: each score plus a uniform draw below ``noise``), to a position neither seen nor on the path.

    Returns (action or -1, nodes spent).
    """
    n = legal_actions(s, r, acts, gscratch)
    f = forced(s, r, acts, n)
    nodes = 0
    for sweep in range(2):  # foundation moves, then every move
        choice = -1
        best = -np.inf
        for k in range(n):
            a = acts[k]
            if sweep == 0 and a % N_TARGETS != FOUNDATION:
                continue
            if f >= 0 and a != f:
                continue
            t = apply_keyed(s, r, ph, a)
            h = key(ph, s)
            if seen(game, h) or _on_path(path, flags, h):
                undo_keyed(s, r, ph, t)
                continue
            v = evaluate(s, r, w, tb, ebuf, gscratch)
            nodes += 1
            undo_keyed(s, r, ph, t)
            if noise > 0:
                v += noise * rand_unit(rng)
            if v > best:
                best = v
                choice = a
        if choice >= 0:
            return choice, nodes
        f = -1
    return -1, nodes


@njit(cache=True)
def _advance(s, q, a, n, at, best, toks, out):
    """Move ``n`` of a line: play ``a``, put the position on the path, record the move.

    Returns the line's (moves, moves up to its best position, best score) after it.
    """
    toks[n] = apply_keyed(s, q.r, q.ph, a)
    _set_on(q.path, q.flags, key(q.ph, s), 1)
    out[n] = a
    v = score(s, q.r, q.w, q.tb, q.ebuf, q.gscratch)
    if v > best:
        return n + 1, n + 1, v
    return n + 1, at, best


@njit(cache=True)
def _unwind(s, q, toks, n):
    """Take the line's ``n`` moves back, and their positions off the path: ``s`` is as the line found it."""
    for k in range(n - 1, -1, -1):
        _set_on(q.path, q.flags, key(q.ph, s), 0)
        undo_keyed(s, q.r, q.ph, toks[k])


@njit(cache=True)
def playout(s, q, max_len, out):
    """Level 0 played from ``s`` to its end (won, no move, ``max_len`` moves): its moves into ``out``.

    Returns (moves, moves up to its best position, best score); ``s`` is left as it was.
    """
    acts = np.empty(MAX_MOVES, np.int64)
    toks = np.empty(max(max_len, 1), np.int64)
    best = score(s, q.r, q.w, q.tb, q.ebuf, q.gscratch)
    q.spent[0] += 1
    at = 0
    n = 0
    while n < max_len and not is_won(s):
        a, nodes = policy_step(s, q.r, q.w, q.tb, q.ph, q.game, q.path, q.flags, acts, q.noise, q.rng, q.ebuf, q.gscratch)
        q.spent[0] += nodes
        if a < 0:
            break
        n, at, best = _advance(s, q, a, n, at, best, toks, out)
    _unwind(s, q, toks, n)
    return n, at, best


@njit(cache=True)
def nested(level, s, q, max_len, out):
    """The level-``level`` policy played from ``s`` (its moves into ``out``), over the search ``q`` (a
    :data:`Search`): (moves, moves up to its best position, best score).

    Each move: every child (unseen, off the path) is played out by level
    ``level - 1``; the move goes to the child whose line scores best. With
    ``q.memo`` (nested Monte-Carlo search) the best line met so far is
    followed instead whenever it is better. Once ``q.spent`` reaches
    ``q.budget`` the rest is a level-0 playout. ``s`` is left as it was.
    """
    if level <= 0:
        return playout(s, q, max_len, out)
    r = q.r
    kids = np.empty(MAX_MOVES, np.int64)
    toks = np.empty(max(max_len, 1), np.int64)
    sub = np.empty(max(max_len, 1), np.int64)
    memo_line = np.empty(max(max_len, 1), np.int64)
    memo_len = 0
    memo_best = -np.inf
    best = score(s, r, q.w, q.tb, q.ebuf, q.gscratch)
    at = 0
    n = 0
    tail = 0
    while n < max_len and not is_won(s):
        if q.spent[0] >= q.budget:  # the rest is a playout (it leaves ``s`` where it found it)
            m, m_at, v = playout(s, q, max_len - n, sub)
            out[n:n + m] = sub[:m]
            if v > best:
                best = v
                at = n + m_at
            tail = m
            break
        c = legal_actions(s, r, kids, q.gscratch)
        f = forced(s, r, kids, c)
        if f >= 0:
            kids[0] = f
            c = 1
        choice = -1
        choice_v = -np.inf
        for k in range(c):
            a = kids[k]
            t = apply_keyed(s, r, q.ph, a)
            h = key(q.ph, s)
            if seen(q.game, h) or _on_path(q.path, q.flags, h):
                undo_keyed(s, r, q.ph, t)
                continue
            _set_on(q.path, q.flags, h, 1)
            q.spent[0] += 1
            m, m_at, v = nested(level - 1, s, q, max_len - n - 1, sub)
            _set_on(q.path, q.flags, h, 0)
            undo_keyed(s, r, q.ph, t)
            if v > choice_v:
                choice_v = v
                choice = a
            if q.memo and v > memo_best:  # the best line met from here: this move, then the child's line to its best position
                memo_best = v
                memo_line[n] = a
                memo_line[n + 1:n + 1 + m_at] = sub[:m_at]
                memo_len = n + 1 + m_at
            if v >= WON_LINE:  # a won line: no child does better
                break
        if choice < 0:
            break
        if q.memo and memo_len > n:
            choice = memo_line[n]
        n, at, best = _advance(s, q, choice, n, at, best, toks, out)
    _unwind(s, q, toks, n)
    return n + tail, at, best


@njit(cache=True)
def plan_nested(s, r, w, tb, ph, game, nmcs, budget, max_len, line, rng, ebuf, gscratch):
    """Rollout's line from ``s`` (``nmcs``: nested Monte-Carlo search's), ``s`` on the path: (moves in ``line``, nodes spent)."""
    cap = power_of_two_at_least(2 * (budget + max_len) + 64)
    path = np.zeros(cap, np.uint64)
    flags = np.zeros(cap + 1, np.int64)
    _set_on(path, flags, key(ph, s), 1)
    spent = np.zeros(1, np.int64)
    noise = w.noise if nmcs else 0.0
    q = Search(r, w, tb, ph, game, path, flags, noise, nmcs, rng, spent, budget, ebuf, gscratch)
    n, _, _ = nested(max(w.level, 1), s, q, max_len, line)
    return n, spent[0]
