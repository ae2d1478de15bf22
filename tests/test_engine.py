"""Invariants of the compiled engine on random playouts (pgx's api_test, in spirit)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sim.core.cards import N_CARDS
from sim.game import Game, IllegalMoveError, State
from sim.core.moves import N_ACTIONS, Move
from sim.core.rules import GAMES
from sim.kernels import legal as legal_kernel
from sim.kernels import layout
from sim.players.loop import play
from sim.players.registry import parse_player


def _cards(state: State) -> list[int]:
    pos = state.position()
    return sorted([c for p in pos.piles for c in p] + [c for s in range(4) for c in pos.foundation_cards(s)])


@pytest.mark.parametrize("rules", GAMES, ids=[g.slug for g in GAMES])
def test_random_playouts_keep_every_invariant(rules):
    game = Game(rules)
    rng = random.Random(1)
    for deal in range(40):
        state = game.deal(deal)
        start = state.array.copy()
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
            before = state.array.copy()
            state.push(move)
            assert state.pop() == move
            assert np.array_equal(state.array, before), "undo did not restore the exact state"
            state.push(move)
        while state.move_stack:
            state.pop()
        assert np.array_equal(state.array, start)
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
    with pytest.raises(IllegalMoveError, match="9S does not go on 7C"):
        state.push("1-2")
    with pytest.raises(IllegalMoveError, match="never leave a foundation in this game"):
        state.push(Move(13, 0))
    with pytest.raises(IllegalMoveError, match="there is no pile 12"):
        state.push("1-12")
    assert state.move_stack == []


def test_the_reason_is_the_rule_sheet_of_the_game_played():
    """Castles in Spain lets a foundation's top card come back: the reason says why this one may not."""
    named = ["KH", "QS", "2C", "3C", "AC"]
    rest = [f"{r}{s}" for s in "CDHS" for r in "A23456789TJQK" if f"{r}{s}" not in named]
    piles = ["KH QS", "2C 3C"] + [" ".join(rest[k::10]) for k in range(10)] + [":"]
    state = Game("castles-in-spain").from_board("Foundations: H-0 C-A D-0 S-0\n" + "\n".join(piles))
    with pytest.raises(IllegalMoveError, match="AC does not go on 3C"):
        state.push("FC-2")
    state.push("FC-13")  # to the empty pile it may come back
    assert state.position().piles[12] == [0]


def test_outcome_won_and_stuck():
    game = Game("streets-and-alleys")
    won = game.from_board("Foundations: H-K C-K D-K S-Q\nKS\n-\n-\n-\n-\n-\n-\n-\n")
    assert won.outcome() is None
    won.push("1-F")
    assert won.outcome().won and won.is_won()


@pytest.mark.parametrize("rules", [g for g in GAMES if layout.rules_array(g)[layout.R_RANK_FIT]], ids=lambda g: g.slug)
def test_rank_lookup_branch_finds_the_same_moves_as_the_pairwise_one(rules):
    """The move generator's two ways of finding target piles give the same moves in the same order."""
    game = Game(rules)
    pairwise = layout.rules_array(rules)
    pairwise[layout.R_RANK_FIT] = 0
    rng = np.random.default_rng(5)
    a, b = np.empty(N_ACTIONS, np.int64), np.empty(N_ACTIONS, np.int64)
    scratch = np.empty(legal_kernel.SCRATCH_SIZE, np.int64)
    checked = 0
    for deal in range(20):
        state = game.deal(deal)
        for _ in range(300):
            n = legal_kernel.legal_actions(state.array, state.rules_array, a, scratch)
            m = legal_kernel.legal_actions(state.array, pairwise, b, scratch)
            assert list(a[:n]) == list(b[:m])
            checked += 1
            if n == 0 or state.is_won():
                break
            state.push(int(a[rng.integers(n)]))
    assert checked > 2000


def test_a_new_rule_field_must_be_taught_to_the_kernels():
    """The rules array refuses a record with a field the kernels do not read, so no rule is silently ignored."""
    import dataclasses

    from sim.core.rules import STREETS_AND_ALLEYS, Rules

    Wider = dataclasses.make_dataclass("Wider", [("stock_redeals", int, dataclasses.field(default=1))], bases=(Rules,), frozen=True)
    with pytest.raises(TypeError, match="stock_redeals"):
        layout.rules_array(Wider(**{f.name: getattr(STREETS_AND_ALLEYS, f.name) for f in dataclasses.fields(Rules)}))


def test_play_stops_at_the_move_cap():
    game = Game("beleaguered-castle")
    record = play(game.deal(2), parse_player("random").make(0, 2), max_moves=5)
    assert len(record.moves) <= 5
    assert record.result in {"gave_up", "stuck", "won"}
