"""Every line of up to a few legal moves from a position, depth first with undo, and finding a position by its hash
among a sorted array of them: the look-ahead the judge's cheap test (:mod:`.corridor`) and the line shortener
(:mod:`.shorten`) share.

A walk is the legal moves of each level, their counts, the next one to try, the undo tokens, and where it stands.
:func:`step` makes the next line's last move on the position itself and returns the line's length, so the caller
reads the position, decides whether a longer line from it is worth walking, and steps again; the moves stay the
caller's to check, and the order is the move generator's, so two callers walking the same position see the same lines.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.moves import MAX_MOVES
from .apply_undo import apply, undo
from .legal import legal_actions


@njit(cache=True)
def walk(depth):
    """A walk of lines up to ``depth`` moves long (at least one): (moves, counts, next, tokens, where)."""
    d = max(depth, 1)
    return (np.empty((d, MAX_MOVES), np.int64), np.zeros(d, np.int64), np.zeros(d, np.int64), np.zeros(d, np.int64),
            np.zeros(2, np.int64))


@njit(cache=True)
def begin(s, r, w, scratch):
    """Start walking the lines from ``s``: the next :func:`step` makes its first legal move."""
    moves, counts, nxt, _, where = w
    counts[0] = legal_actions(s, r, moves[0], scratch)
    nxt[0] = 0
    where[0] = 0  # the level whose next move is tried
    where[1] = 0  # 1: that level's last move is on the position


@njit(cache=True)
def step(s, r, w, scratch, deeper):
    """The next line: the current one and one move more when ``deeper`` (the caller keeps to the walk's depth), else
    the current line with its last move replaced by the next untried one (at that level, or one level up, ...).
    Makes it on ``s`` and returns its length; 0 when every line has been walked (``s`` as it was at :func:`begin`)."""
    moves, counts, nxt, tokens, where = w
    d = where[0]
    if where[1] == 1:
        if deeper:
            d += 1
            counts[d] = legal_actions(s, r, moves[d], scratch)
            nxt[d] = 0
        else:
            undo(s, r, tokens[d])
    while d >= 0:
        if nxt[d] < counts[d]:
            a = moves[d, nxt[d]]
            nxt[d] += 1
            tokens[d] = apply(s, r, a)
            where[0] = d
            where[1] = 1
            return d + 1
        d -= 1
        if d >= 0:
            undo(s, r, tokens[d])
    where[0] = 0
    where[1] = 0
    return 0


@njit(cache=True)
def stop(s, r, w):
    """End a walk early: every move of the current line taken back (``s`` as it was at :func:`begin`)."""
    _, _, _, tokens, where = w
    if where[1] == 1:
        for d in range(where[0], -1, -1):
            undo(s, r, tokens[d])
    where[0] = 0
    where[1] = 0


@njit(cache=True)
def line(w, n, out):
    """The current line's first ``n`` moves, written to ``out``."""
    moves, _, nxt, _, _ = w
    for k in range(n):
        out[k] = moves[k, nxt[k] - 1]


@njit(cache=True)
def sorted_index(keys, h):
    """Where hash ``h`` stands in the sorted array ``keys`` (its first place), or -1 if it is not there."""
    lo = 0
    hi = keys.shape[0]
    while lo < hi:  # by hand, not np.searchsorted: no mixed-type comparison of 64-bit hashes can slip in
        mid = (lo + hi) // 2
        if keys[mid] < h:
            lo = mid + 1
        else:
            hi = mid
    if lo < keys.shape[0] and keys[lo] == h:
        return lo
    return -1
