"""The compiled players: whole chunks of deals played inside one numba kernel.

Two entry points, both thin over the same private decision code
(``_step``), so a game played move by move from Python and the same game
played inside a chunk are identical:

- :func:`play_chunk` deals and plays every deal of a chunk, writing one row
  of ``N_OUT`` columns (``C_*``) per deal: the runner's fast path;
- :func:`choose_move` makes one decision for a Python-side player object
  (``castle play``, tests, users' loops).

Kinds: ``RANDOM`` draws a uniform legal move from the deal's own splitmix64
stream; ``GREEDY`` plays a foundation move whenever one exists, otherwise
the move whose resulting position scores best under :func:`evaluate`,
searched ``P_DEPTH`` plies deep (1 for greedy, more for lookahead);
``STRATEGIST`` applies the rule sheet's advice (``_decide_strategist``).
GREEDY and STRATEGIST never move to a position already seen in the game:
every position reached goes into a small open-addressing set of
:func:`sim.engine.position_hash` values, cleared slot by slot between deals.

The evaluation lives here too, not in a module of its own: numba's cache
only notices edits to the file of the function it compiled, so kernels
inlining code from another module could silently stay stale.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from . import engine as E
from .engine import CAP, R_EMPTY, R_FOUND_TO_TAB, R_NPILES, R_RESERVES, R_TDIR, R_TSUIT, R_TWRAP, S_BASE, S_CARDS, S_FOUND, S_HEIGHT, foundation_accepts
from .moves import FOUNDATION, N_ACTIONS, N_TARGETS
from .numba_cache import drop_stale_cache
from .rules import MAX_PILES

drop_stale_cache(__file__, "engine.py", "deals.py")

RANDOM = 0
GREEDY = 1
STRATEGIST = 2

MAX_SEARCH_DEPTH = 8

# columns of play_chunk's output rows
C_RESULT = 0
C_MOVES = 1
C_HOME = 2
C_BASE = 3  #: shared base rank, -1 if unset
C_MAX_EMPTY = 4
C_POSITIONS = 5  #: distinct positions visited, start and end included
C_CYCLES = 6  #: CPU cycle-counter ticks spent on the deal
N_OUT = 7

# meta slots of a player's memory
M_USED = 0  #: slots in use in the seen-set
M_TB_DONE = 1  #: target bases chosen


def table_capacity(max_moves: int) -> int:
    """Slots of the seen-set: a power of two at least twice the positions a game can visit."""
    cap = 64
    while cap < 2 * (max_moves + 2):
        cap *= 2
    return cap


# --------------------------------------------------------------------------
# the evaluation
# --------------------------------------------------------------------------


# weight slots of the float64 parameter array every compiled player receives
W_HOME = 0
W_EMPTY = 1
W_DEPTH = 2
W_BLOCK = 3
W_SEQ = 4
W_BALANCE = 5
W_WRAP = 6  #: strategist: bonus for a move putting a King on an Ace
P_DEPTH = 7  #: plies searched (1 = one-move greedy)
P_WIDTH = 8  #: children expanded per searched node by static score (0 = all)
P_KEEP_EMPTY = 9  #: strategist: cost of filling an empty pile without unlocking anything
P_CHOOSE_BASE = 10  #: strategist: pick the base rank from the whole board
W_MOBILITY = 11
N_WEIGHTS = 12

WON_BONUS = 1e9
STUCK_PENALTY = 1e6


RANK = np.array([c % 13 for c in range(52)], np.int64)  #: lookup tables: no division per card
SUIT = np.array([c // 13 for c in range(52)], np.int64)


@njit(cache=True, inline="always")
def _fits_on(r, card, below):
    """Could ``card`` be built on ``below`` by the tableau rule (ignoring emptiness)? The engine's rule."""
    return E._fits(card, below, r[R_TWRAP] != 0, r[R_TDIR] == 1, r[R_TSUIT])


@njit(cache=True)
def card_depths(s, r, depth):
    """Write each card's depth (cards above it; -1 if on a foundation) into ``depth`` (52 ints)."""
    for c in range(52):
        depth[c] = -1
    for p in range(r[R_NPILES]):
        h = s[S_HEIGHT + p]
        base = S_CARDS + p * CAP
        for i in range(h):
            depth[s[base + i]] = h - 1 - i


@njit(cache=True)
def evaluate(s, r, w, target_base):
    """The score of position ``s`` under weights ``w``: the one evaluation of greedy, lookahead and strategist.

    The players differ in how they search with it, not in what they think a
    good position is. The score of a position, higher is better::

        W_HOME    * cards on the foundations
      + W_EMPTY   * empty tableau piles
      - W_DEPTH   * sum over unfinished suits of the depth (cards above it) of
                    the suit's next needed card
      - W_BLOCK   * blockers: cards lying above a card of lower foundation order
                    (each must move before the card under it can go home)
      + W_SEQ     * cards resting on a card they could legally be moved onto
                    (built sequences, the wrap K-on-A included where the game wraps)
      - W_BALANCE * (most cards home in one suit - fewest in another)
      + W_MOBILITY * legal moves (capped at 16)
      + WON_BONUS if all 52 cards are home; - STUCK_PENALTY if no move is legal

    "Next needed card" needs a base rank: the foundation's own once set, else
    the player's target base (``target_base[suit]``, -1 for "unknown": that
    suit's depth term is skipped and its cards are ordered by plain rank).
    """
    home = 0
    hi = 0
    lo = 13
    for f in range(4):
        n = s[S_FOUND + f]
        home += n
        if n > hi:
            hi = n
        if n < lo:
            lo = n
    if home == 52:
        return WON_BONUS + w[W_HOME] * 52
    n_piles = r[R_NPILES]
    n_tab = n_piles - r[R_RESERVES]
    empty = 0
    blockers = 0
    seq = 0
    depth_sum = 0
    for p in range(n_piles):
        h = s[S_HEIGHT + p]
        if h == 0:
            if p < n_tab:
                empty += 1
            continue
        base = S_CARDS + p * CAP
        low = 99
        for i in range(h):
            c = s[base + i]
            suit = SUIT[c]
            b = np.int64(s[S_BASE + suit])
            if b < 0:
                b = target_base[suit]
            o = RANK[c]
            if b > 0:  # position in the suit's foundation sequence (0 = the base)
                o -= b
                if o < 0:
                    o += 13
            if o > low:
                blockers += 1
            elif o < low:
                low = o
            if b >= 0 and o == s[S_FOUND + suit]:  # the suit's next needed card
                depth_sum += h - 1 - i
            if i > 0 and _fits_on(r, c, s[base + i - 1]):
                seq += 1
    mobility = _mobility(s, r, empty)
    score = (
        w[W_HOME] * home
        - w[W_BALANCE] * (hi - lo)
        + w[W_EMPTY] * empty
        - w[W_BLOCK] * blockers
        + w[W_SEQ] * seq
        - w[W_DEPTH] * depth_sum
        + w[W_MOBILITY] * min(mobility, 16)
    )
    if mobility == 0:
        score -= STUCK_PENALTY
    return score


@njit(cache=True)
def _mobility(s, r, empty):
    """The number of legal moves in ``s`` (``empty``: its empty tableau piles); 0 means stuck."""
    n_piles = r[R_NPILES]
    n_tab = n_piles - r[R_RESERVES]
    n = 0
    fast = r[R_TSUIT] == 0 and r[R_TDIR] == 0
    counts = np.int64(0)  # 4 bits per rank: how many non-empty tableau piles show that rank on top
    if fast:
        for p in range(n_tab):
            h = s[S_HEIGHT + p]
            if h > 0:
                counts += np.int64(1) << (4 * RANK[s[S_CARDS + p * CAP + h - 1]])
    for src in range(n_piles):
        h = s[S_HEIGHT + src]
        if h == 0:
            continue
        card = s[S_CARDS + src * CAP + h - 1]
        if foundation_accepts(s, r, card):
            n += 1
        if r[R_EMPTY] == 0:
            n += empty
        if fast:  # down by one regardless of suit: count the piles showing one rank higher
            cr = RANK[card]
            if cr < 12:
                n += (counts >> (4 * (cr + 1))) & 15
            elif r[R_TWRAP] != 0:
                n += counts & 15
        else:
            for dst in range(n_tab):
                hd = s[S_HEIGHT + dst]
                if dst != src and hd > 0 and _fits_on(r, card, s[S_CARDS + dst * CAP + hd - 1]):
                    n += 1
    if r[R_FOUND_TO_TAB] != 0:  # foundation top cards that may come back
        for f in range(4):
            k = s[S_FOUND + f]
            if k == 0:
                continue
            card = f * 13 + (s[S_BASE + f] + k - 1) % 13
            if r[R_EMPTY] == 0:
                n += empty
            for dst in range(n_tab):
                hd = s[S_HEIGHT + dst]
                if hd > 0 and _fits_on(r, card, s[S_CARDS + dst * CAP + hd - 1]):
                    n += 1
    return n


@intrinsic
def _readcyclecounter(typingctx):
    sig = types.uint64()

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter")
        return builder.call(fn, [])

    return sig, codegen


@njit(cache=True)
def cycle_counter():
    """The CPU's cycle counter, so kernels can time single deals (calibrated in Python)."""
    return _readcyclecounter()


# --------------------------------------------------------------------------
# the seen-set
# --------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _slot(table, h):
    """Slot holding ``h``, or the empty slot where it would go (0 marks empty)."""
    mask = np.uint64(table.shape[0] - 1)
    i = np.int64(h & mask)
    while table[i] != 0 and table[i] != h:
        i = np.int64((np.uint64(i) + np.uint64(1)) & mask)
    return i


@njit(cache=True, inline="always")
def _key(s, r):
    h = E.position_hash(s, r)
    if h == 0:
        h = np.uint64(1)
    return h


@njit(cache=True)
def _seen(table, h):
    return table[_slot(table, h)] == h


@njit(cache=True)
def _remember(table, used, meta, h):
    i = _slot(table, h)
    if table[i] == 0:
        table[i] = h
        used[meta[M_USED]] = i
        meta[M_USED] += 1


@njit(cache=True)
def _forget_all(table, used, meta):
    for k in range(meta[M_USED]):
        table[used[k]] = 0
    meta[M_USED] = 0
    meta[M_TB_DONE] = 0


# --------------------------------------------------------------------------
# decisions
# --------------------------------------------------------------------------


@njit(cache=True)
def _choose_target_bases(s, r, w, tb, depth):
    """The strategist's base ranks, chosen from the whole board while no base is set.

    Shared base: the rank whose four copies lie shallowest in total (sum of
    the depths of the four cards; ties to the lower rank). Independent
    bases: each suit's shallowest card. Games with fixed bases: untouched.
    """
    for f in range(4):
        tb[f] = -1
    if w[P_CHOOSE_BASE] == 0:
        return
    card_depths(s, r, depth)
    if r[E.R_BASE_POLICY] == 1:
        if s[E.S_BASE] >= 0:
            return
        best = -1
        best_sum = 1 << 30
        for rank in range(13):
            total = 0
            for f in range(4):
                d = depth[f * 13 + rank]
                total += d if d >= 0 else 0
            if total < best_sum:
                best_sum = total
                best = rank
        for f in range(4):
            tb[f] = best
    elif r[E.R_BASE_POLICY] == 2:
        for f in range(4):
            if s[E.S_BASE + f] >= 0:
                continue
            best = -1
            best_d = 1 << 30
            for rank in range(13):
                d = depth[f * 13 + rank]
                if d >= 0 and d < best_d:
                    best_d = d
                    best = rank
            tb[f] = best


@njit(cache=True)
def _subtree_value(s, r, w, tb, table, plies, width, stack, cnt, idx, best, tok, scratch):
    """Best score reachable from ``s`` in at most ``plies`` moves to unseen positions.

    An iterative depth-first search (numba-friendly): level ``L`` keeps its
    children in ``stack[L]``; a node's value is the max of its own score and
    its children's, so reaching a good position sooner is never worse.
    """
    v0 = evaluate(s, r, w, tb)
    if plies <= 0 or E.is_won(s):
        return v0
    L = 0
    cnt[0] = _children(s, r, w, tb, width, stack[0], scratch)
    idx[0] = 0
    best[0] = v0
    while True:
        if idx[L] < cnt[L]:
            a = stack[L, idx[L]]
            idx[L] += 1
            t = E.apply(s, r, a)
            if _seen(table, _key(s, r)):
                E.undo(s, r, t)
                continue
            v = evaluate(s, r, w, tb)
            if L + 1 < plies and not E.is_won(s):
                tok[L] = t
                L += 1
                cnt[L] = _children(s, r, w, tb, width, stack[L], scratch)
                idx[L] = 0
                best[L] = v
            else:
                E.undo(s, r, t)
                if v > best[L]:
                    best[L] = v
        else:
            v = best[L]
            if L == 0:
                return v
            L -= 1
            E.undo(s, r, tok[L])
            if v > best[L]:
                best[L] = v


@njit(cache=True)
def _children(s, r, w, tb, width, out, scratch):
    """Legal actions into ``out``; with ``width`` > 0 only the best ``width`` by static score."""
    n = E.legal_actions(s, r, out)
    if width <= 0 or n <= width:
        return n
    for k in range(n):
        t = E.apply(s, r, out[k])
        scratch[k] = evaluate(s, r, w, tb)
        E.undo(s, r, t)
    # insertion sort, best first; ties keep the lower action first
    for k in range(1, n):
        a = out[k]
        v = scratch[k]
        j = k - 1
        while j >= 0 and scratch[j] < v:
            out[j + 1] = out[j]
            scratch[j + 1] = scratch[j]
            j -= 1
        out[j + 1] = a
        scratch[j + 1] = v
    return width


@njit(cache=True)
def _decide_greedy(s, r, w, tb, table, acts, stack, cnt, idx, best, tok, scratch):
    n = E.legal_actions(s, r, acts)
    choice = -1
    best_v = -np.inf
    # a foundation move whenever one exists (to an unseen position: in games
    # whose foundations give cards back, cards home can shrink and grow again)
    for k in range(n):
        a = acts[k]
        if a % N_TARGETS == FOUNDATION:
            t = E.apply(s, r, a)
            if _seen(table, _key(s, r)):
                E.undo(s, r, t)
                continue
            v = evaluate(s, r, w, tb)
            E.undo(s, r, t)
            if v > best_v:
                best_v = v
                choice = a
    if choice >= 0:
        return choice
    plies = np.int64(w[P_DEPTH]) - 1
    width = np.int64(w[P_WIDTH])
    for k in range(n):
        a = acts[k]
        t = E.apply(s, r, a)
        if _seen(table, _key(s, r)):
            E.undo(s, r, t)
            continue
        v = _subtree_value(s, r, w, tb, table, plies, width, stack, cnt, idx, best, tok, scratch)
        E.undo(s, r, t)
        if v > best_v:
            best_v = v
            choice = a
    return choice


@njit(cache=True)
def _decide_strategist(s, r, w, tb, table, acts):
    """The rule sheet's advice, made executable.

    1. Base rank (Selective Castle): the target chosen from the whole board;
       no foundation is started with another rank.
    2. Bank evenly: a foundation move is played at once only when it is
       safe, i.e. every card one place lower in foundation order is already
       home (no tableau card could still want to rest on it); other
       foundation moves compete with the rest, the score's balance term
       weighing against running one suit ahead.
    3. Use the wrap: a King put on an Ace earns ``W_WRAP``.
    4. Keep empty piles: filling an empty pile costs ``P_KEEP_EMPTY`` unless
       the card is a King (it will never block there) or the card it
       uncovers can then move to a foundation or onto another pile (the
       move unlocks something).
    """
    n = E.legal_actions(s, r, acts)
    for k in range(n):
        a = acts[k]
        if a % N_TARGETS != FOUNDATION:
            continue
        card = _moving_card(s, a)
        suit = card // 13
        base = s[E.S_BASE + suit]
        if base < 0:
            if tb[suit] >= 0 and card % 13 != tb[suit]:
                continue
            base = card % 13
        order = (card % 13 - base + 13) % 13
        if order <= 1 or _order_home(s, order - 1):
            t = E.apply(s, r, a)
            fresh = not _seen(table, _key(s, r))
            E.undo(s, r, t)
            if fresh:
                return a
    choice = -1
    best_v = -np.inf
    for k in range(n):
        a = acts[k]
        dst = a % N_TARGETS
        card = _moving_card(s, a)
        if dst == FOUNDATION:
            suit = card // 13
            if s[E.S_BASE + suit] < 0 and tb[suit] >= 0 and card % 13 != tb[suit]:
                continue
        into_empty = dst != FOUNDATION and s[E.S_HEIGHT + dst] == 0
        bonus = 0.0
        if dst != FOUNDATION and card % 13 == 12 and s[E.S_HEIGHT + dst] > 0:
            top = s[E.S_CARDS + dst * E.CAP + s[E.S_HEIGHT + dst] - 1]
            if top % 13 == 0:
                bonus = w[W_WRAP]
        t = E.apply(s, r, a)
        if _seen(table, _key(s, r)):
            E.undo(s, r, t)
            continue
        v = evaluate(s, r, w, tb) + bonus
        E.undo(s, r, t)
        if into_empty and card % 13 != 12 and w[P_KEEP_EMPTY] != 0 and not _unlocks(s, r, a):
            v -= w[P_KEEP_EMPTY]
        if v > best_v:
            best_v = v
            choice = a
    return choice


@njit(cache=True)
def _unlocks(s, r, a):
    """After action ``a``, can the card it uncovers move to a foundation or a non-empty pile?"""
    src = a // N_TARGETS
    dst = a % N_TARGETS
    if src >= MAX_PILES:
        return False
    h = s[E.S_HEIGHT + src]
    if h < 2:
        return False
    under = np.int64(s[E.S_CARDS + src * E.CAP + h - 2])
    t = E.apply(s, r, a)
    ok = E.foundation_accepts(s, r, under)
    if not ok:
        for p in range(r[E.R_NPILES]):
            if p != src and p != dst and s[E.S_HEIGHT + p] > 0 and E.pile_accepts(s, r, under, p):
                ok = True
                break
    E.undo(s, r, t)
    return ok


@njit(cache=True, inline="always")
def _moving_card(s, a):
    """The card action ``a`` moves: a pile's top card, or a foundation's (games where it comes back)."""
    src = a // N_TARGETS
    if src >= MAX_PILES:
        f = src - MAX_PILES
        return np.int64(f * 13 + (s[E.S_BASE + f] + s[E.S_FOUND + f] - 1) % 13)
    return np.int64(s[E.S_CARDS + src * E.CAP + s[E.S_HEIGHT + src] - 1])


@njit(cache=True)
def _order_home(s, order):
    """Are all four cards at foundation position ``order`` (counted from each base) home?"""
    for f in range(4):
        if s[E.S_FOUND + f] <= order:
            return False
    return True


@njit(cache=True)
def _step(s, r, kind, w, rng, table, used, meta, tb, acts, stack, cnt, idx, best, tok, scratch, depth):
    """Remember the current position, then decide: an action, or -1 to give up."""
    _remember(table, used, meta, _key(s, r))
    if kind == RANDOM:
        n = E.legal_actions(s, r, acts)
        if n == 0:
            return -1
        return acts[E.rand_below(rng, n)]
    if meta[M_TB_DONE] == 0:
        _choose_target_bases(s, r, w, tb, depth)
        meta[M_TB_DONE] = 1
    if kind == STRATEGIST:
        return _decide_strategist(s, r, w, tb, table, acts)
    return _decide_greedy(s, r, w, tb, table, acts, stack, cnt, idx, best, tok, scratch)


# --------------------------------------------------------------------------
# entry points
# --------------------------------------------------------------------------


@njit(cache=True)
def choose_move(s, r, kind, w, rng, table, used, meta, tb):
    """One decision for a Python-side player (its memory arrays persist between calls)."""
    acts = np.zeros(N_ACTIONS, np.int64)
    stack = np.zeros((MAX_SEARCH_DEPTH + 1, N_ACTIONS), np.int64)
    cnt = np.zeros(MAX_SEARCH_DEPTH + 1, np.int64)
    idx = np.zeros(MAX_SEARCH_DEPTH + 1, np.int64)
    best = np.zeros(MAX_SEARCH_DEPTH + 1, np.float64)
    tok = np.zeros(MAX_SEARCH_DEPTH + 1, np.int64)
    scratch = np.zeros(N_ACTIONS, np.float64)
    depth = np.zeros(52, np.int64)
    return _step(s, r, kind, w, rng, table, used, meta, tb, acts, stack, cnt, idx, best, tok, scratch, depth)


@njit(cache=True)
def play_chunk(r, kind, w, seed, deals, max_moves, salt, out):
    """Deal and play every deal of ``deals``; write one ``N_OUT`` row per deal into ``out``.

    Same loop as :func:`sim.players.play`: won, stuck (no legal move), or
    gave up (the player has no move, or ``max_moves`` were played).
    """
    s = np.zeros(E.STATE_SIZE, np.int8)
    perm = np.zeros(52, np.int8)
    rng = np.zeros(1, np.uint64)
    cap = 64
    while cap < 2 * (max_moves + 2):
        cap *= 2
    table = np.zeros(cap, np.uint64)
    used = np.zeros(cap, np.int64)
    meta = np.zeros(2, np.int64)
    tb = np.full(4, -1, np.int64)
    acts = np.zeros(N_ACTIONS, np.int64)
    stack = np.zeros((MAX_SEARCH_DEPTH + 1, N_ACTIONS), np.int64)
    cnt = np.zeros(MAX_SEARCH_DEPTH + 1, np.int64)
    idx = np.zeros(MAX_SEARCH_DEPTH + 1, np.int64)
    best = np.zeros(MAX_SEARCH_DEPTH + 1, np.float64)
    tok = np.zeros(MAX_SEARCH_DEPTH + 1, np.int64)
    scratch = np.zeros(N_ACTIONS, np.float64)
    depth = np.zeros(52, np.int64)
    n_tab = r[E.R_NPILES] - r[E.R_RESERVES]
    for k in range(deals.shape[0]):
        t0 = _readcyclecounter()
        E.init_deal(r, seed, deals[k], s, perm)
        E.seed_rng(rng, seed, deals[k], salt)
        _forget_all(table, used, meta)
        result = E.GAVE_UP
        moves = 0
        max_empty = 0
        capped = True
        while moves < max_moves:
            empty = 0
            for p in range(n_tab):
                if s[E.S_HEIGHT + p] == 0:
                    empty += 1
            if empty > max_empty:
                max_empty = empty
            if E.is_won(s):
                result = E.WON
                capped = False
                break
            if E.legal_actions(s, r, acts) == 0:
                result = E.STUCK
                capped = False
                break
            a = _step(s, r, kind, w, rng, table, used, meta, tb, acts, stack, cnt, idx, best, tok, scratch, depth)
            if a < 0:
                capped = False
                break
            E.apply(s, r, a)
            moves += 1
        if capped:
            empty = 0
            for p in range(n_tab):
                if s[E.S_HEIGHT + p] == 0:
                    empty += 1
            if empty > max_empty:
                max_empty = empty
            if E.is_won(s):
                result = E.WON
        _remember(table, used, meta, _key(s, r))
        out[k, C_RESULT] = result
        out[k, C_MOVES] = moves
        out[k, C_HOME] = E.cards_home(s)
        out[k, C_BASE] = s[E.S_BASE] if r[E.R_BASE_POLICY] == 1 else -1
        out[k, C_MAX_EMPTY] = max_empty
        out[k, C_POSITIONS] = meta[M_USED]
        out[k, C_CYCLES] = np.int64(_readcyclecounter() - t0)
    return 0


assert N_WEIGHTS <= 16
