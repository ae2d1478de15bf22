"""The rules of movement, compiled: the one move generator, apply and undo, the canonical hash, dealing.

Every player, the solver and the Python :class:`~sim.game.State` call
these; :mod:`sim.core.reference` is the separate plain-Python engine they
are checked against. The arrays are those of :mod:`.layout`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.moves import FOUNDATION, N_ACTIONS, N_ALL_ACTIONS, N_TARGETS
from ..core.rules import MAX_PILES, DealStyle, EmptyPile, FoundationBase, SequenceMoves, TableauDirection, TableauSuit
from .layout import (
    CAP, R_ACES, R_BASE_POLICY, R_DEAL_STYLE, R_EMPTY, R_FOUND_TO_TAB, R_FWRAP, R_NPILES, R_NTAB,
    R_ONE_AT_A_TIME, R_RANK_FIT, R_SEQ, R_SIZES, R_TDIR, R_TSUIT, R_TWRAP, S_BASE, S_CARDS, S_FOUND,
    S_HEIGHT, T_CARD_SHIFT, T_SET_OWN_BASE, T_SET_SHARED_BASE, action_count, action_source, action_target,
    foundation_top, token_action, token_card, top,
)
from .rng import Z_BASE, Z_FOUND, Z_PILE, mix, permutation

#: bumped whenever the engine changes the games it plays; stored in every result row
ENGINE_VERSION = 1

#: scratch the move generator needs: a top card per pile, then 13 rank masks, then (dialects) each pile's top run
SCRATCH_SIZE = MAX_PILES + 13 + MAX_PILES
_RUN = MAX_PILES + 13  #: where the runs' lengths start in the scratch

#: the lowest set bit's index of every 13-bit pile mask
LOWEST_BIT = np.array([0] + [(m & -m).bit_length() - 1 for m in range(1, 1 << MAX_PILES)], np.int8)
#: a card's rank and suit, by lookup (no division in the hot loops)
RANK_OF = np.array([c % 13 for c in range(52)], np.int64)
SUIT_OF = np.array([c // 13 for c in range(52)], np.int64)

_SHARED = int(FoundationBase.FIRST_CARD_SHARED)
_ANY_CARD = int(EmptyPile.ANY_CARD)
_UP_OR_DOWN = int(TableauDirection.UP_OR_DOWN)
_SAME_SUIT = int(TableauSuit.SAME_SUIT)
_ANY_SUIT = int(TableauSuit.ANY)
_ACE_BASE = int(FoundationBase.ACE)
_CITADEL = int(DealStyle.CITADEL)
_KINGS_TO_BOTTOM = int(DealStyle.KINGS_TO_BOTTOM)
_LAST_CARD_HOME = int(DealStyle.LAST_CARD_TO_FOUNDATION)
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


# --------------------------------------------------------------------------
# the canonical hash
# --------------------------------------------------------------------------

_RESERVE_SALT = np.uint64(0x5A5A5A5A5A5A5A5A)


@njit(cache=True)
def pile_key(s, p):
    """Zobrist key of pile ``p``'s cards by depth (0 for an empty pile)."""
    h = np.uint64(0)
    base = S_CARDS + p * CAP
    for i in range(s[S_HEIGHT + p]):
        h ^= Z_PILE[i, s[base + i]]
    return h


@njit(cache=True, inline="always")
def pile_term(r, p, key):
    """Pile ``p``'s scrambled share of the hash: reserves are alike among themselves, not like tableau piles."""
    if p < r[R_NTAB]:
        return mix(key)
    return mix(key ^ _RESERVE_SALT)


@njit(cache=True, inline="always")
def foundations_key(s):
    """The foundations' share of the hash: each one's count and base."""
    h = np.uint64(0)
    for f in range(4):
        h ^= Z_FOUND[f, s[S_FOUND + f]] ^ Z_BASE[f, s[S_BASE + f] + 1]
    return h


@njit(cache=True)
def position_hash(s, r):
    """Canonical 64-bit hash: pile order does not matter and all empty piles are alike.

    The sum of scrambled pile keys is order-free; the foundations add their
    count and base. The solver keeps the same sum incrementally
    (:mod:`.search`).
    """
    h = np.uint64(0)
    for p in range(r[R_NPILES]):
        h += pile_term(r, p, pile_key(s, p))
    return h ^ foundations_key(s)


# --------------------------------------------------------------------------
# the incremental hash: per-pile keys kept as moves are played (solver and players)
# --------------------------------------------------------------------------

PH_SIZE = MAX_PILES + 1  #: per-pile Zobrist keys, then the running sum of their scrambled terms


@njit(cache=True, inline="always")
def position_key(ph, s):
    """:func:`position_hash`, from the running sum ``ph[MAX_PILES]`` of pile terms."""
    return ph[MAX_PILES] ^ foundations_key(s)


@njit(cache=True)
def pile_keys(s, r, ph):
    """Fill ``ph`` (``PH_SIZE`` long) from scratch: every pile's key and the sum of their terms."""
    total = np.uint64(0)
    for p in range(r[R_NPILES]):
        ph[p] = pile_key(s, p)
        total += pile_term(r, p, ph[p])
    ph[MAX_PILES] = total


@njit(cache=True, inline="always")
def _rekey(ph, p, r, z):
    """Toggle ``z`` into pile ``p``'s key and keep the sum of terms."""
    old = ph[p]
    ph[p] = old ^ z
    ph[MAX_PILES] += pile_term(r, p, old ^ z) - pile_term(r, p, old)


@njit(cache=True)
def _rekey_sequence(s, r, ph, action):
    """Toggle the keys of the cards the sequence ``action`` moves: just before it is played, or just after it is taken back."""
    src = action_source(action)
    dst = action_target(action)
    count = action_count(action)
    h = s[S_HEIGHT + src] - count  # where the sequence lies (or will lie again) in the source
    hd = s[S_HEIGHT + dst]  # where it lands in the target
    zs = np.uint64(0)
    zd = np.uint64(0)
    for i in range(count):
        card = s[S_CARDS + src * CAP + h + i]
        zs ^= Z_PILE[h + i, card]
        zd ^= Z_PILE[hd + i, card]
    _rekey(ph, src, r, zs)
    _rekey(ph, dst, r, zd)


@njit(cache=True, inline="always")
def apply_keyed(s, r, ph, action):
    """Apply, keeping the per-pile Zobrist keys and their sum in ``ph``."""
    if action >= N_ACTIONS:
        _rekey_sequence(s, r, ph, action)
        return _apply_sequence(s, action)
    src = action // N_TARGETS
    dst = action % N_TARGETS
    if src < MAX_PILES:  # a foundation source changes no pile key (its count is in the foundations' key)
        h = s[S_HEIGHT + src] - 1
        card = s[S_CARDS + src * CAP + h]
        _rekey(ph, src, r, Z_PILE[h, card])
    else:
        f = src - MAX_PILES
        card = f * 13 + (s[S_BASE + f] + s[S_FOUND + f] - 1) % 13
    if dst != FOUNDATION:
        _rekey(ph, dst, r, Z_PILE[s[S_HEIGHT + dst], card])
    return apply(s, r, action)


@njit(cache=True, inline="always")
def undo_keyed(s, r, ph, token):
    """Undo, keeping the per-pile Zobrist keys and their sum in ``ph``."""
    undo(s, r, token)
    action = token_action(token)
    if action >= N_ACTIONS:
        _rekey_sequence(s, r, ph, action)
        return
    card = token_card(token)
    src = action // N_TARGETS
    dst = action % N_TARGETS
    if src < MAX_PILES:
        _rekey(ph, src, r, Z_PILE[s[S_HEIGHT + src] - 1, card])
    if dst != FOUNDATION:
        _rekey(ph, dst, r, Z_PILE[s[S_HEIGHT + dst], card])


# --------------------------------------------------------------------------
# dealing
# --------------------------------------------------------------------------


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
