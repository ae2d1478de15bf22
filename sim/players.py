"""Players, and the one play loop every player goes through.

A player is any object with ``choose(state) -> Move | None`` (None: it gives
up) that receives its random stream when it is made, as in OpenSpiel. The
built-in :class:`RandomPlayer` draws from the same compiled splitmix64
stream as :func:`sim.engine.random_playouts`, so a deal played here move by
move and the same deal played inside the kernel give the same game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from . import engine as E
from .deals import DEFAULT_SEED
from .game import Game, State
from .moves import Move

DEFAULT_MAX_MOVES = 1000


class Player(Protocol):
    def choose(self, state: State) -> Move | None: ...


class RandomPlayer:
    """Uniform random legal move: the floor every other player must beat."""

    name = "random"
    #: salt of the random stream, so players with the same seed do not share draws
    SALT = 1

    def __init__(self, seed: int = DEFAULT_SEED, deal: int = 0):
        self._rng = np.zeros(1, np.uint64)
        E.seed_rng(self._rng, seed, deal, self.SALT)

    def choose(self, state: State) -> Move | None:
        actions = state.legal_moves.actions()
        if len(actions) == 0:
            return None
        return Move.from_action(int(actions[E.rand_below(self._rng, len(actions))]))


PLAYERS = {"random": RandomPlayer}


class UnknownPlayerError(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


def make_player(name: str, seed: int = DEFAULT_SEED, deal: int = 0) -> Player:
    try:
        cls = PLAYERS[name]
    except KeyError:
        raise UnknownPlayerError(f"unknown player {name!r} (known: {', '.join(PLAYERS)})") from None
    return cls(seed=seed, deal=deal)


@dataclass
class GameRecord:
    """One game played: what a result row is made of."""

    result: str  #: won, stuck or gave_up
    moves: list[Move] = field(default_factory=list)
    cards_home: int = 0
    base_rank: int | None = None

    @property
    def won(self) -> bool:
        return self.result == "won"


def play(state: State, player: Player, max_moves: int = DEFAULT_MAX_MOVES) -> GameRecord:
    """Let ``player`` play ``state`` until won, stuck, given up or ``max_moves``."""
    start = len(state.move_stack)
    result = "gave_up"
    while len(state.move_stack) - start < max_moves:
        if state.is_won():
            result = "won"
            break
        if len(state.legal_moves) == 0:
            result = "stuck"
            break
        move = player.choose(state)
        if move is None:
            break
        state.push(move)
    else:
        if state.is_won():
            result = "won"
    return GameRecord(result, state.move_stack[start:], state.cards_home, state.base_rank)


def play_deal(game: Game, player_name: str, deal: int, seed: int = DEFAULT_SEED, max_moves: int = DEFAULT_MAX_MOVES) -> GameRecord:
    """Deal ``deal`` of ``seed`` and let the named player play it."""
    return play(game.deal(deal, seed), make_player(player_name, seed, deal), max_moves)
