"""The planning players' rule of cards home first: how a line's positions rank, which cards go home alone.

Beam, rollout and nmcs (:mod:`.planners`) rank the positions along a line
by cards home first, then the evaluation (:func:`line_value`, :func:`score`),
and play a safe foundation move alone wherever one exists (:func:`forced`).
Kept apart so the beam (:mod:`.beam`) and the rollouts (:mod:`.rollouts`)
share them without importing each other.
"""

from __future__ import annotations

from numba import njit

from ..core.moves import FOUNDATION, N_TARGETS
from .evaluate import STUCK_PENALTY, evaluate
from .layout import R_FOUND_TO_TAB, S_BASE, S_FOUND, cards_home, moving_card
from .legal import fits

HOME_SCALE = 1000.0  #: a card home outweighs any difference of the evaluation's other terms


@njit(cache=True)
def _is_home(s, c):
    f = c // 13
    b = s[S_BASE + f]
    if b < 0:
        return False
    o = c % 13 - b
    if o < 0:
        o += 13
    return o < s[S_FOUND + f]


@njit(cache=True)
def safe_home(s, r, card):
    """May ``card`` (whose foundation move is legal) go home without loss: no card still out could ever rest on it?

    Only where foundations keep their cards and the suit's base is set (a
    first card chooses the base: never automatic).
    """
    if r[R_FOUND_TO_TAB] != 0 or s[S_BASE + card // 13] < 0:
        return False
    rc = card % 13
    for k in range(2):
        rank = (rc + 12) % 13 if k == 0 else (rc + 1) % 13
        for f in range(4):
            d = f * 13 + rank
            if fits(r, d, card) and not _is_home(s, d):
                return False
    return True


@njit(cache=True)
def line_value(v, home):
    """A position's place along a line, from its evaluation ``v`` and its ``home`` cards: cards home first.

    A position without a move keeps no stuck penalty here: cards home decide.
    """
    if v < -STUCK_PENALTY / 2:
        v += STUCK_PENALTY
    return v + HOME_SCALE * home


@njit(cache=True)
def score(s, r, w, tb, ebuf, gscratch):
    """Cards home first, then the evaluation (a won position highest): :func:`line_value` of ``s``."""
    return line_value(evaluate(s, r, w, tb, ebuf, gscratch), cards_home(s))


@njit(cache=True)
def forced(s, r, acts, n):
    """A safe foundation move among ``acts[:n]``, or -1."""
    for k in range(n):
        a = acts[k]
        if a % N_TARGETS == FOUNDATION and safe_home(s, r, moving_card(s, a)):
            return a
    return -1
