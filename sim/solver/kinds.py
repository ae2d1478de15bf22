"""The kind of a first mistake, in a word and in a phrase: what the move did that the solver says lost the deal.

The kinds (the first that fits, in this order): a base chosen so that the
rank below it is buried (``base``: Selective Castle's first foundation move,
where a move founding another rank would have kept the deal); an empty pile
filled (``empty pile``); a card sent home that the tableau still needed
(``sent home``: a foundation move where some other move would have kept the
deal); a card due home covered (``covered a card due home``: the move lands
on a pile holding, buried, the card its foundation takes next); a built run
broken (``broke a built run``: the card moved rested on the card one rank
above it); a low card covered (``covered a low card``: the pile holds a card
its foundation takes within the next three); and ``other``. The kinds
describe the move; the verdict that it lost the deal is the solver's. The
``mistakes`` player's rows (:mod:`.mistakes`) and ``castle play --review``
(:mod:`.review`) both classify by :func:`kind`.
"""

from __future__ import annotations

import numpy as np

from ..core.cards import make_card, rank_of
from ..core.moves import FOUNDATION, Move
from ..game import State
from ..kernels import layout

KINDS = ("base", "empty pile", "sent home", "covered a card due home", "broke a built run", "covered a low card", "other")
LOW = 3  #: a low card: one its foundation takes within this many cards


def kind(state: State, move: Move, alternatives: list[Move]) -> str:
    """The kind of a first mistake (see the module's docstring) at the position ``state`` before it."""
    s = state.array
    src, dst, count = move.source, move.target, move.count
    foundation = dst == FOUNDATION
    if foundation and int(s[layout.S_BASE]) < 0 and any(a.target == FOUNDATION for a in alternatives):
        return "base"
    if not foundation and int(s[layout.S_HEIGHT + dst]) == 0:
        return "empty pile"
    if foundation:
        return "sent home"
    h = int(s[layout.S_HEIGHT + dst])
    under = [int(s[layout.S_CARDS + dst * layout.CAP + i]) for i in range(h)]
    if any(c in _due(s, 1) for c in under):
        return "covered a card due home"
    hs = int(s[layout.S_HEIGHT + src]) if src < FOUNDATION else 0
    if hs >= count + 1:
        moved, below = int(s[layout.S_CARDS + src * layout.CAP + hs - count]), int(s[layout.S_CARDS + src * layout.CAP + hs - count - 1])
        if rank_of(below) == rank_of(moved) + 1:
            return "broke a built run"
    if any(c in _due(s, LOW) for c in under):
        return "covered a low card"
    return "other"


def _due(s: np.ndarray, within: int) -> set[int]:
    """The cards the foundations take within the next ``within`` (for a shared base not chosen yet: none)."""
    due = set()
    for f in range(4):
        base = int(s[layout.S_BASE + f])
        if base < 0:
            continue
        n = int(s[layout.S_FOUND + f])
        due |= {make_card((base + n + k) % 13, f) for k in range(within) if n + k < 13}
    return due


#: each kind as a reason: "the move lost the deal: it ..."
WHY = {
    "base": "it founded a base whose rank below is buried",
    "empty pile": "it filled an empty pile",
    "sent home": "it sent home a card the tableau still needed",
    "covered a card due home": "it covered a card due home next",
    "broke a built run": "it broke a built run",
    "covered a low card": "it covered a low card (due home within three)",
    "other": "none of the kinds the report names fits it (the solver alone says it lost)",
}
