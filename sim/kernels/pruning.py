"""Which children of a position the solver searches, and in which order: the pruning rules and the move order.

Each rule has a bit in ``prune``, and its proof a section of
``sim/solver/pruning.md``; the search loop (:mod:`.search`) asks
:func:`expand` for a position's children and :func:`undoes` for the move
back to its parent. The move order wants the cards the foundations take next
near the top, so the search keeps where each card lies (:func:`locate`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.moves import FOUNDATION, MAX_MOVES, N_ACTIONS, N_SOURCES, N_TARGETS
from ..core.rules import MAX_PILES
from .layout import (
    CAP, R_FOUND_TO_TAB, R_NPILES, R_NTAB, R_ONE_AT_A_TIME, R_RANK_FIT, R_SEQ, R_TWRAP, S_BASE, S_CARDS, S_FOUND,
    S_HEIGHT, action_count, action_source, token_action, token_card, top,
)
from .legal import SCRATCH_SIZE, legal_actions, next_home

# pruning switches (bits of ``prune``)
PRUNE_SAFE_FOUNDATION = 1  #: play a provably safe foundation move as the only child
PRUNE_SAME_CARD = 2  #: never move the card the previous move put on a pile (ignored in dialects that move sequences)
PRUNE_CANONICAL = 4  #: skip moves whose result is canonically the position or a sibling
PRUNE_SAFE_DEEPER = 8  #: also a foundation move whose would-be covers are themselves always safe
PRUNE_SKIP_UNDO = 16  #: not a pruning rule: the move back to the parent is known without a table lookup
TRACK_HOME = 32  #: not a pruning rule: keep the most cards home among the positions searched (ctx[C_MOST_HOME])
#: not a pruning rule, and not read by the kernel: a table that cannot grow forgets its cheapest proved
#: losses (:func:`.solver_table.forget`) instead of stopping the search (``sim.solver.rounds.Search.run``)
FORGET_LOST = 64
#: after a card goes home, prove the position lost if no card can ever go home again (:mod:`.deadend`); off by
#: default so that the study's runs, played without it, keep their label (measured: ``pruning.md`` rule 5)
PRUNE_DEAD_END = 128
PRUNE_ALL = PRUNE_SAFE_FOUNDATION | PRUNE_SAME_CARD | PRUNE_CANONICAL | PRUNE_SAFE_DEEPER | PRUNE_SKIP_UNDO
#: the default: every rule that depends on the position only, so completed components are proved lost
PRUNE_DEFAULT = PRUNE_SAFE_FOUNDATION | PRUNE_CANONICAL | PRUNE_SAFE_DEEPER | PRUNE_SKIP_UNDO | FORGET_LOST

#: the rules whose proofs need one card a move (``pruning.md``): off in the dialects that move sequences
ONE_CARD_RULES = PRUNE_SAME_CARD

MAX_KIDS = MAX_MOVES  #: no position has more legal moves (the one-card games: no more than ``N_ACTIONS``)


@njit(cache=True)
def prune_for(r, prune):
    """The switches of ``prune`` that hold under the rules ``r``: the one place where a dialect that moves
    sequences turns off the rules whose proofs do not cover it (``ONE_CARD_RULES``)."""
    if r[R_SEQ] != 0:
        prune &= ~ONE_CARD_RULES
    return prune


@njit(cache=True)
def expand_buffers():
    """The buffers :func:`expand` works in, as one tuple: the legal actions, how deep each move source's
    next-needed card lies, the children's scores, the move generator's scratch."""
    return (
        np.empty(MAX_KIDS, np.int64),
        np.empty(N_SOURCES, np.int64),  # per move source: piles, then foundations
        np.empty(MAX_KIDS, np.int64),
        np.empty(SCRATCH_SIZE, np.int64),
    )


# --------------------------------------------------------------------------
# pruning rules and move order
# --------------------------------------------------------------------------


@njit(cache=True)
def is_safe_home(s, r, card):
    """Is sending ``card`` (which its foundation accepts) home provably safe?

    Only for tableaus that build down regardless of suit, once its
    foundation's base is known: safe when no card that could ever be placed
    on ``card`` is still out (every card of the rank below is home, or no
    rank is below: an Ace without tableau wrap). Proof in ``pruning.md``.
    """
    if r[R_RANK_FIT] == 0:  # the proof needs the tableau to build down regardless of suit
        return False
    if s[S_BASE + card // 13] < 0:
        return False
    rank = card % 13
    if rank == 0:
        if r[R_TWRAP] == 0:
            return True
        pred = 12
    else:
        pred = rank - 1
    for f in range(4):
        base = s[S_BASE + f]
        if base < 0:
            return False
        if (pred - base + 13) % 13 >= s[S_FOUND + f]:
            return False
    return True


@njit(cache=True)
def is_safe_home_deeper(s, r, card):
    """The second safe rule (``pruning.md`` rule 4): one rank further than :func:`is_safe_home`.

    A card that could be placed on ``card`` (rank ``pred(q)``) would itself be
    a safe foundation move whenever it is a top card: all cards of rank
    ``pred(pred(q))`` are home (or it is an Ace with Ace bases and no tableau
    wrap, so nothing can ever lie on it). Then ``card`` is never needed as a
    holder either. Needs the suit-blind downward tableau, every base fixed, no
    foundation card coming back, and foundations built side by side.
    """
    if r[R_RANK_FIT] == 0 or r[R_FOUND_TO_TAB] != 0 or r[R_ONE_AT_A_TIME] != 0:
        return False
    for f in range(4):
        if s[S_BASE + f] < 0:
            return False
    wrap = r[R_TWRAP] != 0
    rank = card % 13
    if rank == 0:
        if not wrap:
            return True  # nothing is ever placed on an Ace
        pred = 12
    else:
        pred = rank - 1
    if pred == 0 and not wrap:
        # the holders' holders do not exist: the Aces carry nothing; with Ace
        # bases an Ace out is always the next card of its foundation
        for f in range(4):
            if s[S_BASE + f] != 0:
                return False
        return True
    pred2 = 12 if pred == 0 else pred - 1
    for f in range(4):
        base = s[S_BASE + f]
        if (pred2 - base + 13) % 13 >= s[S_FOUND + f]:
            return False
    return True


@njit(cache=True, inline="always")
def order_weight(order):
    """How strongly restart ``order`` shuffles the heuristic: odd orders a little, even ones a lot."""
    return 4 if order % 2 == 1 else 64


@njit(cache=True)
def expand(s, r, prune, prev_token, has_prev, kids, off, loc, bufs, order):
    """Write the children of the current position, in search order, at ``kids[off:]``; return how many.

    ``loc`` is where each card lies (:func:`locate`), ``bufs`` the buffers of :func:`expand_buffers`.
    """
    buf, need, scores, scratch = bufs
    n_tab = r[R_NTAB]
    n = legal_actions(s, r, buf, scratch)
    # a provably safe foundation move is the only child
    if prune & PRUNE_SAFE_FOUNDATION:
        for i in range(n):
            a = buf[i]
            if a % N_TARGETS == FOUNDATION:
                card = top(s, a // N_TARGETS)
                if is_safe_home(s, r, card) or ((prune & PRUNE_SAFE_DEEPER) and is_safe_home_deeper(s, r, card)):
                    kids[off] = a
                    return 1
    # the card the previous move put on a pile (-1: none)
    moved_pile = -1
    if has_prev and (prune & PRUNE_SAME_CARD):
        pa = token_action(prev_token)
        if pa % N_TARGETS != FOUNDATION:
            moved_pile = pa % N_TARGETS
    # how deep each pile's shallowest next-needed card lies (52: none; a foundation source needs nothing)
    for p in range(need.shape[0]):
        need[p] = 52
    for f in range(4):
        want = next_home(s, f)
        if want < 0:
            continue
        at = loc[want]
        if at >= 0:
            p = at // CAP
            depth = s[S_HEIGHT + p] - 1 - (at - p * CAP)
            if depth < need[p]:
                need[p] = depth
    # order: foundation moves; moves onto cards, from piles whose needed card
    # is shallowest and onto piles whose needed card is deepest; moves to empty piles
    k = 0
    for i in range(n):
        a = buf[i]
        src = action_source(a)
        dst = a % N_TARGETS
        if src == moved_pile:
            continue
        if dst == FOUNDATION:
            score = 0
        elif s[S_HEIGHT + dst] == 0:
            if prune & PRUNE_CANONICAL:  # all empty piles are alike: keep the move to the first; a whole pile moved is no move
                if src < n_tab and s[S_HEIGHT + src] == action_count(a):
                    continue
                first_empty = -1
                for p in range(n_tab):  # reserves are never targets
                    if p != src and s[S_HEIGHT + p] == 0:
                        first_empty = p
                        break
                if dst != first_empty:
                    continue
            score = 10000 + need[src] * 64
        else:
            score = 1000 + need[src] * 64 + 52 - need[dst]
        if order != 0 and dst != FOUNDATION:
            score += np.int64((np.uint64(a * 2654435761 + order * 40503) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(58)) * order_weight(order)
        # insertion sort: stable, few children
        j = k
        while j > 0 and scores[j - 1] > score:
            scores[j] = scores[j - 1]
            kids[off + j] = kids[off + j - 1]
            j -= 1
        scores[j] = score
        kids[off + j] = a
        k += 1
    return k


@njit(cache=True, inline="always")
def undoes(s, n_tab, prev_token, a):
    """Does action ``a`` take back the move ``prev_token`` that led here, back to that position (up to pile order)?

    Then ``a`` leads to the parent on the path, which the search knows
    without applying the move, hashing and looking it up (a fifth to a third
    of all lookups). Tableau moves only: a card back from a foundation or a
    reserve is not the same position.
    """
    pa = token_action(prev_token)
    if pa >= N_ACTIONS or a >= N_ACTIONS:  # a sequence moved (dialects): back only with as many cards
        if action_count(pa) != action_count(a):
            return False
    psrc = action_source(pa)
    pdst = pa % N_TARGETS
    if psrc >= n_tab or pdst == FOUNDATION:
        return False
    if action_source(a) != pdst:  # pdst's top is the card (the sequence) the previous move put there
        return False
    dst = a % N_TARGETS
    if dst == psrc:
        return True
    # the card had been alone: back to any empty pile is the same position (empty piles are alike)
    return dst != FOUNDATION and s[S_HEIGHT + dst] == 0 and s[S_HEIGHT + psrc] == 0


# --------------------------------------------------------------------------
# where each card lies
# --------------------------------------------------------------------------


@njit(cache=True)
def locate(s, r, loc):
    """Fill ``loc``: card -> pile * CAP + index in the pile, -1 for a card on a foundation."""
    loc[:] = -1
    for p in range(r[R_NPILES]):
        for i in range(s[S_HEIGHT + p]):
            loc[s[S_CARDS + p * CAP + i]] = p * CAP + i


@njit(cache=True, inline="always")
def moved(s, loc, token, undone):
    """Keep ``loc`` after the move ``token`` was played (``undone`` False) or taken back (True)."""
    action = token_action(token)
    if action >= N_ACTIONS:  # a sequence (dialects): every card of it moved, pile to pile
        p = action_source(action) if undone else action % N_TARGETS
        h = s[S_HEIGHT + p]
        for i in range(h - action_count(action), h):
            loc[s[S_CARDS + p * CAP + i]] = p * CAP + i
        return
    card = token_card(token)
    p = (action // N_TARGETS) if undone else (action % N_TARGETS)
    if p == FOUNDATION or p >= MAX_PILES:
        loc[card] = -1
    else:
        loc[card] = p * CAP + s[S_HEIGHT + p] - 1
