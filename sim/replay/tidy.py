"""A solver's winning line made shorter for a person to read: display only.

Why this exists: the solver stops at the first win it finds, and its own
shortening (:mod:`sim.solver.shorten`) only cuts loops that come back to a
position of the line within a few moves. A won line of 100-300 moves still
holds shuffles a reader trips over, e.g. Selective Castle deal 746 (seed 0),
where the 2♠ goes from pile 2 to pile 1 and, much later, back from 1 to 2.

:func:`tidy_line` removes such moves for the replay page only. The solver's
result rows, its line and its kernels are untouched: this runs after the
game has been played, on a copy of the line, and the page says that it shows
a tidied line and how long the solver's own line was.

The pass, from the end of the line to its start, at each move ``i`` tries:

* deleting ``i`` together with a later move of the same card (the pair that
  takes a card somewhere and later back);
* deleting ``i`` alone;
* merging ``i`` into a later move of the same card (delete ``i``, and the
  later move takes the card straight from ``i``'s source);

and keeps the first change after which the rest of the line is still legal,
move by move, in the compiled engine and still ends with all 52 cards home.
Passes repeat until none changes the line. Moves name piles, not cards, so
every candidate is checked by replaying it; nothing is assumed.

>>> from sim.game import Game
>>> state = Game("streets-and-alleys").deal(17)
>>> tidy_line(state, [])  # not a win: returned as it is
[]
"""

from __future__ import annotations

import numpy as np

from ..core.cards import make_card
from ..game import State
from ..core.moves import Move, make_action, split_action
from ..core.rules import MAX_PILES
from ..kernels import apply_undo
from ..kernels import legal as legal_kernel
from ..kernels import layout

__all__ = ["tidy_line"]

MAX_PASSES = 20  #: passes at most (each one that changes nothing ends it; in practice 2-4)
MAX_LATER = 6  #: later moves of the same card tried as a move's partner


def tidy_line(start: State, moves: list[Move]) -> list[Move]:
    """A line no longer than ``moves`` that is legal from ``start`` and wins (``start`` is not changed).

    ``moves`` must be a winning line from ``start``; anything else (an illegal
    line, one that does not end won) is returned unchanged.
    """
    r = start.rules_array
    acts = [m.action for m in moves]
    first = start.array.copy()
    cards = _walk(first, r, acts)
    if cards is None:
        return list(moves)
    for _ in range(MAX_PASSES):
        snaps = _snapshots(first, r, acts)
        changed = False
        i = len(acts) - 1
        while i >= 0:
            new = _improve(snaps[i], r, acts, cards, i)
            if new is None:
                i -= 1
                continue
            suffix, suffix_cards = new
            acts = acts[:i] + suffix
            cards = cards[:i] + suffix_cards
            changed = True
            i = min(i, len(acts) - 1)  # the move now at i is another one: try it too
        if not changed:
            break
    return [Move.from_action(a) for a in acts]


def _improve(s: np.ndarray, r: np.ndarray, acts: list[int], cards: list[int], i: int):
    """The first shorter rest of the line from move ``i`` (state ``s`` before it) that still wins, or None."""
    card = cards[i]
    src_i = split_action(acts[i])[0]
    later = [j for j in range(i + 1, len(acts)) if cards[j] == card][:MAX_LATER]
    rest = acts[i + 1 :]
    candidates = []
    for j in later:  # a card taken somewhere and later on: drop both moves
        k = j - i - 1
        candidates.append(rest[:k] + rest[k + 1 :])
    candidates.append(rest)  # drop move i
    for j in later:  # the later move takes the card straight from where move i found it
        _, dst_j, count_j = split_action(acts[j])
        if dst_j == src_i or (src_i >= MAX_PILES and dst_j == MAX_PILES):
            continue  # back where it was: the pair above; foundation to foundation is no move
        merged = make_action(src_i, dst_j, count_j)
        if count_j > 1 and src_i >= MAX_PILES:
            continue  # sequences move pile to pile only
        k = j - i - 1
        candidates.append(rest[:k] + [merged] + rest[k + 1 :])
    for suffix in candidates:
        suffix_cards = _walk(s, r, suffix)
        if suffix_cards is not None:
            return suffix, suffix_cards
    return None


def _moved_card(s: np.ndarray, action: int) -> int:
    """The card ``action`` takes in ``s`` (of a sequence, its bottom card), ``-1`` if none."""
    src, _, count = split_action(action)
    if src >= MAX_PILES:
        f = src - MAX_PILES
        n = int(s[layout.S_FOUND + f])
        if n == 0:
            return -1
        base = int(s[layout.S_BASE + f])
        if base < 0:
            base = max(int(b) for b in s[layout.S_BASE : layout.S_BASE + 4])
        return make_card((base + n - 1) % 13, f)
    h = int(s[layout.S_HEIGHT + src])
    return int(s[layout.S_CARDS + src * layout.CAP + h - count]) if h >= count else -1


def _walk(s0: np.ndarray, r: np.ndarray, acts: list[int]) -> list[int] | None:
    """The card of each move if ``acts`` is legal from ``s0`` and ends won, else None (``s0`` is not changed)."""
    s = s0.copy()
    cards = []
    for a in acts:
        if not legal_kernel.is_legal(s, r, a):
            return None
        cards.append(_moved_card(s, a))
        apply_undo.apply(s, r, a)
    return cards if int(s[layout.S_FOUND : layout.S_FOUND + 4].sum()) == 52 else None


def _snapshots(s0: np.ndarray, r: np.ndarray, acts: list[int]) -> list[np.ndarray]:
    """The state before each move of a legal line."""
    s = s0.copy()
    out = []
    for a in acts:
        out.append(s.copy())
        apply_undo.apply(s, r, a)
    return out

