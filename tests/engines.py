"""Two engines behind one interface, so every rule test runs against both.

The reference engine (``sim.core.reference``, plain Python) and the compiled one
(``sim.game``, numba) were written separately from the same rule sheets;
a test that passes on one and fails on the other has found a mistake in one
of them.
"""

from __future__ import annotations

from sim.core.board import Position
from sim.core.moves import Move
from sim.core.rules import (
    SELECTIVE_CASTLE,
    SELECTIVE_CASTLE_INDEPENDENT,
    STREETS_AND_ALLEYS,
    Rules,
)


class ReferenceEngine:
    """``sim.core.reference``: the rule sheet in plain Python."""

    name = "reference"

    def __init__(self) -> None:
        from sim.core import reference

        self._ref = reference
        self.IllegalMoveError = reference.IllegalMoveError

    def legal(self, rules: Rules, pos: Position) -> set[Move]:
        return set(self._ref.legal_moves(rules, pos))

    def play(self, rules: Rules, pos: Position, move: Move) -> Position:
        return self._ref.play(rules, pos, move)

    def is_won(self, pos: Position, rules: Rules | None = None) -> bool:
        return self._ref.is_won(pos)


class CompiledEngine:
    """``sim.game.State``: the compiled engine, through its Python API."""

    name = "compiled"

    def __init__(self) -> None:
        from sim import game

        self._State = game.State
        self.IllegalMoveError = game.IllegalMoveError

    def legal(self, rules: Rules, pos: Position) -> set[Move]:
        return set(self._State.from_position(rules, pos).legal_moves)

    def play(self, rules: Rules, pos: Position, move: Move) -> Position:
        state = self._State.from_position(rules, pos)
        state.push(move)
        return state.position()

    def is_won(self, pos: Position, rules: Rules | None = None) -> bool:
        """Won-ness does not depend on the game, but a State needs one: pick one that fits ``pos``."""
        return self._State.from_position(rules or game_fitting(pos), pos).is_won()


def game_fitting(pos: Position) -> Rules:
    """A registered game whose foundation rule can hold ``pos``'s bases."""
    if all(b == 0 for b in pos.bases):
        return STREETS_AND_ALLEYS
    if len(set(pos.bases)) == 1:
        return SELECTIVE_CASTLE
    return SELECTIVE_CASTLE_INDEPENDENT


ENGINES = {"reference": ReferenceEngine, "compiled": CompiledEngine}
