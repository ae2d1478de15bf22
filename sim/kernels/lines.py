"""Every line of up to a few legal moves from a position, depth first with undo, and finding a position by its hash
among a table of them: the look-ahead the judge's cheap test (:mod:`.corridor`) and the line shortener
(:mod:`.shorten`) share.

A walk is the legal moves of each level, their counts, the next one to try, the undo tokens, where it stands, and
the position's per-pile Zobrist keys (:mod:`.hashing`), kept as its moves are made and taken back.
:func:`step` makes the next line's last move on the position itself and returns the line's length, so the caller
reads the position (its canonical hash by :func:`walk_hash`, a few operations, where a hash from scratch reads every
card: the walk's leaves are most of the work), decides whether a longer line from it is worth walking, and steps
again; the moves stay the caller's to check, and the order is the move generator's, so two callers walking the same
position see the same lines. :func:`begin`, :func:`step` and the lookups are inlined into their callers: a call per
line, with its arrays' reference counts, was about a third of the shortener's time (``benchmarks/bench_shorten.py``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.moves import MAX_MOVES
from .hashing import PH_SIZE, apply_keyed, pile_keys, position_key, undo_keyed
from .legal import legal_actions


@njit(cache=True)
def walk(depth):
    """A walk of lines up to ``depth`` moves long (at least one): (moves, counts, next, tokens, where, pile keys)."""
    d = max(depth, 1)
    return (np.empty((d, MAX_MOVES), np.int64), np.zeros(d, np.int64), np.zeros(d, np.int64), np.zeros(d, np.int64),
            np.zeros(2, np.int64), np.zeros(PH_SIZE, np.uint64))


@njit(cache=True, inline="always")
def begin(s, r, w, scratch):
    """Start walking the lines from ``s``: the next :func:`step` makes its first legal move."""
    moves, counts, nxt, _, where, ph = w
    counts[0] = legal_actions(s, r, moves[0], scratch)
    pile_keys(s, r, ph)
    nxt[0] = 0
    where[0] = 0  # the level whose next move is tried
    where[1] = 0  # 1: that level's last move is on the position


@njit(cache=True, inline="always")
def step(s, r, w, scratch, deeper):
    """The next line: the current one and one move more when ``deeper`` (the caller keeps to the walk's depth), else
    the current line with its last move replaced by the next untried one (at that level, or one level up, ...).
    Makes it on ``s`` and returns its length; 0 when every line has been walked (``s`` as it was at :func:`begin`)."""
    moves, counts, nxt, tokens, where, ph = w
    d = where[0]
    if where[1] == 1:
        if deeper:
            d += 1
            counts[d] = legal_actions(s, r, moves[d], scratch)
            nxt[d] = 0
        else:
            undo_keyed(s, r, ph, tokens[d])
    while d >= 0:
        if nxt[d] < counts[d]:
            a = moves[d, nxt[d]]
            nxt[d] += 1
            tokens[d] = apply_keyed(s, r, ph, a)
            where[0] = d
            where[1] = 1
            return d + 1
        d -= 1
        if d >= 0:
            undo_keyed(s, r, ph, tokens[d])
    where[0] = 0
    where[1] = 0
    return 0


@njit(cache=True)
def stop(s, r, w):
    """End a walk early: every move of the current line taken back (``s`` as it was at :func:`begin`)."""
    _, _, _, tokens, where, ph = w
    if where[1] == 1:
        for d in range(where[0], -1, -1):
            undo_keyed(s, r, ph, tokens[d])
    where[0] = 0
    where[1] = 0


@njit(cache=True, inline="always")
def walk_hash(s, w):
    """The canonical hash of the position the walk stands on (``s``): :func:`~.hashing.position_hash`, from its keys."""
    return position_key(w[5], s)


@njit(cache=True)
def line(w, n, out):
    """The current line's first ``n`` moves, written to ``out``."""
    moves, _, nxt, _, _, _ = w
    for k in range(n):
        out[k] = moves[k, nxt[k] - 1]


@njit(cache=True)
def position_index(hashes):
    """An open-addressing table from each hash of ``hashes`` to the furthest index holding it (a line may pass a
    position twice), for :func:`find`: a lookup is a probe or two where a search of the sorted hashes is a dozen
    unpredictable branches, and the walks look up every leaf."""
    size = 2
    while size < 2 * hashes.shape[0]:
        size *= 2
    keys = np.zeros(size, np.uint64)
    where = np.full(size, -1, np.int64)
    mask = np.uint64(size - 1)
    for i in range(hashes.shape[0]):
        h = hashes[i]
        k = h & mask
        while where[k] >= 0 and keys[k] != h:
            k = (k + np.uint64(1)) & mask
        keys[k] = h
        where[k] = max(where[k], i)
    return keys, where


@njit(cache=True, inline="always")
def find(index, h):
    """The furthest index of hash ``h`` in a :func:`position_index`, or -1 if it is not there."""
    keys, where = index
    mask = np.uint64(keys.shape[0] - 1)
    k = h & mask
    while where[k] >= 0:
        if keys[k] == h:
            return where[k]
        k = (k + np.uint64(1)) & mask
    return -1
