"""The compiled engine: numba kernels over small int arrays.

Everything that runs per move lives here, as private ``@njit(cache=True)``
functions with plain loops; :mod:`sim.game` is the thin Python layer that
validates, allocates and calls them.

A **state** is one int8 array of ``STATE_SIZE``::

    [0:4]    cards home per suit (C D H S)
    [4:8]    base rank of each suit's foundation, -1 while unset
    [8:21]   height of each tableau pile (13 slots; unused piles stay 0)
    [24:]    pile p's cards at 24 + p*52 + i, bottom (i=0) first

The **rules** are one int64 array of ``RULES_SIZE`` (see :func:`rules_array`)
so one compiled kernel plays every game. Moves are the action ints of
:mod:`sim.moves`. :func:`apply` returns an *undo token* (the action, the card moved
and whether the move set the base); :func:`undo` takes it back.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .board import Position
from .deals import _permutation_kernel
from .moves import FOUNDATION, N_ACTIONS, N_TARGETS
from .numba_cache import drop_stale_cache
from .rules import MAX_PILES, Rules

drop_stale_cache(__file__, "deals.py")

CAP = 52  #: the most cards a pile can ever hold
S_FOUND = 0
S_BASE = 4
S_HEIGHT = 8
S_CARDS = 24
STATE_SIZE = S_CARDS + MAX_PILES * CAP

# rules array fields
R_NPILES = 0
R_BASE_POLICY = 1
R_FWRAP = 2
R_TDIR = 3
R_TSUIT = 4
R_TWRAP = 5
R_EMPTY = 6
R_ACES = 7
R_DEAL_STYLE = 8
R_ONE_AT_A_TIME = 9
R_FOUND_TO_TAB = 10
R_RESERVES = 11
R_SIZES = 16  #: pile sizes, MAX_PILES slots
RULES_SIZE = R_SIZES + MAX_PILES

# undo token: action in bits 0-7, the moved card in bits 8-13, then flags
U_SET_SHARED_BASE = 1 << 14
U_SET_OWN_BASE = 1 << 15

# playout outcomes
WON = 0
STUCK = 1
GAVE_UP = 2


def rules_array(rules: Rules) -> np.ndarray:
    """The rule fields as the int64 array the kernels read."""
    r = np.zeros(RULES_SIZE, np.int64)
    r[R_NPILES] = rules.n_piles
    r[R_BASE_POLICY] = int(rules.foundation_base)
    r[R_FWRAP] = int(rules.foundation_wrap)
    r[R_TDIR] = int(rules.tableau_direction)
    r[R_TSUIT] = int(rules.tableau_suit)
    r[R_TWRAP] = int(rules.tableau_wrap)
    r[R_EMPTY] = int(rules.empty_pile)
    r[R_ACES] = int(rules.aces_preplaced)
    r[R_DEAL_STYLE] = int(rules.deal_style)
    r[R_ONE_AT_A_TIME] = int(rules.foundations_one_at_a_time)
    r[R_FOUND_TO_TAB] = int(rules.foundation_to_tableau)
    r[R_RESERVES] = rules.reserves
    r[R_SIZES : R_SIZES + rules.n_piles] = rules.pile_sizes
    return r


def state_from_position(pos: Position) -> np.ndarray:
    """Pack a :class:`Position` into a state array."""
    s = np.zeros(STATE_SIZE, np.int8)
    s[S_FOUND : S_FOUND + 4] = pos.foundations
    s[S_BASE : S_BASE + 4] = pos.bases
    for p, pile in enumerate(pos.piles):
        s[S_HEIGHT + p] = len(pile)
        s[S_CARDS + p * CAP : S_CARDS + p * CAP + len(pile)] = pile
    return s


def position_from_state(s: np.ndarray, n_piles: int) -> Position:
    """Unpack a state array into a :class:`Position`."""
    piles = []
    for p in range(n_piles):
        start = S_CARDS + p * CAP
        piles.append([int(c) for c in s[start : start + int(s[S_HEIGHT + p])]])
    return Position(piles, [int(x) for x in s[S_FOUND : S_FOUND + 4]], [int(x) for x in s[S_BASE : S_BASE + 4]])


# --------------------------------------------------------------------------
# rules of movement
# --------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _top(s, p):
    h = s[S_HEIGHT + p]
    if h == 0:
        return -1
    return np.int64(s[S_CARDS + p * CAP + h - 1])


@njit(cache=True)
def foundation_accepts(s, r, card):
    """May ``card`` go to its suit's foundation?"""
    suit = card // 13
    rank = card % 13
    n = s[S_FOUND + suit]
    if n >= 13:
        return False
    if n == 0 and r[R_ONE_AT_A_TIME] != 0:
        for f in range(4):
            if 0 < s[S_FOUND + f] < 13:
                return False  # another foundation is open and not yet full
    base = s[S_BASE + suit]
    if base < 0:
        # unset base: the first card founded chooses it (shared: only while all are empty)
        return True
    nxt = base + n
    if nxt >= 13:
        if r[R_FWRAP] == 0:
            return False
        nxt -= 13
    return rank == nxt


@njit(cache=True)
def pile_accepts(s, r, card, p):
    """May ``card`` go on tableau pile ``p``? (Reserves take nothing.)"""
    if p >= r[R_NPILES] - r[R_RESERVES]:
        return False
    top = _top(s, p)
    if top < 0:
        return r[R_EMPTY] == 0
    return _fits(card, top, r[R_TWRAP] != 0, r[R_TDIR] == 1, r[R_TSUIT])


@njit(cache=True, inline="always")
def _foundation_top(s, f):
    """The top card of suit ``f``'s foundation, or -1 when it is empty."""
    n = s[S_FOUND + f]
    if n == 0:
        return -1
    return f * 13 + (s[S_BASE + f] + n - 1) % 13


@njit(cache=True, inline="always")
def _fits(card, top, twrap, both_ways, suit_rule):
    """Does ``card`` go on the (non-empty) pile whose top card is ``top``?"""
    cr = card % 13
    tr = top % 13
    ok = cr == tr - 1 or (twrap and tr == 0 and cr == 12)
    if not ok and both_ways:
        ok = cr == tr + 1 or (twrap and tr == 12 and cr == 0)
    if ok and suit_rule != 0:
        cs = card // 13
        ts = top // 13
        if suit_rule == 1:
            ok = cs == ts
        else:
            ok = (cs == 1 or cs == 2) != (ts == 1 or ts == 2)
    return ok


@njit(cache=True)
def legal_actions(s, r, out):
    """Write the legal actions, ascending, into ``out``; return how many.

    The hot loop of every player: each pile's top card is read once, then
    every (source, target) pair is checked. Sources are all piles (reserves
    included), then foundations where their top card may come back; targets
    are the tableau piles, then the foundation.
    """
    n_piles = r[R_NPILES]
    n_tab = n_piles - r[R_RESERVES]
    twrap = r[R_TWRAP] != 0
    both_ways = r[R_TDIR] == 1
    suit_rule = r[R_TSUIT]
    empty_ok = r[R_EMPTY] == 0
    tops = np.empty(MAX_PILES, np.int64)
    for p in range(n_piles):
        tops[p] = _top(s, p)
    n = 0
    for src in range(n_piles):
        card = tops[src]
        if card < 0:
            continue
        for dst in range(n_tab):
            if dst == src:
                continue
            top = tops[dst]
            if top < 0:
                ok = empty_ok
            else:
                ok = _fits(card, top, twrap, both_ways, suit_rule)
            if ok:
                out[n] = src * N_TARGETS + dst
                n += 1
        if foundation_accepts(s, r, card):
            out[n] = src * N_TARGETS + FOUNDATION
            n += 1
    if r[R_FOUND_TO_TAB] != 0:
        for f in range(4):
            card = _foundation_top(s, f)
            if card < 0:
                continue
            for dst in range(n_tab):
                top = tops[dst]
                if top < 0:
                    ok = empty_ok
                else:
                    ok = _fits(card, top, twrap, both_ways, suit_rule)
                if ok:
                    out[n] = (MAX_PILES + f) * N_TARGETS + dst
                    n += 1
    return n


@njit(cache=True)
def is_legal(s, r, action):
    """Is ``action`` legal in ``s``?"""
    if action < 0 or action >= N_ACTIONS:
        return False
    src = action // N_TARGETS
    dst = action % N_TARGETS
    n_piles = r[R_NPILES]
    if src >= MAX_PILES:
        if r[R_FOUND_TO_TAB] == 0 or dst == FOUNDATION:
            return False
        card = _foundation_top(s, src - MAX_PILES)
    elif src >= n_piles:
        return False
    else:
        card = _top(s, src)
    if card < 0:
        return False
    if dst == FOUNDATION:
        return foundation_accepts(s, r, card)
    if dst >= n_piles or dst == src:
        return False
    return pile_accepts(s, r, card, dst)


@njit(cache=True)
def apply(s, r, action):
    """Play a legal ``action``; return the undo token."""
    src = action // N_TARGETS
    dst = action % N_TARGETS
    if src >= MAX_PILES:  # a foundation's top card comes back
        f = src - MAX_PILES
        card = f * 13 + (s[S_BASE + f] + s[S_FOUND + f] - 1) % 13
        s[S_FOUND + f] -= 1
    else:
        h = s[S_HEIGHT + src] - 1
        card = s[S_CARDS + src * CAP + h]
        s[S_CARDS + src * CAP + h] = 0  # slots above the height stay 0: equal positions, equal arrays
        s[S_HEIGHT + src] = h
    token = action | (np.int64(card) << 8)
    if dst == FOUNDATION:
        suit = card // 13
        if s[S_BASE + suit] < 0:
            if r[R_BASE_POLICY] == 1:
                for f in range(4):
                    s[S_BASE + f] = card % 13
                token |= U_SET_SHARED_BASE
            else:
                s[S_BASE + suit] = card % 13
                token |= U_SET_OWN_BASE
        s[S_FOUND + suit] += 1
    else:
        hd = s[S_HEIGHT + dst]
        s[S_CARDS + dst * CAP + hd] = card
        s[S_HEIGHT + dst] = hd + 1
    return token


@njit(cache=True)
def undo(s, r, token):
    """Take back the move whose undo token is ``token``."""
    action = token & 255
    card = (token >> 8) & 63
    src = action // N_TARGETS
    dst = action % N_TARGETS
    if dst == FOUNDATION:
        suit = card // 13
        s[S_FOUND + suit] -= 1
        if token & U_SET_SHARED_BASE:
            for f in range(4):
                s[S_BASE + f] = -1
        elif token & U_SET_OWN_BASE:
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


@njit(cache=True)
def cards_home(s):
    return s[S_FOUND] + s[S_FOUND + 1] + s[S_FOUND + 2] + s[S_FOUND + 3]


@njit(cache=True)
def is_won(s):
    return cards_home(s) == 52


# --------------------------------------------------------------------------
# deals, hashing, random numbers
# --------------------------------------------------------------------------


@njit(cache=True)
def init_deal(r, seed, deal, s, perm):
    """Write the starting position of deal ``(seed, deal)`` into ``s`` (``perm``: 52 int8 scratch).

    Same layout as :func:`sim.deals.layout`, compiled so whole chunks of deals
    can be played without leaving the kernel.
    """
    _permutation_kernel(seed, deal, perm)
    s[:] = 0
    aces = r[R_ACES] != 0
    for f in range(4):
        if aces:
            s[S_FOUND + f] = 1
            s[S_BASE + f] = 0
        elif r[R_BASE_POLICY] == 0:
            s[S_BASE + f] = 0
        else:
            s[S_BASE + f] = -1
    style = r[R_DEAL_STYLE]
    last = 51
    if aces:
        while perm[last] % 13 == 0:
            last -= 1
    if style == 3:  # the last card dealt founds and sets the shared base
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
                if style == 2 and c % 13 == s[S_FOUND + c // 13]:
                    s[S_FOUND + c // 13] += 1  # Citadel: it fits its foundation, so it goes home
                    continue
                h = s[S_HEIGHT + p]
                s[S_CARDS + p * CAP + h] = c
                s[S_HEIGHT + p] = h + 1
    if style == 1:  # Kings to the bottom of their pile, order otherwise kept
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


def _zobrist_tables():
    """Fixed random 64-bit keys (splitmix64 from a constant), the same on every machine."""
    from .deals import GAMMA, MASK64, _mix64

    def keys(n, start):
        return np.array([_mix64((start + (i + 1) * GAMMA) & MASK64) for i in range(n)], np.uint64)

    return keys(CAP * 52, 1).reshape(CAP, 52), keys(4 * 14, 2).reshape(4, 14), keys(4 * 14, 3).reshape(4, 14)


Z_PILE, Z_FOUND, Z_BASE = _zobrist_tables()


@njit(cache=True, inline="always")
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def pile_hash(s, p):
    """Zobrist key of pile ``p``'s cards by depth (0 for an empty pile)."""
    h = np.uint64(0)
    base = S_CARDS + p * CAP
    for i in range(s[S_HEIGHT + p]):
        h ^= Z_PILE[i, s[base + i]]
    return h


@njit(cache=True)
def position_hash(s, r):
    """Canonical 64-bit hash: pile order does not matter and all empty piles are alike.

    The sum of scrambled pile keys is order-free; foundations add their count
    and base. Used for repetition checks and transposition tables.
    """
    h = np.uint64(0)
    n_tab = r[R_NPILES] - r[R_RESERVES]
    for p in range(r[R_NPILES]):
        if p < n_tab:
            h += _mix(pile_hash(s, p))
        else:  # reserves are alike among themselves, not like tableau piles
            h += _mix(pile_hash(s, p) ^ np.uint64(0x5A5A5A5A5A5A5A5A))
    for f in range(4):
        h ^= Z_FOUND[f, s[S_FOUND + f]] ^ Z_BASE[f, s[S_BASE + f] + 1]
    return h


@njit(cache=True, inline="always")
def rand_below(rng, n):
    """Uniform int in [0, n) from a splitmix64 stream whose state is ``rng[0]``."""
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    return np.int64(_mix(rng[0]) % np.uint64(n))


@njit(cache=True)
def seed_rng(rng, seed, deal, salt):
    """Seed a playout stream from (seed, deal, salt): independent of chunking, like deals."""
    rng[0] = _mix(_mix(np.uint64(seed) + np.uint64(salt) * np.uint64(0x9E3779B97F4A7C15)) ^ np.uint64(deal))


# --------------------------------------------------------------------------
# whole playouts
# --------------------------------------------------------------------------


@njit(cache=True)
def random_playouts(r, seed, deals, max_moves, salt, out_result, out_moves, out_home):
    """Play uniform random legal moves on each deal until won, stuck or ``max_moves``.

    Writes outcome (WON/STUCK/GAVE_UP), moves played and cards home per deal;
    returns the total number of moves (the benchmark's numerator).
    """
    s = np.zeros(STATE_SIZE, np.int8)
    perm = np.zeros(52, np.int8)
    acts = np.zeros(N_ACTIONS, np.int64)
    rng = np.zeros(1, np.uint64)
    total = 0
    for k in range(deals.shape[0]):
        init_deal(r, seed, deals[k], s, perm)
        seed_rng(rng, seed, deals[k], salt)
        result = GAVE_UP
        moves = 0
        while moves < max_moves:
            if is_won(s):
                result = WON
                break
            n = legal_actions(s, r, acts)
            if n == 0:
                result = STUCK
                break
            apply(s, r, acts[rand_below(rng, n)])
            moves += 1
        if result == GAVE_UP and is_won(s):
            result = WON
        out_result[k] = result
        out_moves[k] = moves
        out_home[k] = cards_home(s)
        total += moves
    return total
