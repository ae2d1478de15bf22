"""Shorter winning lines: the solver's depth-first win, with shortcuts onto later positions of itself.

A depth-first win is often thousands of moves long and wanders. From each
position of the line, every sequence of up to ``depth`` legal moves is
tried, and the one landing furthest along the line is kept. Positions are
matched by canonical hash; the moves written are real moves, which the
caller replays in both engines.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.moves import MAX_MOVES
from .apply_undo import apply, undo
from .hashing import position_hash
from .legal import SCRATCH_SIZE, legal_actions


@njit(cache=True)
def _line_hashes(s, r, actions, n, out):
    """Canonical hashes of the positions along ``actions[:n]`` from ``s`` (``out[0]`` the start); ``s`` is left as it was."""
    tokens = np.empty(n, np.int64)
    out[0] = position_hash(s, r)
    for i in range(n):
        tokens[i] = apply(s, r, actions[i])
        out[i + 1] = position_hash(s, r)
    for i in range(n - 1, -1, -1):
        undo(s, r, tokens[i])


@njit(cache=True)
def _furthest(keys, last, h):
    """The last index along the line of a position with hash ``h`` (-1: not on the line); ``keys`` sorted."""
    lo = 0
    hi = keys.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if keys[mid] < h:
            lo = mid + 1
        else:
            hi = mid
    if lo < keys.shape[0] and keys[lo] == h:
        return last[lo]
    return -1


@njit(cache=True)
def shorten(s, r, actions, n, depth, out):
    """A shorter winning line: from each position, jump to the furthest later position of the line within ``depth`` moves.

    ``actions[:n]`` wins from ``s``. Positions are matched by canonical hash, so
    a jump may land on the line with its piles in another order; the moves
    written to ``out`` are real moves from ``s`` (the caller replays them).
    Returns the new length (at most ``n``). ``s`` is left as it was.
    """
    hashes = np.empty(n + 1, np.uint64)
    _line_hashes(s, r, actions, n, hashes)
    order = np.argsort(hashes, kind="mergesort")
    keys = hashes[order]
    last = np.empty(n + 1, np.int64)
    # for equal hashes keep the furthest index (a line may pass a position twice)
    for k in range(n + 1):
        last[k] = order[k]
    for k in range(n - 1, -1, -1):
        if keys[k] == keys[k + 1] and last[k + 1] > last[k]:
            last[k] = last[k + 1]
    cur = s.copy()
    scratch = np.empty(SCRATCH_SIZE, np.int64)
    bufs = np.empty((depth, MAX_MOVES), np.int64)
    counts = np.zeros(depth, np.int64)
    idx = np.zeros(depth, np.int64)
    toks = np.zeros(depth, np.int64)
    best_seq = np.zeros(depth, np.int64)
    path = np.zeros(depth, np.int64)
    i = 0
    m = 0
    while i < n:
        best_j = i
        best_len = 0
        # depth-first over every line of up to `depth` moves from cur
        d = 0
        counts[0] = legal_actions(cur, r, bufs[0], scratch)
        idx[0] = 0
        while d >= 0:
            if idx[d] >= counts[d]:
                d -= 1
                if d >= 0:
                    undo(cur, r, toks[d])
                continue
            a = bufs[d, idx[d]]
            idx[d] += 1
            toks[d] = apply(cur, r, a)
            path[d] = a
            j = _furthest(keys, last, position_hash(cur, r))
            if j > best_j or (j == best_j and j > i and d + 1 < best_len):
                best_j = j
                best_len = d + 1
                for k in range(d + 1):
                    best_seq[k] = path[k]
            if d + 1 < depth and j != n:
                d += 1
                counts[d] = legal_actions(cur, r, bufs[d], scratch)
                idx[d] = 0
            else:
                undo(cur, r, toks[d])
        if best_j <= i:
            return -1  # cannot happen for a winning line: the line's own next position is one move away
        for k in range(best_len):
            apply(cur, r, best_seq[k])
            out[m] = best_seq[k]
            m += 1
        i = best_j
    return m
