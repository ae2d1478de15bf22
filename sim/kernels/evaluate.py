"""The players' one evaluation of a position: what greedy, lookahead, strategist and the planners think is good.

The players differ in how they search with it, not in what they think a
good position is. Its weights are fields of the one parameter record every
compiled player receives (:mod:`.params`: ``w.home``, ``w.empty``...),
filled from named parameters by :mod:`sim.players.compiled`; the record's
other fields are the players' own parameters.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.rules import FoundationBase
from .legal import fits, legal_actions
from .rng import rand_below
from .layout import CAP, R_BASE_POLICY, R_NPILES, R_NTAB, S_BASE, S_CARDS, S_FOUND, S_HEIGHT

WON_BONUS = 1e9
STUCK_PENALTY = 1e6
MOBILITY_CAP = 16

RANK = np.array([c % 13 for c in range(52)], np.int64)  #: lookup tables: no division per card
SUIT = np.array([c // 13 for c in range(52)], np.int64)

_SHARED = int(FoundationBase.FIRST_CARD_SHARED)
_INDEPENDENT = int(FoundationBase.FIRST_CARD_INDEPENDENT)


@njit(cache=True)
def evaluate(s, r, w, target_base, moves, scratch):
    """The score of position ``s`` under the weights of the parameter record ``w`` (:mod:`.params`), higher is better::

        w.home     * cards on the foundations
      + w.empty    * empty tableau piles
      - w.dig      * sum over unfinished suits of the depth (cards above it) of
                     the suit's next needed card
      - w.block    * blockers: cards lying above a card of lower foundation order
                     (each must move before the card under it can go home)
      + w.seq      * cards resting on a card they could legally be moved onto
                     (built sequences, the wrap K-on-A included where the game wraps)
      - w.balance  * (most cards home in one suit - fewest in another)
      + w.mobility * legal moves (capped at 16)
      - w.last     * cards lying under a card of the last foundation order (the
                     rank below the base: Kings where the base is the Ace), which
                     goes home only at the very end
      + WON_BONUS if all 52 cards are home; - STUCK_PENALTY if no move is legal
                     (tested with the mobility term: a zero w.mobility skips both,
                     and the move generation they cost)

    "Next needed card" needs a base rank: the foundation's own once set, else
    the player's target base (``target_base[suit]``, -1 for "unknown": that
    suit's depth term is skipped and its cards are ordered by plain rank).
    ``moves`` (``MAX_MOVES``) and ``scratch`` (``SCRATCH_SIZE``) are the move
    generator's buffers: mobility is its count.
    """
    home = 0
    hi = 0
    lo = 13
    for f in range(4):
        n = s[S_FOUND + f]
        home += n
        if n > hi:
            hi = n
        if n < lo:
            lo = n
    if home == 52:
        return WON_BONUS + w.home * 52
    empty = 0
    blockers = 0
    seq = 0
    depth_sum = 0
    buried = 0
    for p in range(r[R_NPILES]):
        h = s[S_HEIGHT + p]
        if h == 0:
            if p < r[R_NTAB]:
                empty += 1
            continue
        base = S_CARDS + p * CAP
        low = 99
        last_at = 0
        for i in range(h):
            c = s[base + i]
            suit = SUIT[c]
            b = np.int64(s[S_BASE + suit])
            if b < 0:
                b = target_base[suit]
            o = RANK[c]
            if b > 0:  # position in the suit's foundation sequence (0 = the base)
                o -= b
                if o < 0:
                    o += 13
            if o > low:
                blockers += 1
            elif o < low:
                low = o
            if b >= 0 and o == s[S_FOUND + suit]:  # the suit's next needed card
                depth_sum += h - 1 - i
            if i > 0 and fits(r, c, s[base + i - 1]):
                seq += 1
            if o == 12:
                last_at = i
        buried += last_at
    mobility = legal_actions(s, r, moves, scratch) if w.mobility != 0 else 1  # (the move generation is half the cost)
    score = (
        w.home * home
        - w.balance * (hi - lo)
        + w.empty * empty
        - w.block * blockers
        + w.seq * seq
        - w.dig * depth_sum
        + w.mobility * min(mobility, MOBILITY_CAP)
        - w.last * buried
    )
    if mobility == 0:
        score -= STUCK_PENALTY
    return score


@njit(cache=True)
def card_depths(s, r, depth):
    """Write each card's depth (cards above it; -1 if on a foundation) into ``depth`` (52 ints)."""
    for c in range(52):
        depth[c] = -1
    for p in range(r[R_NPILES]):
        h = s[S_HEIGHT + p]
        base = S_CARDS + p * CAP
        for i in range(h):
            depth[s[base + i]] = h - 1 - i


@njit(cache=True)
def random_target_bases(s, r, tb, rng):
    """Base ranks to aim for, drawn at random while no base is set (one for all four suits if they share it)."""
    for f in range(4):
        tb[f] = -1
    if r[R_BASE_POLICY] == _SHARED:
        if s[S_BASE] < 0:
            rank = rand_below(rng, 13)
            for f in range(4):
                tb[f] = rank
    elif r[R_BASE_POLICY] == _INDEPENDENT:
        for f in range(4):
            if s[S_BASE + f] < 0:
                tb[f] = rand_below(rng, 13)


@njit(cache=True)
def choose_target_bases(s, r, tb, depth):
    """Base ranks to aim for, chosen from the whole board while no base is set.

    Shared base: the rank whose four copies lie shallowest in total (sum of
    the depths of the four cards; ties to the lower rank). Independent
    bases: each suit's shallowest card. Games with fixed bases, or bases
    already set: -1 (nothing to choose).
    """
    for f in range(4):
        tb[f] = -1
    card_depths(s, r, depth)
    if r[R_BASE_POLICY] == _SHARED:
        if s[S_BASE] >= 0:
            return
        best = -1
        best_sum = 1 << 30
        for rank in range(13):
            total = 0
            for f in range(4):
                d = depth[f * 13 + rank]
                total += d if d >= 0 else 0
            if total < best_sum:
                best_sum = total
                best = rank
        for f in range(4):
            tb[f] = best
    elif r[R_BASE_POLICY] == _INDEPENDENT:
        for f in range(4):
            if s[S_BASE + f] >= 0:
                continue
            best = -1
            best_d = 1 << 30
            for rank in range(13):
                d = depth[f * 13 + rank]
                if d >= 0 and d < best_d:
                    best_d = d
                    best = rank
            tb[f] = best
