"""A position's canonical hash, from scratch and kept incrementally as moves are played.

Pile order does not matter and all empty piles are alike, so positions that
differ only by which pile is which share one hash: the players' seen-sets
(:mod:`.seen`), the solver's table and the judge's known positions all key on
it. The incremental form (``ph``: per-pile keys and their sum) spares the
search a full hash per move.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.moves import FOUNDATION, N_ACTIONS, N_TARGETS
from ..core.rules import MAX_PILES
from .apply_undo import apply, undo
from .legal import is_legal
from .layout import (
    CAP, R_NPILES, R_NTAB, S_BASE, S_CARDS, S_FOUND, S_HEIGHT, action_count, action_source, action_target,
    token_action, token_card,
)
from .rng import Z_BASE, Z_FOUND, Z_PILE, mix

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
        return apply(s, r, action)
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


@njit(cache=True)
def apply_checked(s, r, ph, action):
    """:func:`apply_keyed` for a move chosen outside the kernels: -1, and nothing played, when the rules forbid it."""
    if not is_legal(s, r, action):
        return -1
    return apply_keyed(s, r, ph, action)
