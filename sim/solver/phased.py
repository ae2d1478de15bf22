"""The solver in phases: the player ``phased``, a double-sampling design for precise winnability at little CPU.

Solving every deal at full budget spends most of its CPU on a few percent of
deals: the median Streets and Alleys deal settles in a few hundredths of a
second, the slowest take minutes. So each deal is first solved with a short
budget (``first`` positions); the deals it leaves unsettled go on to a
middle budget (``middle``) only if a draw keyed by (seed, deal) falls below
``rate``; those still unsettled go on to the full budget (``budget_nodes``)
only if a second draw falls below ``rate2``. A deal not drawn is *left*: its
row says so (``left``), and the estimator (:mod:`analysis.designs`) weighs
the deals that went on to stand for it. This is double sampling (Thompson,
*Sampling*, ch. 14; Lohr's subsampling of non-respondents), nested twice.

The draws depend only on the seed, the deal and the phase, never on the
chunk, the worker or a resume, so a row is the same however the run is
split; a deal's row is also the same whatever the rates of the phases it did
not reach. ``middle=0`` makes it two-phase: short budget, then the full one
with ``rate``.

Extra columns: ``nodes`` (all phases together), ``phase`` (1, 2 or 3: the
phase whose verdict the row holds, or after which the deal was left) and
``left`` (True: unsettled and not drawn to go on; its result is
``unknown``, which the estimator never reads as a verdict).

>>> round(draw(0, 17, 1), 6), round(draw(0, 17, 2), 6)  # the same on every machine
(0.039846, 0.702236)
"""

from __future__ import annotations

from typing import Any

from ..core.deals import GAMMA, deal_key, mix64
from ..game import Game, State
from ..core.outcome import Result
from ..players.loop import Scripted, play
from ..players.record import GameRecord

def draw(seed: int, deal: int, phase: int) -> float:
    """The deal's uniform draw in [0, 1) for going on after ``phase``: splitmix64 of (seed, deal, phase)."""
    z = mix64((deal_key(seed, deal) ^ (phase * GAMMA)) & 0xFFFFFFFFFFFFFFFF)
    return (z >> 11) / float(1 << 53)


def phases(first: int, middle: int, rate: float, rate2: float, budget_nodes: int) -> list[tuple[int, float | None]]:
    """Each phase's budget and the rate at which its unsettled deals go on (None: the last phase)."""
    if middle:
        return [(first, rate), (middle, rate2), (budget_nodes, None)]
    return [(first, rate), (budget_nodes, None)]


def play_deal(state: State, seed: int, deal: int, first: int, middle: int, rate: float, rate2: float, budget_nodes: int,
              budget_seconds: float, table_size: int, max_moves: int, portfolio: int = 1, dead_end: int = 1) -> GameRecord:
    """Solve ``state`` phase by phase; the record of the last phase played (a win replayed), with ``phase`` and ``left``."""
    from .answer import solve

    nodes, left = 0, False
    for k, (budget, go_on) in enumerate(phases(first, middle, rate, rate2, budget_nodes), start=1):
        res = solve(Game(state.rules), state, budget_nodes=budget, budget_seconds=budget_seconds, table_size=table_size,
                    portfolio=bool(portfolio), dead_end=bool(dead_end))
        nodes += int(res.nodes)
        if res.result is not Result.UNKNOWN or go_on is None:
            break
        if draw(seed, deal, k) >= go_on:
            left = True
            break
    record = play(state, Scripted(res.moves), max_moves=len(res.moves))
    record.result = res.result
    extra: dict[str, Any] = {"nodes": nodes, "phase": k, "left": left}
    record.extra = extra
    return record
