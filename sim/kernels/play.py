"""The one play loop: how a game ends, and what is recorded of it.

Every player's game goes through :func:`observe` before each move: it
remembers the position (the row's ``positions`` counts them), follows the
empty piles, and ends the game ``won``, ``gave_up`` at the move cap, or
``stuck`` with no legal move, in that order. :func:`play_chunk` runs that
loop with a compiled player's decisions for a whole chunk of deals without
leaving the kernel (the runner's fast path); :func:`sim.players.loop.play`
runs it from Python, one :func:`observe` call a move, for any player
object. A game's record is one element of a structured array of dtype
:data:`GAME_ROW`, its fields named as the result row's columns they become
(:data:`sim.players.record.COLUMNS`), filled by name.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import from_dtype, njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from ..core.moves import MAX_MOVES
from ..core.outcome import GAVE_UP, STUCK, WON
from ..core.rules import FoundationBase
from .apply_undo import apply
from .dealing import init_deal
from .hashing import PH_SIZE, apply_keyed, pile_keys
from .legal import SCRATCH_SIZE, legal_actions
from .layout import R_BASE_POLICY, S_BASE, STATE_SIZE, cards_home, empty_piles, is_won
from .plugin import DECIDE_FN, F_PLAYED, OWNED_VIEW, checked, deciding, start_book
from .unowned import uncounted, unowned
from .players import decide, workspace
from .rng import rand_below, seed_rng
from .seen import META_SIZE, M_USED, capacity, forget_all, key, remember

#: A game's record, as the kernels fill it: each field but ``cycles`` is the result row's column of that name
#: (:data:`sim.players.record.COLUMNS`; :func:`sim.study.rows.play_rows` turns them into Arrow columns by name).
GAME_ROW = np.dtype([
    ("result", np.int64),  # an outcome code (sim.core.outcome)
    ("moves", np.int64),
    ("cards_home", np.int64),
    ("base_rank", np.int64),  # shared base rank, -1 if unset or not shared
    ("max_empty_piles", np.int64),
    ("positions", np.int64),  # distinct positions visited, start and end included
    ("cycles", np.int64),  # CPU cycle-counter ticks spent on the deal (compiled chunks only)
])
GAME_ROWS = types.Array(from_dtype(GAME_ROW), 1, "C")  #: an array of records: the chunk loops' ``out``


def game_rows(n: int) -> np.ndarray:
    """``n`` records, zero."""
    return np.zeros(n, GAME_ROW)


@njit(cache=True, inline="always")
def clear(row):
    """Zero a record before its deal is played."""
    row.result = 0
    row.moves = 0
    row.cards_home = 0
    row.base_rank = 0
    row.max_empty_piles = 0
    row.positions = 0
    row.cycles = 0

_SHARED = int(FoundationBase.FIRST_CARD_SHARED)
#: ``starts`` for :func:`play_chunk` when the loop deals the seed's deals itself
NO_STARTS = np.zeros((0, STATE_SIZE), np.int8)


@njit(cache=True)
def observe(s, r, ph, table, used, meta, row, acts, scratch, max_moves):
    """The loop's step before a move: record ``s``; return its number of legal moves (in ``acts``), or -1 when the game is over.

    ``ph`` holds the position's pile keys (:func:`~.hashing.apply_keyed`);
    ``row.moves`` counts the moves played so far; when the game is over,
    ``row.result`` says how.
    """
    remember(table, used, meta, key(ph, s))
    e = empty_piles(s, r)
    if e > row.max_empty_piles:
        row.max_empty_piles = e
    row.positions = meta[M_USED]
    row.cards_home = cards_home(s)
    row.base_rank = s[S_BASE] if r[R_BASE_POLICY] == _SHARED else -1
    if is_won(s):
        row.result = WON
        return -1
    if row.moves >= max_moves:
        row.result = GAVE_UP
        return -1
    n = legal_actions(s, r, acts, scratch)
    if n == 0:
        row.result = STUCK
        return -1
    return n


@njit(cache=True)
def start_deal(r, seed, deals, starts, k, salt, s, perm, rng, table, used, meta, ph):
    """Set up deal ``deals[k]``: its starting position (``starts[k]`` when starting positions are given, as PySol's
    deals are, else dealt from ``seed``), its random stream, an empty seen-set and the position's pile keys."""
    if starts.shape[0] > 0:
        s[:] = starts[k]
    else:
        init_deal(r, seed, deals[k], s, perm)
    seed_rng(rng, seed, deals[k], salt)
    forget_all(table, used, meta)
    pile_keys(s, r, ph)


@njit(cache=True)
def play_chunk(r, kind, w, seed, deals, starts, max_moves, salt, out):
    """Deal and play every deal of ``deals`` with player ``kind``; write one record row per deal into ``out``.

    ``starts`` holds each deal's starting position (``len(deals)`` rows of ``STATE_SIZE``) or no rows: the deals
    of ``seed`` are then dealt here.
    """
    return _play_deals(r, kind, w, seed, deals, starts, max_moves, salt, out, workspace(capacity(max_moves)),
                       np.zeros(STATE_SIZE, np.int8), np.zeros(1, np.uint64))


@njit(cache=True)
def _play_deals(r, kind, w, seed, deals, starts, max_moves, salt, out, owned, state, stream):
    """:func:`play_chunk`'s loop, on its workspace ``owned`` read without reference counts (:mod:`.unowned`: the
    caller holds the arrays)."""
    ws, s, rng, r, w = unowned(owned), unowned(state), unowned(stream), unowned(r), unowned(w)
    perm = np.zeros(52, np.int8)
    table, used, meta, scratch, acts, ph = ws.seen, ws.used, ws.meta, ws.scratch, ws.acts, ws.keys
    for k in range(deals.shape[0]):
        t0 = _readcyclecounter()
        start_deal(r, seed, deals, starts, k, salt, s, perm, rng, table, used, meta, ph)
        row = out[k]
        clear(row)
        while True:
            n = observe(s, r, ph, table, used, meta, row, acts, scratch, max_moves)
            if n < 0:
                break
            a = decide(s, r, kind, w[0], rng, ws, acts, n)
            if a < 0:
                row.result = GAVE_UP
                break
            apply_keyed(s, r, ph, a)
            row.moves += 1
        row.cycles = np.int64(_readcyclecounter() - t0)
    return 0


@njit(cache=True)
def play_chunk_with(r, decide_fn, v, seed, deals, starts, max_moves, salt, out):
    """:func:`play_chunk` for a compiled plug-in: its decision ``decide_fn`` (:data:`.plugin.DECIDE`) sees the view ``v``.

    Returns the number of deals played to the end: fewer than ``len(deals)`` when the decision broke a rule of
    the kit (``v.book`` says which, about the deal at that index), and the rows after it are not played.
    """
    perm = np.zeros(52, np.int8)
    acts = v.moves[0]  # the decision's moves: its level 0 list
    bare = uncounted(v)  # (the view as the decision sees it: v owns its arrays)
    s, ph, table, used, meta, book = v.state, v.keys, v.table, v.used, v.meta, v.book
    for k in range(deals.shape[0]):
        t0 = _readcyclecounter()
        start_deal(r, seed, deals, starts, k, salt, s, perm, v.rng, table, used, meta, ph)
        v.memory[:] = 0
        v.bases[:] = -1
        start_book(book, k)
        row = out[k]
        clear(row)
        while True:
            n = observe(s, r, ph, table, used, meta, row, acts, v.scratch, max_moves)
            if n < 0:
                break
            book[F_PLAYED] = row.moves
            deciding(v, n)
            a = checked(v, decide_fn(bare, acts, n), acts, n)
            if a == -2:
                return k
            if a < 0:
                row.result = GAVE_UP
                break
            apply_keyed(s, r, ph, a)
            row.moves += 1
        row.cycles = np.int64(_readcyclecounter() - t0)
    return deals.shape[0]


@njit(cache=True)
def choose_move(s, r, kind, w, rng, ws):
    """One decision for a Python-side player, whose workspace ``ws`` persists between calls; -1 gives up."""
    pile_keys(s, r, ws.keys)  # the position may have been reached by any moves: key it afresh
    remember(ws.seen, ws.used, ws.meta, key(ws.keys, s))
    acts = ws.acts
    n = legal_actions(s, r, acts, ws.scratch)
    if n == 0:
        return -1
    return decide(s, r, kind, w[0], rng, ws, acts, n)


@njit(cache=True)
def choose_move_with(decide_fn, v):
    """One decision of a compiled plug-in for a Python-side player, whose view ``v`` persists between calls (its
    position copied in by the caller); -1 gives up, -2 a fault (``v.book``)."""
    pile_keys(v.state, v.rules, v.keys)
    remember(v.table, v.used, v.meta, key(v.keys, v.state))
    acts = v.moves[0]
    n = legal_actions(v.state, v.rules, acts, v.scratch)
    if n == 0:
        return -1
    deciding(v, n)
    return checked(v, decide_fn(uncounted(v), acts, n), acts, n)


_FIXED: list = []


def plugin_loops():
    """:func:`play_chunk_with` and :func:`choose_move_with`, compiled for the one signature of a plug-in's decision
    (:data:`.plugin.DECIDE_FN`) and no other: a plug-in is then passed as a function pointer, so these two are
    compiled once and cached for every plug-in (let numba specialise them on each plug-in's own type instead, and
    it compiles them again in every process: numba cannot cache a specialisation on a function object)."""
    if not _FIXED:
        chunk = (types.Array(types.int64, 1, "C"), DECIDE_FN, OWNED_VIEW, types.int64, types.Array(types.int64, 1, "C"),
                 types.Array(types.int8, 2, "C"), types.int64, types.int64, GAME_ROWS)
        play_chunk_with.compile(chunk)
        choose_move_with.compile((DECIDE_FN, OWNED_VIEW))
        for fn in (play_chunk_with, choose_move_with):
            fn.disable_compile()
        _FIXED.extend([play_chunk_with, choose_move_with])
    return _FIXED[0], _FIXED[1]


@njit(cache=True)
def observe_anew(s, r, ph, table, used, meta, rows, acts, scratch, max_moves):
    """:func:`observe` for a position reached outside the kernel (the Python loop), its record ``rows[0]``: its pile
    keys are made afresh."""
    pile_keys(s, r, ph)
    return observe(s, r, ph, table, used, meta, rows[0], acts, scratch, max_moves)


def record_buffers(max_moves: int) -> tuple[np.ndarray, ...]:
    """What the Python side of the loop passes to :func:`observe_anew`: pile keys, seen-set, slots, meta, its one record,
    actions, scratch."""
    cap = int(capacity(max_moves))
    return (np.zeros(PH_SIZE, np.uint64), np.zeros(cap, np.uint64), np.zeros(cap, np.int64), np.zeros(META_SIZE, np.int64),
            game_rows(1), np.zeros(MAX_MOVES, np.int64), np.zeros(SCRATCH_SIZE, np.int64))


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


@njit(cache=True)
def random_walks(r, seed, deals, max_moves, salt):
    """Moves played by uniform random legal moves from each deal until won, stuck or ``max_moves``: legal moves
    and the move only, no record (``castle bench``'s like-for-like side against the reference engine)."""
    s = np.zeros(STATE_SIZE, np.int8)
    perm = np.zeros(52, np.int8)
    rng = np.zeros(1, np.uint64)
    acts = np.zeros(MAX_MOVES, np.int64)
    scratch = np.zeros(SCRATCH_SIZE, np.int64)
    total = 0
    for k in range(deals.shape[0]):
        init_deal(r, seed, deals[k], s, perm)
        seed_rng(rng, seed, deals[k], salt)
        for _ in range(max_moves):
            n = legal_actions(s, r, acts, scratch)
            if n == 0 or is_won(s):
                break
            apply(s, r, acts[rand_below(rng, n)])
            total += 1
    return total
