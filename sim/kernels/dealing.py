"""Dealing, compiled: the starting position of a numbered deal, written into a state array.

The play loop deals whole chunks of deals without leaving the kernel;
:func:`sim.core.deals.layout` is the same deal in plain Python.
"""

from __future__ import annotations

from numba import njit

from ..core.rules import DealStyle, FoundationBase
from .layout import CAP, R_ACES, R_BASE_POLICY, R_DEAL_STYLE, R_NPILES, R_SIZES, S_BASE, S_CARDS, S_FOUND, S_HEIGHT
from .rng import permutation

_ACE_BASE = int(FoundationBase.ACE)
_CITADEL = int(DealStyle.CITADEL)
_KINGS_TO_BOTTOM = int(DealStyle.KINGS_TO_BOTTOM)
_LAST_CARD_HOME = int(DealStyle.LAST_CARD_TO_FOUNDATION)



@njit(cache=True)
def init_deal(r, seed, deal, s, perm):
    """Write the starting position of deal ``(seed, deal)`` into ``s`` (``perm``: 52 int8 scratch).

    :func:`sim.core.deals.layout`, compiled, so whole chunks of deals are
    played without leaving the kernel.
    """
    permutation(seed, deal, perm)
    s[:] = 0
    aces = r[R_ACES] != 0
    for f in range(4):
        if aces:
            s[S_FOUND + f] = 1
            s[S_BASE + f] = 0
        elif r[R_BASE_POLICY] == _ACE_BASE:
            s[S_BASE + f] = 0
        else:
            s[S_BASE + f] = -1
    style = r[R_DEAL_STYLE]
    last = 51
    if aces:
        while perm[last] % 13 == 0:
            last -= 1
    if style == _LAST_CARD_HOME:  # the last card dealt founds and sets the shared base
        c = perm[last]
        s[S_FOUND + c // 13] = 1
        for f in range(4):
            s[S_BASE + f] = c % 13
    n_piles = r[R_NPILES]
    max_size = 0
    for p in range(n_piles):
        if r[R_SIZES + p] > max_size:
            max_size = r[R_SIZES + p]
    i = 0
    for row in range(max_size):
        for p in range(n_piles):
            if row < r[R_SIZES + p]:
                while aces and perm[i] % 13 == 0:
                    i += 1
                c = perm[i]
                i += 1
                if style == _CITADEL and c % 13 == s[S_FOUND + c // 13]:
                    s[S_FOUND + c // 13] += 1  # it fits its foundation, so it goes home
                    continue
                h = s[S_HEIGHT + p]
                s[S_CARDS + p * CAP + h] = c
                s[S_HEIGHT + p] = h + 1
    if style == _KINGS_TO_BOTTOM:  # Kings to the bottom of their pile, order otherwise kept
        for p in range(n_piles):
            h = s[S_HEIGHT + p]
            base = S_CARDS + p * CAP
            k = 0
            for j in range(h):
                if s[base + j] % 13 == 12:
                    c = s[base + j]
                    for m in range(j, k, -1):
                        s[base + m] = s[base + m - 1]
                    s[base + k] = c
                    k += 1
