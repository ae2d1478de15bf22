"""The judge's cheap test: which moves of a position lead, within a few moves, to a position already known won.

Every position of a winning line is won, and so is every position from which
one of them can be reached. Most moves off a winning line are of that kind:
a card moved and later moved on, two moves made in the other order, a card
put on either of two equal cards. Proving each of them won by a search from
scratch is what made judging a deal cost tens of seconds; looking a few
moves ahead for a known-won position (matched by canonical hash) settles
them in microseconds, and leaves the search for the moves that may lose.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.moves import MAX_MOVES
from .apply_undo import apply, undo
from .hashing import position_hash
from .legal import SCRATCH_SIZE, legal_actions


@njit(cache=True)
def _known(keys, h):
    """Is hash ``h`` in the sorted array ``keys``?"""
    lo = 0
    hi = keys.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if keys[mid] < h:
            lo = mid + 1
        else:
            hi = mid
    return lo < keys.shape[0] and keys[lo] == h


@njit(cache=True)
def children_reaching(s, r, keys, depth, actions, hashes, reach):
    """For each legal move of ``s``: its action, its child's canonical hash, and how many more moves (0 to ``depth``)
    lead from the child to a position whose hash is in the sorted ``keys`` (-1: none within ``depth``).

    Writes ``actions``, ``hashes`` and ``reach`` (each at least ``MAX_MOVES`` long) and returns the number of legal
    moves. ``s`` is left as it was.
    """
    scratch = np.empty(SCRATCH_SIZE, np.int64)
    first = np.empty(MAX_MOVES, np.int64)
    n = legal_actions(s, r, first, scratch)
    bufs = np.empty((max(depth, 1), MAX_MOVES), np.int64)
    counts = np.zeros(max(depth, 1), np.int64)
    idx = np.zeros(max(depth, 1), np.int64)
    toks = np.zeros(max(depth, 1), np.int64)
    for c in range(n):
        a = first[c]
        actions[c] = a
        tok = apply(s, r, a)
        h = position_hash(s, r)
        hashes[c] = h
        found = -1
        if _known(keys, h):
            found = 0
        elif depth > 0:
            # depth-first over every line of up to `depth` moves from the child, shortest first found kept
            d = 0
            counts[0] = legal_actions(s, r, bufs[0], scratch)
            idx[0] = 0
            while d >= 0:
                if idx[d] >= counts[d]:
                    d -= 1
                    if d >= 0:
                        undo(s, r, toks[d])
                    continue
                b = bufs[d, idx[d]]
                idx[d] += 1
                toks[d] = apply(s, r, b)
                if _known(keys, position_hash(s, r)):
                    if found < 0 or d + 1 < found:
                        found = d + 1
                    undo(s, r, toks[d])
                    if found == 1:
                        # nothing shorter exists: unwind
                        while d > 0:
                            d -= 1
                            undo(s, r, toks[d])
                        break
                    continue
                if d + 1 < depth:
                    d += 1
                    counts[d] = legal_actions(s, r, bufs[d], scratch)
                    idx[d] = 0
                else:
                    undo(s, r, toks[d])
        reach[c] = found
        undo(s, r, tok)
    return n
