"""The solver's compiled core: a resumable depth-first search with undo.

The search keeps its whole stack in arrays owned by the caller
(:class:`sim.solver.rounds.Search`), so :func:`search` can stop after a
node budget and be resumed from Python, which checks the clock between
calls (numba has no clock). Positions are remembered in an open-addressing
table of their canonical 64-bit hashes (the engine's, kept incrementally:
:func:`~.engine.apply_keyed`); a full table pauses the
search, never gives a wrong verdict. The pruning rules and their proofs are
in ``sim/solver/pruning.md``; each has a bit in ``prune``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.moves import FOUNDATION, MAX_MOVES, N_ACTIONS, N_SOURCES, N_TARGETS
from ..core.outcome import LOST, WON
from ..core.rules import MAX_PILES
from . import deadend as Q
from .engine import PH_SIZE, SCRATCH_SIZE, apply_keyed, legal_actions, pile_keys, position_key, undo_keyed
from .layout import (
    CAP, action_target, cards_home, R_FOUND_TO_TAB, R_NPILES, R_NTAB, R_ONE_AT_A_TIME, R_RANK_FIT, R_SEQ, R_TWRAP, S_BASE, S_CARDS,
    S_FOUND, S_HEIGHT, action_count, action_source, is_won, token_action, token_card, top,
)
from .table import table_slot

# pruning switches (bits of ``prune``)
PRUNE_SAFE_FOUNDATION = 1  #: play a provably safe foundation move as the only child
PRUNE_SAME_CARD = 2  #: never move the card the previous move put on a pile (ignored in dialects that move sequences)
PRUNE_CANONICAL = 4  #: skip moves whose result is canonically the position or a sibling
PRUNE_SAFE_DEEPER = 8  #: also a foundation move whose would-be covers are themselves always safe
PRUNE_SKIP_UNDO = 16  #: not a pruning rule: the move back to the parent is known without a table lookup
TRACK_HOME = 32  #: not a pruning rule: keep the most cards home among the positions searched (ctx[C_MOST_HOME])
#: not a pruning rule, and not read by the kernel: a table that cannot grow forgets its cheapest proved
#: losses (:func:`forget`) instead of stopping the search (``sim.solver.rounds.Search.run``)
FORGET_LOST = 64
#: after a card goes home, prove the position lost if no card can ever go home again (:mod:`.deadend`); off by
#: default so that the study's runs, played without it, keep their label (measured: ``pruning.md`` rule 5)
PRUNE_DEAD_END = 128
PRUNE_ALL = PRUNE_SAFE_FOUNDATION | PRUNE_SAME_CARD | PRUNE_CANONICAL | PRUNE_SAFE_DEEPER | PRUNE_SKIP_UNDO
#: the default: every rule that depends on the position only, so completed components are proved lost
PRUNE_DEFAULT = PRUNE_SAFE_FOUNDATION | PRUNE_CANONICAL | PRUNE_SAFE_DEEPER | PRUNE_SKIP_UNDO | FORGET_LOST

# a table slot is (key, value); key and value share a cache line. The value is 0 (not tracked),
# DEAD | n (a proved-lost position whose proof searched n positions: what forgetting it would cost),
# or round << ROUND_SHIFT | i + 1: a position discovered i-th in that round, open if the round is
# the current one, else left over from a round cut short and searched again as if new
DEAD = np.uint64(1) << np.uint64(63)
ROUND_SHIFT = np.uint64(40)
INDEX_MASK = (np.uint64(1) << ROUND_SHIFT) - np.uint64(1)

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

MAX_KIDS = MAX_MOVES  #: no position has more legal moves (the one-card games: no more than ``N_ACTIONS``)


# --------------------------------------------------------------------------
# the table
# --------------------------------------------------------------------------


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


# --------------------------------------------------------------------------
# pruning rules and move order
# --------------------------------------------------------------------------


@njit(cache=True)
def is_safe_home(s, r, card):
    """Is sending ``card`` (which its foundation accepts) home provably safe?

    Only for tableaus that build down regardless of suit, once its
    foundation's base is known: safe when no card that could ever be placed
    on ``card`` is still out (every card of the rank below is home, or no
    rank is below: an Ace without tableau wrap). Proof in ``pruning.md``.
    """
    if r[R_RANK_FIT] == 0:  # the proof needs the tableau to build down regardless of suit
        return False
    if s[S_BASE + card // 13] < 0:
        return False
    rank = card % 13
    if rank == 0:
        if r[R_TWRAP] == 0:
            return True
        pred = 12
    else:
        pred = rank - 1
    for f in range(4):
        base = s[S_BASE + f]
        if base < 0:
            return False
        if (pred - base + 13) % 13 >= s[S_FOUND + f]:
            return False
    return True


@njit(cache=True)
def is_safe_home_deeper(s, r, card):
    """The second safe rule (``pruning.md`` rule 4): one rank further than :func:`is_safe_home`.

    A card that could be placed on ``card`` (rank ``pred(q)``) would itself be
    a safe foundation move whenever it is a top card: all cards of rank
    ``pred(pred(q))`` are home (or it is an Ace with Ace bases and no tableau
    wrap, so nothing can ever lie on it). Then ``card`` is never needed as a
    holder either. Needs the suit-blind downward tableau, every base fixed, no
    foundation card coming back, and foundations built side by side.
    """
    if r[R_RANK_FIT] == 0 or r[R_FOUND_TO_TAB] != 0 or r[R_ONE_AT_A_TIME] != 0:
        return False
    for f in range(4):
        if s[S_BASE + f] < 0:
            return False
    wrap = r[R_TWRAP] != 0
    rank = card % 13
    if rank == 0:
        if not wrap:
            return True  # nothing is ever placed on an Ace
        pred = 12
    else:
        pred = rank - 1
    if pred == 0 and not wrap:
        # the holders' holders do not exist: the Aces carry nothing; with Ace
        # bases an Ace out is always the next card of its foundation
        for f in range(4):
            if s[S_BASE + f] != 0:
                return False
        return True
    pred2 = 12 if pred == 0 else pred - 1
    for f in range(4):
        base = s[S_BASE + f]
        if (pred2 - base + 13) % 13 >= s[S_FOUND + f]:
            return False
    return True


@njit(cache=True, inline="always")
def order_weight(order):
    """How strongly restart ``order`` shuffles the heuristic: odd orders a little, even ones a lot."""
    return 4 if order % 2 == 1 else 64


@njit(cache=True)
def _expand(s, r, prune, prev_token, has_prev, buf, kids, off, need, loc, scores, scratch, order):
    """Write the children of the current position, in search order, at ``kids[off:]``; return how many."""
    n_tab = r[R_NTAB]
    n = legal_actions(s, r, buf, scratch)
    # a provably safe foundation move is the only child
    if prune & PRUNE_SAFE_FOUNDATION:
        for i in range(n):
            a = buf[i]
            if a % N_TARGETS == FOUNDATION:
                card = top(s, a // N_TARGETS)
                if is_safe_home(s, r, card) or ((prune & PRUNE_SAFE_DEEPER) and is_safe_home_deeper(s, r, card)):
                    kids[off] = a
                    return 1
    # the card the previous move put on a pile (-1: none)
    moved_pile = -1
    if has_prev and (prune & PRUNE_SAME_CARD):
        pa = token_action(prev_token)
        if pa % N_TARGETS != FOUNDATION:
            moved_pile = pa % N_TARGETS
    # how deep each pile's shallowest next-needed card lies (52: none; a foundation source needs nothing)
    for p in range(need.shape[0]):
        need[p] = 52
    for f in range(4):
        base = s[S_BASE + f]
        home = s[S_FOUND + f]
        if base < 0 or home >= 13:
            continue
        at = loc[f * 13 + (base + home) % 13]
        if at >= 0:
            p = at // CAP
            depth = s[S_HEIGHT + p] - 1 - (at - p * CAP)
            if depth < need[p]:
                need[p] = depth
    # order: foundation moves; moves onto cards, from piles whose needed card
    # is shallowest and onto piles whose needed card is deepest; moves to empty piles
    k = 0
    for i in range(n):
        a = buf[i]
        src = action_source(a)
        dst = a % N_TARGETS
        if src == moved_pile:
            continue
        if dst == FOUNDATION:
            score = 0
        elif s[S_HEIGHT + dst] == 0:
            if prune & PRUNE_CANONICAL:  # all empty piles are alike: keep the move to the first; a whole pile moved is no move
                if src < n_tab and s[S_HEIGHT + src] == action_count(a):
                    continue
                first_empty = -1
                for p in range(n_tab):  # reserves are never targets
                    if p != src and s[S_HEIGHT + p] == 0:
                        first_empty = p
                        break
                if dst != first_empty:
                    continue
            score = 10000 + need[src] * 64
        else:
            score = 1000 + need[src] * 64 + 52 - need[dst]
        if order != 0 and dst != FOUNDATION:
            score += np.int64((np.uint64(a * 2654435761 + order * 40503) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(58)) * order_weight(order)
        # insertion sort: stable, few children
        j = k
        while j > 0 and scores[j - 1] > score:
            scores[j] = scores[j - 1]
            kids[off + j] = kids[off + j - 1]
            j -= 1
        scores[j] = score
        kids[off + j] = a
        k += 1
    return k


@njit(cache=True, inline="always")
def _undoes(s, n_tab, prev_token, a):
    """Does action ``a`` take back the move ``prev_token`` that led here, back to that position (up to pile order)?

    Then ``a`` leads to the parent on the path, which the search knows
    without applying the move, hashing and looking it up (a fifth to a third
    of all lookups). Tableau moves only: a card back from a foundation or a
    reserve is not the same position.
    """
    pa = token_action(prev_token)
    if pa >= N_ACTIONS or a >= N_ACTIONS:  # a sequence moved (dialects): back only with as many cards
        if action_count(pa) != action_count(a):
            return False
    psrc = action_source(pa)
    pdst = pa % N_TARGETS
    if psrc >= n_tab or pdst == FOUNDATION:
        return False
    if action_source(a) != pdst:  # pdst's top is the card (the sequence) the previous move put there
        return False
    dst = a % N_TARGETS
    if dst == psrc:
        return True
    # the card had been alone: back to any empty pile is the same position (empty piles are alike)
    return dst != FOUNDATION and s[S_HEIGHT + dst] == 0 and s[S_HEIGHT + psrc] == 0


# --------------------------------------------------------------------------
# where each card lies
# --------------------------------------------------------------------------


@njit(cache=True)
def _locate(s, r, loc):
    """Fill ``loc``: card -> pile * CAP + index in the pile, -1 for a card on a foundation."""
    loc[:] = -1
    for p in range(r[R_NPILES]):
        for i in range(s[S_HEIGHT + p]):
            loc[s[S_CARDS + p * CAP + i]] = p * CAP + i


@njit(cache=True, inline="always")
def _moved(s, loc, token, undone):
    """Keep ``loc`` after the move ``token`` was played (``undone`` False) or taken back (True)."""
    action = token_action(token)
    if action >= N_ACTIONS:  # a sequence (dialects): every card of it moved, pile to pile
        p = action_source(action) if undone else action % N_TARGETS
        h = s[S_HEIGHT + p]
        for i in range(h - action_count(action), h):
            loc[s[S_CARDS + p * CAP + i]] = p * CAP + i
        return
    card = token_card(token)
    p = (action // N_TARGETS) if undone else (action % N_TARGETS)
    if p == FOUNDATION or p >= MAX_PILES:
        loc[card] = -1
    else:
        loc[card] = p * CAP + s[S_HEIGHT + p] - 1



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
def search(s, r, ph, tt, kids, kid_off, kid_n, kid_i, tokens, comp, scc, ctx, max_nodes, max_stored, prune,
           qt, qctx, qpath, qkids):
    """Run (or resume) the depth-first search until won, lost, or a limit.

    ``kids`` is one flat stack of the children of every position on the path
    (depth ``d``'s at ``kid_off[d]``, ``kid_n[d]`` of them, the next to try
    ``kid_i[d]``). ``s`` is the live position (left at the end of the path when won);
    ``tokens[:ctx[C_DEPTH]]`` are the undo tokens of the path. ``max_nodes``
    is the node count at which to pause; ``max_stored`` the table's load limit.
    With ``PRUNE_DEAD_END``, ``qt``, ``qctx``, ``qpath`` and ``qkids`` are
    the dead-end test's table, counters and work arrays (:mod:`.deadend`);
    the quotient states it enters count as nodes.

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
    n_tab = r[R_NTAB]
    if r[R_SEQ] != 0:  # rule 2's proof does not cover sequence moves (pruning.md): off in those dialects
        prune &= ~PRUNE_SAME_CARD
    skip_undo = (prune & PRUNE_SKIP_UNDO) != 0
    track_home = (prune & TRACK_HOME) != 0
    dead_end = (prune & PRUNE_DEAD_END) != 0 and qpath.shape[0] > 1
    q_budget = qpath.shape[0] - 1
    max_depth = kid_n.shape[0] - 1
    max_off = kids.shape[0] - (N_ACTIONS if r[R_SEQ] == 0 else MAX_KIDS)
    track = (prune & PRUNE_SAME_CARD) == 0
    buf = np.empty(MAX_KIDS, np.int64)
    need = np.empty(N_SOURCES, np.int64)  # per move source: piles, then foundations
    scores = np.empty(MAX_KIDS, np.int64)
    scratch = np.empty(SCRATCH_SIZE, np.int64)
    loc = np.empty(52, np.int64)  # where each card lies: pile * CAP + index (-1: home)
    _locate(s, r, loc)
    if ctx[C_STARTED] == 0:
        status = _start(s, r, ph, tt, kids, kid_off, kid_n, kid_i, comp, scc, ctx, prune, track, buf, need, loc, scores, scratch)
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
            _moved(s, loc, tokens[d], True)
            continue
        if d + 1 >= max_depth or kid_off[d] + kid_n[d] > max_off:
            status = TOO_DEEP  # before the move: the caller may grow the stack and resume
            break
        if track and top >= scc.shape[0]:
            status = SCC_FULL
            break
        a = kids[kid_off[d] + kid_i[d]]
        kid_i[d] += 1
        if skip_undo and d > 0 and _undoes(s, n_tab, tokens[d - 1], a):
            if track and comp[d - 1, 0] < comp[d, 1]:  # back to the parent, open on the path: its discovery number is a low link
                comp[d, 1] = comp[d - 1, 0]
            continue
        tok = apply_keyed(s, r, ph, a)
        _moved(s, loc, tok, False)
        if is_won(s):
            tokens[d] = tok
            d += 1
            most_home = 52
            status = WON
            break
        if stored >= max_stored:
            undo_keyed(s, r, ph, tok)
            _moved(s, loc, tok, True)
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
                _moved(s, loc, tok, True)
                continue
            # else: left open by an earlier round: search it again
        else:
            stored += 1
        if dead_end and action_target(a) == FOUNDATION and Q.applies(s, r):
            if qctx[Q.Q_STORED] + q_budget > qt.shape[0] * 7 // 10:  # no room for another test: start its table again
                qt[:] = 0
                qctx[Q.Q_STORED] = 0
            before = qctx[Q.Q_STATES]
            budget = min(q_budget, max(max_nodes - nodes, Q.LEAST_BUDGET))  # a test may overrun the call's budget only a little
            if Q.no_way_home(s, r, qt, qctx, qpath, qkids, budget) == Q.DEAD_END:
                tt[slot, 1] = DEAD | np.uint64(1)  # no card will go home again: lost (pruning.md rule 5)
                nodes += 1 + qctx[Q.Q_STATES] - before
                undo_keyed(s, r, ph, tok)
                _moved(s, loc, tok, True)
                continue
            nodes += qctx[Q.Q_STATES] - before
        nodes += 1
        if track_home and cards_home(s) > most_home:
            most_home = cards_home(s)
        tokens[d] = tok
        d += 1
        if track:  # Tarjan: the new position's discovery number, its low link, and the open-component stack
            tt[slot, 1] = epoch | np.uint64(index + 1)
            comp[d, 0] = index
            comp[d, 1] = index
            comp[d, 2] = top
            scc[top] = slot
            top += 1
            index += 1
        off = kid_off[d - 1] + kid_n[d - 1]
        kid_off[d] = off
        kid_n[d] = _expand(s, r, prune, tok, True, buf, kids, off, need, loc, scores, scratch, ctx[C_ORDER])
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
def _start(s, r, ph, tt, kids, kid_off, kid_n, kid_i, comp, scc, ctx, prune, track, buf, need, loc, scores, scratch):
    """A round's first call: key the piles, enter the start (lost at once if an earlier round proved it), expand it.

    Returns ``RUNNING``, or the verdict when there is nothing to search.
    """
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
    kid_n[0] = _expand(s, r, prune, 0, False, buf, kids, 0, need, loc, scores, scratch, ctx[C_ORDER])
    kid_i[0] = 0
    ctx[C_DEPTH] = 0
    return RUNNING


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
