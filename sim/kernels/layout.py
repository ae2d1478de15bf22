"""The shapes every kernel shares: the state array, the rules array and the undo token.

A **state** is one int8 array of ``STATE_SIZE``::

    [0:4]    cards home per suit (C D H S)
    [4:8]    base rank of each suit's foundation, -1 while unset
    [8:21]   height of each pile (13 slots; unused piles stay 0)
    [24:]    pile p's cards at 24 + p*52 + i, bottom (i=0) first; slots above the height are 0

so equal positions are equal arrays. The **rules** are one int64 array of
``RULES_SIZE`` (:func:`rules_array`), so one compiled kernel plays every
game. Moves are the action ints of :mod:`sim.core.moves` (:func:`action_source`,
:func:`action_target` and :func:`action_count` split them: the kernels' one
place for it). Playing a move returns an **undo token**: the action in bits
0-13, the card moved in bits 14-19 (of a sequence, its bottom card: the one
that lands on the target), and flags saying whether the move set the base;
decode it only through :func:`token_action` and :func:`token_card`.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

from ..core.moves import N_ACTIONS, N_ALL_ACTIONS, N_TARGETS
from ..core.rules import MAX_PILES, Rules, TableauDirection, TableauSuit

CAP = 52  #: the most cards a pile can ever hold
S_FOUND = 0
S_BASE = 4
S_HEIGHT = 8
S_CARDS = 24
STATE_SIZE = S_CARDS + MAX_PILES * CAP

# rules array fields
R_NPILES = 0
R_BASE_POLICY = 1  #: a FoundationBase value
R_FWRAP = 2
R_TDIR = 3  #: a TableauDirection value
R_TSUIT = 4  #: a TableauSuit value
R_TWRAP = 5
R_EMPTY = 6  #: an EmptyPile value
R_ACES = 7
R_DEAL_STYLE = 8  #: a DealStyle value
R_ONE_AT_A_TIME = 9
R_FOUND_TO_TAB = 10
R_RESERVES = 11
R_NTAB = 12  #: tableau piles: the piles cards can be built on (the reserves are the last piles)
R_RANK_FIT = 13  #: 1 where a card fits on exactly the piles showing the rank above it (see :func:`rules_array`)
R_SEQ = 14  #: a SequenceMoves value: 0 (the sheets) one card a move; a dialect's sequence moves otherwise
R_SIZES = 16  #: pile sizes, MAX_PILES slots
RULES_SIZE = R_SIZES + MAX_PILES

# the undo token
T_ACTION = (1 << 14) - 1  #: mask of the action
T_CARD_SHIFT = 14
T_CARD = 63  #: mask of the card, once shifted
T_SET_SHARED_BASE = 1 << 20  #: this move founded the first card: every foundation's base was set
T_SET_OWN_BASE = 1 << 21  #: this move set its own foundation's base (independent bases)
assert N_ALL_ACTIONS <= T_ACTION + 1 and T_SET_OWN_BASE < 1 << 31  # tokens live in int32 arrays (the solver's path)


def rules_array(rules: Rules) -> np.ndarray:
    """The rule fields as the int64 array the kernels read.

    ``R_RANK_FIT`` chooses the move generator's rank-lookup branch: it holds
    where the tableau builds down by one regardless of suit. It is derived
    here from the record, never set by hand, so a game cannot reach the
    branch under rules it does not handle; the agreement tests hold both
    branches to the reference engine.
    """
    r = np.zeros(RULES_SIZE, np.int64)
    r[R_NPILES] = rules.n_piles
    r[R_BASE_POLICY] = int(rules.foundation_base)
    r[R_FWRAP] = int(rules.foundation_wrap)
    r[R_TDIR] = int(rules.tableau_direction)
    r[R_TSUIT] = int(rules.tableau_suit)
    r[R_TWRAP] = int(rules.tableau_wrap)
    r[R_EMPTY] = int(rules.empty_pile)
    r[R_ACES] = int(rules.aces_preplaced)
    r[R_DEAL_STYLE] = int(rules.deal_style)
    r[R_ONE_AT_A_TIME] = int(rules.foundations_one_at_a_time)
    r[R_FOUND_TO_TAB] = int(rules.foundation_to_tableau)
    r[R_RESERVES] = rules.reserves
    r[R_NTAB] = rules.n_tableau
    r[R_RANK_FIT] = int(rules.tableau_direction == TableauDirection.DOWN and rules.tableau_suit == TableauSuit.ANY)
    r[R_SEQ] = int(rules.sequence_moves)
    r[R_SIZES : R_SIZES + rules.n_piles] = rules.pile_sizes
    unread = {f.name for f in dataclasses.fields(rules)} - _FIELDS_READ
    if unread:
        raise TypeError(f"the kernels do not read the rule field(s) {', '.join(sorted(unread))}: teach rules_array")
    return r


#: every field of :class:`~sim.core.rules.Rules`, each read above or not a rule of play:
#: a new field fails :func:`rules_array` until the kernels are taught it
_FIELDS_READ = {
    "slug", "name", "description", "aliases", "version", "pysol_name", "pile_sizes", "aces_preplaced",
    "deal_style", "foundation_base", "foundation_wrap", "tableau_direction", "tableau_suit", "tableau_wrap",
    "empty_pile", "foundations_one_at_a_time", "foundation_to_tableau", "reserves", "sequence_moves", "dialect",
}


@njit(cache=True, inline="always")
def action_source(action):
    """The source of an action: a pile (0..12) or a foundation (13..16)."""
    return (action % N_ACTIONS) // N_TARGETS


@njit(cache=True, inline="always")
def action_target(action):
    """The target of an action: a pile (0..12) or ``FOUNDATION``."""
    return action % N_TARGETS


@njit(cache=True, inline="always")
def action_count(action):
    """How many cards an action moves (1 for every action below ``N_ACTIONS``)."""
    return action // N_ACTIONS + 1


@njit(cache=True, inline="always")
def make_action(src, dst, count):
    """The action of ``count`` cards from ``src`` to ``dst``."""
    return (count - 1) * N_ACTIONS + src * N_TARGETS + dst


@njit(cache=True, inline="always")
def token_action(token):
    """The action an undo token took."""
    return token & T_ACTION


@njit(cache=True, inline="always")
def token_card(token):
    """The card an undo token moved."""
    return (token >> T_CARD_SHIFT) & T_CARD


@njit(cache=True, inline="always")
def top(s, p):
    """Pile ``p``'s top card, or -1 when it is empty."""
    h = s[S_HEIGHT + p]
    if h == 0:
        return -1
    return np.int64(s[S_CARDS + p * CAP + h - 1])


@njit(cache=True, inline="always")
def foundation_top(s, f):
    """The top card of suit ``f``'s foundation, or -1 when it is empty."""
    n = s[S_FOUND + f]
    if n == 0:
        return -1
    return np.int64(f * 13 + (s[S_BASE + f] + n - 1) % 13)


@njit(cache=True, inline="always")
def moving_card(s, action):
    """The card ``action`` moves: a pile's top card, or a foundation's (games where it comes back); of a
    sequence, its bottom card (the one placed on the target)."""
    if action >= N_ACTIONS:
        src = action_source(action)
        return np.int64(s[S_CARDS + src * CAP + s[S_HEIGHT + src] - action_count(action)])
    src = action // N_TARGETS
    if src >= MAX_PILES:
        return foundation_top(s, src - MAX_PILES)
    return top(s, src)


@njit(cache=True, inline="always")
def cards_home(s):
    return s[S_FOUND] + s[S_FOUND + 1] + s[S_FOUND + 2] + s[S_FOUND + 3]


@njit(cache=True, inline="always")
def is_won(s):
    return cards_home(s) == 52


@njit(cache=True, inline="always")
def empty_piles(s, r):
    """Empty tableau piles (reserves are not counted)."""
    n = 0
    for p in range(r[R_NTAB]):
        if s[S_HEIGHT + p] == 0:
            n += 1
    return n
