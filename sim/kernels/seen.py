"""The set of positions a game has passed through: open addressing over canonical hashes.

The play loop remembers every position (the row's ``positions`` column
counts them) and players never move back to one. Slots in use are listed
in ``used`` so a set is cleared between deals in time proportional to what
it holds, not to its size.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .hashing import position_key

M_USED = 0  #: meta slot: how many slots are in use
M_TB_DONE = 1  #: meta slot of the players: target bases chosen for this deal
META_SIZE = 2


@njit(cache=True)
def power_of_two_at_least(n):
    """The smallest power of two that is at least ``n`` and 64: the size of every hash set of the kernels."""
    cap = 64
    while cap < n:
        cap *= 2
    return cap


@njit(cache=True)
def capacity(max_moves):
    """Slots for a game of at most ``max_moves`` moves: a power of two at least twice its positions."""
    return power_of_two_at_least(2 * (max_moves + 2))


@njit(cache=True, inline="always")
def slot(table, h):
    """Slot holding ``h``, or the empty slot where it would go (0 marks empty): the probe of every hash set here."""
    mask = np.uint64(table.shape[0] - 1)
    i = np.int64(h & mask)
    while table[i] != 0 and table[i] != h:
        i = np.int64((np.uint64(i) + np.uint64(1)) & mask)
    return i


@njit(cache=True, inline="always")
def key(ph, s):
    """The set's key of position ``s``: its canonical hash (``ph``: its pile keys, see
    :func:`~.hashing.apply_keyed`), never 0."""
    h = position_key(ph, s)
    if h == 0:
        h = np.uint64(1)
    return h


@njit(cache=True)
def seen(table, h):
    return table[slot(table, h)] == h


@njit(cache=True)
def remember(table, used, meta, h):
    i = slot(table, h)
    if table[i] == 0:
        table[i] = h
        used[meta[M_USED]] = i
        meta[M_USED] += 1


@njit(cache=True)
def forget_all(table, used, meta):
    for k in range(meta[M_USED]):
        table[used[k]] = 0
    meta[M_USED] = 0
    meta[M_TB_DONE] = 0
