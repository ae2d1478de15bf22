"""The solver's compiled core: a resumable depth-first search with undo.

The search keeps its whole stack in arrays owned by the caller (a
:class:`SearchBuffers`), so :func:`search` can stop after a node budget and
be resumed from Python, which checks the clock between calls (numba has no
clock). Positions are remembered in a fixed-size open-addressing table of
their canonical 64-bit hashes (the same hash as :func:`sim.engine.position_hash`,
kept incrementally); a full table ends the search as "unknown", never as a
wrong verdict. The pruning rules and their proofs are in ``sim/pruning.md``;
each has a bit in ``prune``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import engine as E
from .moves import FOUNDATION, N_ACTIONS, N_TARGETS
from .numba_cache import drop_stale_cache

drop_stale_cache(__file__, "engine.py", "deals.py")

# pruning switches (bits of ``prune``)
PRUNE_SAFE_FOUNDATION = 1  #: play a provably safe foundation move as the only child
PRUNE_SAME_CARD = 2  #: never move the card the previous move put on a pile
PRUNE_CANONICAL = 4  #: skip moves whose result is canonically the position or a sibling
PRUNE_SAFE_DEEPER = 8  #: also a foundation move whose would-be covers are themselves always safe
PRUNE_SKIP_UNDO = 16  #: not a pruning rule: the move back to the parent is known without a table lookup
PRUNE_ALL = PRUNE_SAFE_FOUNDATION | PRUNE_SAME_CARD | PRUNE_CANONICAL | PRUNE_SAFE_DEEPER | PRUNE_SKIP_UNDO
#: the default: every rule that depends on the position only, so completed components are proved lost
PRUNE_DEFAULT = PRUNE_SAFE_FOUNDATION | PRUNE_CANONICAL | PRUNE_SAFE_DEEPER | PRUNE_SKIP_UNDO

# a table slot is (key, value); key and value share a cache line. The value is 0 (not tracked),
# DEAD (a proved-lost position), or round << ROUND_SHIFT | i + 1: a position discovered i-th in
# that round, open if the round is the current one, else left over from a round cut short and
# searched again as if new
DEAD = np.uint64(1) << np.uint64(63)
ROUND_SHIFT = np.uint64(40)
INDEX_MASK = (np.uint64(1) << ROUND_SHIFT) - np.uint64(1)

# search status (ctx[C_STATUS])
RUNNING = 0
WON = 1
LOST = 2  #: every reachable position seen: proved lost
PAUSED = 3  #: node budget of this call spent; call again to resume
TABLE_FULL = 4  #: the transposition table reached its load limit
TOO_DEEP = 5  #: the path would outgrow the stack (nothing lost: grow it and resume)
SCC_FULL = 6  #: the stack of open components is full (nothing lost: grow it and resume)

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
CTX_SIZE = 10

MAX_KIDS = N_ACTIONS  #: no position has more legal moves than the action space


PH_SIZE = E.MAX_PILES + 1  #: per-pile Zobrist keys, then the running sum of their scrambled terms
_RESERVE_SALT = np.uint64(0x5A5A5A5A5A5A5A5A)


@njit(cache=True, inline="always")
def _term(key, p, r):
    """Pile ``p``'s scrambled contribution to the canonical hash (reserves salted as in the engine)."""
    if p < r[E.R_NPILES] - r[E.R_RESERVES]:
        return E._mix(key)
    return E._mix(key ^ _RESERVE_SALT)


@njit(cache=True, inline="always")
def _hash(ph, s, r):
    """:func:`sim.engine.position_hash`, from the running sum ``ph[MAX_PILES]`` of pile terms."""
    h = ph[E.MAX_PILES]
    for f in range(4):
        h ^= E.Z_FOUND[f, s[E.S_FOUND + f]] ^ E.Z_BASE[f, s[E.S_BASE + f] + 1]
    return h


@njit(cache=True)
def _pile_hashes(s, r, ph):
    """Fill ``ph`` (``PH_SIZE`` long) from scratch: every pile's key and the sum of their terms."""
    total = np.uint64(0)
    for p in range(r[E.R_NPILES]):
        ph[p] = E.pile_hash(s, p)
        total += _term(ph[p], p, r)
    ph[E.MAX_PILES] = total


@njit(cache=True, inline="always")
def _rekey(ph, p, r, z):
    """Toggle ``z`` into pile ``p``'s key and keep the sum of terms."""
    old = ph[p]
    ph[p] = old ^ z
    ph[E.MAX_PILES] += _term(old ^ z, p, r) - _term(old, p, r)


@njit(cache=True, inline="always")
def _apply(s, r, ph, action):
    """Engine apply that also keeps the per-pile Zobrist keys and their sum."""
    src = action // N_TARGETS
    dst = action % N_TARGETS
    if src < E.MAX_PILES:  # a foundation source changes no pile key (its count is in _hash)
        h = s[E.S_HEIGHT + src] - 1
        card = s[E.S_CARDS + src * E.CAP + h]
        _rekey(ph, src, r, E.Z_PILE[h, card])
    else:
        f = src - E.MAX_PILES
        card = f * 13 + (s[E.S_BASE + f] + s[E.S_FOUND + f] - 1) % 13
    if dst != FOUNDATION:
        _rekey(ph, dst, r, E.Z_PILE[s[E.S_HEIGHT + dst], card])
    return E.apply(s, r, action)


@njit(cache=True, inline="always")
def _undo(s, r, ph, token):
    E.undo(s, r, token)
    action = token & 255
    card = (token >> 8) & 63
    src = action // N_TARGETS
    dst = action % N_TARGETS
    if src < E.MAX_PILES:
        _rekey(ph, src, r, E.Z_PILE[s[E.S_HEIGHT + src] - 1, card])
    if dst != FOUNDATION:
        _rekey(ph, dst, r, E.Z_PILE[s[E.S_HEIGHT + dst], card])


@njit(cache=True, inline="always")
def _tt_slot(tt, key):
    """Insert ``key``; its slot if it was new, ``-1 - slot`` if it was there. Linear probing, key 0 marks a free slot."""
    if key == np.uint64(0):
        key = np.uint64(1)
    mask = np.uint64(tt.shape[0] - 1)
    i = key & mask
    while True:
        k = tt[i, 0]
        if k == key:
            return -1 - np.int64(i)
        if k == np.uint64(0):
            tt[i, 0] = key
            return np.int64(i)
        i = (i + np.uint64(1)) & mask


@njit(cache=True)
def is_safe_home(s, r, card):
    """Is sending ``card`` (which its foundation accepts) home provably safe?

    Only for tableaus that build down regardless of suit, once its
    foundation's base is known: safe when no card that could ever be placed
    on ``card`` is still out (every card of the rank below is home, or no
    rank is below: an Ace without tableau wrap). Proof in ``sim/pruning.md``.
    """
    if r[E.R_TDIR] != 0 or r[E.R_TSUIT] != 0:
        return False
    if s[E.S_BASE + card // 13] < 0:
        return False
    rank = card % 13
    if rank == 0:
        if r[E.R_TWRAP] == 0:
            return True
        pred = 12
    else:
        pred = rank - 1
    for f in range(4):
        base = s[E.S_BASE + f]
        if base < 0:
            return False
        if (pred - base + 13) % 13 >= s[E.S_FOUND + f]:
            return False
    return True


@njit(cache=True)
def is_safe_home_deeper(s, r, card):
    """The second safe rule (``sim/pruning.md`` rule 4): one rank further than :func:`is_safe_home`.

    A card that could be placed on ``card`` (rank ``pred(q)``) would itself be
    a safe foundation move whenever it is a top card: all cards of rank
    ``pred(pred(q))`` are home (or it is an Ace with Ace bases and no tableau
    wrap, so nothing can ever lie on it). Then ``card`` is never needed as a
    holder either. Needs the suit-blind downward tableau, every base fixed, no
    foundation card coming back, and foundations built side by side.
    """
    if r[E.R_TDIR] != 0 or r[E.R_TSUIT] != 0 or r[E.R_FOUND_TO_TAB] != 0 or r[E.R_ONE_AT_A_TIME] != 0:
        return False
    for f in range(4):
        if s[E.S_BASE + f] < 0:
            return False
    wrap = r[E.R_TWRAP] != 0
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
            if s[E.S_BASE + f] != 0:
                return False
        return True
    pred2 = 12 if pred == 0 else pred - 1
    for f in range(4):
        base = s[E.S_BASE + f]
        if (pred2 - base + 13) % 13 >= s[E.S_FOUND + f]:
            return False
    return True


#: the lowest set bit's index of every 13-bit pile mask (fast_moves walks target masks with it)
LOWEST_BIT = np.array([0] + [(m & -m).bit_length() - 1 for m in range(1, 1 << E.MAX_PILES)], np.int8)


@njit(cache=True)
def fast_moves(s, r, out, top_rank, by_rank):
    """The legal actions where the tableau builds down regardless of suit, in :func:`sim.engine.legal_actions`' order.

    The same list (a test holds them equal), found by rank lookup: a mask of
    the piles whose top card has each rank, instead of asking every pair of
    piles; ``top_rank`` (a pile's top rank) and ``by_rank`` (13 masks) are scratch.
    """
    n_piles = r[E.R_NPILES]
    wrap = r[E.R_TWRAP] != 0
    empty_ok = r[E.R_EMPTY] == 0
    by_rank[:] = 0
    empties = 0
    for p in range(n_piles):
        h = s[E.S_HEIGHT + p]
        if h == 0:
            top_rank[p] = -1
            if empty_ok:
                empties |= 1 << p
        else:
            q = s[E.S_CARDS + p * E.CAP + h - 1] % 13
            top_rank[p] = q
            by_rank[q] |= 1 << p
    n = 0
    for src in range(n_piles):
        q = top_rank[src]
        if q < 0:
            continue
        card = s[E.S_CARDS + src * E.CAP + s[E.S_HEIGHT + src] - 1]
        want = q + 1
        if want == 13:
            want = 0 if wrap else -1
        m = empties
        if want >= 0:
            m |= by_rank[want]
        m &= ~(1 << src)
        while m != 0:
            dst = LOWEST_BIT[m]
            out[n] = src * N_TARGETS + dst
            n += 1
            m &= m - 1
        suit = card // 13
        f = s[E.S_FOUND + suit]
        if f < 13:
            base = s[E.S_BASE + suit]
            if base < 0:
                ok = True
            else:
                nxt = base + f
                ok = nxt < 13 or r[E.R_FWRAP] != 0
                if nxt >= 13:
                    nxt -= 13
                ok = ok and q == nxt
            if ok:
                out[n] = src * N_TARGETS + FOUNDATION
                n += 1
    return n


@njit(cache=True, inline="always")
def order_weight(order):
    """How strongly restart ``order`` shuffles the heuristic: odd orders a little, even ones a lot."""
    return 4 if order % 2 == 1 else 64


@njit(cache=True)
def _expand(s, r, prune, prev_token, has_prev, buf, kids, off, need, loc, scores, by_rank, order):
    """Write the children of the current position, in search order, at ``kids[off:]``; return how many."""
    n_piles = r[E.R_NPILES]
    n_tab = n_piles - r[E.R_RESERVES]
    if (r[E.R_TDIR] == 0 and r[E.R_TSUIT] == 0 and r[E.R_RESERVES] == 0
            and r[E.R_FOUND_TO_TAB] == 0 and r[E.R_ONE_AT_A_TIME] == 0):
        n = fast_moves(s, r, buf, need, by_rank)
    else:
        n = E.legal_actions(s, r, buf)
    # a provably safe foundation move is the only child
    if prune & PRUNE_SAFE_FOUNDATION:
        for i in range(n):
            a = buf[i]
            if a % N_TARGETS == FOUNDATION:
                src = a // N_TARGETS
                card = s[E.S_CARDS + src * E.CAP + s[E.S_HEIGHT + src] - 1]
                if is_safe_home(s, r, card) or ((prune & PRUNE_SAFE_DEEPER) and is_safe_home_deeper(s, r, card)):
                    kids[off] = a
                    return 1
    # the card the previous move put on a pile (-1: none)
    moved_pile = -1
    if has_prev and (prune & PRUNE_SAME_CARD):
        pa = prev_token & 255
        if pa % N_TARGETS != FOUNDATION:
            moved_pile = pa % N_TARGETS
    # how deep each pile's shallowest next-needed card lies (52: none), from where the four next cards are
    for p in range(n_piles):
        need[p] = 52
    for f in range(4):
        base = s[E.S_BASE + f]
        home = s[E.S_FOUND + f]
        if base < 0 or home >= 13:
            continue
        at = loc[f * 13 + (base + home) % 13]
        if at >= 0:
            p = at // E.CAP
            depth = s[E.S_HEIGHT + p] - 1 - (at - p * E.CAP)
            if depth < need[p]:
                need[p] = depth
    # order: foundation moves; moves onto cards, from piles whose needed card
    # is shallowest and onto piles whose needed card is deepest; moves to empty piles
    k = 0
    for i in range(n):
        a = buf[i]
        src = a // N_TARGETS
        dst = a % N_TARGETS
        if src == moved_pile:
            continue
        if dst == FOUNDATION:
            score = 0
        elif s[E.S_HEIGHT + dst] == 0:
            if prune & PRUNE_CANONICAL:
                if src < n_tab and s[E.S_HEIGHT + src] == 1:
                    continue  # a lone tableau card to an empty pile: the same position
                first_empty = -1
                for p in range(n_tab):  # reserves are never targets
                    if p != src and s[E.S_HEIGHT + p] == 0:
                        first_empty = p
                        break
                if dst != first_empty:
                    continue  # all empty piles are alike: keep one
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
    pa = prev_token & 255
    psrc = pa // N_TARGETS
    pdst = pa % N_TARGETS
    if psrc >= n_tab or pdst == FOUNDATION:
        return False
    if a // N_TARGETS != pdst:  # pdst's top is the card the previous move put there
        return False
    dst = a % N_TARGETS
    if dst == psrc:
        return True
    # the card had been alone: back to any empty pile is the same position (empty piles are alike)
    return dst != FOUNDATION and s[E.S_HEIGHT + dst] == 0 and s[E.S_HEIGHT + psrc] == 0


@njit(cache=True)
def _locate(s, r, loc):
    """Fill ``loc``: card -> pile * CAP + index in the pile, -1 for a card on a foundation."""
    loc[:] = -1
    for p in range(r[E.R_NPILES]):
        for i in range(s[E.S_HEIGHT + p]):
            loc[s[E.S_CARDS + p * E.CAP + i]] = p * E.CAP + i


@njit(cache=True, inline="always")
def _moved(s, loc, token, undone):
    """Keep ``loc`` after the move ``token`` was played (``undone`` False) or taken back (True)."""
    action = token & 255
    card = (token >> 8) & 63
    p = (action // N_TARGETS) if undone else (action % N_TARGETS)
    if p == FOUNDATION or p >= E.MAX_PILES:
        loc[card] = -1
    else:
        loc[card] = p * E.CAP + s[E.S_HEIGHT + p] - 1


@njit(cache=True)
def search(s, r, ph, tt, kids, kid_off, kid_n, kid_i, tokens, comp, scc, ctx, max_nodes, max_stored, prune):
    """Run (or resume) the depth-first search until won, lost, or a limit.

    ``kids`` is one flat stack of the children of every position on the path
    (depth ``d``'s at ``kid_off[d]``, ``kid_n[d]`` of them, the next to try
    ``kid_i[d]``). ``s`` is the live position (left at the end of the path when won);
    ``tokens[:ctx[C_DEPTH]]`` are the undo tokens of the path. ``max_nodes``
    is the node count at which to pause; ``max_stored`` the table's load limit.

    Unless ``prune`` has the path-dependent ``PRUNE_SAME_CARD``, the search
    also runs Tarjan's strongly connected components: the table's value
    holds each open position's round and discovery number + 1, ``comp[d]`` the
    path's discovery number, low link and component-stack height at depth
    ``d``, and ``scc`` the table slots of the positions whose component is
    still open. When a component closes without a win, its positions are
    marked ``DEAD`` in the table: nothing reachable from them wins (proof in
    ``sim/pruning.md``). A restart (a new round, ``ctx[C_ROUND]`` bumped, the
    path cleared) keeps the table: ``DEAD`` positions count as seen, positions
    an earlier round left open are searched again.
    Returns the status (also in ``ctx[C_STATUS]``).
    """
    n_piles = r[E.R_NPILES]
    n_tab = n_piles - r[E.R_RESERVES]
    skip_undo = (prune & PRUNE_SKIP_UNDO) != 0
    max_depth = kid_n.shape[0] - 1
    max_off = kids.shape[0] - MAX_KIDS
    track = (prune & PRUNE_SAME_CARD) == 0
    buf = np.empty(N_ACTIONS, np.int64)
    need = np.empty(E.MAX_PILES, np.int64)
    scores = np.empty(MAX_KIDS, np.int64)
    by_rank = np.empty(13, np.int64)
    loc = np.empty(52, np.int64)  # where each card lies: pile * CAP + index (-1: home)
    _locate(s, r, loc)
    if ctx[C_STARTED] == 0:
        ctx[C_STARTED] = 1
        _pile_hashes(s, r, ph)
        if E.is_won(s):
            ctx[C_STATUS] = WON
            return WON
        epoch = np.uint64(ctx[C_ROUND]) << ROUND_SHIFT
        slot = _tt_slot(tt, _hash(ph, s, r))
        if slot < 0:
            slot = -1 - slot
            if not track or tt[slot, 1] == DEAD:  # the start itself is known to be lost
                ctx[C_STATUS] = LOST
                return LOST
        else:
            ctx[C_STORED] += 1
        if track:
            tt[slot, 1] = epoch | np.uint64(1)
            scc[0] = slot
            ctx[C_SCC_TOP] = 1
            ctx[C_INDEX] = 1
            comp[0, 0] = 0
            comp[0, 1] = 0
            comp[0, 2] = 0
        ctx[C_NODES] = 1
        kid_off[0] = 0
        kid_n[0] = _expand(s, r, prune, 0, False, buf, kids, 0, need, loc, scores, by_rank, ctx[C_ORDER])
        kid_i[0] = 0
        ctx[C_DEPTH] = 0
    elif ctx[C_STATUS] != PAUSED and ctx[C_STATUS] != TOO_DEEP and ctx[C_STATUS] != SCC_FULL:
        return ctx[C_STATUS]
    ctx[C_STATUS] = RUNNING
    d = ctx[C_DEPTH]
    nodes = ctx[C_NODES]
    stored = ctx[C_STORED]
    top = ctx[C_SCC_TOP]
    index = ctx[C_INDEX]
    epoch = np.uint64(ctx[C_ROUND]) << ROUND_SHIFT
    status = RUNNING
    while True:
        if kid_i[d] >= kid_n[d]:
            if track:
                if comp[d, 1] == comp[d, 0]:  # the root of a component: all of it is lost
                    while top > comp[d, 2]:
                        top -= 1
                        tt[scc[top], 1] = DEAD
                elif comp[d - 1, 1] > comp[d, 1]:
                    comp[d - 1, 1] = comp[d, 1]
            if d == 0:
                status = LOST
                break
            d -= 1
            _undo(s, r, ph, tokens[d])
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
            # back to the parent, open on the path: only its discovery number counts (Tarjan's low link)
            if track and comp[d - 1, 0] < comp[d, 1]:
                comp[d, 1] = comp[d - 1, 0]
            continue
        tok = _apply(s, r, ph, a)
        _moved(s, loc, tok, False)
        if E.is_won(s):
            tokens[d] = tok
            d += 1
            status = WON
            break
        if stored >= max_stored:
            _undo(s, r, ph, tok)
            _moved(s, loc, tok, True)
            kid_i[d] -= 1
            status = TABLE_FULL
            break
        slot = _tt_slot(tt, _hash(ph, s, r))
        if slot < 0:
            slot = -1 - slot
            seen = tt[slot, 1]
            if not track or seen == DEAD or (seen & ~INDEX_MASK) == epoch:
                if track and seen != DEAD:  # open in this round: the same component
                    low = np.int64(seen & INDEX_MASK) - 1
                    if low < comp[d, 1]:
                        comp[d, 1] = low
                _undo(s, r, ph, tok)
                _moved(s, loc, tok, True)
                continue
            # else: left open by an earlier round: search it again
        else:
            stored += 1
        nodes += 1
        tokens[d] = tok
        d += 1
        if track:
            tt[slot, 1] = epoch | np.uint64(index + 1)
            comp[d, 0] = index
            comp[d, 1] = index
            comp[d, 2] = top
            index += 1
            scc[top] = slot
            top += 1
        off = kid_off[d - 1] + kid_n[d - 1]
        kid_off[d] = off
        kid_n[d] = _expand(s, r, prune, tok, True, buf, kids, off, need, loc, scores, by_rank, ctx[C_ORDER])
        kid_i[d] = 0
        if nodes >= max_nodes:
            status = PAUSED
            break
    ctx[C_DEPTH] = d
    ctx[C_NODES] = nodes
    ctx[C_STORED] = stored
    ctx[C_SCC_TOP] = top
    ctx[C_INDEX] = index
    ctx[C_STATUS] = status
    return status


@njit(cache=True)
def rehash(old, new, scc, top):
    """Move every slot of table ``old`` into the larger empty table ``new``; re-point ``scc[:top]``."""
    for i in range(old.shape[0]):
        if old[i, 0] != np.uint64(0):
            new[_tt_slot(new, old[i, 0]), 1] = old[i, 1]
    for j in range(top):
        scc[j] = -1 - _tt_slot(new, old[scc[j], 0])


@njit(cache=True)
def dead_keys(tt):
    """The keys of the table's proved-lost positions."""
    n = 0
    for i in range(tt.shape[0]):
        if tt[i, 1] == DEAD:
            n += 1
    out = np.empty(n, np.uint64)
    n = 0
    for i in range(tt.shape[0]):
        if tt[i, 1] == DEAD:
            out[n] = tt[i, 0]
            n += 1
    return out


@njit(cache=True)
def base_card_depths(s, r, out):
    """For each rank b, how many cards lie on top of the four cards of rank b (``out[b]``).

    The order in which the fixed-base problems are tried: shallow bases first.
    """
    for b in range(13):
        out[b] = 0
    for p in range(r[E.R_NPILES]):
        h = s[E.S_HEIGHT + p]
        for i in range(h):
            out[s[E.S_CARDS + p * E.CAP + i] % 13] += h - 1 - i


@njit(cache=True)
def _line_hashes(s, r, actions, n, out):
    """Canonical hashes of the positions along ``actions[:n]`` from ``s`` (``out[0]`` the start); ``s`` is left as it was."""
    tokens = np.empty(n, np.int64)
    out[0] = E.position_hash(s, r)
    for i in range(n):
        tokens[i] = E.apply(s, r, actions[i])
        out[i + 1] = E.position_hash(s, r)
    for i in range(n - 1, -1, -1):
        E.undo(s, r, tokens[i])


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
    bufs = np.empty((depth, N_ACTIONS), np.int64)
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
        counts[0] = E.legal_actions(cur, r, bufs[0])
        idx[0] = 0
        while d >= 0:
            if idx[d] >= counts[d]:
                d -= 1
                if d >= 0:
                    E.undo(cur, r, toks[d])
                continue
            a = bufs[d, idx[d]]
            idx[d] += 1
            toks[d] = E.apply(cur, r, a)
            path[d] = a
            j = _furthest(keys, last, E.position_hash(cur, r))
            if j > best_j or (j == best_j and j > i and d + 1 < best_len):
                best_j = j
                best_len = d + 1
                for k in range(d + 1):
                    best_seq[k] = path[k]
            if d + 1 < depth and j != n:
                d += 1
                counts[d] = E.legal_actions(cur, r, bufs[d])
                idx[d] = 0
            else:
                E.undo(cur, r, toks[d])
        if best_j <= i:
            return -1  # cannot happen for a winning line: the line's own next position is one move away
        for k in range(best_len):
            E.apply(cur, r, best_seq[k])
            out[m] = best_seq[k]
            m += 1
        i = best_j
    return m
