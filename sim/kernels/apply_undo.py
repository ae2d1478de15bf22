"""Playing a legal move and taking it back: the undo token holds what undoing needs.

The players and the solver search by playing a move and undoing it, never
copying a position; :mod:`.hashing` wraps these to keep a position's hash as
they go. The arrays are those of :mod:`.layout`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.moves import FOUNDATION, N_ACTIONS, N_TARGETS
from ..core.rules import MAX_PILES, FoundationBase
from .layout import (
    CAP, R_BASE_POLICY, S_BASE, S_CARDS, S_FOUND, S_HEIGHT, T_CARD_SHIFT, T_SET_OWN_BASE, T_SET_SHARED_BASE,
    action_count, action_source, action_target, foundation_top, token_action, token_card,
)

_SHARED = int(FoundationBase.FIRST_CARD_SHARED)


# --------------------------------------------------------------------------
# the dialects' sequence moves, carried pile to pile
# --------------------------------------------------------------------------


@njit(cache=True)
def _carry(s, src, dst, count):
    """Move pile ``src``'s top ``count`` cards onto pile ``dst``, their order kept."""
    h = s[S_HEIGHT + src] - count
    hd = s[S_HEIGHT + dst]
    for i in range(count):
        s[S_CARDS + dst * CAP + hd + i] = s[S_CARDS + src * CAP + h + i]
        s[S_CARDS + src * CAP + h + i] = 0
    s[S_HEIGHT + src] = h
    s[S_HEIGHT + dst] = hd + count


@njit(cache=True)
def _apply_sequence(s, action):
    """Play the sequence move ``action``; its token holds the sequence's bottom card."""
    dst = action_target(action)
    count = action_count(action)
    _carry(s, action_source(action), dst, count)
    return action | (np.int64(s[S_CARDS + dst * CAP + s[S_HEIGHT + dst] - count]) << T_CARD_SHIFT)


@njit(cache=True)
def _undo_sequence(s, action):
    """Take back the sequence move ``action``."""
    _carry(s, action_target(action), action_source(action), action_count(action))


# --------------------------------------------------------------------------
# playing and taking back
# --------------------------------------------------------------------------


@njit(cache=True)
def apply(s, r, action):
    """Play a legal ``action``; return its undo token."""
    if action >= N_ACTIONS:
        return _apply_sequence(s, action)
    src = action // N_TARGETS
    dst = action % N_TARGETS
    if src >= MAX_PILES:  # a foundation's top card comes back
        f = src - MAX_PILES
        card = foundation_top(s, f)
        s[S_FOUND + f] -= 1
    else:
        h = s[S_HEIGHT + src] - 1
        card = np.int64(s[S_CARDS + src * CAP + h])
        s[S_CARDS + src * CAP + h] = 0  # slots above the height stay 0: equal positions, equal arrays
        s[S_HEIGHT + src] = h
    token = action | (card << T_CARD_SHIFT)
    if dst == FOUNDATION:
        suit = card // 13
        if s[S_BASE + suit] < 0:
            if r[R_BASE_POLICY] == _SHARED:
                for f in range(4):
                    s[S_BASE + f] = card % 13
                token |= T_SET_SHARED_BASE
            else:
                s[S_BASE + suit] = card % 13
                token |= T_SET_OWN_BASE
        s[S_FOUND + suit] += 1
    else:
        hd = s[S_HEIGHT + dst]
        s[S_CARDS + dst * CAP + hd] = card
        s[S_HEIGHT + dst] = hd + 1
    return token


@njit(cache=True)
def undo(s, r, token):
    """Take back the move whose undo token is ``token``."""
    action = token_action(token)
    if action >= N_ACTIONS:
        _undo_sequence(s, action)
        return
    card = token_card(token)
    src = action // N_TARGETS
    dst = action % N_TARGETS
    if dst == FOUNDATION:
        suit = card // 13
        s[S_FOUND + suit] -= 1
        if token & T_SET_SHARED_BASE:
            for f in range(4):
                s[S_BASE + f] = -1
        elif token & T_SET_OWN_BASE:
            s[S_BASE + suit] = -1
    else:
        hd = s[S_HEIGHT + dst] - 1
        s[S_CARDS + dst * CAP + hd] = 0
        s[S_HEIGHT + dst] = hd
    if src >= MAX_PILES:
        s[S_FOUND + src - MAX_PILES] += 1
    else:
        h = s[S_HEIGHT + src]
        s[S_CARDS + src * CAP + h] = card
        s[S_HEIGHT + src] = h + 1
