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
from .lines import begin, find, step, stop, walk, walk_hash


@njit(cache=True)
def children_reaching(s, r, known, depth, actions, hashes, reach):
    """For each legal move of ``s``: its action, its child's canonical hash, and how many more moves (0 to ``depth``)
    lead from the child to a position whose hash is in ``known`` (a :func:`~.lines.position_index`; -1: none within
    ``depth``).

    Writes ``actions``, ``hashes`` and ``reach`` (each at least ``MAX_MOVES`` long) and returns the number of legal
    moves. ``s`` is left as it was.
    """
    scratch = np.empty(SCRATCH_SIZE, np.int64)
    first = np.empty(MAX_MOVES, np.int64)
    n = legal_actions(s, r, first, scratch)
    w = walk(depth)
    for c in range(n):
        a = first[c]
        actions[c] = a
        tok = apply(s, r, a)
        h = position_hash(s, r)
        hashes[c] = h
        found = -1
        if find(known, h) >= 0:
            found = 0
        elif depth > 0:
            # every line of up to `depth` moves from the child, the shortest that reaches a known position kept
            begin(s, r, w, scratch)
            length = step(s, r, w, scratch, False)
            while length > 0:
                if find(known, walk_hash(s, w)) >= 0:
                    if found < 0 or length < found:
                        found = length
                    if found == 1:  # nothing shorter exists
                        stop(s, r, w)
                        break
                    length = step(s, r, w, scratch, False)
                else:
                    length = step(s, r, w, scratch, length < depth)
        reach[c] = found
        undo(s, r, tok)
    return n
