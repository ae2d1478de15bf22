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
from ..kernels import beam
from ..kernels import evaluate
from ..kernels import planners as PL
from ..kernels import play as play_kernel
from ..kernels import players as players_kernel
from ..kernels import rollouts
from ..kernels.rng import seed_rng
from ..kernels.seen import M_TB_DONE, M_USED, remember
from .spec import PlayerChoice


def _gathered(*tables: dict[str, int]) -> dict[str, int]:
    """The kernel modules' tables of slots as one: a name keeps one slot, no two names share one, all fit the array."""
    out: dict[str, int] = {}
    for table in tables:
        for name, slot in table.items():
            if out.setdefault(name, slot) != slot:
                raise ValueError(f"parameter {name} has two slots: {out[name]} and {slot}")
    clash = len(set(out.values())) != len(out)
    if clash or not all(0 <= slot < evaluate.N_WEIGHTS for slot in out.values()):
        raise ValueError(f"parameter slots must be distinct and below {evaluate.N_WEIGHTS}: {out}")
    return out


#: parameter name -> slot of the float64 array the compiled players read, from the slots each kernel module declares
#: for the parameters it reads: the evaluation's weights, greedy's, lookahead's and the strategist's, the planners'
#: (all three), the beam's, the rollouts'
SLOTS = _gathered(evaluate.SLOTS, players_kernel.SLOTS, PL.SLOTS, beam.SLOTS, rollouts.SLOTS)


def weights(params: dict[str, int | float]) -> np.ndarray:
    """The float64 parameter array the compiled players read, from named parameters."""
    w = np.zeros(evaluate.N_WEIGHTS, np.float64)
    w[players_kernel.P_DEPTH] = 1
    for k, v in params.items():
        if k in SLOTS:
            w[SLOTS[k]] = v
    return w


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
        seed_rng(self._rng, seed, deal, choice.spec.salt)
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
