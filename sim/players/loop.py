"""The play loop, from Python: any player object, one move at a time.

Each position goes through the compiled loop's own step
(:func:`sim.kernels.play.observe`, through ``observe_anew``), which records it and says whether the
game is over, so a Python player's game ends, and is recorded, exactly as
a compiled player's game inside a chunk.
"""

from __future__ import annotations

from ..core.deals import DEFAULT_SEED, stream_key
from ..game import Game, State
from ..core.moves import Move
from ..core.outcome import GAVE_UP, RESULTS, Result
from ..kernels import play as play_kernel
from .record import GameRecord
from .spec import DEFAULT_MAX_MOVES, Player, PlayerChoice, resolve
from .registry import choose_from_spec, parse_player


def play(state: State, player: Player, max_moves: int = DEFAULT_MAX_MOVES) -> GameRecord:
    """Let ``player`` play ``state`` until won, stuck, given up or ``max_moves``; the state is left at the end.

    ``player.choose(state)`` returns a :class:`Move`, an action int (cheaper: see :meth:`State.actions`) or None
    to give up.
    """
    ph, table, used, meta, rows, acts, scratch = play_kernel.record_buffers(max_moves)
    s, r = state.array, state.rules_array
    played = len(state._actions)
    while play_kernel.observe_anew(s, r, ph, table, used, meta, rows, acts, scratch, max_moves) >= 0:
        move = player.choose(state)
        if move is None:
            rows["result"] = GAVE_UP
            break
        state.push(move)
        rows["moves"] += 1
    return record_of(rows[0], [Move.from_action(a) for a in state._actions[played:]])


def record_of(row, moves: list[Move]) -> GameRecord:
    """The :class:`GameRecord` of a kernel's record (:data:`~sim.kernels.play.GAME_ROW`)."""
    base = int(row["base_rank"])
    return GameRecord(Result(RESULTS[row["result"]]), moves, int(row["cards_home"]), None if base < 0 else base,
                      int(row["max_empty_piles"]), int(row["positions"]))


class Scripted:
    """A player that plays a given list of moves, then gives up: how a known line (a solver's win) is replayed."""

    def __init__(self, moves: list[Move]):
        self._moves = iter(moves)

    def choose(self, state: State) -> Move | None:
        return next(self._moves, None)


def play_choice(choice: PlayerChoice, state: State, seed: int = DEFAULT_SEED, deal: int = 0) -> GameRecord:
    """Play ``state`` with a configured player: its own ``play_deal`` if it has one, else the loop."""
    if choice.spec.play_deal is not None:
        return resolve(choice.spec.play_deal)(state, seed=seed, deal=deal, **choice.params)
    return play(state, choice.make(seed, deal), choice.max_moves)


def play_deal(game: Game, player: str, deal: int, seed: int = DEFAULT_SEED, max_moves: int | None = None) -> GameRecord:
    """Deal ``deal`` of ``seed`` and let the named player (``name[:k=v,...]``) play it."""
    choice = parse_player(player)
    if max_moves is not None:
        choice = choose_from_spec(choice.spec, {**choice.params, "max_moves": max_moves})
    stream_seed, number = stream_key(deal, seed)
    return play_choice(choice, game.deal(deal, seed), stream_seed, number)
