"""Dialects of other programs (issue 16): PySol FC's sequence moves in Selective Castle, supermoves in
Streets and Alleys, Beleaguered Castle and Castles in Spain (:data:`sim.core.rules.DIALECTS`).

Rule tests from the sheet run against both engines; the compiled engine
agrees with the reference engine move for move on random playouts of every
dialect; the solver's verdicts respect what a dialect can change; the runner
keeps two dialects of one game apart.
"""

from __future__ import annotations

import dataclasses
import random
import sys
from pathlib import Path

import numpy as np
import pytest

from sim.core import reference
from sim.core.board import Position
from sim.core.cards import parse_card
from sim.game import Game, State
from sim.core.moves import FOUNDATION, MAX_COUNT, MAX_MOVES, N_ACTIONS, N_ALL_ACTIONS, Move, MoveError, make_action, split_action
from sim.core.rules import (
    CASTLES_END,
    DIALECTS,
    GAMES,
    SHEET,
    SequenceMoves,
    UnknownDialectError,
    UnknownGameError,
    dialects_of,
    find_game,
    with_dialect,
)
from sim.kernels import hashing
from sim.kernels import legal as legal_kernel
from sim.kernels import layout

sys.path.insert(0, str(Path(__file__).parent))
from engines import ENGINES  # noqa: E402
from test_agreement import _endgame_position, _playout  # noqa: E402

SC_PYSOL = find_game("selective-castle@pysol")
SA_SUPER = find_game("streets-and-alleys@supermoves")
BC_SUPER = find_game("beleaguered-castle@supermoves")
CIS_SUPER = find_game("castles-in-spain@supermoves")
SCI_PYSOL = find_game("selective-castle-independent@pysol")
DIALECT_GAMES = (SC_PYSOL, SCI_PYSOL, SA_SUPER, BC_SUPER, CIS_SUPER)
IDS = [g.full_slug for g in DIALECT_GAMES]


@pytest.fixture(params=sorted(ENGINES))
def engine(request):
    return ENGINES[request.param]()


def pos_of(rules, piles: list[str], home: int | None = None) -> Position:
    """A position from pile strings (bottom card first, '' empty), padded with empty piles; foundations at their start."""
    cards = [[parse_card(c) for c in p.split()] for p in piles]
    cards += [[] for _ in range(rules.n_piles - len(cards))]
    ace = rules.foundation_base.name == "ACE"
    n = 1 if rules.aces_preplaced else 0
    return Position(cards, [n if home is None else home] * 4, [0 if ace else -1] * 4)


# --------------------------------------------------------------------------
# names and records
# --------------------------------------------------------------------------


def test_a_dialect_is_a_derived_record_found_by_name():
    base = find_game("selective-castle")
    assert base.dialect == SHEET and base.sequence_moves == SequenceMoves.ONE_CARD and base.full_slug == "selective-castle"
    assert SC_PYSOL == with_dialect(base, "pysol") == find_game("sc@PySol")
    assert SC_PYSOL.slug == "selective-castle" and SC_PYSOL.full_slug == "selective-castle@pysol"
    assert SC_PYSOL.version == base.version and SC_PYSOL.sequence_moves == SequenceMoves.UNLIMITED
    assert dataclasses.replace(SC_PYSOL, name=base.name, sequence_moves=SequenceMoves.ONE_CARD, dialect=SHEET) == base
    assert find_game("streets@sheet") is find_game("streets-and-alleys")
    for rules in (SA_SUPER, BC_SUPER, CIS_SUPER):
        assert rules.sequence_moves == SequenceMoves.SUPERMOVES and find_game(rules.full_slug) == rules
    assert SCI_PYSOL.sequence_moves == SequenceMoves.UNLIMITED
    # the sheet is every game's default: no record of GAMES is a dialect
    assert all(g.dialect == SHEET and g.sequence_moves == SequenceMoves.ONE_CARD for g in GAMES)
    assert {d.name for d in DIALECTS} == {"pysol", "supermoves"}
    assert dialects_of(find_game("citadel")) == ()


def test_an_unknown_or_foreign_dialect_is_a_clear_error():
    with pytest.raises(UnknownDialectError, match=r"unknown dialect 'freecell' \(dialects of streets-and-alleys: sheet, supermoves\)"):
        find_game("sa@freecell")
    with pytest.raises(UnknownDialectError, match=r"'pysol' does not apply to beleaguered-castle \(dialects of beleaguered-castle: sheet, supermoves\)"):
        find_game("beleaguered-castle@pysol")
    with pytest.raises(UnknownDialectError, match=r"dialects of fortress: sheet\)"):
        find_game("fortress@supermoves")
    with pytest.raises(UnknownGameError, match="unknown game 'klondike'"):
        find_game("klondike@pysol")
    assert isinstance(UnknownDialectError("x"), ValueError)


def test_the_rules_array_carries_the_dialect():
    assert layout.rules_array(find_game("sa"))[layout.R_SEQ] == 0
    assert layout.rules_array(SA_SUPER)[layout.R_SEQ] == int(SequenceMoves.SUPERMOVES)
    assert layout.rules_array(SC_PYSOL)[layout.R_SEQ] == int(SequenceMoves.UNLIMITED)
    # everything else is the base game's
    for rules in DIALECT_GAMES:
        a, b = layout.rules_array(rules), layout.rules_array(find_game(rules.slug))
        a[layout.R_SEQ] = 0
        assert np.array_equal(a, b)


# --------------------------------------------------------------------------
# the move encoding
# --------------------------------------------------------------------------


def test_one_card_actions_keep_their_ints_and_sequences_sit_above():
    for a in range(N_ACTIONS):
        m = Move.from_action(a)
        assert m.count == 1 and m.action == a
        assert m == Move(*divmod(a, 14))
    assert Move(2, 4, 4).action == 3 * N_ACTIONS + 2 * 14 + 4 == make_action(2, 4, 4)
    assert split_action(Move(12, 0, MAX_COUNT).action) == (12, 0, MAX_COUNT)
    assert N_ALL_ACTIONS == MAX_COUNT * N_ACTIONS and MAX_MOVES == N_ACTIONS + MAX_COUNT * 12
    for text, move in (("3-5x4", Move(2, 4, 4)), ("13-1x52", Move(12, 0, 52)), ("3-5", Move(2, 4)), ("3-5x1", Move(2, 4))):
        assert Move.from_str(text) == move
    assert str(Move(2, 4, 4)) == "3-5x4" and str(Move(2, 4)) == "3-5" and repr(Move(2, 4, 4)) == "Move(2, 4, 4)"
    for bad in ("3-5x0", "3-5x53", "3-5x", "3-Fx2", "FH-2x2", "3-5x2x2"):
        with pytest.raises(MoveError):
            Move.from_str(bad)


def test_the_kernels_split_actions_as_python_does():
    from numba import njit

    @njit
    def split_all(out):
        for a in range(out.shape[0]):
            out[a, 0] = layout.action_source(a)
            out[a, 1] = layout.action_target(a)
            out[a, 2] = layout.action_count(a)
            out[a, 3] = layout.make_action(out[a, 0], out[a, 1], out[a, 2])

    out = np.zeros((N_ALL_ACTIONS, 4), np.int64)
    split_all(out)
    expected = np.array([(*split_action(a), a) for a in range(N_ALL_ACTIONS)])
    assert np.array_equal(out, expected)
    # the undo token carries every action and card
    s = np.zeros(layout.STATE_SIZE, np.int8)
    token = (N_ALL_ACTIONS - 1) | (51 << layout.T_CARD_SHIFT) | layout.T_SET_OWN_BASE
    assert layout.token_action(token) == N_ALL_ACTIONS - 1 and layout.token_card(token) == 51
    assert s.shape[0] == layout.STATE_SIZE


# --------------------------------------------------------------------------
# rules from the sheet, both engines
# --------------------------------------------------------------------------

#: a run of four (K Q J T, any suits alternating colour) on pile 1, and targets for 3, 2 and 1 of its cards
RUN_PILES = ["KS QH JC TD", "2D KC", "3D QD", "4D JS"]
FILLERS = ["5S", "6H", "7S", "8H"]  # single cards that take no part of the run


@pytest.mark.parametrize("rules", (SA_SUPER, BC_SUPER, CIS_SUPER), ids=lambda r: r.full_slug)
@pytest.mark.parametrize("empty", range(5))
def test_supermove_capacity_is_two_to_the_empty_piles(engine, rules, empty):
    piles = RUN_PILES + FILLERS[: 4 - empty]
    if rules.n_piles == 13:  # Castles in Spain: fill the extra five piles too
        piles += ["9S", "TH", "5C", "6D", "8C"]
    pos = pos_of(rules, piles)
    legal = engine.legal(rules, pos)
    cap = 2 ** empty
    cap_empty = 2 ** (empty - 1) if empty else 0
    for target, count in ((1, 3), (2, 2), (3, 1)):
        assert (Move(0, target, count) in legal) == (count <= cap), (target, count, empty)
    for count in (1, 2, 3, 4):
        onto_empty = {m for m in legal if m.source == 0 and m.count == count and not pos.piles[m.target]}
        assert len(onto_empty) == (empty if count <= cap_empty else 0), (count, empty)
    # a sequence that does not fit its target is never offered, whatever the capacity
    for target, count in ((1, 2), (1, 4), (2, 3), (3, 2), (2, 1)):
        assert Move(0, target, count) not in legal
    assert all(m.count <= 4 for m in legal)


def test_reserves_are_not_free_piles(engine):
    """A game with reserves (Castles End's layout) under supermoves: an empty reserve carries nothing."""
    rules = dataclasses.replace(CASTLES_END, sequence_moves=SequenceMoves.SUPERMOVES, dialect="test")
    # up or down in alternating colour: 5H 4S is a run of two, 3D takes... the 4S; pile 3 (6C) takes 5H
    piles = ["5H 4S", "3D", "6C", "TS", "JD", "QS", "KD", "2C", "7H", "8S"]
    pos = pos_of(rules, piles + ["", ""], home=0)  # both reserves empty, no tableau pile empty
    assert Move(0, 2, 2) not in engine.legal(rules, pos)
    pos = pos_of(rules, piles[:-1] + ["", "", ""], home=0)  # one tableau pile empty
    assert Move(0, 2, 2) in engine.legal(rules, pos)


@pytest.mark.parametrize("rules", (SA_SUPER, BC_SUPER), ids=lambda r: r.full_slug)
def test_a_sequence_builds_down_regardless_of_suit_and_never_wraps(engine, rules):
    pos = pos_of(rules, ["5C 7D 6S", "8C", "AS KD", "2D", "KH QH", "", "", ""])
    legal = engine.legal(rules, pos)
    assert Move(0, 1, 2) in legal  # 7D 6S on the 8C
    assert Move(0, 1, 3) not in legal and Move(0, 5, 3) not in legal  # 5C-7D is no sequence
    assert Move(2, 5, 2) not in legal  # no K-on-A wrap in these games
    assert Move(4, 5, 2) in legal  # same suit is fine: regardless of suit


def test_castles_in_spain_sequences_alternate_colours(engine):
    rules = CIS_SUPER
    pos = pos_of(rules, ["KS QC JH", "KD", "QS", "", "", "4C", "4D", "5C", "5D", "6C", "6D", "7C", "7D"])
    legal = engine.legal(rules, pos)
    assert Move(0, 2, 2) not in legal and Move(0, 1, 2) in legal  # QC JH on the KD (red), not the QS
    assert Move(0, 3, 3) not in legal  # KS QC: one colour, no sequence
    assert Move(0, 3, 2) in legal  # two empty piles: 2 cards to one of them


def test_pysol_moves_any_sequence_including_through_the_wrap(engine):
    rules = SC_PYSOL
    pos = pos_of(rules, ["9H 2S AD KC", "3H", "4C 5D 6S", "7D 8S", "TC", "JC", "QD", ""])
    legal = engine.legal(rules, pos)
    assert Move(0, 1, 3) in legal  # 2S AD KC (K on A: the wrap) on the 3H
    assert Move(0, 1, 4) not in legal and Move(0, 7, 4) not in legal  # 9H-2S is no sequence
    for count in (1, 2, 3):  # to an empty pile, any n, with one empty pile
        assert Move(0, 7, count) in legal
    assert Move(2, 7, 2) not in legal  # ascending is no sequence in Selective Castle
    # a long run: 5 down through the wrap to 6, thirteen cards, all to the one empty pile
    long = "5S 4H 3C 2D AS KH QC JD TS 9H 8C 7D 6S"
    pos = pos_of(rules, [long, "", "2H", "3S", "4D", "5H", "6C", "7H"])
    legal = engine.legal(rules, pos)
    assert all(Move(0, 1, n) in legal for n in range(1, 14))
    # the sheet moves one card only
    assert all(m.count == 1 for m in engine.legal(find_game("selective-castle"), pos))
    after = engine.play(rules, pos, Move(0, 1, 13))
    assert after.piles[0] == [] and after.piles[1] == [parse_card(c) for c in long.split()]


@pytest.mark.parametrize("rules", DIALECT_GAMES, ids=IDS)
def test_sequence_apply_and_undo_restore_the_exact_state(rules):
    rng = random.Random(rules.full_slug)
    played = 0
    for k in range(60):
        state = State.from_position(rules, _endgame_position(rules, rng))
        for _ in range(40):
            moves = list(state.legal_moves)
            if not moves:
                break
            seqs = [m for m in moves if m.count > 1]
            move = rng.choice(seqs) if seqs and rng.random() < 0.7 else rng.choice(moves)
            before, h = state.array.copy(), state.hash()
            ph = np.zeros(hashing.PH_SIZE, np.uint64)
            hashing.pile_keys(state.array, state.rules_array, ph)
            token = hashing.apply_keyed(state.array, state.rules_array, ph, move.action)
            assert hashing.position_key(ph, state.array) == hashing.position_hash(state.array, state.rules_array)
            assert layout.token_action(token) == move.action
            hashing.undo_keyed(state.array, state.rules_array, ph, token)
            assert np.array_equal(state.array, before) and state.hash() == h
            assert hashing.position_key(ph, state.array) == h
            state.push(move)
            assert state.pop() == move and np.array_equal(state.array, before)
            state.push(move)
            played += move.count > 1
    assert played > 200


@pytest.mark.parametrize("rules", (SA_SUPER, SC_PYSOL), ids=lambda r: r.full_slug)
def test_a_move_is_legal_iff_it_is_generated(rules):
    rng = random.Random(7)
    checked = 0
    for _ in range(20):
        state = State.from_position(rules, _endgame_position(rules, rng))
        for _ in range(10):
            legal = set(state.legal_moves.actions().tolist())
            assert legal == {a for a in range(N_ALL_ACTIONS) if legal_kernel.is_legal(state.array, state.rules_array, a)}
            assert state.legal_moves.mask().sum() == len(legal) and state.legal_moves.mask().shape == (N_ALL_ACTIONS,)
            checked += any(a >= N_ACTIONS for a in legal)
            if not legal:
                break
            home = [a for a in legal if a % 14 == FOUNDATION]  # cards home empty piles: supermoves carry more
            state.push(rng.choice(sorted(home)) if home and rng.random() < 0.7 else rng.choice(sorted(legal)))
    assert checked > 5
    assert Game("sa").deal(1).legal_moves.mask().shape == (N_ACTIONS,)  # the sheet's mask is as it was


# --------------------------------------------------------------------------
# the compiled engine agrees with the reference engine
# --------------------------------------------------------------------------

AGREEMENT_DEALS = 400  #: playouts from deals...
AGREEMENT_ENDGAMES = 600  #: ...and from end-game positions (where empty piles let supermoves carry more)


@pytest.mark.parametrize("rules", DIALECT_GAMES, ids=IDS)
def test_engines_agree_on_dialect_playouts(rules):
    rng = random.Random(rules.full_slug + "/agree")
    n = sum(_playout(rules, deal, rng, 16, 0.3)[0] for deal in range(AGREEMENT_DEALS))
    homes = [_playout(rules, None, rng, 24, 0.5, _endgame_position(rules, rng))[1] for _ in range(AGREEMENT_ENDGAMES)]
    assert n > 2 * AGREEMENT_DEALS and homes.count(52) > 0


def test_the_agreement_playouts_do_play_sequences():
    """The random playouts above reach sequence moves (else they would check nothing of the dialects)."""
    rng = random.Random(3)
    for rules in DIALECT_GAMES:
        seqs = 0
        for _ in range(40):
            pos = _endgame_position(rules, rng)
            for _ in range(24):
                moves = reference.legal_moves(rules, pos)
                if not moves:
                    break
                seqs += sum(m.count > 1 for m in moves)
                pos = reference.play(rules, pos, rng.choice(moves))
        assert seqs > 50, rules.full_slug


# --------------------------------------------------------------------------
# the sheet does not move sequences: its buffers, moves and text are as before
# --------------------------------------------------------------------------


def test_the_sheet_never_offers_a_sequence():
    rng = random.Random(11)
    for rules in GAMES:
        for _ in range(20):
            state = State.from_position(rules, _endgame_position(rules, rng))
            acts = state.legal_moves.actions()
            assert (acts < N_ACTIONS).all() and len(acts) <= N_ACTIONS
            assert not legal_kernel.is_legal(state.array, state.rules_array, N_ACTIONS + 1)
    with pytest.raises(reference.IllegalMoveError, match="moves one card at a time"):
        reference.play(find_game("sa"), pos_of(find_game("sa"), ["KS QH", "", "KD"]), Move(0, 1, 2))


# --------------------------------------------------------------------------
# the solver
# --------------------------------------------------------------------------

SOLVER_DEALS = range(30)
BUDGET = dict(budget_nodes=60_000, budget_seconds=30.0, portfolio=False)  #: settles 23 of the 30 in both games


def _verdicts(name, deals, budget_nodes=BUDGET["budget_nodes"]):
    from sim.solver.answer import solve_deal

    return {d: solve_deal(Game(name), 0, d, **{**BUDGET, "budget_nodes": budget_nodes}) for d in deals}


@pytest.mark.parametrize("slug", ["streets-and-alleys", "beleaguered-castle"])
def test_supermoves_never_change_a_verdict(slug):
    """A supermove is a macro of single moves: the reachable positions are the same, so is winnability."""
    sheet = _verdicts(slug, SOLVER_DEALS)
    dialect = _verdicts(slug + "@supermoves", SOLVER_DEALS)
    settled = 0
    for d in SOLVER_DEALS:
        a, b = sheet[d].result, dialect[d].result
        if "unknown" not in (a, b):
            assert a == b, (slug, d, a, b)
            settled += 1
    assert settled >= 20
    assert any(m.count > 1 for r in dialect.values() for m in r.moves)  # the wins use supermoves (and replayed)


def test_pysol_selective_castle_wins_whatever_the_sheet_wins():
    """Every sheet move is a pysol move: a deal won under the sheet is won under pysol."""
    sheet = _verdicts("selective-castle", SOLVER_DEALS, 100_000)
    won = [d for d in SOLVER_DEALS if sheet[d].result == "won"]
    assert len(won) >= 20
    pysol = _verdicts("selective-castle@pysol", won, 300_000)
    assert all(pysol[d].result == "won" for d in won), {d: pysol[d].result for d in won}
    assert any(m.count > 1 for r in pysol.values() for m in r.moves)


def test_a_dialect_win_replays_in_both_engines_and_the_sheet_refuses_it():
    from sim.solver.answer import ReplayError, confirm, solve_deal

    game = Game("selective-castle@pysol")
    result = solve_deal(game, 0, 1, **BUDGET)
    assert result.result == "won" and any(m.count > 1 for m in result.moves)
    confirm(game, game.deal(1).array.copy(), result.moves)
    with pytest.raises(ReplayError, match="moves one card at a time"):
        confirm(Game("selective-castle"), game.deal(1).array.copy(), result.moves)


def test_pruning_switches_keep_dialect_verdicts():
    """Rules 1, 3 and 4 cover sequence moves (pruning.md); rule 2 is ignored in these dialects."""
    from sim.kernels import pruning
    from sim.solver.answer import solve_deal

    for name, deals in (("beleaguered-castle@supermoves", (20, 32, 33, 47)), ("streets-and-alleys@supermoves", (2, 44, 64))):
        for d in deals:
            verdicts = {prune: solve_deal(Game(name), 0, d, budget_nodes=400_000, portfolio=False, shorten=False, prune=prune).result
                        for prune in (0, pruning.PRUNE_DEFAULT, pruning.PRUNE_ALL, pruning.PRUNE_SAFE_FOUNDATION, pruning.PRUNE_CANONICAL)}
            assert len(set(verdicts.values())) == 1 and "unknown" not in verdicts.values(), (name, d, verdicts)


# --------------------------------------------------------------------------
# players, runner and command line
# --------------------------------------------------------------------------


def test_every_compiled_player_plays_a_dialect():
    from sim.players.loop import play_deal

    for player in ("random", "greedy", "strategist", "lookahead:depth=2", "beam:budget=20000", "rollout:budget=5000",
                   "nmcs:budget=5000"):
        rec = play_deal(Game("selective-castle@pysol"), player, 3)
        state = Game("selective-castle@pysol").deal(3)
        pos = state.position()
        for m in rec.moves:  # every move replays in the reference engine
            pos = reference.play(SC_PYSOL, pos, m)
        assert pos.cards_home == rec.cards_home


def test_one_game_in_two_dialects_is_one_readable_dataset(tmp_path):
    import pyarrow.parquet as pq

    from analysis.load import load_results
    from sim.study.experiment import build, read_toml
    from sim.study.runner import run

    exp_file = tmp_path / "exp.toml"
    exp_file.write_text('name = "two"\ndeals = 6\nchunk_size = 3\ngames = ["selective-castle", "selective-castle@pysol"]\n'
                        '[[players]]\nname = "greedy"\n')
    out = tmp_path / "out"
    first = run(build(read_toml(exp_file), from_file=True), out, progress=False)
    assert first.deals_played == 12
    assert (out / "game=selective-castle" / "player=greedy").is_dir()
    assert (out / "game=selective-castle@pysol" / "player=greedy").is_dir()
    rows = pq.read_table(out / "game=selective-castle@pysol").to_pandas()
    assert set(rows["game"].astype(str)) == {"selective-castle"} and set(rows["dialect"].astype(str)) == {"pysol"}
    df = load_results(out)
    assert df.groupby("game").size().to_dict() == {"selective-castle": 6, "selective-castle@pysol": 6}
    assert set(df[df.game == "selective-castle"].dialect) == {"sheet"}
    assert len(load_results(out, games=["selective-castle@pysol"])) == 6
    assert len(load_results(out, games=["selective-castle"])) == 6
    again = run(build(read_toml(exp_file), from_file=True), out, progress=False)
    assert again.deals_played == 0 and again.deals_already == 12


def test_the_command_line_takes_dialects():
    from typer.testing import CliRunner

    from sim.cli import full_app

    app = full_app()
    cli = CliRunner()
    games = cli.invoke(app, ["games"]).output.split("\n")
    names = [line.split()[0] for line in games if line.strip()]
    assert {"selective-castle@pysol", "streets-and-alleys@supermoves", "beleaguered-castle@supermoves",
            "castles-in-spain@supermoves", "selective-castle-independent@pysol"} <= set(names)
    assert names.index("selective-castle@pysol") == names.index("selective-castle") + 1
    out = cli.invoke(app, ["play", "sc@pysol", "3", "--player", "greedy", "--json"])
    assert out.exit_code == 0 and '"game": "selective-castle", "dialect": "pysol"' in out.output
    out = cli.invoke(app, ["solve", "sc@pysol", "0", "--budget-nodes", "100000", "--json"])
    assert out.exit_code == 0 and '"result": "won"' in out.output
    out = cli.invoke(app, ["deal", "sa@supermoves", "3"])
    assert out.exit_code == 0 and out.output == cli.invoke(app, ["deal", "sa", "3"]).output
