"""The view a compiled plug-in's decision is given: its arrays, its bookkeeping, and the one signature it has.

The loop owns the view's arrays and hands the decision the same arrays as
arrays numba keeps no reference count of (:func:`.unowned.uncounted`): in a
look-ahead that reads the view at every push, pop and score, counting them
was more than half of all its time.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import typeof, types

from ..core.moves import MAX_MOVES
from .params import PARAMS
from .hashing import PH_SIZE
from .layout import RULES_SIZE, STATE_SIZE
from .legal import SCRATCH_SIZE
from .seen import META_SIZE
from .unowned import uncounted_type

MAX_PLY = 32  #: moves a decision may look ahead with :func:`push` before it must :func:`pop`
N_PARAMS = 16  #: a plug-in's own parameters, ``v.params[0]`` ... in the order it declares them
N_MEMORY = 64  #: ``v.memory``: float64 slots a decision may keep between its moves of one deal (zero at each deal's start)

# v.book: the look-ahead's bookkeeping and what the loop reads back, in one array
F_FAULT = 0  #: a fault code (FAULT_*), 0 while none
F_ACTION = 1  #: the action the fault is about
F_PLAYED = 2  #: moves played so far in this deal (kept by the loop)
F_AT = 3  #: the deal's index in the chunk being played (kept by the loop)
B_PLY = 4  #: moves pushed ahead of the real position
B_NEXT = 5  #: the last node number given: every position the look-ahead reaches is a new node
B_NODE = 6  #: B_NODE + d: the node at depth d of the look-ahead now
B_COUNT = B_NODE + MAX_PLY + 1  #: B_COUNT + level: moves in that level's list
B_STAMP = B_COUNT + MAX_PLY + 1  #: B_STAMP + level: the node that list was made at
B_UNDO = B_STAMP + MAX_PLY + 1  #: B_UNDO + d: the token that takes back the move pushed from depth d
BOOK_SIZE = B_UNDO + MAX_PLY
FAULT_ILLEGAL_PUSH = 1  #: push() was given a move the rules do not allow
FAULT_DEEP_PUSH = 2  #: push() beyond MAX_PLY moves ahead
FAULT_EMPTY_POP = 3  #: pop() with nothing pushed
FAULT_ILLEGAL_MOVE = 4  #: the decision returned a move that is not among the legal ones
FAULT_UNPOPPED = 5  #: the decision returned with moves still pushed
FAULT_STALE_MOVE = 6  #: push_move() of a list made at another position (or past its end)

View = namedtuple("View", ["state", "rules", "keys", "table", "used", "meta", "rng", "params", "weights", "bases",
                           "moves", "book", "scratch", "evalbuf", "depths", "memory"])


def new_view(rules: np.ndarray, capacity: int, params: np.ndarray | None = None, weights: np.ndarray | None = None) -> View:
    """A view with its buffers: ``capacity`` slots of seen positions (:func:`sim.kernels.seen.capacity`)."""
    p = np.zeros(N_PARAMS, np.float64)
    if params is not None:
        p[: len(params)] = params
    w = np.zeros(1, PARAMS) if weights is None else np.ascontiguousarray(weights, PARAMS)
    return View(np.zeros(STATE_SIZE, np.int8), np.ascontiguousarray(rules, np.int64), np.zeros(PH_SIZE, np.uint64),
                np.zeros(capacity, np.uint64), np.zeros(capacity, np.int64), np.zeros(META_SIZE, np.int64),
                np.zeros(1, np.uint64), p, w, np.full(4, -1, np.int64), np.zeros((MAX_PLY + 1, MAX_MOVES), np.int64), new_book(),
                np.zeros(SCRATCH_SIZE, np.int64), np.zeros(MAX_MOVES, np.int64), np.zeros(52, np.int64),
                np.zeros(N_MEMORY, np.float64))


def new_book() -> np.ndarray:
    book = np.zeros(BOOK_SIZE, np.int64)
    book[B_STAMP:B_UNDO] = -1  # (no list made yet: no node is numbered -1)
    return book


OWNED_VIEW = typeof(new_view(np.zeros(RULES_SIZE, np.int64), 4))  #: the view's numba type, as the loop holds it
#: as the decision is given it: its arrays :class:`.unowned.Uncounted`
VIEW = uncounted_type(OWNED_VIEW)
#: the one signature of a compiled plug-in's decision: ``decide(v, moves, n) -> action``
DECIDE = types.int64(VIEW, types.Array(types.int64, 1, "C"), types.int64)
DECIDE_FN = types.FunctionType(DECIDE)
