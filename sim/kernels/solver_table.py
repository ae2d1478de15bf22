"""What the solver's table remembers of a position, and making room in it: forgetting, moving to a larger table.

The search (:mod:`.search`) keys its table (:mod:`.table`) on the canonical
hash; the value says whether a position is proved lost (and what proving it
cost) or open in a round. A full table either doubles (:func:`rehash`) or, at
the memory bound, forgets its cheapest proved losses (:func:`forget`): never a
wrong verdict, only work done again (``sim/solver/pruning.md``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .table import table_slot

# a table slot is (key, value); key and value share a cache line. The value is 0 (not tracked),
# DEAD | n (a proved-lost position whose proof searched n positions: what forgetting it would cost),
# or round << ROUND_SHIFT | i + 1: a position discovered i-th in that round, open if the round is
# the current one, else left over from a round cut short and searched again as if new
DEAD = np.uint64(1) << np.uint64(63)
ROUND_SHIFT = np.uint64(40)
INDEX_MASK = (np.uint64(1) << ROUND_SHIFT) - np.uint64(1)


@njit(cache=True)
def forget(tt, scc, top, epoch, frees):
    """Make room in a full table: forget its cheapest proved losses and every earlier round's open position.

    Proved losses are forgotten cheapest first (the positions their proof
    searched, kept in the mark), by powers of two, until about ``frees``
    slots are free; a forgotten position met again is searched again (sound:
    ``pruning.md``). The positions open in this round (``scc[:top]``, where
    ``scc`` holds their slots) stay and are re-pointed. The table is compacted
    in place (linear probing's backward shift). Returns the slots still used.
    """
    n = tt.shape[0]
    by_cost = np.zeros(64, np.int64)  # proved losses by the bit length of their cost
    stale = 0
    for i in range(n):
        v = tt[i, 1]
        if tt[i, 0] == np.uint64(0):
            continue
        if v >= DEAD:
            c = v & ~DEAD
            b = 0
            while c > np.uint64(0):
                c >>= np.uint64(1)
                b += 1
            by_cost[b] += 1
        elif (v & ~INDEX_MASK) != epoch:
            stale += 1
    limit = np.uint64(0)  # forget the proved losses that cost at most this
    freed = stale
    for b in range(1, 64):
        if freed >= frees:
            break
        freed += by_cost[b]
        limit = (np.uint64(1) << np.uint64(b)) - np.uint64(1)
    keys = np.empty(top, np.uint64)
    for j in range(top):
        keys[j] = tt[scc[j], 0]
    start = 0
    while tt[start, 0] != np.uint64(0):  # begin at a free slot: no probe run crosses it
        start += 1
    used = 0
    for step in range(1, n + 1):  # one pass: drop what is forgotten, move the rest back along its probe run
        i = (start + step) % n
        key = tt[i, 0]
        if key == np.uint64(0):
            continue
        v = tt[i, 1]
        tt[i, 0] = np.uint64(0)
        tt[i, 1] = np.uint64(0)
        if (v >= DEAD and (v & ~DEAD) <= limit) or (v < DEAD and (v & ~INDEX_MASK) != epoch):
            continue
        tt[table_slot(tt, key), 1] = v
        used += 1
    for j in range(top):
        scc[j] = -1 - table_slot(tt, keys[j])
    return used


@njit(cache=True)
def rehash(old, new, scc, top):
    """Move every slot of table ``old`` into the larger empty table ``new``; re-point ``scc[:top]``."""
    for i in range(old.shape[0]):
        if old[i, 0] != np.uint64(0):
            new[table_slot(new, old[i, 0]), 1] = old[i, 1]
    for j in range(top):
        scc[j] = -1 - table_slot(new, old[scc[j], 0])
