"""The rest of the family, one test per rule of its sheet, on both engines."""

from __future__ import annotations

from sim.core.board import Position
from sim.core.cards import rank_of, suit_of
from sim.core.deals import deal_position
from sim.core.moves import Move
from sim.core.rules import (
    BAKERS_DOZEN,
    BELEAGUERED_CASTLE,
    CASTLES_END,
    CASTLES_IN_SPAIN,
    CHECKERBOARD,
    CHESSBOARD,
    CITADEL,
    FORTRESS,
    ORDERED_SUITS,
)
from test_rules import c, is_legal, position


# --- Citadel ------------------------------------------------------------------


def test_citadel_deal_sends_fitting_cards_home_and_the_pile_misses_them():
    for deal in range(30):
        bc = deal_position(BELEAGUERED_CASTLE, deal)
        ci = deal_position(CITADEL, deal)
        went_home = []
        for bc_pile, ci_pile in zip(bc.piles, ci.piles):
            assert [x for x in bc_pile if x in ci_pile] == ci_pile  # the same cards, in the same places
            went_home += [x for x in bc_pile if x not in ci_pile]
        assert sum(ci.foundations) == 4 + len(went_home)
        for suit in range(4):  # what went home is each suit's run from the Ace
            assert sorted(rank_of(x) for x in went_home if suit_of(x) == suit) == list(range(1, ci.foundations[suit]))


def test_citadel_pysol_deal_is_read():
    pos = deal_position(CITADEL, "pysol:1080")
    assert sum(len(p) for p in pos.piles) + sum(pos.foundations) == 52
    assert sum(pos.foundations) > 4


# --- Chessboard and Fortress: up or down in suit ---------------------------------------


def test_chessboard_builds_up_or_down_in_suit_with_wrap(engine):
    pos = position(CHESSBOARD, "6H", "5H", "7H", "5S", "KH", "AH", "-")
    assert is_legal(engine, CHESSBOARD, pos, "2-1")  # 5H on 6H: down
    assert is_legal(engine, CHESSBOARD, pos, "3-1")  # 7H on 6H: up
    assert not is_legal(engine, CHESSBOARD, pos, "4-1")  # 5S on 6H: other suit
    assert is_legal(engine, CHESSBOARD, pos, "5-6")  # KH on AH: wrap down
    assert is_legal(engine, CHESSBOARD, pos, "6-5")  # AH on KH: wrap up


def test_chessboard_foundations_share_the_first_base_and_wrap(engine):
    pos = position(CHESSBOARD, "KS", "QD", "KD", "AD")
    after = engine.play(CHESSBOARD, pos, Move.from_str("2-F"))
    assert after.bases == [11] * 4  # a Queen founded: every foundation starts from a Queen
    assert not is_legal(engine, CHESSBOARD, after, "1-F")  # KS cannot start spades
    after = engine.play(CHESSBOARD, after, Move.from_str("3-F"))
    assert is_legal(engine, CHESSBOARD, after, "4-F")  # AD after KD: the wrap


def test_fortress_builds_in_suit_without_wrap_and_founds_from_the_ace(engine):
    pos = position(FORTRESS, "6H", "5H", "7H", "KH", "AH", "2C")
    assert is_legal(engine, FORTRESS, pos, "2-1") and is_legal(engine, FORTRESS, pos, "3-1")
    assert not is_legal(engine, FORTRESS, pos, "4-5") and not is_legal(engine, FORTRESS, pos, "5-4")
    assert is_legal(engine, FORTRESS, pos, "5-F")
    assert not is_legal(engine, FORTRESS, pos, "6-F")


# --- Castles End: reserves -------------------------------------------------------------


def _castles_end(*named: str, reserves=("3C", "2D")) -> Position:
    """Castles End with the first piles named (at most 8), piles 9-10 holding the rest, and two reserves."""
    piles = [[] if p in ("", "-") else [c(t) for t in p.split()] for p in named]
    used = {x for p in piles for x in p} | {c(t) for t in reserves}
    rest = sorted(set(range(52)) - used)
    piles += [[] for _ in range(10 - len(piles))]
    piles[8], piles[9] = rest[: len(rest) // 2], rest[len(rest) // 2 :]
    return Position(piles + [[c(reserves[0])], [c(reserves[1])]], [0] * 4, [-1] * 4)


def test_castles_end_reserve_cards_play_to_tableau_and_foundation(engine):
    pos = _castles_end("4H", "2S", "-")
    assert is_legal(engine, CASTLES_END, pos, "11-1")  # 3C (black) on 4H (red): down, alternating
    assert is_legal(engine, CASTLES_END, pos, "11-F")  # the first card founded may be any card
    assert is_legal(engine, CASTLES_END, pos, "12-3")  # an empty tableau pile takes a reserve card


def test_castles_end_nothing_goes_on_a_reserve(engine):
    pos = _castles_end("4H", "2S", "-")
    emptied = engine.play(CASTLES_END, pos, Move.from_str("11-3"))
    assert not emptied.piles[10]
    assert not any(mv.target in (10, 11) for mv in engine.legal(CASTLES_END, emptied))


def test_castles_end_alternating_colour_up_or_down_no_wrap(engine):
    pos = _castles_end("6H", "5S", "7C", "5D", "KC", "AH")
    assert is_legal(engine, CASTLES_END, pos, "2-1") and is_legal(engine, CASTLES_END, pos, "3-1")
    assert not is_legal(engine, CASTLES_END, pos, "4-1")  # red on red
    assert not is_legal(engine, CASTLES_END, pos, "5-6") and not is_legal(engine, CASTLES_END, pos, "6-5")


# --- Checkerboard: a dealt base --------------------------------------------------------


def test_checkerboard_deals_51_and_founds_the_52nd():
    for deal in range(20):
        pos = deal_position(CHECKERBOARD, deal)
        assert [len(p) for p in pos.piles] == [6] + [5] * 9
        assert sum(pos.foundations) == 1 and len(set(pos.bases)) == 1 and pos.bases[0] >= 0


def test_checkerboard_empty_foundations_take_only_the_dealt_base(engine):
    pos = position(CHECKERBOARD, "7C", "8D", "9S", home={"H": 1}, base=6)  # 7H is home: base 7
    assert is_legal(engine, CHECKERBOARD, pos, "1-F")
    assert not is_legal(engine, CHECKERBOARD, pos, "2-F")
    assert is_legal(engine, CHECKERBOARD, pos, "1-2") and is_legal(engine, CHECKERBOARD, pos, "3-2")


# --- Ordered Suits: one foundation at a time ---------------------------------------------


def test_ordered_suits_opens_one_foundation_at_a_time(engine):
    pos = position(ORDERED_SUITS, "9C", "9D", home={"H": 5}, base=8)  # hearts open with 5 of 13
    assert not is_legal(engine, ORDERED_SUITS, pos, "1-F")
    assert not is_legal(engine, ORDERED_SUITS, pos, "2-F")
    full = position(ORDERED_SUITS, "9C", "9D", home={"H": 13}, base=8)
    assert is_legal(engine, ORDERED_SUITS, full, "1-F") and is_legal(engine, ORDERED_SUITS, full, "2-F")


def test_ordered_suits_builds_up_or_down_regardless_of_suit(engine):
    pos = position(ORDERED_SUITS, "6H", "5H", "7S", "KH", "AC")
    assert is_legal(engine, ORDERED_SUITS, pos, "2-1") and is_legal(engine, ORDERED_SUITS, pos, "3-1")
    assert not is_legal(engine, ORDERED_SUITS, pos, "4-5") and not is_legal(engine, ORDERED_SUITS, pos, "5-4")


# --- Castles in Spain: foundation cards come back --------------------------------------


def test_castles_in_spain_foundation_top_may_come_back(engine):
    pos = position(CASTLES_IN_SPAIN, "4C", "4H", "-", home={"H": 3})  # 3H on top of hearts
    moves = {str(mv) for mv in engine.legal(CASTLES_IN_SPAIN, pos) if mv.from_foundation}
    assert moves >= {"FH-1", "FH-3"}  # on the black 4, and to the empty pile
    assert "FH-2" not in moves  # not on the red 4
    back = engine.play(CASTLES_IN_SPAIN, pos, Move.from_str("FH-1"))
    assert back.foundations[2] == 2 and back.piles[0][-1] == c("3H")
    assert is_legal(engine, CASTLES_IN_SPAIN, back, "1-F")  # and it may go home again


def test_castles_in_spain_empty_foundation_gives_nothing_back(engine):
    pos = position(CASTLES_IN_SPAIN, "4C", "-")
    assert not any(mv.from_foundation for mv in engine.legal(CASTLES_IN_SPAIN, pos))


# --- Baker's Dozen ---------------------------------------------------------------------------


def test_bakers_dozen_kings_go_to_the_bottom_of_their_pile():
    for deal in range(30):
        for pile in deal_position(BAKERS_DOZEN, deal).piles:
            ranks = [rank_of(x) for x in pile]
            kings = ranks.count(12)
            assert ranks[:kings] == [12] * kings


def test_bakers_dozen_an_empty_pile_is_never_filled(engine):
    pos = position(BAKERS_DOZEN, "5C", "-", "6H")
    assert not any(mv.target == 1 for mv in engine.legal(BAKERS_DOZEN, pos))
    assert is_legal(engine, BAKERS_DOZEN, pos, "1-3")


# --- A new game is a new record ---------------------------------------------------


def test_a_new_record_is_a_new_game():
    """A game nobody wrote an engine for: one ``Rules`` record, and both engines play it the same.

    (Registering it for ``castle`` and the runner is appending it to ``GAMES``.)
    """
    import dataclasses
    import random

    from sim.core import reference
    from sim.game import State
    from sim.core.rules import EmptyPile, Rules, TableauDirection, TableauSuit

    variant = Rules(
        slug="test-seven-piles", name="Seven piles, up or down in colour", description="a made-up variant",
        pile_sizes=(8, 8, 8, 7, 7, 7, 7), tableau_direction=TableauDirection.UP_OR_DOWN,
        tableau_suit=TableauSuit.ALTERNATE_COLOUR, empty_pile=EmptyPile.NOTHING, foundation_to_tableau=True,
    )
    assert dataclasses.is_dataclass(variant)
    rng = random.Random(3)
    played = 0
    for deal in range(200):
        pos = deal_position(variant, deal)
        state = State.from_position(variant, pos)
        for _ in range(40):
            moves = reference.legal_moves(variant, pos)
            assert moves == list(state.legal_moves)
            if not moves:
                break
            move = rng.choice(moves)
            pos = reference.play(variant, pos, move)
            state.push(move)
            assert state.position().key() == pos.key()
            played += 1
    assert played > 1000
