"""The solver's compiled core: a resumable depth-first search with undo.

The search keeps its whole stack in arrays owned by the caller
(:class:`sim.solver.rounds.Search`), held as one tuple, its *workspace*
(:func:`workspace`), so :func:`search` can stop after a node budget and be
resumed from Python, which checks the clock between calls (numba has no
clock). Positions are remembered in an open-addressing table of their
canonical 64-bit hashes (the engine's, kept incrementally:
:func:`~.hashing.apply_keyed`; what a slot holds: :mod:`.solver_table`); a
full table pauses the search, never gives a wrong verdict. Which children
are searched, and in which order, is :mod:`.pruning`.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..core.moves import FOUNDATION, N_ACTIONS
from ..core.outcome import LOST, WON
from . import deadend
from .hashing import PH_SIZE, apply_keyed, pile_keys, position_key, undo_keyed
from .layout import CAP, R_NPILES, R_NTAB, R_SEQ, S_CARDS, S_HEIGHT, action_target, cards_home, is_won
from .pruning import (
    MAX_KIDS, PRUNE_DEAD_END, PRUNE_SAME_CARD, PRUNE_SKIP_UNDO, TRACK_HOME, expand, expand_buffers, locate, moved,
    prune_for, undoes,
)
from .solver_table import DEAD, INDEX_MASK, ROUND_SHIFT
from .table import table_slot
from .unowned import unowned

# search status (ctx[C_STATUS]): an outcome (WON, LOST: every reachable position seen) or one of these
RUNNING = 5
PAUSED = 6  #: node budget of this call spent; call again to resume
TABLE_FULL = 7  #: the transposition table reached its load limit
TOO_DEEP = 8  #: the path would outgrow the stack (nothing lost: grow it and resume)
SCC_FULL = 9  #: the stack of open components is full (nothing lost: grow it and resume)

# ctx fields
C_DEPTH = 0
C_NODES = 1
C_STATUS = 2
C_STORED = 3
C_STARTED = 4
C_ORDER = 5  #: 0: the heuristic order; k > 0: the same, shuffled by k (for restarts)
C_SCC_TOP = 6  #: height of the stack of positions whose component is still open
C_INDEX = 7  #: discovery numbers handed out so far
C_ROUND = 8  #: the round (bumped by each restart of a search that keeps its table)
C_MOST_HOME = 9  #: with TRACK_HOME: the most cards home among the positions searched so far
CTX_SIZE = 10


KIDS_PER_LEVEL = 8  #: the children's stack holds this many a level of the path on average (it grows with the path)

#: the slots of a search's workspace (:func:`workspace`)
#: a search's arrays (:func:`workspace`), by name; the caller replaces one by a larger one with ``_replace``
SearchSpace = namedtuple("SearchSpace", [
    "keys",  # the live position's pile keys
    "table",  # the transposition table
    "kids",  # the children of every position on the path, one flat stack
    "kid_off",  # where depth d's children start in it
    "kid_n",  # how many
    "kid_i",  # the next to try
    "tokens",  # the undo tokens of the path
    "comp",  # Tarjan's discovery numbers and low links
    "scc",  # the open components
    "ctx",  # the ``C_`` fields
    "qt", "qctx", "qpath", "qkids",  # the dead-end test's table, counters and work arrays (:mod:`.deadend`)
])


def workspace(table, depth, dead_end):
    """A search's arrays as one :data:`SearchSpace`: ``table`` (its transposition table), the path's arrays
    ``depth`` long, and ``dead_end`` (the dead-end test's table, counters and work arrays, :mod:`.deadend`).

    ``kids`` is one flat stack of the children of every position on the path
    (depth ``d``'s at ``kid_off[d]``, ``kid_n[d]`` of them, the next to try
    ``kid_i[d]``); ``tokens`` are the undo tokens of the path; ``comp`` and
    ``scc`` Tarjan's discovery numbers, low links and open components
    (:func:`search`); ``ctx`` the ``C_`` fields. The caller may replace an
    array by a larger one (``SearchSpace._replace``).
    """
    qt, qctx, qpath, qkids = dead_end
    return SearchSpace(np.zeros(PH_SIZE, np.uint64), table, np.empty(depth * KIDS_PER_LEVEL, np.int16),
                       np.zeros(depth, np.int32), np.zeros(depth, np.int16), np.zeros(depth, np.int16),
                       np.zeros(depth, np.int32), np.zeros((depth, 3), np.int64), np.zeros(depth, np.int64),
                       np.zeros(CTX_SIZE, np.int64), qt, qctx, qpath, qkids)


# --------------------------------------------------------------------------
# the search: Tarjan's components over the depth-first path
# --------------------------------------------------------------------------


@njit(cache=True)
def _open(tt, comp, scc, slot, d, top, index, epoch):
    """Give the position entered at depth ``d`` (table slot ``slot``) its discovery number; return (top, index)."""
    tt[slot, 1] = epoch | np.uint64(index + 1)
    comp[d, 0] = index
    comp[d, 1] = index
    comp[d, 2] = top
    scc[top] = slot
    return top + 1, index + 1


@njit(cache=True)
def search(s, r, ws, max_nodes, max_stored, prune):
    """Run (or resume) the depth-first search until won, lost, or a limit.

    ``ws`` holds the search's arrays (:func:`workspace`). ``s`` is the live
    position (left at the end of the path when won); ``tokens[:ctx[C_DEPTH]]``
    are the undo tokens of the path. ``max_nodes`` is the node count at which
    to pause; ``max_stored`` the table's load limit. With ``PRUNE_DEAD_END``,
    the workspace's dead-end arrays serve the test (:mod:`.deadend`); the
    quotient states it enters count as nodes.

    Unless ``prune`` has the path-dependent ``PRUNE_SAME_CARD``, the search
    also runs Tarjan's strongly connected components: the table's value
    holds each open position's round and discovery number + 1, ``comp[d]`` the
    path's discovery number, low link and component-stack height at depth
    ``d``, and ``scc`` the table slots of the positions whose component is
    still open. When a component closes without a win, its positions are
    marked ``DEAD`` in the table: nothing reachable from them wins (proof in
    ``pruning.md``). A restart (a new round, ``ctx[C_ROUND]`` bumped, the
    path cleared) keeps the table: ``DEAD`` positions count as seen, positions
    an earlier round left open are searched again.
    Returns the status (also in ``ctx[C_STATUS]``).
    """
    return _search(s, r, ws, max_nodes, max_stored, prune, expand_buffers(), np.empty(52, np.int64))


@njit(cache=True)
def _search(s, r, ws, max_nodes, max_stored, prune, owned_bufs, owned_loc):
    """:func:`search` on its arrays read without reference counts (:mod:`.unowned`: the caller holds them all;
    counting them was a quarter of the search's time)."""
    s, r, bufs, loc = unowned(s), unowned(r), unowned(owned_bufs), unowned(owned_loc)
    ph, tt, kids, kid_off, kid_n, kid_i, tokens, comp, scc, ctx, qt, qctx, qpath, qkids = unowned(ws)
    n_tab = r[R_NTAB]
    prune = prune_for(r, prune)
    skip_undo = (prune & PRUNE_SKIP_UNDO) != 0
    track_home = (prune & TRACK_HOME) != 0
    dead_end = (prune & PRUNE_DEAD_END) != 0 and qpath.shape[0] > 1
    q_budget = qpath.shape[0] - 1
    max_depth = kid_n.shape[0] - 1
    max_off = kids.shape[0] - (N_ACTIONS if r[R_SEQ] == 0 else MAX_KIDS)
    track = (prune & PRUNE_SAME_CARD) == 0
    locate(s, r, loc)  # where each card lies: pile * CAP + index (-1: home)
    if ctx[C_STARTED] == 0:
        status = _start(s, r, ws, prune, track, loc, bufs)
        if status != RUNNING:
            return status
    elif ctx[C_STATUS] != PAUSED and ctx[C_STATUS] != TOO_DEEP and ctx[C_STATUS] != SCC_FULL:
        return ctx[C_STATUS]
    ctx[C_STATUS] = RUNNING
    d = ctx[C_DEPTH]
    nodes = ctx[C_NODES]
    stored = ctx[C_STORED]
    top = ctx[C_SCC_TOP]
    index = ctx[C_INDEX]
    most_home = ctx[C_MOST_HOME]
    epoch = np.uint64(ctx[C_ROUND]) << ROUND_SHIFT
    status = RUNNING
    while True:
        if kid_i[d] >= kid_n[d]:  # every child searched: back up
            if track:  # Tarjan: a component's root marks all of it DEAD (nothing in it wins), else its low link goes up
                if comp[d, 1] == comp[d, 0]:
                    cost = DEAD | np.uint64(index - comp[d, 0])  # the positions discovered since its root
                    while top > comp[d, 2]:
                        top -= 1
                        tt[scc[top], 1] = cost
                elif comp[d - 1, 1] > comp[d, 1]:
                    comp[d - 1, 1] = comp[d, 1]
            if d == 0:
                status = LOST
                break
            d -= 1
            undo_keyed(s, r, ph, tokens[d])
            moved(s, loc, tokens[d], True)
            continue
        if d + 1 >= max_depth or kid_off[d] + kid_n[d] > max_off:
            status = TOO_DEEP  # before the move: the caller may grow the stack and resume
            break
        if track and top >= scc.shape[0]:
            status = SCC_FULL
            break
        a = kids[kid_off[d] + kid_i[d]]
        kid_i[d] += 1
        if skip_undo and d > 0 and undoes(s, n_tab, tokens[d - 1], a):
            if track and comp[d - 1, 0] < comp[d, 1]:  # back to the parent, open on the path: its discovery number is a low link
                comp[d, 1] = comp[d - 1, 0]
            continue
        tok = apply_keyed(s, r, ph, a)
        moved(s, loc, tok, False)
        if is_won(s):
            tokens[d] = tok
            d += 1
            most_home = 52
            status = WON
            break
        if stored >= max_stored:
            undo_keyed(s, r, ph, tok)
            moved(s, loc, tok, True)
            kid_i[d] -= 1
            status = TABLE_FULL
            break
        slot = table_slot(tt, position_key(ph, s))
        if slot < 0:
            slot = -1 - slot
            seen = tt[slot, 1]
            if not track or seen >= DEAD or (seen & ~INDEX_MASK) == epoch:
                if track and seen < DEAD:  # open in this round: the same component, its discovery number a low link
                    low = np.int64(seen & INDEX_MASK) - 1
                    if low < comp[d, 1]:
                        comp[d, 1] = low
                undo_keyed(s, r, ph, tok)
                moved(s, loc, tok, True)
                continue
            # else: left open by an earlier round: search it again
        else:
            stored += 1
        if dead_end and action_target(a) == FOUNDATION and deadend.applies(s, r):
            if qctx[deadend.Q_STORED] + q_budget > qt.shape[0] * 7 // 10:  # no room for another test: start its table again
                qt[:] = 0
                qctx[deadend.Q_STORED] = 0
            before = qctx[deadend.Q_STATES]
            budget = min(q_budget, max(max_nodes - nodes, deadend.LEAST_BUDGET))  # a test may overrun the call's budget only a little
            if deadend.no_way_home(s, r, qt, qctx, qpath, qkids, budget) == deadend.DEAD_END:
                tt[slot, 1] = DEAD | np.uint64(1)  # no card will go home again: lost (pruning.md rule 5)
                nodes += 1 + qctx[deadend.Q_STATES] - before
                undo_keyed(s, r, ph, tok)
                moved(s, loc, tok, True)
                continue
            nodes += qctx[deadend.Q_STATES] - before
        nodes += 1
        if track_home and cards_home(s) > most_home:
            most_home = cards_home(s)
        tokens[d] = tok
        d += 1
        if track:  # Tarjan: the new position's discovery number, its low link, and the open-component stack
            top, index = _open(tt, comp, scc, slot, d, top, index, epoch)
        off = kid_off[d - 1] + kid_n[d - 1]
        kid_off[d] = off
        kid_n[d] = expand(s, r, prune, tok, True, kids, off, loc, bufs, ctx[C_ORDER])
        kid_i[d] = 0
        if nodes >= max_nodes:
            status = PAUSED
            break
    ctx[C_DEPTH] = d
    ctx[C_NODES] = nodes
    ctx[C_STORED] = stored
    ctx[C_SCC_TOP] = top
    ctx[C_INDEX] = index
    ctx[C_MOST_HOME] = most_home
    ctx[C_STATUS] = status
    return status


@njit(cache=True)
def _start(s, r, ws, prune, track, loc, bufs):
    """A round's first call: key the piles, enter the start (lost at once if an earlier round proved it), expand it.

    Returns ``RUNNING``, or the verdict when there is nothing to search.
    """
    ph, tt, comp, scc, ctx = ws.keys, ws.table, ws.comp, ws.scc, ws.ctx
    kids, kid_off, kid_n, kid_i = ws.kids, ws.kid_off, ws.kid_n, ws.kid_i
    ctx[C_STARTED] = 1
    pile_keys(s, r, ph)
    if cards_home(s) > ctx[C_MOST_HOME]:
        ctx[C_MOST_HOME] = cards_home(s)
    if is_won(s):
        ctx[C_STATUS] = WON
        return WON
    slot = table_slot(tt, position_key(ph, s))
    if slot < 0:
        slot = -1 - slot
        if not track or tt[slot, 1] >= DEAD:  # the start itself is known to be lost
            ctx[C_STATUS] = LOST
            return LOST
    else:
        ctx[C_STORED] += 1
    if track:
        top, index = _open(tt, comp, scc, slot, 0, 0, 0, np.uint64(ctx[C_ROUND]) << ROUND_SHIFT)
        ctx[C_SCC_TOP] = top
        ctx[C_INDEX] = index
    ctx[C_NODES] = 1
    kid_off[0] = 0
    kid_n[0] = expand(s, r, prune, 0, False, kids, 0, loc, bufs, ctx[C_ORDER])
    kid_i[0] = 0
    ctx[C_DEPTH] = 0
    return RUNNING


# --------------------------------------------------------------------------
# the order of the fixed-base problems
# --------------------------------------------------------------------------


@njit(cache=True)
def base_card_depths(s, r, out):
    """For each rank b, how many cards lie on top of the four cards of rank b (``out[b]``).

    The order in which the fixed-base problems are tried: shallow bases first.
    """
    for b in range(13):
        out[b] = 0
    for p in range(r[R_NPILES]):
        h = s[S_HEIGHT + p]
        for i in range(h):
            out[s[S_CARDS + p * CAP + i] % 13] += h - 1 - i
