"""The planning players (beam, rollout, nmcs): deterministic, the same in chunks and move by move, legal wins, checked parameters."""

from __future__ import annotations

import numpy as np
import pytest

from sim.core import reference
from sim.game import Game
from sim.core.outcome import RESULTS
from sim.kernels import play as play_kernel
from sim.players.compiled import kind_of, weights
from sim.players.loop import play_choice
from sim.players.spec import UnknownPlayerError
from sim.players.registry import parse_player, registry

STUDY = ("streets-and-alleys", "beleaguered-castle", "selective-castle")
#: a record's fields that say how the game went (all but its timing)
PLAYED = [f for f in play_kernel.GAME_ROW.names if f != "cycles"]
#: small budgets: a few milliseconds a deal
SPECS = ["beam:width=16,budget=30000", "beam:width=8,grow=2,budget=20000,max_moves=40", "rollout:level=1,budget=20000",
         "rollout:level=2,budget=5000", "nmcs:level=2,budget=20000"]


def chunk_rows(game: str, spec: str, deals, seed: int = 0) -> np.ndarray:
    choice = parse_player(spec)
    out = play_kernel.game_rows(len(deals))
    play_kernel.play_chunk(Game(game).rules_array, kind_of(choice), weights(choice.params), seed, np.asarray(deals, np.int64), play_kernel.NO_STARTS,
                 choice.max_moves, choice.spec.salt, out)
    return out


@pytest.mark.parametrize("spec", SPECS)
def test_chunks_repeat_and_equal_the_python_loop(spec):
    choice = parse_player(spec)
    for game in STUDY:
        g = Game(game)
        deals = [1, 2, 3]
        out = chunk_rows(game, spec, deals, seed=5)
        assert np.array_equal(out[PLAYED], chunk_rows(game, spec, deals, seed=5)[PLAYED])
        for k, deal in enumerate(deals):
            rec = play_choice(choice, g.deal(deal, 5), 5, deal)
            base = -1 if rec.base_rank is None else rec.base_rank
            assert (RESULTS[out[k]["result"]], *out[k][["moves", "cards_home", "base_rank", "max_empty_piles", "positions"]].tolist()) == (
                rec.result, len(rec.moves), rec.cards_home, base, rec.max_empty_piles, rec.positions), (game, spec, deal)
            assert len(rec.moves) <= choice.max_moves
            assert rec.positions == len(rec.moves) + 1  # a plan never passes a position twice


def test_wins_replay_legally_in_the_reference_engine():
    wins = 0
    for game in STUDY:
        g = Game(game)
        for spec in ("beam:width=32,budget=50000", "nmcs:level=1,budget=20000"):
            for deal in range(1, 7):
                rec = play_choice(parse_player(spec), g.deal(deal), 0, deal)
                if rec.result != "won":
                    continue
                wins += 1
                pos = g.deal(deal).position()
                for m in rec.moves:
                    assert m in reference.legal_moves(g.rules, pos)
                    pos = reference.play(g.rules, pos, m)
                assert reference.is_won(pos), (game, spec, deal)
    assert wins >= 6


def test_a_plan_the_game_leaves_is_made_again():
    g = Game("beleaguered-castle")
    state = g.deal(4)
    player = parse_player("beam:width=16,budget=30000").make(0, 4)
    planned = player.choose(state)
    other = next(m for m in sorted(state.legal_moves, key=lambda m: m.action) if m != planned)
    state.push(other)  # not the plan's move
    for _ in range(20):
        move = player.choose(state)
        if move is None:
            break
        assert move in state.legal_moves
        state.push(move)


def test_beam_beats_greedy_on_beleaguered_castle():
    deals = list(range(50))
    beam = (chunk_rows("beleaguered-castle", "beam:width=64,budget=100000", deals)["result"] == 0).sum()
    greedy = (chunk_rows("beleaguered-castle", "greedy", deals)["result"] == 0).sum()
    assert beam > greedy and beam >= 20


def test_a_larger_budget_never_plays_worse_here():
    deals = list(range(1, 21))
    small = chunk_rows("selective-castle", "beam:width=8,grow=1,budget=2000", deals)
    large = chunk_rows("selective-castle", "beam:width=64,budget=200000", deals)
    assert (large["result"] == 0).sum() > (small["result"] == 0).sum()


def test_parameters_are_listed_and_checked():
    for name in ("beam", "rollout", "nmcs"):
        spec = registry()[name]
        assert spec.compiled and "budget" in spec.defaults and all(p.help for p in spec.params)
    assert parse_player("beam:width=64").label == "beam:width=64"
    for bad in ["beam:width=0", "beam:width=100000", "beam:grow=0", "beam:budget=0", "beam:choose_base=3", "rollout:level=0",
                "rollout:level=4", "nmcs:noise=-1", "nmcs:budget=-5", "rollout:width=3", "nmcs:level=1.5"]:
        with pytest.raises(UnknownPlayerError):
            parse_player(bad)
