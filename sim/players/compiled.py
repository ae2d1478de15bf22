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
from ..kernels import evaluate as V
from ..kernels import play as P
from ..kernels import players as K
from ..kernels.rng import seed_rng
from ..kernels.seen import M_TB_DONE, M_USED, remember
from .spec import PlayerChoice

#: parameter name -> slot of the float64 array the compiled players read
SLOTS = {
    "home": V.W_HOME,
    "empty": V.W_EMPTY,
    "dig": V.W_DEPTH,
    "block": V.W_BLOCK,
    "seq": V.W_SEQ,
    "balance": V.W_BALANCE,
    "wrap": V.W_WRAP,
    "depth": V.P_DEPTH,
    "width": V.P_WIDTH,
    "keep_empty": V.P_KEEP_EMPTY,
    "choose_base": V.P_CHOOSE_BASE,
    "mobility": V.W_MOBILITY,
    "budget": V.P_BUDGET,
    "level": V.P_LEVEL,
    "max_moves": V.P_MAX_MOVES,
    "noise": V.P_NOISE,
    "grow": V.P_GROW,
    "patience": V.P_PATIENCE,
    "last": V.W_LAST,
    "even": V.P_EVEN,
    "spread": V.P_SPREAD,
}


def weights(params: dict[str, int | float]) -> np.ndarray:
    """The float64 parameter array the compiled players read, from named parameters."""
    w = np.zeros(V.N_WEIGHTS, np.float64)
    w[V.P_DEPTH] = 1
    for k, v in params.items():
        if k in SLOTS:
            w[SLOTS[k]] = v
    return w


def kind_of(choice: PlayerChoice) -> int:
    """The decision kernel's kind of a compiled player."""
    return K.KINDS[choice.spec.kernel]


class CompiledPlayer:
    """A compiled player, one decision kernel call per move."""

    def __init__(self, choice: PlayerChoice, seed: int = 0, deal: int = 0):
        self.choice = choice
        self._kind = kind_of(choice)
        self._w = weights(choice.params)
        self._rng = np.zeros(1, np.uint64)
        seed_rng(self._rng, seed, deal, choice.spec.salt)
        self._ws = K.workspace(P.capacity(choice.max_moves + 16))

    def __repr__(self) -> str:
        return f"<CompiledPlayer {self.choice.label}>"

    def choose(self, state) -> Move | None:
        if self._ws[K.WS_META][M_USED] * 2 >= len(self._ws[K.WS_SEEN]):  # a longer game than planned: grow the seen-set
            self._grow()
        a = P.choose_move(state.array, state.rules_array, self._kind, self._w, self._rng, self._ws)
        return None if a < 0 else Move.from_action(int(a))

    def _grow(self) -> None:
        table, used, meta = self._ws[K.WS_SEEN], self._ws[K.WS_USED], self._ws[K.WS_META]
        keys = table[used[: meta[M_USED]]]
        done = meta[M_TB_DONE]
        fresh = K.workspace(2 * len(table))
        self._ws = fresh[:K.WS_META + 1] + self._ws[K.WS_META + 1 :]  # a bigger seen-set; the rest kept
        for h in keys:
            remember(self._ws[K.WS_SEEN], self._ws[K.WS_USED], self._ws[K.WS_META], h)
        self._ws[K.WS_META][M_TB_DONE] = done
