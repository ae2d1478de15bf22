"""A sound dead-end test: can a foundation move ever be made again from this position?

Where the tableau builds down regardless of suit, whether a tableau move is
legal depends on ranks alone. So, until the next card goes home, two
positions that differ only in where cards of the same rank lie (the cards
the foundations take next excepted) have the same tableau moves and reach
each other's images: a search over positions with those cards known by rank
only (the *quotient*) sees exactly which of the cards taken next can be
brought to a pile's top. When none can, no card will ever go home again and
the position is lost. Streets and Alleys deals spend hundreds of millions of
positions shuffling Eights and Nines between piles in a layer with no way
out; the quotient of such a layer is a few tens of thousands of positions.
Proof and measurements: ``sim/solver/pruning.md`` (rule 5).

The quotient's states are remembered across tests in their own table
(``qt``): ``Q_DEAD`` (no foundation move reachable), ``Q_LIVE`` (one is), or
the number of the test that entered it (unsettled once that test is over).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.moves import FOUNDATION, MAX_MOVES
from ..core.rules import MAX_PILES
from .apply_undo import apply, undo
from .hashing import foundations_key
from .legal import SCRATCH_SIZE, legal_actions, next_home
from .rng import mix
from .layout import CAP, R_NPILES, R_NTAB, R_RANK_FIT, R_SEQ, S_BASE, S_CARDS, S_HEIGHT, action_source, action_target
from .table import table_slot

#: a card known by its rank only, by depth in its pile (the needed cards keep the engine's own keys)
Z_RANK = np.random.default_rng(0x51C4E).integers(1, 2**63, size=(CAP, 13), dtype=np.int64).astype(np.uint64)
Z_CARD = np.random.default_rng(0xCA4D5).integers(1, 2**63, size=(CAP, 52), dtype=np.int64).astype(np.uint64)
_RESERVE_SALT = np.uint64(0x3C3C3C3C3C3C3C3C)

Q_DEAD = np.uint64(1) << np.uint64(63)
Q_LIVE = np.uint64(1) << np.uint64(62)

# the test's outcome
EXIT = 0  #: a foundation move can be reached
DEAD_END = 1  #: none can: the position is lost
GAVE_UP = 2  #: the test's budget ran out first (nothing learned)

LEAST_BUDGET = 10_000  #: the smallest budget the search gives a test (it is also given what is left of the call's)

# qctx fields
Q_TESTS = 0  #: tests run (each has its own number)
Q_STORED = 1  #: quotient states in the table
Q_STATES = 2  #: quotient states entered, all tests together
Q_DEAD_ENDS = 3  #: tests that proved a dead end
QCTX_SIZE = 4


@njit(cache=True)
def applies(s, r):
    """Does the test apply here: suit-blind downward tableau, one card a move, every foundation's base known?"""
    if r[R_RANK_FIT] == 0 or r[R_SEQ] != 0:
        return False
    for f in range(4):
        if s[S_BASE + f] < 0:
            return False
    return True


@njit(cache=True)
def quotient_key(s, r):
    """The position's hash with every card known by its rank, except the cards the foundations take next."""
    need = np.empty(4, np.int64)
    for f in range(4):
        need[f] = next_home(s, f)
    h = np.uint64(0)
    for p in range(r[R_NPILES]):
        k = np.uint64(0)
        for i in range(s[S_HEIGHT + p]):
            c = s[S_CARDS + p * CAP + i]
            if need[c // 13] == c:
                k ^= Z_CARD[i, c]
            else:
                k ^= Z_RANK[i, c % 13]
        h += mix(k) if p < r[R_NTAB] else mix(k ^ _RESERVE_SALT)
    return h ^ foundations_key(s)


@njit(cache=True, inline="always")
def _leaves(s, r, acts, n):
    """Does one of these moves touch a foundation (a card going home, or coming back)?"""
    for j in range(n):
        a = acts[j]
        if action_target(a) == FOUNDATION or action_source(a) >= MAX_PILES:
            return True
    return False


# columns of the test's work array ``qpath`` (a row a level of its path, and column ``P_ENTERED`` a row a state)
P_SLOT, P_TOKEN, P_OFF, P_N, P_I, P_ENTERED = 0, 1, 2, 3, 4, 5
QPATH_COLUMNS = 6
KIDS_PER_LEVEL = 16  #: ``qkids`` holds this many children a level on average (more: the test gives up)


@njit(cache=True)
def no_way_home(s, r, qt, qctx, qpath, qkids, budget):
    """Search the quotient from ``s`` (tableau moves only): ``EXIT``, ``DEAD_END`` or ``GAVE_UP``.

    ``qpath`` (at least ``budget`` + 1 rows of ``QPATH_COLUMNS``) and
    ``qkids`` are the test's path and the children of each level on it;
    ``budget`` bounds the quotient states one test enters. A dead end marks
    every state the test entered ``Q_DEAD``; an exit marks the path to it
    ``Q_LIVE``. The caller empties ``qt`` when it is too full for another
    test (``qctx[Q_STORED]``). ``s`` is left as it was.
    """
    qctx[Q_TESTS] += 1
    epoch = np.uint64(qctx[Q_TESTS])
    out = np.empty(MAX_MOVES, np.int64)
    scratch = np.empty(SCRATCH_SIZE, np.int64)
    max_off = qkids.shape[0] - MAX_MOVES
    slot = table_slot(qt, quotient_key(s, r))
    if slot < 0:
        v = qt[-1 - slot, 1]
        if v == Q_DEAD:
            return DEAD_END
        if v == Q_LIVE:
            return EXIT
        slot = -1 - slot
    else:
        qctx[Q_STORED] += 1
    n = legal_actions(s, r, out, scratch)
    if _leaves(s, r, out, n):
        qt[slot, 1] = Q_LIVE
        return EXIT
    qt[slot, 1] = epoch
    qpath[0, P_ENTERED] = slot
    entered = 1
    qpath[0, P_SLOT] = slot
    for j in range(n):
        qkids[j] = out[j]
    qpath[0, P_OFF] = 0
    qpath[0, P_N] = n
    qpath[0, P_I] = 0
    d = 0
    result = DEAD_END
    while True:
        if qpath[d, P_I] >= qpath[d, P_N]:
            if d == 0:
                break
            d -= 1
            undo(s, r, qpath[d, P_TOKEN])
            continue
        a = qkids[qpath[d, P_OFF] + qpath[d, P_I]]
        qpath[d, P_I] += 1
        tok = apply(s, r, a)
        slot = table_slot(qt, quotient_key(s, r))
        if slot < 0:
            v = qt[-1 - slot, 1]
            if v == Q_LIVE:
                qpath[d, P_TOKEN] = tok
                d += 1
                qpath[d, P_SLOT] = -1 - slot
                result = EXIT
                break
            if v == Q_DEAD or v == epoch:
                undo(s, r, tok)
                continue
            slot = -1 - slot  # entered by an earlier test that settled nothing: enter it again
        else:
            qctx[Q_STORED] += 1
        off = qpath[d, P_OFF] + qpath[d, P_N]
        if entered >= budget or off > max_off:
            undo(s, r, tok)
            result = GAVE_UP
            break
        qt[slot, 1] = epoch
        qpath[entered, P_ENTERED] = slot
        entered += 1
        qpath[d, P_TOKEN] = tok
        d += 1
        qpath[d, P_SLOT] = slot
        n = legal_actions(s, r, out, scratch)
        if _leaves(s, r, out, n):
            result = EXIT
            break
        for j in range(n):
            qkids[off + j] = out[j]
        qpath[d, P_OFF] = off
        qpath[d, P_N] = n
        qpath[d, P_I] = 0
    qctx[Q_STATES] += entered
    if result == EXIT:  # the path leads home: so does every state on it
        for k in range(d + 1):
            qt[qpath[k, P_SLOT], 1] = Q_LIVE
    elif result == DEAD_END:  # each state it entered leads only to states it entered or known dead ones
        qctx[Q_DEAD_ENDS] += 1
        for k in range(entered):
            qt[qpath[k, P_ENTERED], 1] = Q_DEAD
    while d > 0:  # back to the tested position
        d -= 1
        undo(s, r, qpath[d, P_TOKEN])
    return result
