"""Which moves are legal: what goes where, the one move generator, and the legality of one action.

Every player, the solver and the Python :class:`~sim.game.State` ask these;
:mod:`sim.core.reference` is the separate plain-Python engine they are
checked against. Playing a move is :mod:`.apply_undo`, hashing a position
:mod:`.hashing`, dealing :mod:`.dealing`; the arrays are those of :mod:`.layout`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.moves import FOUNDATION, N_ACTIONS, N_ALL_ACTIONS, N_TARGETS
from ..core.rules import MAX_PILES, EmptyPile, SequenceMoves, TableauDirection, TableauSuit
from .layout import (
    CAP, R_EMPTY, R_FOUND_TO_TAB, R_FWRAP, R_NPILES, R_NTAB, R_ONE_AT_A_TIME, R_RANK_FIT, R_SEQ, R_TDIR,
    R_TSUIT, R_TWRAP, S_BASE, S_CARDS, S_FOUND, S_HEIGHT, action_count, action_source, action_target,
    foundation_top, top,
)

#: bumped whenever the engine (these legal moves, :mod:`.apply_undo`, :mod:`.dealing`) changes the games it
#: plays; stored in every result row
ENGINE_VERSION = 1

#: scratch the move generator needs: a top card per pile, then 13 rank masks, then (dialects) each pile's top run
SCRATCH_SIZE = MAX_PILES + 13 + MAX_PILES
_RUN = MAX_PILES + 13  #: where the runs' lengths start in the scratch

#: the lowest set bit's index of every 13-bit pile mask
LOWEST_BIT = np.array([0] + [(m & -m).bit_length() - 1 for m in range(1, 1 << MAX_PILES)], np.int8)
#: a card's rank and suit, by lookup (no division in the hot loops)
RANK_OF = np.array([c % 13 for c in range(52)], np.int64)
SUIT_OF = np.array([c // 13 for c in range(52)], np.int64)

_ANY_CARD = int(EmptyPile.ANY_CARD)
_UP_OR_DOWN = int(TableauDirection.UP_OR_DOWN)
_SAME_SUIT = int(TableauSuit.SAME_SUIT)
_ANY_SUIT = int(TableauSuit.ANY)
_UNLIMITED = int(SequenceMoves.UNLIMITED)


# --------------------------------------------------------------------------
# what goes where
# --------------------------------------------------------------------------


@njit(cache=True, inline="always")
def foundation_accepts(s, r, card):
    """May ``card`` go to its suit's foundation?"""
    suit = SUIT_OF[card]
    n = s[S_FOUND + suit]
    if n >= 13:
        return False
    if n == 0 and r[R_ONE_AT_A_TIME] != 0 and _another_open(s):
        return False
    base = s[S_BASE + suit]
    if base < 0:
        return True  # unset base: the first card founded chooses it (shared: only while all are empty)
    nxt = base + n
    if nxt >= 13:
        if r[R_FWRAP] == 0:
            return False
        nxt -= 13
    return RANK_OF[card] == nxt


@njit(cache=True, inline="always")
def fits(r, card, below):
    """Could ``card`` be built on ``below`` by the tableau rule (rank, suit, wrap)?"""
    return _fits(card, below, r[R_TWRAP] != 0, r[R_TDIR] == _UP_OR_DOWN, r[R_TSUIT])


@njit(cache=True, inline="always")
def _fits(card, below, twrap, both_ways, suit_rule):
    """:func:`fits` with the rule fields read once by the caller (loops over piles keep them in registers)."""
    cr = card % 13
    tr = below % 13
    ok = cr == tr - 1 or (twrap and tr == 0 and cr == 12)
    if not ok and both_ways:
        ok = cr == tr + 1 or (twrap and tr == 12 and cr == 0)
    if ok and suit_rule != _ANY_SUIT:
        cs = card // 13
        ts = below // 13
        if suit_rule == _SAME_SUIT:
            ok = cs == ts
        else:
            ok = (cs == 1 or cs == 2) != (ts == 1 or ts == 2)
    return ok


@njit(cache=True)
def pile_accepts(s, r, card, p):
    """May ``card`` go on pile ``p``? (Reserves take nothing.)"""
    if p >= r[R_NTAB]:
        return False
    t = top(s, p)
    if t < 0:
        return r[R_EMPTY] == _ANY_CARD
    return fits(r, card, t)


@njit(cache=True, inline="always")
def next_home(s, f):
    """The card foundation ``f`` takes next (its base's rank plus the cards home, ranks wrapping); -1 if it
    is full or its base is not known yet. What the solver's move order and its dead-end test look for."""
    base = s[S_BASE + f]
    home = s[S_FOUND + f]
    if base < 0 or home >= 13:
        return -1
    return f * 13 + (base + home) % 13


# --------------------------------------------------------------------------
# the one move generator
# --------------------------------------------------------------------------


@njit(cache=True)
def legal_actions(s, r, out, scratch):
    """The one move generator: write the legal actions, ascending, into ``out``; return how many.

    Sources are all piles (reserves included), then the foundations whose
    top card may come back; targets are the tableau piles, then the
    foundation. Where the tableau builds down regardless of suit
    (``R_RANK_FIT``, derived from the rules), a card's target piles are
    read from a mask of the piles showing the rank above it instead of
    asking every pile: the same moves in the same order, three times
    faster. ``scratch`` holds ``SCRATCH_SIZE`` int64s: each pile's top card
    (-1: empty), then the 13 masks. (Written out in one function: numba
    inlining of helpers that take arrays costs reference counting per call.)
    """
    n_piles = r[R_NPILES]
    n_tab = r[R_NTAB]
    rank_fit = r[R_RANK_FIT] != 0
    wrap = r[R_TWRAP] != 0
    both_ways = r[R_TDIR] == _UP_OR_DOWN
    suit_rule = r[R_TSUIT]
    empty_ok = r[R_EMPTY] == _ANY_CARD
    if rank_fit:
        for q in range(13):
            scratch[MAX_PILES + q] = 0
    empties = 0
    for p in range(n_piles):
        h = s[S_HEIGHT + p]
        if h == 0:
            scratch[p] = -1
            if p < n_tab and empty_ok:
                empties |= 1 << p
        else:
            c = np.int64(s[S_CARDS + p * CAP + h - 1])
            scratch[p] = c
            if rank_fit and p < n_tab:
                scratch[MAX_PILES + RANK_OF[c]] |= 1 << p
    n = 0
    for src in range(n_piles + 4):  # the piles, then the foundations (where their top card may come back)
        if src < n_piles:
            card = scratch[src]
        elif r[R_FOUND_TO_TAB] != 0:
            card = foundation_top(s, src - n_piles)
            src = MAX_PILES + src - n_piles
        else:
            break
        if card < 0:
            continue
        if rank_fit:  # the piles showing the rank above, and the empty ones
            want = RANK_OF[card] + 1
            m = empties
            if want < 13:
                m |= scratch[MAX_PILES + want]
            elif wrap:
                m |= scratch[MAX_PILES]
            m &= ~(1 << src)
            while m != 0:
                out[n] = src * N_TARGETS + LOWEST_BIT[m]
                n += 1
                m &= m - 1
        else:  # every other tableau pile, asked
            for dst in range(n_tab):
                if dst == src:
                    continue
                t = scratch[dst]
                if t < 0:
                    ok = empty_ok
                else:
                    ok = _fits(card, t, wrap, both_ways, suit_rule)
                if ok:
                    out[n] = src * N_TARGETS + dst
                    n += 1
        if src < MAX_PILES and foundation_accepts(s, r, card):
            out[n] = src * N_TARGETS + FOUNDATION
            n += 1
    if r[R_SEQ] != 0:  # a dialect's sequence moves: actions above every one-card move
        n = _sequence_actions(s, r, out, n, scratch)
    return n


# --------------------------------------------------------------------------
# the dialects' sequence moves (rules array R_SEQ; never the rule sheets)
# --------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _free_piles(s, r):
    """The empty tableau piles a supermove may pass through (reserves never count; none where an empty pile stays empty)."""
    if r[R_EMPTY] != _ANY_CARD:
        return 0
    e = 0
    for p in range(r[R_NTAB]):
        if s[S_HEIGHT + p] == 0:
            e += 1
    return e


@njit(cache=True, inline="always")
def _run_length(s, r, p):
    """How many top cards of pile ``p`` form a sequence: each fits on the card below it by the tableau rule."""
    h = s[S_HEIGHT + p]
    if h == 0:
        return 0
    base = S_CARDS + p * CAP
    wrap = r[R_TWRAP] != 0
    both_ways = r[R_TDIR] == _UP_OR_DOWN
    suit_rule = r[R_TSUIT]
    k = 1
    while k < h and _fits(np.int64(s[base + h - k]), np.int64(s[base + h - k - 1]), wrap, both_ways, suit_rule):
        k += 1
    return k


@njit(cache=True, inline="always")
def _sequence_fits(r, count, free, target_empty):
    """May a sequence of ``count`` cards move under the dialect, ``free`` empty piles around (the target among them if empty)?"""
    if r[R_SEQ] == _UNLIMITED:
        return True
    if target_empty:  # supermoves: the target does not count
        return count <= (1 << (free - 1))
    return count <= (1 << free)


@njit(cache=True)
def _sequence_actions(s, r, out, n, scratch):
    """Append the moves of two or more cards, ascending by action, to ``out[:n]``; return the new count.

    ``scratch[:n_piles]`` holds each pile's top card (-1: empty), as
    :func:`legal_actions` left it.
    """
    n_piles = r[R_NPILES]
    n_tab = r[R_NTAB]
    wrap = r[R_TWRAP] != 0
    both_ways = r[R_TDIR] == _UP_OR_DOWN
    suit_rule = r[R_TSUIT]
    empty_ok = r[R_EMPTY] == _ANY_CARD
    free = _free_piles(s, r)
    longest = 0
    for p in range(n_piles):
        k = _run_length(s, r, p)
        scratch[_RUN + p] = k
        if k > longest:
            longest = k
    if r[R_SEQ] != _UNLIMITED and longest > (1 << free):
        longest = 1 << free
    for count in range(2, longest + 1):
        for src in range(n_piles):
            if scratch[_RUN + src] < count:
                continue
            card = np.int64(s[S_CARDS + src * CAP + s[S_HEIGHT + src] - count])
            for dst in range(n_tab):
                if dst == src:
                    continue
                t = scratch[dst]
                if t < 0:
                    ok = empty_ok and _sequence_fits(r, count, free, True)
                else:
                    ok = _sequence_fits(r, count, free, False) and _fits(card, t, wrap, both_ways, suit_rule)
                if ok:
                    out[n] = (count - 1) * N_ACTIONS + src * N_TARGETS + dst
                    n += 1
    return n


@njit(cache=True)
def _sequence_legal(s, r, action):
    """Is the sequence move ``action`` (two or more cards) legal in ``s``?"""
    if r[R_SEQ] == 0 or action >= N_ALL_ACTIONS:
        return False
    src = action_source(action)
    dst = action_target(action)
    count = action_count(action)
    if src >= r[R_NPILES] or dst >= r[R_NTAB] or dst == src:
        return False
    if _run_length(s, r, src) < count:
        return False
    t = top(s, dst)
    if t < 0:
        return r[R_EMPTY] == _ANY_CARD and _sequence_fits(r, count, _free_piles(s, r), True)
    card = np.int64(s[S_CARDS + src * CAP + s[S_HEIGHT + src] - count])
    return _sequence_fits(r, count, _free_piles(s, r), False) and fits(r, card, t)


@njit(cache=True, inline="always")
def _another_open(s):
    """Is some foundation started and not yet full (one foundation at a time: no other may start)?"""
    for f in range(4):
        if 0 < s[S_FOUND + f] < 13:
            return True
    return False


@njit(cache=True)
def is_legal(s, r, action):
    """Is ``action`` legal in ``s``?"""
    if action < 0 or action >= N_ACTIONS:
        return action >= N_ACTIONS and _sequence_legal(s, r, action)
    src = action // N_TARGETS
    dst = action % N_TARGETS
    if src >= MAX_PILES:
        if r[R_FOUND_TO_TAB] == 0 or dst == FOUNDATION:
            return False
        card = foundation_top(s, src - MAX_PILES)
    elif src >= r[R_NPILES]:
        return False
    else:
        card = top(s, src)
    if card < 0:
        return False
    if dst == FOUNDATION:
        return foundation_accepts(s, r, card)
    if dst == src:
        return False
    return pile_accepts(s, r, card, dst)
