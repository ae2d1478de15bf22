"""Players: compiled chunks equal their move-by-move play, the rules each player promises, the registry."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sim.core.deals import GAMMA, MASK64, mix64
from sim.game import Game
from sim.core.outcome import RESULTS
from sim.core.rules import GAMES
from sim.kernels import evaluate
from sim.kernels import play as play_kernel
from sim.core.moves import N_ACTIONS
from sim.kernels.legal import SCRATCH_SIZE
from sim.players.compiled import kind_of, weights
from sim.kernels.params import record
from sim.players.loop import play, play_choice
from sim.players.spec import UnknownPlayerError
from sim.players.registry import choose_player, parse_player, registry

STUDY = ("streets-and-alleys", "beleaguered-castle", "selective-castle")
#: a record's fields that say how the game went (all but its timing)
PLAYED = [f for f in play_kernel.GAME_ROW.names if f != "cycles"]
CASTLE = [sys.executable, "-c", "from sim.cli import main; main()"]


def chunk_rows(game: str, spec: str, deals, seed: int = 0) -> np.ndarray:
    choice = parse_player(spec)
    g = Game(game)
    out = play_kernel.game_rows(len(deals))
    play_kernel.play_chunk(g.rules_array, kind_of(choice), weights(choice.params), seed, np.asarray(deals, np.int64), play_kernel.NO_STARTS, choice.max_moves, choice.spec.salt, out)
    return out


def _random_game(game: Game, seed: int, deal: int, salt: int, max_moves: int) -> list:
    """The random player's game from its specification alone, in plain Python: a uniform legal move
    drawn from the splitmix64 stream keyed by (seed, deal, salt)."""
    state = game.deal(deal, seed)
    rng = mix64((mix64((seed + salt * GAMMA) & MASK64) ^ deal) & MASK64)
    moves = []
    while len(moves) < max_moves and not state.is_won():
        legal = sorted(state.legal_moves, key=lambda m: m.action)
        if not legal:
            break
        rng = (rng + GAMMA) & MASK64
        move = legal[mix64(rng) % len(legal)]
        state.push(move)
        moves.append(move)
    return moves


@pytest.mark.parametrize("game", STUDY)
def test_random_player_draws_uniform_moves_from_its_own_stream(game):
    g = Game(game)
    salt = registry()["random"].salt
    for deal in range(5):
        rec = play(g.deal(deal, 7), parse_player("random").make(7, deal), 300)
        assert rec.moves == _random_game(g, 7, deal, salt, 300)


@pytest.mark.parametrize("game", STUDY)
@pytest.mark.parametrize("spec,n", [("random:max_moves=300", 6), ("greedy", 12), ("strategist", 12), ("lookahead:depth=2", 4)])
def test_compiled_chunk_plays_the_same_games_as_the_python_loop(game, spec, n):
    deals = list(range(100, 100 + n))
    out = chunk_rows(game, spec, deals, seed=3)
    choice = parse_player(spec)
    g = Game(game)
    for k, deal in enumerate(deals):
        rec = play_choice(choice, g.deal(deal, 3), 3, deal)
        base = -1 if rec.base_rank is None else rec.base_rank
        got = (RESULTS[out[k]["result"]],)
        assert got + tuple(out[k][["moves", "cards_home", "base_rank", "max_empty_piles", "positions"]].tolist()) == (
            rec.result,
            len(rec.moves),
            rec.cards_home,
            base,
            rec.max_empty_piles,
            rec.positions,
        ), (spec, deal)


@pytest.mark.parametrize("game", STUDY)
@pytest.mark.parametrize("spec", ["greedy", "strategist", "lookahead:depth=2"])
def test_searching_players_never_return_to_a_position(game, spec):
    g = Game(game)
    for deal in range(8):
        rec = play_choice(parse_player(spec), g.deal(deal), 0, deal)
        state = g.deal(deal)
        seen = {state.hash()}
        for m in rec.moves:
            state.push(m)
            assert state.hash() not in seen, (deal, m)
            seen.add(state.hash())
        assert rec.positions == len(seen)
        if rec.result == "gave_up" and len(rec.moves) < 1000:
            # it gave up only because every legal move leads back to a seen position
            for m in state.legal_moves:
                state.push(m)
                assert state.hash() in seen
                state.pop()


@pytest.mark.parametrize("game", [g.slug for g in GAMES])
def test_every_game_compiled_equals_python_and_never_repeats(game):
    """The whole family: reserves, foundations that give cards back, one foundation at a time."""
    g = Game(game)
    for spec in ("greedy", "strategist", "random:max_moves=60"):
        out = chunk_rows(game, spec, [1, 2], seed=9)
        for k, deal in enumerate((1, 2)):
            rec = play_choice(parse_player(spec), g.deal(deal, 9), 9, deal)
            assert (RESULTS[out[k]["result"]], out[k]["moves"], out[k]["positions"], out[k]["max_empty_piles"]) == (
                rec.result, len(rec.moves), rec.positions, rec.max_empty_piles)
            if not spec.startswith("random"):
                assert rec.positions == len(rec.moves) + 1  # every move reached a new position


@pytest.mark.parametrize("game", STUDY)
def test_greedy_plays_a_foundation_move_whenever_one_exists(game):
    g = Game(game)
    for deal in range(10):
        rec = play_choice(parse_player("greedy"), g.deal(deal), 0, deal)
        state = g.deal(deal)
        for m in rec.moves:
            if any(x.to_foundation for x in state.legal_moves):
                assert m.to_foundation, (deal, m)
            state.push(m)


def _sum_of_depths_rank(state) -> int:
    pos = state.position()
    total = [0] * 13
    for pile in pos.piles:
        for i, c in enumerate(pile):
            total[c % 13] += len(pile) - 1 - i
    return min(range(13), key=lambda r: (total[r], r))


def test_strategist_chooses_the_selective_base_from_the_whole_board():
    g = Game("selective-castle")
    chosen = 0
    for deal in range(30):
        rec = play_choice(parse_player("strategist"), g.deal(deal), 0, deal)
        if rec.base_rank is not None:
            chosen += 1
            assert rec.base_rank == _sum_of_depths_rank(g.deal(deal)), deal
    assert chosen >= 20  # it does start the foundations on most deals


def test_strategist_choose_base_off_founds_whatever_comes_first():
    g = Game("selective-castle")
    differs = 0
    for deal in range(30):
        rec = play_choice(parse_player("strategist:choose_base=0"), g.deal(deal), 0, deal)
        differs += rec.base_rank is not None and rec.base_rank != _sum_of_depths_rank(g.deal(deal))
    assert differs > 0


def test_evaluation_terms_on_a_small_board():
    g = Game("streets-and-alleys")
    # clubs A-Q home, K of clubs alone on pile 1; hearts, diamonds, spades untouched elsewhere
    board = "Foundations: C-Q D-0 H-0 S-0\n" + "KC\n" + "\n".join(
        [" ".join(f"{r}{s}" for r in "KQJT98765432A") for s in "DHS"]
    ) + "\n:\n:\n:\n:\n"
    state = g.from_board(board)
    tb = np.full(4, -1, np.int64)
    bufs = (np.zeros(N_ACTIONS, np.int64), np.zeros(SCRATCH_SIZE, np.int64))
    def score(**weights):  # the evaluation with only the named weights on (a parameter record, read by name)
        return evaluate.evaluate(state.array, state.rules_array, record(weights)[0], tb, *bufs)

    assert score(home=1) == 12
    assert score(empty=1) == 4
    assert score(dig=1) == 0  # next needed: KC (depth 0) and the three Aces (depth 0)
    assert score(seq=1) == 36  # each of the three K..A piles is one built run of 12 links
    assert score(block=1) == 0  # nothing lies above a card needed before it
    state.push("1-F")
    assert score(block=1) == 0  # still no blockers
    assert score(block=1, balance=1) == -13


def test_the_last_rank_term_counts_the_cards_buried_under_it():
    """Streets and Alleys' last foundation order is the King: cards under a King go home only once it moves."""
    g = Game("streets-and-alleys")
    board = ("Foundations: C-0 D-0 H-0 S-0\n" + "\n".join([
        "AC 2C KD 3C",  # the King lies on two cards: 2 buried
        "KC AD 2D",  # a King at the bottom buries nothing
        "4C KH 5C KS 6C",  # the higher King counts: 3 buried
        " ".join(f"{r}D" for r in "3456789TJQ"),
        " ".join(f"{r}H" for r in "A23456789TJQ"),
        " ".join(f"{r}S" for r in "A23456789TJQ"),
        "7C 8C 9C TC JC QC", ":"]) + "\n")
    state = g.from_board(board)
    tb = np.full(4, -1, np.int64)
    bufs = (np.zeros(N_ACTIONS, np.int64), np.zeros(SCRATCH_SIZE, np.int64))
    assert evaluate.evaluate(state.array, state.rules_array, record({"last": 1})[0], tb, *bufs) == -5


def test_a_random_base_is_drawn_once_per_deal_and_kept():
    g = Game("selective-castle")
    bases = set()
    for deal in range(40):
        rec = play_choice(parse_player("strategist:choose_base=2"), g.deal(deal), 0, deal)
        again = play_choice(parse_player("strategist:choose_base=2"), g.deal(deal), 0, deal)
        assert (rec.base_rank, rec.moves) == (again.base_rank, again.moves)  # the same draw: the deal's own stream
        bases.add(rec.base_rank)
    assert len(bases - {None}) >= 6  # not one rank for all deals


def test_banking_unevenly_sends_every_card_home_at_once():
    """With even=0 the strategist plays a foundation move whenever one is legal (and fresh), like greedy."""
    g = Game("beleaguered-castle")
    for deal in range(10):
        state = g.deal(deal)
        player = parse_player("strategist:even=0").make(0, deal)
        for _ in range(60):
            legal = state.legal_moves
            if not legal:
                break
            move = player.choose(state)
            if move is None:
                break
            if any(m.to_foundation for m in legal):
                assert move.to_foundation, (deal, str(move))
            state.push(move)


def test_a_game_ends_at_the_move_cap_as_given_up():
    g = Game("streets-and-alleys")
    rec = play(g.deal(1), parse_player("random").make(0, 1), max_moves=5)
    assert rec.result == "gave_up" and len(rec.moves) == 5
    out = chunk_rows("streets-and-alleys", "random:max_moves=5", [1])
    assert out[0]["moves"] == 5 and RESULTS[out[0]["result"]] == "gave_up"


def test_a_compiled_player_is_a_kind_and_a_spec():
    """A new compiled player on an existing decision kernel is one spec: it plays whole chunks in the
    kernel and move by move from Python, the same games (a new kind adds its decision to ``decide``)."""
    from dataclasses import replace

    from sim.players.builtin import GREEDY
    from sim.players.registry import register

    register(replace(GREEDY, name="test-hoarder", summary="greedy that loves empty piles", salt=99,
                     params=tuple(replace(p, default=9.0) if p.name == "empty" else p for p in GREEDY.params)))
    choice = parse_player("test-hoarder")
    assert choice.params["empty"] == 9.0 and choice.spec.compiled
    out = chunk_rows("streets-and-alleys", "test-hoarder", [1, 2, 3])
    for k, deal in enumerate((1, 2, 3)):
        rec = play_choice(choice, Game("streets-and-alleys").deal(deal), 0, deal)
        assert (out[k]["moves"], out[k]["positions"]) == (len(rec.moves), rec.positions)
    # its own weights: another game than greedy's where an empty pile weighs (deal 10 of Beleaguered Castle)
    mine, greedy = (chunk_rows("beleaguered-castle", spec, range(1, 11))[PLAYED] for spec in ("test-hoarder", "greedy"))
    assert np.array_equal(mine[:9], greedy[:9]) and mine[9] != greedy[9]


def test_every_parameter_of_a_built_in_compiled_player_is_one_field_of_the_record_read_by_name():
    """The kernels read a player's parameters by name from one record (sim/kernels/params.py): each declared once,
    a count an integer field end to end, a name no field is (a plug-in's own) left out of it."""
    from sim.kernels.params import FIELDS, PARAMS
    from sim.players.builtin import BUILTIN_PLAYERS

    assert len({name for name, _, _ in FIELDS}) == len(FIELDS) == len(PARAMS.names)
    for spec in BUILTIN_PLAYERS:
        if spec.kernel is not None:
            assert {p.name for p in spec.params} <= set(PARAMS.names), spec.name
    beam = parse_player("beam:width=8,budget=4000000")
    w = weights(beam.params)
    assert w.dtype == PARAMS and w.shape == (1,)
    assert w["width"][0] == 8 and w["budget"][0] == 4_000_000 and PARAMS["budget"] == np.int64
    assert w["depth"][0] == 1 and w["home"][0] == beam.params["home"]  # (a record's depth is 1 unless set)
    assert weights({"mine": 3.0, "width": 2.5})["width"][0] == 2  # a count is truncated as np.int64(2.5) is


def test_parameters_parse_validate_and_label():
    choice = parse_player("lookahead:depth=2, width=4")
    assert choice.params["depth"] == 2 and choice.params["width"] == 4
    assert choice.label == "lookahead:depth=2,width=4"
    assert parse_player("greedy:depth=1").label == "greedy"
    assert choose_player("strategist", {"balance": 2}).params["balance"] == 2.0
    for bad in ["nobody", "greedy:foo=1", "greedy:depth=x", "greedy:depth=0", "greedy:depth=1.5", "greedy:depth", "random:max_moves=0",
                "greedy:depth=1,depth=2", "strategist:choose_base=7", "solver:budget_seconds=0", "solver:table_size=1000"]:
        with pytest.raises(UnknownPlayerError):
            parse_player(bad)
    assert {"random", "greedy", "strategist", "lookahead"} <= set(registry())


def test_castle_players_lists_parameters_and_defaults():
    out = subprocess.run(CASTLE + ["players"], capture_output=True, text=True, check=True).stdout
    assert "greedy" in out and "depth=1" in out and "lookahead" in out and "depth=3" in out
    assert "max_moves=1000" in out and "choose_base=1" in out


def test_castle_play_with_parameters_and_bad_ones():
    ok = subprocess.run(CASTLE + ["play", "sa", "3", "--player", "greedy:depth=2"], capture_output=True, text=True)
    assert ok.returncode == 0 and "cards home" in ok.stdout
    bad = subprocess.run(CASTLE + ["play", "sa", "3", "--player", "greedy:depht=2"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "depht" in bad.stderr and "Traceback" not in bad.stderr


PLUGIN = '''
"""A third-party player: always the first legal move to an unseen position."""
from sim.core.moves import Move


class FirstMove:
    """First legal move to an unseen position."""

    def __init__(self, seed=0, deal=0, skip=0):
        self.skip = skip
        self.seen = set()

    def choose(self, state):
        self.seen.add(state.hash())
        moves = list(state.legal_moves)[self.skip:]
        for m in moves:
            state.push(m)
            new = state.hash() not in self.seen
            state.pop()
            if new:
                return m
        return None
'''


def test_entry_point_players_are_found_listed_played_and_run(tmp_path: Path):
    (tmp_path / "castle_first.py").write_text(PLUGIN)
    dist = tmp_path / "castle_first-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: castle-first\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[castle.players]\nfirst = castle_first:FirstMove\n")
    env = {**__import__("os").environ, "PYTHONPATH": str(tmp_path)}
    listing = subprocess.run(CASTLE + ["players"], capture_output=True, text=True, env=env, check=True).stdout
    assert "first" in listing and "skip=0" in listing and "[python]" in listing
    played = subprocess.run(CASTLE + ["play", "bc", "2", "--player", "first:skip=1"], capture_output=True, text=True, env=env)
    assert played.returncode == 0, played.stderr
    out = tmp_path / "out"
    run = subprocess.run(
        CASTLE + ["run", "--game", "bc", "--player", "first", "--deals", "6", "--chunk-size", "3", "--jobs", "2", "--out", str(out)],
        capture_output=True, text=True, env=env, cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    import pandas as pd

    df = pd.read_parquet(out)
    assert sorted(df.deal) == list(range(1, 7)) and set(df.player) == {"first"}
