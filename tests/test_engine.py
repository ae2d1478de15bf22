"""Invariants of the compiled engine on random playouts (pgx's api_test, in spirit)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sim import engine as E
from sim.cards import N_CARDS
from sim.game import Game, IllegalMoveError, State
from sim.moves import N_ACTIONS, Move
from sim.players import RandomPlayer, play, play_deal
from sim.rules import GAMES


def _cards(state: State) -> list[int]:
    pos = state.position()
    return sorted([c for p in pos.piles for c in p] + [c for s in range(4) for c in pos.foundation_cards(s)])


@pytest.mark.parametrize("rules", GAMES, ids=[g.slug for g in GAMES])
def test_random_playouts_keep_every_invariant(rules):
    game = Game(rules)
    rng = random.Random(1)
    for deal in range(40):
        state = game.deal(deal)
        start = state._s.copy()
        start_hash = state.hash()
        for _ in range(150):
            legal = set(state.legal_moves)
            # a move is legal iff it is generated
            assert legal == {Move.from_action(a) for a in range(N_ACTIONS) if state.is_legal(Move.from_action(a))}
            assert set(np.flatnonzero(state.legal_moves.mask())) == {m.action for m in legal}
            assert _cards(state) == list(range(N_CARDS))
            if not legal:
                assert state.outcome() is not None
                break
            move = rng.choice(sorted(legal, key=lambda m: m.action))
            before = state._s.copy()
            state.push(move)
            assert state.pop() == move
            assert np.array_equal(state._s, before), "undo did not restore the exact state"
            state.push(move)
        while state.move_stack:
            state.pop()
        assert np.array_equal(state._s, start)
        assert state.hash() == start_hash


def test_hash_ignores_pile_order_and_which_pile_is_empty():
    game = Game("streets-and-alleys")
    state = game.deal(3)
    pos = state.position()
    shuffled = pos.copy()
    shuffled.piles = list(reversed(shuffled.piles))
    assert State.from_position(game.rules, shuffled).hash() == state.hash()
    moved = pos.copy()
    moved.piles[0], moved.piles[1] = moved.piles[1][:1] + moved.piles[0], moved.piles[1][1:]
    assert State.from_position(game.rules, moved).hash() != state.hash()


def test_hash_sees_foundations_and_base():
    game = Game("selective-castle")
    a = game.deal(1)
    b = game.deal(1)
    a.push("3-F")  # 4D founded: base 4
    assert a.hash() != b.hash()
    a.pop()
    assert a.hash() == b.hash()


def test_illegal_moves_are_refused_with_a_reason():
    state = Game("streets-and-alleys").deal(1)
    with pytest.raises(IllegalMoveError, match="does not fit"):
        state.push("1-2")
    with pytest.raises(IllegalMoveError, match="never leave a foundation"):
        state.push(Move(13, 0))
    with pytest.raises(IllegalMoveError, match="no such"):
        state.push("1-12")
    assert state.move_stack == []


def test_outcome_won_and_stuck():
    game = Game("streets-and-alleys")
    won = game.from_board("Foundations: H-K C-K D-K S-Q\nKS\n-\n-\n-\n-\n-\n-\n-\n")
    assert won.outcome() is None
    won.push("1-F")
    assert won.outcome().won and won.is_won()


@pytest.mark.parametrize("rules", GAMES, ids=[g.slug for g in GAMES])
def test_python_loop_and_compiled_random_player_play_the_same_game(rules):
    game = Game(rules)
    for deal in range(15):
        record = play_deal(game, "random", deal, seed=3, max_moves=200)
        res = np.zeros(1, np.int8)
        moves = np.zeros(1, np.int32)
        home = np.zeros(1, np.int8)
        E.random_playouts(game.rules_array, 3, np.array([deal]), 200, RandomPlayer.SALT, res, moves, home)
        assert (["won", "stuck", "gave_up"][res[0]], moves[0], home[0]) == (
            record.result,
            len(record.moves),
            record.cards_home,
        )


def test_play_stops_at_the_move_cap():
    game = Game("beleaguered-castle")
    record = play(game.deal(2), RandomPlayer(0, 2), max_moves=5)
    assert len(record.moves) <= 5
    assert record.result in {"gave_up", "stuck", "won"}
