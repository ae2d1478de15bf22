"""The decisions of the built-in compiled players: one move from one position.

Kinds: ``RANDOM`` draws a uniform legal move from the deal's own splitmix64
stream; ``GREEDY`` plays a foundation move whenever one exists, otherwise
the move whose resulting position scores best under
:func:`.evaluate.evaluate`, searched ``depth`` plies deep (1 for greedy,
more for lookahead); ``STRATEGIST`` applies the rule sheet's advice
(:func:`_decide_strategist`). GREEDY and STRATEGIST never move to a
position already seen in the game (:mod:`.seen`).

A player's memory and buffers travel as one named tuple, its *workspace*
(:data:`Workspace`), so the play loop and the Python-side player objects
hold the same thing and read its arrays by name.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..core.moves import FOUNDATION, MAX_MOVES, N_TARGETS
from ..core.rules import MAX_PILES
from .apply_undo import apply, undo
from .hashing import PH_SIZE, apply_keyed, undo_keyed
from .legal import SCRATCH_SIZE, foundation_accepts, legal_actions, pile_accepts
from .evaluate import choose_target_bases, evaluate, random_target_bases
from .layout import CAP, R_NPILES, S_BASE, S_CARDS, S_FOUND, S_HEIGHT, action_count, action_source, is_won, moving_card
from .planners import BEAM, L_SIZE, NMCS, ROLLOUT, plan_decide
from .rng import rand_below
from .seen import M_TB_DONE, META_SIZE, key, seen

RANDOM = 0
GREEDY = 1
STRATEGIST = 2
#: the kinds by the name a player spec gives (:class:`sim.players.registry.PlayerSpec` ``kernel``)
KINDS = {"random": RANDOM, "greedy": GREEDY, "strategist": STRATEGIST, "beam": BEAM, "rollout": ROLLOUT, "nmcs": NMCS}

MAX_SEARCH_DEPTH = 8

# these players read the parameter record's (:mod:`.params`) wrap, depth, width, keep_empty, choose_base and even

#: ``choose_base`` values: how a player that may choose its base rank chooses it
BASE_FIRST_FOUNDED = 0  #: no aim: the first card founded sets it
BASE_WHOLE_BOARD = 1  #: the rank whose four cards lie shallowest (the rule sheet's advice)
BASE_RANDOM = 2  #: a rank drawn at random at the deal's first decision


#: a player's memory and search buffers (:func:`workspace`), by name: the play loop reads ``seen`` to ``keys``
Workspace = namedtuple("Workspace", [
    "seen",  # the seen-set's keys (:mod:`.seen`)
    "used",  # its slots in use
    "meta",  # its count, and whether the target bases are chosen
    "bases",  # the target base per suit
    "children",  # the children of each search level
    "n_children",  # how many
    "next_child",  # the next to try
    "best",  # the best value per level
    "tokens",  # the undo tokens of the search path
    "child_scores",  # the children's static scores
    "card_depths",  # each card's depth in its pile
    "scratch",  # the move generator's scratch
    "acts",  # the legal actions of the position played
    "keys",  # the position's pile keys (its hash, kept as moves are played)
    "move_buffer",  # the evaluation's move buffer (its mobility term)
    "line",  # planning players (kernels/planners.py): the line they replay
    "line_keys",  # the key of the position before each of its moves
    "line_state",  # its length, next move, nodes spent, moves played
])


@njit(cache=True)
def workspace(capacity):
    """A player's memory (a seen-set of ``capacity`` slots, chosen bases) and search buffers: a :data:`Workspace`."""
    return Workspace(
        np.zeros(capacity, np.uint64),
        np.zeros(capacity, np.int64),
        np.zeros(META_SIZE, np.int64),
        np.full(4, -1, np.int64),
        np.zeros((MAX_SEARCH_DEPTH + 1, MAX_MOVES), np.int64),
        np.zeros(MAX_SEARCH_DEPTH + 1, np.int64),
        np.zeros(MAX_SEARCH_DEPTH + 1, np.int64),
        np.zeros(MAX_SEARCH_DEPTH + 1, np.float64),
        np.zeros(MAX_SEARCH_DEPTH + 1, np.int64),
        np.zeros(MAX_MOVES, np.float64),
        np.zeros(52, np.int64),
        np.zeros(SCRATCH_SIZE, np.int64),
        np.zeros(MAX_MOVES, np.int64),
        np.zeros(PH_SIZE, np.uint64),
        np.zeros(MAX_MOVES, np.int64),
        np.zeros(capacity, np.int64),
        np.zeros(capacity, np.uint64),
        np.zeros(L_SIZE, np.int64),
    )


@njit(cache=True)
def decide(s, r, kind, w, rng, ws, acts, n):
    """The move ``kind`` plays from ``s``, whose ``n`` legal actions are ``acts[:n]`` (``n`` > 0); -1 gives up.

    The caller has remembered ``s`` in the workspace's seen-set, and its pile keys are in the workspace.
    """
    table, meta, tb, ph, gscratch, ebuf = ws.seen, ws.meta, ws.bases, ws.keys, ws.scratch, ws.move_buffer
    if kind == RANDOM:
        return acts[rand_below(rng, n)]
    if meta[M_TB_DONE] == 0:  # the deal's first decision
        if w.choose_base == BASE_WHOLE_BOARD:
            choose_target_bases(s, r, tb, ws.card_depths)
        elif w.choose_base == BASE_RANDOM:
            random_target_bases(s, r, tb, rng)
        else:
            tb[:] = -1
        meta[M_TB_DONE] = 1
        ws.line_state[:] = 0
    if kind >= BEAM:
        return plan_decide(s, r, kind, w, rng, ws.line, ws.line_keys, ws.line_state, table, tb, ph, ebuf, gscratch)
    if kind == STRATEGIST:
        return _decide_strategist(s, r, w, tb, table, acts, n, gscratch, ebuf, ph)
    return _decide_greedy(s, r, w, tb, table, acts, n, ws.children, ws.n_children, ws.next_child, ws.best, ws.tokens,
                          ws.child_scores, gscratch, ebuf, ph)


@njit(cache=True)
def _decide_greedy(s, r, w, tb, table, acts, n, stack, cnt, idx, best, tok, fscratch, gscratch, ebuf, ph):
    choice = -1
    best_v = -np.inf
    # a foundation move whenever one exists (to an unseen position: in games
    # whose foundations give cards back, cards home can shrink and grow again)
    for k in range(n):
        a = acts[k]
        if a % N_TARGETS == FOUNDATION:
            t = apply_keyed(s, r, ph, a)
            if seen(table, key(ph, s)):
                undo_keyed(s, r, ph, t)
                continue
            v = evaluate(s, r, w, tb, ebuf, gscratch)
            undo_keyed(s, r, ph, t)
            if v > best_v:
                best_v = v
                choice = a
    if choice >= 0:
        return choice
    plies = w.depth - 1
    width = w.width
    for k in range(n):
        a = acts[k]
        t = apply_keyed(s, r, ph, a)
        if seen(table, key(ph, s)):
            undo_keyed(s, r, ph, t)
            continue
        v = _subtree_value(s, r, w, tb, table, plies, width, stack, cnt, idx, best, tok, fscratch, gscratch, ebuf, ph)
        undo_keyed(s, r, ph, t)
        if v > best_v:
            best_v = v
            choice = a
    return choice


@njit(cache=True)
def _subtree_value(s, r, w, tb, table, plies, width, stack, cnt, idx, best, tok, fscratch, gscratch, ebuf, ph):
    """Best score reachable from ``s`` in at most ``plies`` moves to unseen positions.

    An iterative depth-first search: level ``L`` keeps its children in
    ``stack[L]``; a node's value is the max of its own score and its
    children's, so reaching a good position sooner is never worse.
    """
    v0 = evaluate(s, r, w, tb, ebuf, gscratch)
    if plies <= 0 or is_won(s):
        return v0
    L = 0
    cnt[0] = _children(s, r, w, tb, width, stack[0], fscratch, gscratch, ebuf)
    idx[0] = 0
    best[0] = v0
    while True:
        if idx[L] < cnt[L]:
            a = stack[L, idx[L]]
            idx[L] += 1
            t = apply_keyed(s, r, ph, a)
            if seen(table, key(ph, s)):
                undo_keyed(s, r, ph, t)
                continue
            v = evaluate(s, r, w, tb, ebuf, gscratch)
            if L + 1 < plies and not is_won(s):
                tok[L] = t
                L += 1
                cnt[L] = _children(s, r, w, tb, width, stack[L], fscratch, gscratch, ebuf)
                idx[L] = 0
                best[L] = v
            else:
                undo_keyed(s, r, ph, t)
                if v > best[L]:
                    best[L] = v
        else:
            v = best[L]
            if L == 0:
                return v
            L -= 1
            undo_keyed(s, r, ph, tok[L])
            if v > best[L]:
                best[L] = v


@njit(cache=True)
def _children(s, r, w, tb, width, out, fscratch, gscratch, ebuf):
    """Legal actions into ``out``; with ``width`` > 0 only the best ``width`` by static score."""
    n = legal_actions(s, r, out, gscratch)
    if width <= 0 or n <= width:
        return n
    for k in range(n):
        t = apply(s, r, out[k])
        fscratch[k] = evaluate(s, r, w, tb, ebuf, gscratch)
        undo(s, r, t)
    # insertion sort, best first; ties keep the lower action first
    for k in range(1, n):
        a = out[k]
        v = fscratch[k]
        j = k - 1
        while j >= 0 and fscratch[j] < v:
            out[j + 1] = out[j]
            fscratch[j + 1] = fscratch[j]
            j -= 1
        out[j + 1] = a
        fscratch[j + 1] = v
    return width


@njit(cache=True)
def _decide_strategist(s, r, w, tb, table, acts, n, gscratch, ebuf, ph):
    """The rule sheet's advice, made executable.

    1. Base rank (Selective Castle): the target chosen from the whole board;
       no foundation is started with another rank.
    2. Bank evenly (``even``): a foundation move is played at once only
       when it is safe, i.e. every card one place lower in foundation order
       is already home (no tableau card could still want to rest on it);
       other foundation moves compete with the rest, the score's balance
       term weighing against running one suit ahead. Without it, every
       card goes home as soon as it can.
    5. Plan for the rank below the base: cards buried under it are
       penalised (``W_LAST`` of the evaluation).
    3. Use the wrap: a King put on an Ace earns ``W_WRAP``.
    4. Keep empty piles: filling an empty pile costs ``keep_empty`` unless
       the card is a King (it will never block there) or the card it
       uncovers can then move to a foundation or onto another pile (the
       move unlocks something).
    """
    for k in range(n):
        a = acts[k]
        if a % N_TARGETS != FOUNDATION:
            continue
        card = moving_card(s, a)
        suit = card // 13
        base = s[S_BASE + suit]
        if base < 0:
            if tb[suit] >= 0 and card % 13 != tb[suit]:
                continue
            base = card % 13
        order = (card % 13 - base + 13) % 13
        if w.even == 0 or order <= 1 or _order_home(s, order - 1):
            t = apply_keyed(s, r, ph, a)
            fresh = not seen(table, key(ph, s))
            undo_keyed(s, r, ph, t)
            if fresh:
                return a
    choice = -1
    best_v = -np.inf
    for k in range(n):
        a = acts[k]
        dst = a % N_TARGETS
        card = moving_card(s, a)
        if dst == FOUNDATION:
            suit = card // 13
            if s[S_BASE + suit] < 0 and tb[suit] >= 0 and card % 13 != tb[suit]:
                continue
        into_empty = dst != FOUNDATION and s[S_HEIGHT + dst] == 0
        bonus = 0.0
        if dst != FOUNDATION and card % 13 == 12 and s[S_HEIGHT + dst] > 0:
            if s[S_CARDS + dst * CAP + s[S_HEIGHT + dst] - 1] % 13 == 0:
                bonus = w.wrap
        t = apply_keyed(s, r, ph, a)
        if seen(table, key(ph, s)):
            undo_keyed(s, r, ph, t)
            continue
        v = evaluate(s, r, w, tb, ebuf, gscratch) + bonus
        undo_keyed(s, r, ph, t)
        if into_empty and card % 13 != 12 and w.keep_empty != 0 and not _unlocks(s, r, a):
            v -= w.keep_empty
        if v > best_v:
            best_v = v
            choice = a
    return choice


@njit(cache=True)
def _unlocks(s, r, a):
    """After action ``a``, can the card it uncovers move to a foundation or a non-empty pile?"""
    src = action_source(a)
    dst = a % N_TARGETS
    if src >= MAX_PILES:
        return False
    h = s[S_HEIGHT + src] - action_count(a)  # the cards left in the source
    if h < 1:
        return False
    under = np.int64(s[S_CARDS + src * CAP + h - 1])
    t = apply(s, r, a)
    ok = foundation_accepts(s, r, under)
    if not ok:
        for p in range(r[R_NPILES]):
            if p != src and p != dst and s[S_HEIGHT + p] > 0 and pile_accepts(s, r, under, p):
                ok = True
                break
    undo(s, r, t)
    return ok


@njit(cache=True)
def _order_home(s, order):
    """Are all four cards at foundation position ``order`` (counted from each base) home?"""
    for f in range(4):
        if s[S_FOUND + f] <= order:
            return False
    return True
