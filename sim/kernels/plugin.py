"""What a compiled plug-in player sees (:class:`View`) and the kit of compiled functions its decision calls.

A researcher's compiled player is one numba function ``decide(v, moves, n)``
that returns the action it plays from the position in ``v``, whose ``n``
legal actions are ``moves[:n]`` (-1 gives up). The chunk loop
(:func:`sim.kernels.play.play_chunk_with`) calls it through a function
pointer of the one signature :data:`DECIDE`, so the loop is compiled, and
cached, once for every plug-in, and a plug-in's own ``cache=True`` keeps
its compiled code between runs.

``v`` is a named tuple of small arrays. The kit's functions are inlined into the
decision that calls them (numba's ``inline="always"``): a call costs what its body costs,
not a copy of the view. A decision reads the view only through
the functions below (its fields may change; these names will not):
:func:`push` and :func:`pop` play a move and take it back, keeping the
position's hash; :func:`seen` says whether the game has already passed
through the position; :func:`score` is the built-in players' evaluation.
:func:`push` refuses a move the rules do not allow (it returns False and
marks the view: the loop then stops the deal with an error naming the
move), so a decision's look-ahead can never corrupt the position.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, typeof, types

from ..core.moves import FOUNDATION, MAX_MOVES, N_TARGETS
from .evaluate import N_WEIGHTS, card_depths, choose_target_bases, evaluate
from .hashing import PH_SIZE, apply_keyed, undo_keyed
from .layout import (CAP, R_NPILES, R_NTAB, S_BASE, S_CARDS, S_HEIGHT, STATE_SIZE, RULES_SIZE, action_count, action_source, cards_home as _home,
                     empty_piles as _empty, is_won as _won, moving_card, top)
from .legal import SCRATCH_SIZE, is_legal, legal_actions
from .rng import rand_below as _rand_below, rand_unit
from .seen import META_SIZE, key, seen as _seen

MAX_PLY = 32  #: moves a decision may look ahead with :func:`push` before it must :func:`pop`
N_PARAMS = 16  #: a plug-in's own parameters, ``v.params[0]`` ... in the order it declares them
N_MEMORY = 64  #: ``v.memory``: float64 slots a decision may keep between its moves of one deal (zero at each deal's start)

# v.status slots: what the loop reads back
F_FAULT = 0  #: a fault code (FAULT_*), 0 while none
F_ACTION = 1  #: the action the fault is about
F_PLAYED = 2  #: moves played so far in this deal (kept by the loop)
F_AT = 3  #: the deal's index in the chunk being played (kept by the loop)
STATUS_SIZE = 4
FAULT_ILLEGAL_PUSH = 1  #: push() was given a move the rules do not allow
FAULT_DEEP_PUSH = 2  #: push() beyond MAX_PLY moves ahead
FAULT_EMPTY_POP = 3  #: pop() with nothing pushed
FAULT_ILLEGAL_MOVE = 4  #: the decision returned a move that is not among the legal ones
FAULT_UNPOPPED = 5  #: the decision returned with moves still pushed
FAULT_STALE_MOVE = 6  #: push_move() of a list made at another position (or past its end)

View = namedtuple("View", ["state", "rules", "keys", "table", "used", "meta", "rng", "params", "weights", "bases",
                           "undo", "ply", "moves", "counts", "stamps", "path", "scratch", "evalbuf", "depths", "memory",
                           "status"])


def new_view(rules: np.ndarray, capacity: int, params: np.ndarray | None = None, weights: np.ndarray | None = None) -> View:
    """A view with its buffers: ``capacity`` slots of seen positions (:func:`sim.kernels.seen.capacity`)."""
    p = np.zeros(N_PARAMS, np.float64)
    if params is not None:
        p[: len(params)] = params
    w = np.zeros(N_WEIGHTS, np.float64) if weights is None else np.ascontiguousarray(weights, np.float64)
    return View(np.zeros(STATE_SIZE, np.int8), np.ascontiguousarray(rules, np.int64), np.zeros(PH_SIZE, np.uint64),
                np.zeros(capacity, np.uint64), np.zeros(capacity, np.int64), np.zeros(META_SIZE, np.int64),
                np.zeros(1, np.uint64), p, w, np.full(4, -1, np.int64), np.zeros(MAX_PLY, np.int64), np.zeros(1, np.int64),
                np.zeros((MAX_PLY + 1, MAX_MOVES), np.int64), np.zeros(MAX_PLY + 1, np.int64), np.full((MAX_PLY + 1, 2), -1, np.int64),
                np.zeros(MAX_PLY + 1, np.int64), np.zeros(SCRATCH_SIZE, np.int64), np.zeros(MAX_MOVES, np.int64),
                np.zeros(52, np.int64), np.zeros(N_MEMORY, np.float64), np.zeros(STATUS_SIZE, np.int64))


VIEW = typeof(new_view(np.zeros(RULES_SIZE, np.int64), 4))  #: the view's numba type
#: the one signature of a compiled plug-in's decision: ``decide(v, moves, n) -> action``
DECIDE = types.int64(VIEW, types.Array(types.int64, 1, "C"), types.int64)
DECIDE_FN = types.FunctionType(DECIDE)


# -- moves ----------------------------------------------------------------------------------------------------
# Look-ahead in levels: ``legal(v, level)`` lists the moves of the position at hand into that level's list (the
# decision's own ``moves`` are level 0's), stamped with where in the look-ahead it was made; ``push_move(v, level,
# k)`` plays the k-th of them after an O(1) check of that stamp (the list is of this very position), where
# ``push(v, a)`` checks any action against the rules (a third of a look-ahead's time in a leaf).
@njit(cache=True, inline="always")
def _played(v, a):
    d = v.ply[0]
    v.undo[d] = apply_keyed(v.state, v.rules, v.keys, a)
    v.ply[0] = d + 1
    v.path[d + 1] += 1  # a new node at this depth: lists made at the node left behind there go stale


@njit(cache=True, inline="always")
def push(v, a):
    """Play action ``a`` from the view's position (keeping its hash); False, and nothing played, if the rules forbid it."""
    if v.ply[0] >= MAX_PLY:
        _fault(v, FAULT_DEEP_PUSH, a)
        return False
    if not is_legal(v.state, v.rules, a):
        _fault(v, FAULT_ILLEGAL_PUSH, a)
        return False
    _played(v, a)
    return True


@njit(cache=True, inline="always")
def push_move(v, level, k):
    """Play the ``k``-th move of ``level``'s list (:func:`legal`; level 0: the decision's own ``moves``), which must
    be a list of this very position; False, and nothing played, if it is not."""
    d = v.ply[0]
    if level < 0 or level > MAX_PLY or k < 0 or k >= v.counts[level] or v.stamps[level, 0] != d or v.stamps[level, 1] != v.path[d]:
        _fault(v, FAULT_STALE_MOVE, -1 if level < 0 or level > MAX_PLY or k < 0 or k >= MAX_MOVES else v.moves[level, k])
        return False
    if d >= MAX_PLY:
        _fault(v, FAULT_DEEP_PUSH, v.moves[level, k])
        return False
    _played(v, v.moves[level, k])
    return True


@njit(cache=True, inline="always")
def pop(v):
    """Take back the last move :func:`push` or :func:`push_move` played."""
    d = v.ply[0] - 1
    if d < 0:
        _fault(v, FAULT_EMPTY_POP, -1)
        return
    v.ply[0] = d
    undo_keyed(v.state, v.rules, v.keys, v.undo[d])


@njit(cache=True, inline="always")
def ply(v):
    """How many moves :func:`push` has played ahead of the real position."""
    return v.ply[0]


@njit(cache=True, inline="always")
def legal(v, level):
    """List the legal moves of the view's position as ``level``'s list (0 to ``MAX_PLY``; one list a level of your
    look-ahead, so levels do not overwrite each other), ascending; their number. Read them with :func:`move`."""
    n = legal_actions(v.state, v.rules, v.moves[level], v.scratch)
    v.counts[level] = n
    v.stamps[level, 0] = v.ply[0]
    v.stamps[level, 1] = v.path[v.ply[0]]
    return n


@njit(cache=True, inline="always")
def move(v, level, k):
    """The ``k``-th move of ``level``'s list, an action."""
    return v.moves[level, k]


@njit(cache=True, inline="always")
def to_foundation(a):
    """Does action ``a`` put a card on its foundation?"""
    return a % N_TARGETS == FOUNDATION


@njit(cache=True, inline="always")
def source(a):
    """The pile (0-based; 13-16: a foundation) action ``a`` takes from."""
    return action_source(a)


@njit(cache=True, inline="always")
def target(a):
    """The pile action ``a`` puts on (0-based), or ``FOUNDATION`` (13)."""
    return a % N_TARGETS


@njit(cache=True, inline="always")
def count(a):
    """Cards action ``a`` carries (more than one only in a dialect that moves sequences)."""
    return action_count(a)


@njit(cache=True, inline="always")
def card(v, a):
    """The card action ``a`` moves (0-51: suit * 13 + rank; of a sequence, its bottom card)."""
    return moving_card(v.state, a)


# -- the position -----------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def seen(v):
    """Has the game already passed through the view's position (as the built-in players never return to one)?"""
    return _seen(v.table, key(v.keys, v.state))


@njit(cache=True, inline="always")
def hash(v):
    """The position's canonical 64-bit hash (pile order does not matter), kept as moves are pushed."""
    return key(v.keys, v.state)


@njit(cache=True, inline="always")
def cards_home(v):
    return _home(v.state)


@njit(cache=True, inline="always")
def empty_piles(v):
    """Empty tableau piles (reserves not counted)."""
    return _empty(v.state, v.rules)


@njit(cache=True, inline="always")
def is_won(v):
    return _won(v.state)


@njit(cache=True, inline="always")
def piles(v):
    """Piles of the game: its tableau piles (:func:`tableau_piles`), then its reserves if it has any."""
    return v.rules[R_NPILES]


@njit(cache=True, inline="always")
def tableau_piles(v):
    """Piles cards can be built on (0 to this number - 1)."""
    return v.rules[R_NTAB]


@njit(cache=True, inline="always")
def height(v, p):
    """Cards in pile ``p``."""
    return v.state[S_HEIGHT + p]


@njit(cache=True, inline="always")
def card_at(v, p, i):
    """The ``i``-th card of pile ``p`` from the bottom (0-based), -1 past its top."""
    if i < 0 or i >= v.state[S_HEIGHT + p]:
        return -1
    return np.int64(v.state[S_CARDS + p * CAP + i])


@njit(cache=True, inline="always")
def top_card(v, p):
    """The top card of pile ``p``, -1 if it is empty."""
    return top(v.state, p)


@njit(cache=True, inline="always")
def home(v, suit):
    """Cards on suit ``suit``'s foundation (0 C, 1 D, 2 H, 3 S)."""
    return np.int64(v.state[suit])


@njit(cache=True, inline="always")
def base(v, suit):
    """The base rank of suit ``suit``'s foundation (0 = Ace), -1 while the game has not chosen it."""
    return np.int64(v.state[S_BASE + suit])


@njit(cache=True, inline="always")
def depth_of(v, c):
    """Cards lying on card ``c`` (0 if it is a pile's top card), -1 if it is on a foundation."""
    for p in range(v.rules[R_NPILES]):
        h = v.state[S_HEIGHT + p]
        at = S_CARDS + p * CAP
        for i in range(h):
            if v.state[at + i] == c:
                return np.int64(h - 1 - i)
    return np.int64(-1)


@njit(cache=True, inline="always")
def depths(v):
    """Every card's depth at once (cards lying on it; -1 on a foundation), indexed by card: one pass over the piles,
    where :func:`depth_of` looks for one card."""
    card_depths(v.state, v.rules, v.depths)
    return v.depths


@njit(cache=True, inline="always")
def score(v):
    """The built-in players' evaluation of the position (sim/kernels/evaluate.py) under the plug-in's weights."""
    return evaluate(v.state, v.rules, v.weights, v.bases, v.evalbuf, v.scratch)


@njit(cache=True, inline="always")
def aim_bases(v):
    """Aim the evaluation at the base rank whose four cards lie shallowest (games that choose their base)."""
    choose_target_bases(v.state, v.rules, v.bases, v.depths)


@njit(cache=True, inline="always")
def moves_played(v):
    """Moves played so far in this deal (0 at its first decision)."""
    return v.status[F_PLAYED]


# -- chance -----------------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def rand_below(v, n):
    """A uniform draw from 0 to ``n - 1`` from the deal's own random stream (the same for the same seed and deal)."""
    return _rand_below(v.rng, n)


@njit(cache=True, inline="always")
def random(v):
    """A uniform draw in [0, 1) from the deal's own random stream."""
    return rand_unit(v.rng)


# -- the loop's side ------------------------------------------------------------------------------------------
@njit(cache=True)
def _fault(v, code, a):
    if v.status[F_FAULT] == 0:
        v.status[F_FAULT] = code
        v.status[F_ACTION] = a


@njit(cache=True)
def deciding(v, n):
    """Before a decision: its ``n`` legal moves (in ``v.moves[0]``) are level 0's list, of a new root position."""
    v.ply[0] = 0
    v.path[0] += 1
    v.counts[0] = n
    v.stamps[0, 0] = 0
    v.stamps[0, 1] = v.path[0]


@njit(cache=True)
def checked(v, a, acts, n):
    """The decision's action ``a`` as the loop plays it: -1 (it gives up) or a legal move of the position (back at
    the root: every push popped); else a fault, and -2. (Checked by the rules, not against ``acts``, which the
    decision may have written over with :func:`legal` at level 0.)"""
    if v.status[F_FAULT] != 0:
        return -2
    if v.ply[0] != 0:
        _fault(v, FAULT_UNPOPPED, a)
        return -2
    if a < 0:
        return -1
    if is_legal(v.state, v.rules, a):
        return a
    _fault(v, FAULT_ILLEGAL_MOVE, a)
    return -2


#: fault code -> what it says, for the one line the runner prints
FAULTS = {
    FAULT_ILLEGAL_PUSH: "push() was given move {move}, which the rules do not allow there",
    FAULT_DEEP_PUSH: f"push() went deeper than {MAX_PLY} moves ahead (at move {{move}})",
    FAULT_EMPTY_POP: "pop() was called with no move pushed",
    FAULT_ILLEGAL_MOVE: "it returned move {move}, which is not a legal move there",
    FAULT_UNPOPPED: "it returned (move {move}) with moves still pushed: pop() each push() before returning",
    FAULT_STALE_MOVE: "push_move() was given a move ({move}) of a list made at another position, or past the list's end",
}
