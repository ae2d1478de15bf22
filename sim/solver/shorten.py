"""Shorter winning lines, through the same positions (the kernel is :mod:`sim.kernels.shorten`)."""

from __future__ import annotations

import numpy as np

from ..game import Game
from ..core.moves import Move
from ..core.rules import SequenceMoves
from ..kernels.shorten import shorten

SHORTEN_DEPTH = 3  #: how many moves ahead a shortcut may look for a later position of the line
#: ...in a dialect that moves sequences, where a position has several times more moves (the look-ahead
#: costs moves^depth a position: three moves deep took minutes on PySol's Selective Castle)
SEQUENCE_SHORTEN_DEPTH = 2
SHORTEN_PASSES = 4  #: passes at most (each pass starts from the previous one's line)


def shorten_line(game: Game, s: np.ndarray, moves: list[Move], depth: int | None = None) -> list[Move]:
    """A shorter winning line: shortcuts of up to ``depth`` moves onto later positions of the line, in passes.

    ``depth`` defaults to :data:`SHORTEN_DEPTH`, or :data:`SEQUENCE_SHORTEN_DEPTH` in a dialect that moves
    sequences. Sound by construction (every move is generated legal from the position
    reached, and the solver replays the result in both engines); not optimal.
    """
    if depth is None:
        depth = SHORTEN_DEPTH if game.rules.sequence_moves == SequenceMoves.ONE_CARD else SEQUENCE_SHORTEN_DEPTH
    actions = np.array([m.action for m in moves], np.int64)
    for _ in range(SHORTEN_PASSES):
        out = np.empty(max(len(actions), 1), np.int64)
        n = int(shorten(s.copy(), game.rules_array, actions, len(actions), depth, out))
        if n < 0 or n >= len(actions):
            break
        actions = out[:n]
    return [Move.from_action(int(a)) for a in actions]
