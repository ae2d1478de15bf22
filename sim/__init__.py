"""Castle: rules engine, players, solver and study runner for the Beleaguered Castle family.

The public API, loaded on first use (``import sim`` itself loads no compiled code)::

    from sim import Game, solve, play_deal
    state = Game("selective-castle").deal(17)

Layers, each a sub-package: :mod:`sim.core` (cards, rules, board text,
deals, the ``State`` API, the reference engine), :mod:`sim.kernels` (every
compiled function), :mod:`sim.players` (registry, play loop, built-in
players), :mod:`sim.solver`, :mod:`sim.study` (experiments, runner,
datasets) and :mod:`sim.cli`. ``ARCHITECTURE.md`` draws them.
"""

from __future__ import annotations

import importlib

_API = {
    "Game": "sim.game",
    "State": "sim.game",
    "Move": "sim.core.moves",
    "IllegalMoveError": "sim.core.moves",
    "Result": "sim.core.outcome",
    "Rules": "sim.core.rules",
    "GAMES": "sim.core.rules",
    "find_game": "sim.core.rules",
    "solve": "sim.solver.answer",
    "play": "sim.players.loop",
    "play_deal": "sim.players.loop",
    "parse_player": "sim.players.registry",
}

__all__ = sorted(_API)


def __getattr__(name: str):
    if name in _API:
        return getattr(importlib.import_module(_API[name]), name)
    raise AttributeError(f"module 'sim' has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__
