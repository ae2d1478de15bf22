"""The move-by-move face of the compiled players, and their parameters as the kernels read them.

A :class:`CompiledPlayer` calls the same decision kernel the runner's
chunks call (:func:`sim.kernels.play.choose_move`), keeping the player's
memory (the positions it has seen, the bases it aims for) between calls, so
a game played move by move from Python and the same game played inside a
chunk are identical.
"""

from __future__ import annotations

import numpy as np

from ..core.moves import Move
from ..kernels import play as play_kernel
from ..kernels import players as players_kernel
from ..kernels.params import record
from ..kernels.rng import seed_rng
from ..kernels.seen import M_TB_DONE, M_USED, remember
from .spec import PlayerChoice


def weights(params: dict[str, int | float]) -> np.ndarray:
    """The parameter record the compiled players read (:mod:`sim.kernels.params`: one field per parameter), from
    named parameters; a name that is no field (a plug-in's own parameter) is left out."""
    return record(params)


def kind_of(choice: PlayerChoice) -> int:
    """The decision kernel's kind of a compiled player."""
    return players_kernel.KINDS[choice.spec.kernel]


class CompiledPlayer:
    """A compiled player, one decision kernel call per move."""

    def __init__(self, choice: PlayerChoice, seed: int = 0, deal: int = 0):
        self.choice = choice
        self._kind = kind_of(choice)
        self._w = weights(choice.params)
        self._rng = np.zeros(1, np.uint64)
        seed_rng(self._rng, seed, deal, choice.salt)
        self._ws = players_kernel.workspace(play_kernel.capacity(choice.max_moves + 16))

    def __repr__(self) -> str:
        return f"<CompiledPlayer {self.choice.label}>"

    def choose(self, state) -> Move | None:
        if self._ws.meta[M_USED] * 2 >= len(self._ws.seen):  # a longer game than planned: grow the seen-set
            self._grow()
        a = play_kernel.choose_move(state.array, state.rules_array, self._kind, self._w, self._rng, self._ws)
        return None if a < 0 else Move.from_action(int(a))

    def _grow(self) -> None:
        ws = self._ws
        keys = ws.seen[ws.used[: ws.meta[M_USED]]]
        done = ws.meta[M_TB_DONE]
        fresh = players_kernel.workspace(2 * len(ws.seen))
        self._ws = ws = ws._replace(seen=fresh.seen, used=fresh.used, meta=fresh.meta)  # a bigger seen-set; the rest kept
        for h in keys:
            remember(ws.seen, ws.used, ws.meta, h)
        ws.meta[M_TB_DONE] = done
