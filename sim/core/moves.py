"""One move encoding for engine, players, solver and replays.

A move takes the top card of a *source* to a *target*. Sources are the
tableau piles (0..12) and, for games that allow it, the four foundations
(13..16, by suit); targets are the piles (0..12) and the foundations (13:
the card goes to its own suit's foundation). The action int is
``source * N_TARGETS + target`` over a fixed space of ``N_ACTIONS`` that is
the same for every game, so compiled code is compiled once.

Text form: piles are numbered from 1, the foundation is ``F`` (as a source,
``F`` and the suit letter):

>>> Move.from_str("3-F")
Move(2, 13)
>>> str(Move(0, 7))
'1-8'
>>> Move.from_action(Move(4, 13).action)
Move(4, 13)
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import SUITS
from .rules import MAX_PILES

N_SOURCES = MAX_PILES + 4
N_TARGETS = MAX_PILES + 1
N_ACTIONS = N_SOURCES * N_TARGETS
FOUNDATION = MAX_PILES  #: the target index meaning "to its foundation"


class MoveError(ValueError):
    """Text that is not a move."""


class IllegalMoveError(ValueError):
    """A move the rules do not allow in that position; the message says which and why."""


@dataclass(frozen=True, slots=True)
class Move:
    """Top card of ``source`` to ``target`` (0-based indexes, see module doc)."""

    source: int
    target: int

    def __post_init__(self) -> None:
        if not (0 <= self.source < N_SOURCES and 0 <= self.target < N_TARGETS):
            raise MoveError(f"no move from {self.source} to {self.target}")

    @property
    def action(self) -> int:
        """The move as one int of the fixed action space."""
        return self.source * N_TARGETS + self.target

    @classmethod
    def from_action(cls, action: int) -> Move:
        if not 0 <= action < N_ACTIONS:
            raise MoveError(f"no action {action}")
        return cls(*divmod(int(action), N_TARGETS))

    @property
    def to_foundation(self) -> bool:
        return self.target == FOUNDATION

    @property
    def from_foundation(self) -> bool:
        return self.source >= MAX_PILES

    @classmethod
    def from_str(cls, text: str) -> Move:
        """Parse ``"3-F"``, ``"1-8"`` or ``"FH-2"``."""
        parts = text.strip().upper().split("-")
        if len(parts) != 2:
            raise MoveError(f"not a move: {text!r} (expected e.g. 3-F or 1-8)")
        src, dst = parts
        try:
            if src.startswith("F") and len(src) == 2 and src[1] in SUITS:
                source = MAX_PILES + SUITS.index(src[1])
            else:
                source = int(src) - 1
                if not 0 <= source < MAX_PILES:
                    raise ValueError
            target = FOUNDATION if dst == "F" else int(dst) - 1
            if not 0 <= target <= FOUNDATION:
                raise ValueError
        except ValueError:
            raise MoveError(f"not a move: {text!r} (expected e.g. 3-F or 1-8)") from None
        return cls(source, target)

    def __str__(self) -> str:
        src = (
            f"F{SUITS[self.source - MAX_PILES]}"
            if self.source >= MAX_PILES
            else str(self.source + 1)
        )
        dst = "F" if self.target == FOUNDATION else str(self.target + 1)
        return f"{src}-{dst}"

    def __repr__(self) -> str:
        return f"Move({self.source}, {self.target})"
