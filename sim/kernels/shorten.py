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

from .apply_undo import apply, undo
from .hashing import position_hash
from .legal import SCRATCH_SIZE
from .lines import begin, find, line, position_index, step, walk, walk_hash


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


#: the walk's table of the positions it has reached (slots; a power of two): a depth-3 walk from a position of
#: Streets and Alleys reaches a few thousand
SEEN_SLOTS = 1 << 15
_PROBES = 32  #: a crowded table gives up on a position rather than search on (it is then walked again: still exact)


@njit(cache=True, inline="always")
def _reached_before(keys, lengths, stamps, stamp, h, length):
    """Whether this walk (``stamp``) reached the position ``h`` before by a line no longer than ``length``; if not,
    it is recorded as reached by ``length`` moves."""
    mask = np.uint64(keys.shape[0] - 1)
    k = h & mask
    for _ in range(_PROBES):
        if stamps[k] != stamp:
            stamps[k] = stamp
            keys[k] = h
            lengths[k] = length
            return False
        if keys[k] == h:
            if lengths[k] <= length:
                return True
            lengths[k] = length
            return False
        k = (k + np.uint64(1)) & mask
    return False


@njit(cache=True)
def shorten(s, r, actions, n, depth, out):
    """A shorter winning line: from each position, jump to the furthest later position of the line within ``depth`` moves.

    ``actions[:n]`` wins from ``s``. Positions are matched by canonical hash, so
    a jump may land on the line with its piles in another order; the moves
    written to ``out`` are real moves from ``s`` (the caller replays them).
    Returns the new length (at most ``n``). ``s`` is left as it was.

    Moves that commute reach one position by several lines (two moves in either order); a position the walk has
    reached before by a line no longer is skipped with all the lines through it. That changes nothing: it lands where
    it landed, no sooner, and the lines beyond it were walked from there, no shorter, so the line kept is the same.
    """
    hashes = np.empty(n + 1, np.uint64)
    _line_hashes(s, r, actions, n, hashes)
    index = position_index(hashes)
    cur = s.copy()
    scratch = np.empty(SCRATCH_SIZE, np.int64)
    w = walk(depth)
    best_seq = np.zeros(depth, np.int64)
    keys = np.empty(SEEN_SLOTS, np.uint64)
    lengths = np.empty(SEEN_SLOTS, np.int64)
    stamps = np.zeros(SEEN_SLOTS, np.int64)
    i = 0
    m = 0
    while i < n:
        best_j = i
        best_len = 0
        stamp = m + 1  # one walk's marks: a new walk starts at each position the new line reaches
        # every line of up to `depth` moves from cur: the one landing furthest along the line kept, the shortest of those
        begin(cur, r, w, scratch)
        length = step(cur, r, w, scratch, False)
        while length > 0:
            h = walk_hash(cur, w)
            if _reached_before(keys, lengths, stamps, stamp, h, length):
                length = step(cur, r, w, scratch, False)
                continue
            j = find(index, h)
            if j > best_j or (j == best_j and j > i and length < best_len):
                best_j = j
                best_len = length
                line(w, length, best_seq)
            length = step(cur, r, w, scratch, length < depth and j != n)
        if best_j <= i:
            return -1  # cannot happen for a winning line: the line's own next position is one move away
        for k in range(best_len):
            apply(cur, r, best_seq[k])
            out[m] = best_seq[k]
            m += 1
        i = best_j
    return m
