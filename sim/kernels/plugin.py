"""The kit of compiled functions a plug-in player's decision calls on what it sees (:mod:`.view`).

A researcher's compiled player is one numba function ``decide(v, moves, n)``
that returns the action it plays from the position in ``v``, whose ``n``
legal actions are ``moves[:n]`` (-1 gives up). The chunk loop
(:func:`sim.kernels.play.play_chunk_with`) calls it through a function
pointer of the one signature :data:`DECIDE`, so the loop is compiled, and
cached, once for every plug-in, and a plug-in's own ``cache=True`` keeps
its compiled code between runs.

``v`` is a named tuple of small arrays, handed over without their reference
counts (:mod:`.unowned`), and the kit's functions are inlined into the decision
that calls them (numba's ``inline="always"``): a call costs what its body costs,
not a copy of the view nor a count taken and dropped on each array it reads. A decision reads the view only through
the functions below (its fields may change; these names will not):
:func:`push` and :func:`pop` play a move and take it back, keeping the
position's hash; :func:`seen` says whether the game has already passed
through the position; :func:`score` is the built-in players' evaluation.
:func:`push` refuses a move the rules do not allow (it returns False and
marks the view: the loop then stops the deal with an error naming the
move), so a decision's look-ahead can never corrupt the position.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.moves import FOUNDATION, MAX_MOVES, N_TARGETS
from .evaluate import card_depths, choose_target_bases, evaluate
from .hashing import apply_keyed, undo_keyed
from .layout import (CAP, R_NPILES, R_NTAB, S_BASE, S_CARDS, S_HEIGHT, action_count, action_source, cards_home as _home,
                     empty_piles as _empty, is_won as _won, moving_card, top)
from .legal import is_legal, legal_actions
from .rng import rand_below as _rand_below, rand_unit
from .seen import key, seen as _seen
from .view import (B_COUNT, B_NEXT, B_NODE, B_PLY, B_STAMP, B_UNDO, BOOK_SIZE, DECIDE, DECIDE_FN, F_ACTION, F_AT,  # noqa: F401
                   F_FAULT, F_PLAYED, FAULT_DEEP_PUSH, FAULT_EMPTY_POP, FAULT_ILLEGAL_MOVE, FAULT_ILLEGAL_PUSH,
                   FAULT_STALE_MOVE, FAULT_UNPOPPED, MAX_PLY, N_MEMORY, N_PARAMS, OWNED_VIEW, VIEW, View, new_view)



# -- moves ----------------------------------------------------------------------------------------------------
# Look-ahead in levels: ``legal(v, level)`` lists the moves of the position at hand into that level's list (the
# decision's own ``moves`` are level 0's), stamped with the node it was made at (every position the look-ahead
# reaches is a new node); ``push_move(v, level, k)`` plays the k-th of them after an O(1) check of that stamp (the
# list is of this very position), where ``push(v, a)`` checks any action against the rules (a third of a
# look-ahead's time in a leaf).
@njit(cache=True, inline="always")
def _played(v, book, d, a):
    book[B_UNDO + d] = apply_keyed(v.state, v.rules, v.keys, a)
    book[B_PLY] = d + 1
    node = book[B_NEXT] + 1
    book[B_NEXT] = node
    book[B_NODE + d + 1] = node  # a new node: lists made at the one left behind at this depth go stale


@njit(cache=True, inline="always")
def push(v, a):
    """Play action ``a`` from the view's position (keeping its hash); False, and nothing played, if the rules forbid it."""
    book = v.book
    d = book[B_PLY]
    if d >= MAX_PLY:
        _fault(book, FAULT_DEEP_PUSH, a)
        return False
    if not is_legal(v.state, v.rules, a):
        _fault(book, FAULT_ILLEGAL_PUSH, a)
        return False
    _played(v, book, d, a)
    return True


@njit(cache=True, inline="always")
def push_move(v, level, k):
    """Play the ``k``-th move of ``level``'s list (:func:`legal`; level 0: the decision's own ``moves``), which must
    be a list of this very position; False, and nothing played, if it is not."""
    book = v.book
    d = book[B_PLY]
    if np.uint64(level) > np.uint64(MAX_PLY) or np.uint64(k) >= np.uint64(book[B_COUNT + level]) or book[B_STAMP + level] != book[B_NODE + d] \
            or d >= MAX_PLY:
        _refused(book, v.moves, level, k)
        return False
    _played(v, book, d, v.moves[level, k])
    return True


@njit(cache=True)
def _refused(book, moves, level, k):
    """Why push_move() refused (a call that is not given the whole view: passing it costs the push even when
    nothing is refused)."""
    if level < 0 or level > MAX_PLY or k < 0 or k >= MAX_MOVES:
        _fault(book, FAULT_STALE_MOVE, -1)
    elif book[B_PLY] >= MAX_PLY and k < book[B_COUNT + level] and book[B_STAMP + level] == book[B_NODE + book[B_PLY]]:
        _fault(book, FAULT_DEEP_PUSH, moves[level, k])
    else:
        _fault(book, FAULT_STALE_MOVE, moves[level, k])


@njit(cache=True, inline="always")
def pop(v):
    """Take back the last move :func:`push` or :func:`push_move` played."""
    book = v.book
    d = book[B_PLY] - 1
    if d < 0:
        _fault(book, FAULT_EMPTY_POP, -1)
        return
    book[B_PLY] = d
    undo_keyed(v.state, v.rules, v.keys, book[B_UNDO + d])


@njit(cache=True, inline="always")
def ply(v):
    """How many moves :func:`push` has played ahead of the real position."""
    return v.book[B_PLY]


@njit(cache=True, inline="always")
def legal(v, level):
    """List the legal moves of the view's position as ``level``'s list (0 to ``MAX_PLY``; one list a level of your
    look-ahead, so levels do not overwrite each other), ascending; their number. Read them with :func:`move`."""
    n = legal_actions(v.state, v.rules, v.moves[level], v.scratch)
    book = v.book
    book[B_COUNT + level] = n
    book[B_STAMP + level] = book[B_NODE + book[B_PLY]]
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
    return evaluate(v.state, v.rules, v.weights[0], v.bases, v.evalbuf, v.scratch)


@njit(cache=True, inline="always")
def aim_bases(v):
    """Aim the evaluation at the base rank whose four cards lie shallowest (games that choose their base)."""
    choose_target_bases(v.state, v.rules, v.bases, v.depths)


@njit(cache=True, inline="always")
def moves_played(v):
    """Moves played so far in this deal (0 at its first decision)."""
    return v.book[F_PLAYED]


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
@njit(cache=True, inline="always")
def _fault(book, code, a):
    if book[F_FAULT] == 0:
        book[F_FAULT] = code
        book[F_ACTION] = a


@njit(cache=True)
def deciding(v, n):
    """Before a decision: its ``n`` legal moves (in ``v.moves[0]``) are level 0's list, of a new root position."""
    book = v.book
    book[B_PLY] = 0
    node = book[B_NEXT] + 1
    book[B_NEXT] = node
    book[B_NODE] = node
    book[B_COUNT] = n
    book[B_STAMP] = node


@njit(cache=True)
def start_book(book, at):
    """At a deal's start (the ``at``-th of its chunk): no fault, no move played (node numbers go on rising)."""
    book[F_FAULT] = 0
    book[F_ACTION] = 0
    book[F_PLAYED] = 0
    book[F_AT] = at
    book[B_PLY] = 0


@njit(cache=True)
def checked(v, a, acts, n):
    """The decision's action ``a`` as the loop plays it: -1 (it gives up) or a legal move of the position (back at
    the root: every push popped); else a fault, and -2. (Checked by the rules, not against ``acts``, which the
    decision may have written over with :func:`legal` at level 0.)"""
    book = v.book
    if book[F_FAULT] != 0:
        return -2
    if book[B_PLY] != 0:
        _fault(book, FAULT_UNPOPPED, a)
        return -2
    if a < 0:
        return -1
    if is_legal(v.state, v.rules, a):
        return a
    _fault(book, FAULT_ILLEGAL_MOVE, a)
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
