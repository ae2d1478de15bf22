"""One move encoding for engine, players, solver and replays.

A move takes the top card of a *source* to a *target*. Sources are the
tableau piles (0..12) and, for games that allow it, the four foundations
(13..16, by suit); targets are the piles (0..12) and the foundations (13:
the card goes to its own suit's foundation). The action int is
``source * N_TARGETS + target`` over a fixed space of ``N_ACTIONS`` that is
the same for every game, so compiled code is compiled once.

In a dialect that moves sequences (:class:`~sim.core.rules.SequenceMoves`)
a move also carries a card ``count``: the top ``count`` cards of a pile go
to another pile together. Its action is ``(count - 1) * N_ACTIONS + source
* N_TARGETS + target``, above every one-card action, so one-card moves keep
their ints and legal moves listed by ascending action put the sequences
last. :func:`split_action` and :func:`make_action` are the one place that
knows it in Python (``sim.kernels.layout`` in the kernels). Since
``N_ACTIONS`` is a multiple of ``N_TARGETS``, ``action % N_TARGETS`` is the
target of any move.

Text form: piles are numbered from 1, the foundation is ``F`` (as a source,
``F`` and the suit letter); a sequence adds ``x`` and its count:

>>> Move.from_str("3-F")
Move(2, 13)
>>> str(Move(0, 7))
'1-8'
>>> Move.from_action(Move(4, 13).action)
Move(4, 13)
>>> Move.from_str("3-5x4"), str(Move(2, 4, 4)), Move(2, 4, 4).action
(Move(2, 4, 4), '3-5x4', 746)
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

from .cards import SUITS
from .rules import MAX_PILES

N_SOURCES = MAX_PILES + 4
N_TARGETS = MAX_PILES + 1
N_ACTIONS = N_SOURCES * N_TARGETS  #: the one-card moves' action space
FOUNDATION = MAX_PILES  #: the target index meaning "to its foundation"
MAX_COUNT = 52  #: the most cards one move can carry (a pile's capacity: with tableau wrap a run can hold all 52)
N_ALL_ACTIONS = MAX_COUNT * N_ACTIONS  #: the whole action space, sequence moves included
#: The most legal moves a position can have, sequence moves included (the size of every move buffer).
#: One-card moves are at most ``N_ACTIONS``. A pile whose top run is L cards long moves 2..L of them, so the
#: pairs (source, count >= 2) number at most the 52 cards, each to at most ``MAX_PILES - 1`` other piles.
MAX_MOVES = N_ACTIONS + MAX_COUNT * (MAX_PILES - 1)


def make_action(source: int, target: int, count: int = 1) -> int:
    """The action int of ``count`` cards from ``source`` to ``target``."""
    return (count - 1) * N_ACTIONS + source * N_TARGETS + target


def split_action(action: int) -> tuple[int, int, int]:
    """``(source, target, count)`` of an action int (see the module doc)."""
    rest, target = divmod(int(action), N_TARGETS)
    count_less_one, source = divmod(rest, N_SOURCES)
    return source, target, count_less_one + 1


_MOVES: dict[int, "Move"] = {}


def to_foundation(action: int) -> bool:
    """Does ``action`` put a card on its foundation? (A Python player's cheap test, as ``kit.to_foundation``.)"""
    return action % N_TARGETS == FOUNDATION


class MoveError(ValueError):
    """Text that is not a move."""


class IllegalMoveError(ValueError):
    """A move the rules do not allow in that position; the message says which and why."""


@dataclass(frozen=True, slots=True)
class Move:
    """Top ``count`` cards of ``source`` to ``target`` (0-based indexes, see module doc)."""

    source: int
    target: int
    count: int = 1  #: cards carried: more than one only in a dialect that moves sequences, pile to pile

    def __post_init__(self) -> None:
        for value in (self.source, self.target, self.count):
            if type(value) is not int and (isinstance(value, bool) or not isinstance(value, numbers.Integral)):
                raise MoveError(f"a move's source, target and count are whole numbers, not {value!r}")
        if not (0 <= self.source < N_SOURCES and 0 <= self.target < N_TARGETS):
            raise MoveError(f"no move from {self.source} to {self.target}")
        if not 1 <= self.count <= MAX_COUNT:
            raise MoveError(f"no move of {self.count} cards")
        if self.count > 1 and (self.source >= MAX_PILES or self.target == FOUNDATION):
            raise MoveError("a sequence moves from a pile to a pile")

    @property
    def action(self) -> int:
        """The move as one int of the fixed action space."""
        return make_action(self.source, self.target, self.count)

    @classmethod
    def from_action(cls, action: int) -> Move:
        known = _MOVES.get(action) if type(action) is int else None
        if known is not None:
            return known
        if type(action) is not int and (isinstance(action, bool) or not isinstance(action, numbers.Integral)):
            raise MoveError(f"no action {action!r} (an action is a whole number)")
        if not 0 <= action < N_ALL_ACTIONS:
            raise MoveError(f"no action {action}")
        source, target, count = split_action(action)
        move = cls(source, target, count)
        if cls is Move:
            _MOVES[int(action)] = move  # a Move is a value: one object per action serves every game
        return move

    @property
    def to_foundation(self) -> bool:
        return self.target == FOUNDATION

    @property
    def from_foundation(self) -> bool:
        return self.source >= MAX_PILES

    @classmethod
    def from_str(cls, text: str) -> Move:
        """Parse ``"3-F"``, ``"1-8"``, ``"FH-2"`` or ``"3-5x4"`` (four cards)."""
        if not isinstance(text, str):
            raise MoveError(f"not a move: {text!r} (expected text such as 3-F or 1-8)")
        if not text.isascii():  # int() would read other scripts' digits ("３-F")
            raise MoveError(f"not a move: {text!r} (expected e.g. 3-F or 1-8)")
        parts = text.strip().upper().split("-")
        if len(parts) != 2:
            raise MoveError(f"not a move: {text!r} (expected e.g. 3-F or 1-8)")
        src, dst = parts
        count = 1
        if "X" in dst:
            dst, _, n = dst.partition("X")
            if not n.isdigit() or not 1 <= int(n) <= MAX_COUNT:
                raise MoveError(f"not a move: {text!r} (a sequence is written e.g. 3-5x4)")
            count = int(n)
        try:
            if not (dst == "F" or dst.isdigit()):  # no signs, spaces or underscores
                raise ValueError
            if src.startswith("F") and len(src) == 2 and src[1] in SUITS:
                source = MAX_PILES + SUITS.index(src[1])
            else:
                if not src.isdigit():
                    raise ValueError
                source = int(src) - 1
                if not 0 <= source < MAX_PILES:
                    raise ValueError
            target = FOUNDATION if dst == "F" else int(dst) - 1
            if not 0 <= target <= FOUNDATION:
                raise ValueError
        except ValueError:
            raise MoveError(f"not a move: {text!r} (expected e.g. 3-F or 1-8)") from None
        return cls(source, target, count)

    def __str__(self) -> str:
        src = (
            f"F{SUITS[self.source - MAX_PILES]}"
            if self.source >= MAX_PILES
            else str(self.source + 1)
        )
        dst = "F" if self.target == FOUNDATION else str(self.target + 1)
        return f"{src}-{dst}" if self.count == 1 else f"{src}-{dst}x{self.count}"

    def __repr__(self) -> str:
        return f"Move({self.source}, {self.target})" if self.count == 1 else f"Move({self.source}, {self.target}, {self.count})"
