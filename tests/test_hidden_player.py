"""The player who cannot see the face-down cards: it never peeks, it is the beam when nothing is
hidden, and its guesses are reproducible."""

from __future__ import annotations

import numpy as np
import pytest

from sim.game import Game
from sim.players.hidden import guess, hidden_counts, unseen
from sim.players.loop import play, play_deal
from sim.players.spec import UnknownPlayerError
from sim.players.registry import parse_player

GAME = "castles-in-spain"
SMALL = "hidden:samples=3,budget=20000,width=8"


def _moves_until_a_card_turns_up(state, player, hidden: int = 3, most: int = 200) -> list:
    """The moves ``player`` plays from ``state`` until the first hidden card is on top (that move included)."""
    start = hidden_counts(state, hidden)
    moves = []
    while len(moves) < most and state.legal_moves.count() and not state.is_won():
        move = player.choose(state)
        if move is None:
            break
        state.push(move)
        moves.append(move)
        if (hidden_counts(state, hidden) < start).any():
            break
    return moves


def test_hidden_places_are_the_bottom_cards_under_each_top_card():
    state = Game(GAME).deal(5)
    assert list(hidden_counts(state, 3)) == [3] * 13 and list(hidden_counts(state, 0)) == [0] * 13
    assert list(hidden_counts(state, 9)) == [3] * 13  # never the top card
    cards = unseen(state, hidden_counts(state, 3))
    assert len(cards) == 39 and cards == sorted(cards)
    tops = {p[-1] for p in state.position().piles}
    assert not tops & set(cards)


def test_a_guess_moves_only_the_hidden_cards():
    state = Game(GAME).deal(5)
    counts = hidden_counts(state, 3)
    world = guess(state, counts, np.random.default_rng(1))
    piles, guessed = state.position().piles, world.position().piles
    assert [p[3:] for p in piles] == [p[3:] for p in guessed]  # the top cards are where they were
    assert sorted(c for p in guessed for c in p[:3]) == unseen(state, counts)
    assert guessed != piles  # and the hidden ones were shuffled
    assert state.position().piles == piles  # the real deal is untouched


def test_it_never_peeks_at_the_hidden_cards():
    """Two deals that differ only in where the hidden cards lie get the same moves until one turns up."""
    game = Game(GAME)
    for deal in (3,):
        state = game.deal(deal)
        other = game.deal(deal)
        counts = hidden_counts(state, 3)
        other.array[:] = guess(state, counts, np.random.default_rng(deal)).array
        assert other.position().piles != state.position().piles
        a = _moves_until_a_card_turns_up(state, parse_player(SMALL).make(0, deal))
        b = _moves_until_a_card_turns_up(other, parse_player(SMALL).make(0, deal))
        assert a and a == b


def test_with_nothing_hidden_it_plays_the_beams_game():
    game = Game(GAME)
    for deal in range(2):
        beam = play(game.deal(deal), parse_player("beam:budget=20000,width=8").make(0, deal), 1000)
        blind = play(game.deal(deal), parse_player("hidden:hidden=0,budget=20000,width=8").make(0, deal), 1000)
        assert (blind.result, blind.moves) == (beam.result, beam.moves)


def test_its_games_are_reproducible_legal_and_never_repeat_a_position():
    game = Game(GAME)
    fast = "hidden:samples=2,budget=5000,width=4"
    for deal in (4,):
        a = play_deal(game, fast, deal)
        assert a.moves == play_deal(game, fast, deal).moves
        state, seen = game.deal(deal), set()
        for move in a.moves:
            seen.add(state.hash())
            state.push(move)  # raises on an illegal move
            assert state.hash() not in seen
        assert a.result in ("won", "stuck", "gave_up") and state.cards_home == a.cards_home


def test_it_plays_other_games_too_and_checks_its_parameters():
    rec = play_deal(Game("streets-and-alleys"), "hidden:samples=2,budget=5000,width=4", 1)
    assert rec.moves and rec.result in ("won", "stuck", "gave_up")
    for bad in ("hidden:samples=0", "hidden:hidden=-1", "hidden:budget=0", "hidden:width=0", "hidden:depth=2"):
        with pytest.raises(UnknownPlayerError):
            parse_player(bad)
    assert parse_player("hidden:samples=4").label == "hidden:samples=4"
