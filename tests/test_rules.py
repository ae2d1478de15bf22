"""One test per rule of the rule sheets, for the three games of the study and the independent-bases variant.

Each test builds a small hand-made position and asks the ``engine`` fixture
(the reference and the compiled engine, see conftest.py) what is legal.
Positions are complete (all 52 cards once): :func:`position` lays out the
piles a test names and puts every other card in the remaining piles, where
the test does not look.
"""

from __future__ import annotations

import functools
import random
import re

import pytest

from sim.core import reference
from sim.core.board import BoardError, Position, format_board, parse_board
from sim.core.cards import N_CARDS, SUITS, card_str, make_card, parse_card, rank_of, suit_of
from sim.core.deals import deal_position
from sim.core.moves import FOUNDATION, MAX_PILES, N_ACTIONS, Move
from sim.core.rules import (
    BELEAGUERED_CASTLE as BC,
    SELECTIVE_CASTLE as SC,
    SELECTIVE_CASTLE_INDEPENDENT as SCI,
    STREETS_AND_ALLEYS as SA,
    FoundationBase,
    Rules,
)

ACE, SEVEN, EIGHT, NINE, TEN, KING = 0, 6, 7, 8, 9, 12  # ranks


# --- helpers -----------------------------------------------------------------


def c(token: str) -> int:
    return parse_card(token)


def m(text: str) -> Move:
    """A move in its text form: ``"3-F"``, ``"1-8"``, piles counted from 1."""
    return Move.from_str(text)


def position(rules: Rules, *piles: str, home: dict[str, int] | None = None, base=None) -> Position:
    """A complete position of ``rules``.

    ``piles`` are the first piles, bottom card first (``"-"`` for empty);
    ``home`` counts the cards on each foundation (``{"C": 3}``), counted up
    from ``base`` (a rank for every foundation, or ``{"C": rank}`` each;
    Ace-based games always start from the Ace). Every card left over goes to
    the remaining piles, so a test must leave at least one of them free.
    """
    home = dict(home or {})
    if rules.aces_preplaced:  # Beleaguered Castle: the Aces are always home
        home = {s: max(1, home.get(s, 0)) for s in SUITS}
    if rules.foundation_base == FoundationBase.ACE:
        bases = [ACE] * 4
    elif base is None:
        bases = [-1] * 4
    elif isinstance(base, dict):
        bases = [base.get(s, -1) for s in SUITS]
    elif rules.foundation_base == FoundationBase.FIRST_CARD_SHARED:
        bases = [base] * 4
    else:
        bases = [base if home.get(s) else -1 for s in SUITS]
    counts = [home.get(s, 0) for s in SUITS]
    used = []
    for suit, n in enumerate(counts):
        assert n == 0 or bases[suit] >= 0, f"foundation {SUITS[suit]} has cards but no base"
        used += [make_card((bases[suit] + i) % 13, suit) for i in range(n)]
    rows = [[] if p.strip() in ("", "-") else [c(t) for t in p.split()] for p in piles]
    for row in rows:
        used += row
    assert len(used) == len(set(used)), "a card is named twice"
    leftover = sorted(set(range(N_CARDS)) - set(used))
    free = rules.n_piles - len(rows)
    assert free > 0 or not leftover, "no pile is left for the unused cards"
    for i in range(free):
        rows.append(leftover[i * len(leftover) // free : (i + 1) * len(leftover) // free])
    pos = Position(rows, counts, bases)
    assert sorted(sum(pos.piles, []) + sum((pos.foundation_cards(s) for s in range(4)), [])) == list(range(N_CARDS))
    return pos


def moves_from(engine, rules: Rules, pos: Position, pile: int) -> set[str]:
    """The legal moves of pile ``pile`` (counted from 1), as text."""
    return {str(mv) for mv in engine.legal(rules, pos) if mv.source == pile - 1}


def is_legal(engine, rules: Rules, pos: Position, text: str) -> bool:
    return m(text) in engine.legal(rules, pos)


def top(pos: Position, pile: int) -> int:
    return pos.piles[pile - 1][-1]


def random_walk(rules: Rules, deal: int, steps: int, seed: int) -> list[Position]:
    """Positions met playing random legal moves (foundation moves favoured) from a deal."""
    rng = random.Random(seed)
    pos = deal_position(rules, deal)
    seen = [pos]
    for _ in range(steps):
        moves = reference.legal_moves(rules, pos)
        if not moves:
            break
        home = [mv for mv in moves if mv.to_foundation]
        mv = rng.choice(home) if home and rng.random() < 0.6 else rng.choice(moves)
        pos = reference.play(rules, pos, mv)
        seen.append(pos)
    return seen


def scrambled_position(rules: Rules, rng: random.Random) -> Position:
    """A random complete position: random foundations, the other cards in random piles, some empty.

    Not necessarily reachable in play, but every rule is local to a pile top
    and a foundation, so it must hold here too; these reach corners (empty
    piles, late foundations, Kings on Aces) that short random games rarely do.
    """
    counts, bases = [0] * 4, [-1] * 4
    if rules.foundation_base == FoundationBase.ACE:
        bases = [ACE] * 4
        counts = [rng.choice([0, 1, 2, 3, 5, 8, 12, 13]) for _ in SUITS]
        if rules.aces_preplaced:
            counts = [max(1, n) for n in counts]
    elif rules.foundation_base == FoundationBase.FIRST_CARD_SHARED:
        if rng.random() < 0.8:
            bases = [rng.randrange(13)] * 4
            counts = [rng.choice([0, 1, 2, 6, 12, 13]) for _ in SUITS]
            counts[rng.randrange(4)] = rng.choice([1, 3, 12])
    else:
        for suit in range(4):
            if rng.random() < 0.6:
                bases[suit] = rng.randrange(13)
                counts[suit] = rng.choice([1, 2, 6, 12, 13])
    home = {make_card((bases[s] + i) % 13, s) for s in range(4) for i in range(counts[s])}
    loose = [card for card in range(N_CARDS) if card not in home]
    rng.shuffle(loose)
    empty = set(rng.sample(range(rules.n_piles), rng.choice([0, 0, 1, 2])))
    piles: list[list[int]] = [[] for _ in range(rules.n_piles)]
    fill = [i for i in range(rules.n_piles) if i not in empty]
    for card in loose:
        piles[rng.choice(fill)].append(card)
    return Position(piles, counts, bases)


@functools.lru_cache(maxsize=None)
def sample_positions(rules: Rules, n_deals: int = 4, steps: int = 60, n_scrambled: int = 30) -> tuple[Position, ...]:
    """A fixed sample of positions for the tests that sweep many: met in play, and scrambled."""
    out = []
    for deal in range(n_deals):
        out += random_walk(rules, deal, steps, seed=deal)[::3]
    rng = random.Random(rules.slug)
    out += [scrambled_position(rules, rng) for _ in range(n_scrambled)]
    return tuple(out)


def as_selective(pos: Position) -> Position:
    """A Streets and Alleys position read as Selective Castle: base Ace once a card is home."""
    bases = [ACE] * 4 if any(pos.foundations) else [-1] * 4
    return Position([list(p) for p in pos.piles], list(pos.foundations), bases)


def as_independent(pos: Position) -> Position:
    """A shared-base position read with independent bases: empty foundations have none yet."""
    bases = [b if n else -1 for b, n in zip(pos.bases, pos.foundations)]
    return Position([list(p) for p in pos.piles], list(pos.foundations), bases)


#: the games whose shared rules (build down regardless of suit, any card to a space) these tests assume;
#: the rest of the family has its own sheet in test_rules_family.py
SHEET_GAMES = (SC, SA, BC, SCI)
ALL_GAMES = pytest.mark.parametrize("rules", SHEET_GAMES, ids=[g.slug for g in SHEET_GAMES])


# --- Shared rules: one card at a time, empty piles, no self moves, winning ----


@ALL_GAMES
def test_one_card_moves_at_a_time(engine, rules):
    pos = position(rules, "KC QH JS", "QD")
    after = engine.play(rules, pos, m("1-2"))  # a sequence QH JS does not travel: only JS moves
    assert after.piles[0] == [c("KC"), c("QH")]
    assert after.piles[1] == [c("QD"), c("JS")]
    assert m("1-2") in engine.legal(rules, pos)


@ALL_GAMES
def test_a_card_never_moves_onto_its_own_pile(engine, rules):
    for pos in [position(rules, "5H", "-"), *sample_positions(rules)]:
        assert all(mv.source != mv.target for mv in engine.legal(rules, pos))
    with pytest.raises(engine.IllegalMoveError):
        engine.play(rules, position(rules, "5H", "-"), m("1-1"))


@ALL_GAMES
def test_empty_pile_takes_any_single_card(engine, rules):
    pos = position(rules, "-", "3C 9D", "4H QS", "KH", "2C 5C")
    for src in (2, 3, 4, 5):
        assert is_legal(engine, rules, pos, f"{src}-1"), f"{src}-1"
        after = engine.play(rules, pos, m(f"{src}-1"))
        assert after.piles[0] == [top(pos, src)]


@ALL_GAMES
def test_moving_a_lone_card_to_an_empty_pile_is_legal(engine, rules):
    pos = position(rules, "-", "7S")
    assert is_legal(engine, rules, pos, "2-1")
    after = engine.play(rules, pos, m("2-1"))
    assert after.piles[0] == [c("7S")] and after.piles[1] == []


@ALL_GAMES
def test_an_empty_pile_is_never_a_source(engine, rules):
    pos = position(rules, "-", "-")
    assert not {str(mv) for mv in engine.legal(rules, pos) if mv.source in (0, 1)}
    with pytest.raises(engine.IllegalMoveError):
        engine.play(rules, pos, m("1-2"))


@ALL_GAMES
def test_tableau_builds_down_regardless_of_suit(engine, rules):
    pos = position(rules, "9H", "8D", "8S", "9C", "8C", "7H")
    assert is_legal(engine, rules, pos, "2-1")  # red on red
    assert is_legal(engine, rules, pos, "3-1")  # black on red
    assert is_legal(engine, rules, pos, "5-4")  # black on black (clubs on clubs)
    assert is_legal(engine, rules, pos, "2-4")  # red on black
    assert not is_legal(engine, rules, pos, "1-2")  # up is not down
    assert not is_legal(engine, rules, pos, "2-3")  # same rank
    assert not is_legal(engine, rules, pos, "6-1")  # two ranks down


@ALL_GAMES
def test_foundation_cards_never_move_back(engine, rules):
    pos = position(rules, "-", "2C", home={"C": 1, "H": 3}, base=ACE)
    for sample in [pos, *sample_positions(rules)]:
        assert not any(mv.from_foundation for mv in engine.legal(rules, sample))
    for s in range(4):
        with pytest.raises(engine.IllegalMoveError):
            engine.play(rules, pos, Move(MAX_PILES + s, 0))


@ALL_GAMES
def test_won_iff_all_52_cards_home(engine, rules):
    full = {s: 13 for s in SUITS}
    won = position(rules, *["-"] * rules.n_piles, home=full, base=ACE)
    assert engine.is_won(won, rules)
    assert engine.legal(rules, won) == set()
    almost = position(rules, "KS", *["-"] * (rules.n_piles - 1), home={**full, "S": 12}, base=ACE)
    assert not engine.is_won(almost, rules)
    assert engine.is_won(engine.play(rules, almost, m("1-F")), rules)
    start = deal_position(rules, 0)
    assert not engine.is_won(start, rules)


# --- Streets and Alleys ---------------------------------------------------------


def test_sa_deal_is_four_piles_of_7_then_four_of_6_foundations_empty():
    pos = deal_position(SA, 0)
    assert [len(p) for p in pos.piles] == [7, 7, 7, 7, 6, 6, 6, 6]
    assert pos.foundations == [0, 0, 0, 0]


def test_sa_only_an_ace_starts_a_foundation(engine):
    pos = position(SA, "AH", "2C", "KD", "7S", "AS 5S")
    assert moves_from(engine, SA, pos, 1) >= {"1-F"}
    for pile in (2, 3, 4, 5):
        assert f"{pile}-F" not in moves_from(engine, SA, pos, pile)
    after = engine.play(SA, pos, m("1-F"))
    assert after.foundations == [0, 0, 1, 0]


def test_sa_foundation_builds_up_in_suit(engine):
    pos = position(SA, "3H 2H", "4C", home={"H": 1, "C": 3})
    assert is_legal(engine, SA, pos, "1-F")
    assert is_legal(engine, SA, pos, "2-F")
    pos = engine.play(SA, pos, m("1-F"))
    assert pos.foundations[2] == 2
    assert is_legal(engine, SA, pos, "1-F")  # now the 3H
    pos = engine.play(SA, pos, m("1-F"))
    assert pos.foundations[2] == 3 and pos.piles[0] == []


def test_sa_two_of_another_suit_is_refused(engine):
    pos = position(SA, "2D", "2S", "3H", "2H", home={"H": 1})
    assert not is_legal(engine, SA, pos, "1-F")  # diamonds not started
    assert not is_legal(engine, SA, pos, "2-F")
    assert not is_legal(engine, SA, pos, "3-F")  # 3H skips the 2H
    assert is_legal(engine, SA, pos, "4-F")


def test_sa_the_king_is_the_last_card_home(engine):
    pos = position(SA, "KC", "QD", home={"C": 12, "D": 11})
    assert is_legal(engine, SA, pos, "1-F") and is_legal(engine, SA, pos, "2-F")
    after = engine.play(SA, pos, m("1-F"))
    assert after.foundations[0] == 13
    assert after.foundation_cards(0)[-1] == c("KC")


def test_sa_tableau_builds_down_regardless_of_suit(engine):
    pos = position(SA, "9H", "8H", "8D", "8C", "TH")
    assert is_legal(engine, SA, pos, "2-1")  # red on red, even the same suit, is fine
    assert is_legal(engine, SA, pos, "3-1")  # red on red
    assert is_legal(engine, SA, pos, "4-1")  # black on red
    assert not is_legal(engine, SA, pos, "5-1")  # a Ten on a Nine: up, not down
    after = engine.play(SA, pos, m("3-1"))
    assert after.piles[0] == [c("9H"), c("8D")]


def test_sa_nothing_goes_on_an_ace(engine):
    pos = position(SA, "AS", "KH", "2D", "AC", "QC")
    assert not any(mv.target in (0, 3) for mv in engine.legal(SA, pos))
    for src in (2, 3, 5):
        with pytest.raises(engine.IllegalMoveError):
            engine.play(SA, pos, m(f"{src}-1"))


def test_sa_nothing_goes_on_an_ace_in_any_position(engine):
    for pos in sample_positions(SA):
        for mv in engine.legal(SA, pos):
            if mv.target != FOUNDATION and pos.piles[mv.target]:
                assert rank_of(pos.piles[mv.target][-1]) != ACE, (str(mv), pos)


def test_sa_kings_move_only_to_empty_piles_or_home_in_any_position(engine):
    for pos in sample_positions(SA):
        for mv in engine.legal(SA, pos):
            if rank_of(pos.piles[mv.source][-1]) == KING and mv.target != FOUNDATION:
                assert pos.piles[mv.target] == [], (str(mv), pos)


def test_sa_king_only_to_an_empty_pile(engine):
    pos = position(SA, "KH", "AS", "-", "QC", "2D")
    assert moves_from(engine, SA, pos, 1) == {"1-3"}
    full = position(SA, "KH", "AS", "5D", "QC", "2D")
    assert moves_from(engine, SA, full, 1) == set()


def test_sa_empty_pile_takes_any_single_card(engine):
    pos = position(SA, "-", "KS", "AH", "7D", "9C 8H")
    for src in (2, 3, 4, 5):
        assert f"{src}-1" in moves_from(engine, SA, pos, src)
    after = engine.play(SA, pos, m("5-1"))
    assert after.piles[0] == [c("8H")] and after.piles[4] == [c("9C")]


def test_sa_a_card_never_moves_onto_its_own_pile(engine):
    pos = position(SA, "9H 8S", "-")
    assert "1-1" not in moves_from(engine, SA, pos, 1)
    with pytest.raises(engine.IllegalMoveError):
        engine.play(SA, pos, m("1-1"))


def test_sa_foundation_cards_never_move_back(engine):
    pos = position(SA, "-", "4C 3H", home={"H": 2, "C": 3})  # 2H would fit on 3H, 3C on 4C: never from home
    assert not any(mv.from_foundation for mv in engine.legal(SA, pos))
    with pytest.raises(engine.IllegalMoveError):
        engine.play(SA, pos, m("FC-1"))
    with pytest.raises(engine.IllegalMoveError):
        engine.play(SA, pos, m("FH-2"))


def test_sa_won_iff_52_home(engine):
    full = {s: 13 for s in SUITS}
    assert engine.is_won(position(SA, *["-"] * 8, home=full), SA)
    almost = position(SA, "-", "KD", *["-"] * 6, home={**full, "D": 12})
    assert not engine.is_won(almost, SA)
    assert engine.is_won(engine.play(SA, almost, m("2-F")), SA)


# --- Beleaguered Castle ---------------------------------------------------------


@pytest.mark.parametrize("deal", [0, 1, 17])
def test_bc_aces_start_home(engine, deal):
    pos = deal_position(BC, deal)
    assert pos.foundations == [1, 1, 1, 1]
    assert [len(p) for p in pos.piles] == [6] * 8
    assert all(rank_of(card) != ACE for p in pos.piles for card in p)
    assert sorted(sum(pos.piles, [])) == sorted(card for card in range(N_CARDS) if rank_of(card) != ACE)
    # the same permutation as Streets and Alleys with its Aces taken out
    sa = deal_position(SA, deal)
    by_row_sa = [p[row] for row in range(7) for p in sa.piles if row < len(p)]
    by_row_bc = [p[row] for row in range(6) for p in pos.piles]
    assert by_row_bc == [card for card in by_row_sa if rank_of(card) != ACE]
    assert not engine.is_won(pos, BC)


def test_bc_a_two_goes_home_at_once(engine):
    pos = position(BC, "5C 2D", "2S", "3H", home={s: 1 for s in SUITS})
    assert is_legal(engine, BC, pos, "1-F")
    assert is_legal(engine, BC, pos, "2-F")
    assert not is_legal(engine, BC, pos, "3-F")
    assert engine.play(BC, pos, m("1-F")).foundations == [1, 2, 1, 1]


def test_bc_otherwise_as_streets_and_alleys(engine):
    for pos in sample_positions(BC) + sample_positions(SA):
        assert engine.legal(BC, pos) == engine.legal(SA, pos)


def test_bc_nothing_goes_on_an_ace_and_king_only_to_empty(engine):
    pos = position(BC, "KH", "2S", "-", "QC", home={s: 1 for s in SUITS})
    assert moves_from(engine, BC, pos, 1) == {"1-3"}
    assert not is_legal(engine, BC, pos, "1-2")


# --- Selective Castle -----------------------------------------------------------


def test_sc_deal_is_the_streets_and_alleys_deal():
    for deal in range(5):
        sc, sa = deal_position(SC, deal), deal_position(SA, deal)
        assert sc.piles == sa.piles
        assert sc.foundations == [0, 0, 0, 0] and sc.bases == [-1, -1, -1, -1]


@pytest.mark.parametrize("rank", range(13), ids=list("A23456789TJQK"))
def test_sc_any_first_card_of_any_rank_may_start(engine, rank):
    card = make_card(rank, rank % 4)  # every rank, in every suit along the way
    pos = position(SC, card_str(card), "-")
    assert is_legal(engine, SC, pos, "1-F")
    after = engine.play(SC, pos, m("1-F"))
    assert after.foundations[suit_of(card)] == 1 and sum(after.foundations) == 1


def test_sc_every_top_card_may_start_while_all_four_are_empty(engine):
    pos = position(SC, "AC", "7D", "KH", "9S", "TC", "-")
    starters = {mv.source for mv in engine.legal(SC, pos) if mv.to_foundation}
    assert starters == {i for i, pile in enumerate(pos.piles) if pile}
    assert {0, 1, 2, 3, 4} <= starters


@pytest.mark.parametrize("rank", [ACE, SEVEN, NINE, KING], ids=["A", "7", "9", "K"])
def test_sc_after_the_first_card_every_base_is_its_rank(engine, rank):
    card = make_card(rank, 1)
    pos = position(SC, "-", card_str(card))
    after = engine.play(SC, pos, m("2-F"))
    assert after.bases == [rank] * 4
    assert after.foundations == [0, 1, 0, 0]


def test_sc_second_foundation_started_with_the_wrong_rank_is_illegal(engine):
    pos = position(SC, "9D", "8S", "7H", "AC", "-", home={"C": 1}, base=EIGHT)  # 8C home: base 8
    assert not is_legal(engine, SC, pos, "1-F")  # a 9 of diamonds cannot start diamonds: the base is 8
    assert is_legal(engine, SC, pos, "2-F")  # the 8S does
    assert not is_legal(engine, SC, pos, "3-F")
    assert not is_legal(engine, SC, pos, "4-F")  # the AC is not next on clubs (9C is)
    with pytest.raises(engine.IllegalMoveError):
        engine.play(SC, pos, m("1-F"))


def test_sc_second_foundation_cannot_start_a_different_base_after_play(engine):
    pos = position(SC, "3D", "QS", "-")
    pos = engine.play(SC, pos, m("1-F"))  # 3D sets the base 3
    assert pos.bases == [2] * 4
    assert not is_legal(engine, SC, pos, "2-F")
    pos = engine.play(SC, pos, m("2-3"))
    assert not is_legal(engine, SC, pos, "3-F")


def test_sc_the_base_never_changes_once_set(engine):
    pos = position(SC, "5D 4C 3H 3C", "3D 3S", "-")
    seen = []
    for move in ("1-F", "1-3", "1-F", "2-F", "2-F", "3-F"):
        pos = engine.play(SC, pos, m(move))
        seen.append(list(pos.bases))
    assert all(b == [2] * 4 for b in seen), seen
    assert pos.foundations == [2, 1, 1, 1]
    assert not any(mv.from_foundation for mv in engine.legal(SC, pos))


def test_sc_the_base_never_changes_in_play(engine):
    for deal in range(3):
        pos, rng = deal_position(SC, deal), random.Random(deal)
        base = None
        for _ in range(80):
            moves = sorted(engine.legal(SC, pos), key=lambda mv: mv.action)
            home = [mv for mv in moves if mv.to_foundation]
            if not moves:
                break
            pos = engine.play(SC, pos, rng.choice(home) if home and rng.random() < 0.5 else rng.choice(moves))
            if base is None and any(pos.foundations):
                base = list(pos.bases)
                assert len(set(base)) == 1 and base[0] >= 0
            assert base is None or pos.bases == base


def test_sc_base_ace_behaves_like_streets_and_alleys_foundations(engine):
    piles = ("AH", "2C", "KD", "QS 2H", "3C", "-")
    sc = engine.play(SC, position(SC, *piles, home={"C": 1}, base=ACE), m("1-F"))
    sa = engine.play(SA, position(SA, *piles, home={"C": 1}), m("1-F"))
    assert sc.bases == [ACE] * 4 and sc.piles == sa.piles and sc.foundations == sa.foundations
    home_sc = {mv for mv in engine.legal(SC, sc) if mv.to_foundation}
    home_sa = {mv for mv in engine.legal(SA, sa) if mv.to_foundation}
    assert home_sc == home_sa == {m("2-F"), m("4-F")}
    # and the King is the last card, as in Streets and Alleys
    done = position(SC, "KC", "AD", home={"C": 12, "D": 0}, base=ACE)
    assert is_legal(engine, SC, done, "1-F") and is_legal(engine, SC, done, "2-F")
    assert engine.play(SC, done, m("1-F")).foundations[0] == 13


def test_sc_base_seven_makes_the_sixes_last(engine):
    # hearts home 7..K, A..5 (12 cards): the 6H is next and last
    pos = position(SC, "6H", "7D", "6D", "KS", "AS", home={"H": 12, "S": 6}, base=SEVEN)
    assert pos.foundation_cards(2)[-1] == c("5H")
    assert is_legal(engine, SC, pos, "1-F")
    assert is_legal(engine, SC, pos, "2-F")  # 7D starts diamonds
    assert not is_legal(engine, SC, pos, "3-F")  # 6D would be diamonds' last card, not first
    assert is_legal(engine, SC, pos, "4-F")  # spades 7..Q home: the King next
    assert not is_legal(engine, SC, pos, "5-F")
    after = engine.play(SC, pos, m("1-F"))
    assert after.foundations[2] == 13 and after.bases == [SEVEN] * 4
    after = engine.play(SC, after, m("4-F"))
    assert is_legal(engine, SC, after, "5-F")  # past the King to the Ace


def test_sc_king_on_an_ace_then_a_queen_on_that_king(engine):
    pos = position(SC, "5C AH", "KS", "QD", "-")
    assert is_legal(engine, SC, pos, "2-1")
    assert not is_legal(engine, SA, position(SA, "5C AH", "KS", "QD", "-"), "2-1")  # no wrap there
    pos = engine.play(SC, pos, m("2-1"))
    assert pos.piles[0] == [c("5C"), c("AH"), c("KS")]
    assert is_legal(engine, SC, pos, "3-1")
    pos = engine.play(SC, pos, m("3-1"))
    assert pos.piles[0][-1] == c("QD")


def test_sc_an_ace_does_not_go_on_a_king(engine):
    # the tableau builds down only: wrapping lets K go on A, not A on K
    pos = position(SC, "KS", "AH", "2C")
    assert not is_legal(engine, SC, pos, "2-1")
    assert is_legal(engine, SC, pos, "2-3")  # an Ace on a two, as usual
    assert is_legal(engine, SC, pos, "1-2")  # the King on the Ace


def test_sc_a_foundation_started_with_a_nine_finishes_on_its_eight(engine):
    pos = position(SC, "8C 7C 6C 5C 4C 3C 2C AC KC QC JC TC 9C", "-", "TD", "9H")
    for i in range(13):  # the whole suit goes home, 9C first, wrapping past the King
        assert is_legal(engine, SC, pos, "1-F"), f"club number {i + 1}"
        pos = engine.play(SC, pos, m("1-F"))
        assert pos.bases == [NINE] * 4
    assert pos.foundations == [13, 0, 0, 0] and pos.piles[0] == []
    assert pos.foundation_cards(0)[0] == c("9C") and pos.foundation_cards(0)[-1] == c("8C")
    assert not is_legal(engine, SC, pos, "3-F")  # the other suits start only from their 9s
    assert is_legal(engine, SC, pos, "4-F")


def test_sc_foundation_wraps_from_the_king_to_the_ace(engine):
    pos = position(SC, "AC", "KC", home={"C": 3}, base=TEN)  # clubs TC JC QC home: the King next, then the Ace
    assert not is_legal(engine, SC, pos, "1-F")
    assert is_legal(engine, SC, pos, "2-F")
    pos = engine.play(SC, pos, m("2-F"))
    assert is_legal(engine, SC, pos, "1-F")


# --- Selective Castle, independent bases -----------------------------------------


def test_sci_each_foundation_takes_its_own_base(engine):
    pos = position(SCI, "9C", "3D", "KH", "AS", "-")
    for move in ("1-F", "2-F", "3-F", "4-F"):
        assert is_legal(engine, SCI, pos, move), move
        pos = engine.play(SCI, pos, m(move))
    assert pos.bases == [8, 2, 12, 0]
    assert pos.foundations == [1, 1, 1, 1]


def test_sci_first_card_sets_only_its_own_base(engine):
    pos = engine.play(SCI, position(SCI, "9C", "-"), m("1-F"))
    assert pos.bases == [8, -1, -1, -1]


def test_sci_second_foundation_may_start_with_a_different_rank(engine):
    pos = position(SCI, "4D", "5C", "TC", "-", home={"C": 1}, base={"C": NINE})
    assert is_legal(engine, SCI, pos, "1-F")  # 4D starts diamonds although clubs started on a 9
    assert not is_legal(engine, SCI, pos, "2-F")  # clubs: the TC is next, not the 5C
    assert is_legal(engine, SCI, pos, "3-F")
    assert not is_legal(engine, SC, position(SC, "4D", "5C", "TC", "-", home={"C": 1}, base=NINE), "1-F")


def test_sci_started_foundations_build_up_from_their_own_base_and_wrap(engine):
    # clubs 9C TC JC QC home (base 9), diamonds 2D 3D home (base 2)
    pos = position(SCI, "4D", "KC AC", "5D", "-", home={"C": 4, "D": 2}, base={"C": NINE, "D": 1})
    assert is_legal(engine, SCI, pos, "1-F")  # 4D is next on diamonds
    assert not is_legal(engine, SCI, pos, "3-F")  # 5D is not
    assert not is_legal(engine, SCI, pos, "2-F")  # AC is not next on clubs: the King is
    pos = engine.play(SCI, pos, m("2-4"))
    pos = engine.play(SCI, pos, m("2-F"))  # KC home
    assert is_legal(engine, SCI, pos, "4-F")  # then the AC, past the King
    assert pos.bases == [NINE, 1, -1, -1]


def test_sci_everything_legal_with_a_shared_base_is_legal_here(engine):
    for pos in sample_positions(SC):
        assert engine.legal(SC, pos) <= engine.legal(SCI, as_independent(pos))


# --- Monotonicity: Streets and Alleys inside Selective Castle --------------------


def test_sa_start_moves_are_legal_in_selective_castle(engine):
    for deal in range(36):
        sa, sc = deal_position(SA, deal), deal_position(SC, deal)
        sa_moves, sc_moves = engine.legal(SA, sa), engine.legal(SC, sc)
        assert sa_moves <= sc_moves, f"deal {deal}: {sorted(map(str, sa_moves - sc_moves))}"


def test_sa_moves_in_play_are_legal_in_selective_castle_with_base_ace(engine):
    for pos in sample_positions(SA, n_deals=8):
        assert engine.legal(SA, pos) <= engine.legal(SC, as_selective(pos))


# --- play ----------------------------------------------------------------------


def test_play_raises_on_an_illegal_move_and_leaves_the_input_untouched(engine):
    pos = position(SA, "9H 8S", "6D", "-", "4C", "2C")
    before = pos.copy()
    for bad in ("2-1", "4-2", "1-F", "3-1", "1-1", "FC-1", "5-F"):
        with pytest.raises(engine.IllegalMoveError) as info:
            engine.play(SA, pos, m(bad))
        assert isinstance(info.value, ValueError)
        assert pos.key() == before.key(), bad
    engine.play(SA, pos, m("1-3"))
    assert pos.key() == before.key(), "a legal move changed its input"


def test_both_engines_raise_the_one_illegal_move_error():
    from sim import game
    from sim.core.moves import IllegalMoveError

    assert game.IllegalMoveError is reference.IllegalMoveError is IllegalMoveError
    state = game.State.from_position(SA, position(SA, "KH", "QS 5D"))
    with pytest.raises(IllegalMoveError, match="5D does not go on KH"):
        state.push(m("2-1"))


def test_reference_illegal_move_message_names_the_move_and_why():
    with pytest.raises(reference.IllegalMoveError) as info:
        reference.play(SA, position(SA, "KH", "QS 5D"), m("2-1"))
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("2-1: ") and "5D" in message and "KH" in message
    with pytest.raises(reference.IllegalMoveError, match=r"^3-F: .*foundation"):
        reference.play(SC, position(SC, "-", "-", "2S", home={"C": 1}, base=NINE), m("3-F"))


def test_play_result_is_a_new_position(engine):
    pos = position(SA, "9H 8S", "-")
    after = engine.play(SA, pos, m("1-2"))
    assert after is not pos and after.piles is not pos.piles
    assert after.piles[0] == [c("9H")] and after.piles[1] == [c("8S")]
    assert pos.piles[0] == [c("9H"), c("8S")] and pos.piles[1] == []


@ALL_GAMES
def test_play_accepts_exactly_the_legal_moves(engine, rules):
    """Every action of the fixed space: play succeeds iff legal_moves lists it."""
    for pos in sample_positions(rules)[::4]:
        legal = engine.legal(rules, pos)
        for action in range(N_ACTIONS):
            move = Move.from_action(action)
            if move in legal:
                after = engine.play(rules, pos, move)
                card = pos.piles[move.source][-1]
                assert after.piles[move.source] == pos.piles[move.source][:-1]
                if move.target == FOUNDATION:
                    assert after.foundations[suit_of(card)] == pos.foundations[suit_of(card)] + 1
                else:
                    assert after.piles[move.target] == pos.piles[move.target] + [card]
            else:
                with pytest.raises(engine.IllegalMoveError):
                    engine.play(rules, pos, move)


@ALL_GAMES
def test_reference_legal_moves_are_sorted_by_action(rules):
    for pos in sample_positions(rules):
        actions = [mv.action for mv in reference.legal_moves(rules, pos)]
        assert actions == sorted(actions) and len(actions) == len(set(actions))


# --- Board text -------------------------------------------------------------------


def parse_for(rules: Rules, text: str) -> Position:
    default_base = 0 if rules.foundation_base == FoundationBase.ACE else -1
    shared = rules.foundation_base != FoundationBase.FIRST_CARD_INDEPENDENT
    return parse_board(text, rules.n_piles, default_base=default_base, shared_base=shared)


@ALL_GAMES
@pytest.mark.parametrize("deal", [0, 1, 2, 1000])
def test_board_text_round_trip_of_deals(rules, deal):
    pos = deal_position(rules, deal)
    text = format_board(pos)
    back = parse_for(rules, text)
    assert format_board(back) == text
    assert back.key() == pos.key()


@ALL_GAMES
def test_board_text_round_trip_in_play(rules):
    for pos in sample_positions(rules):
        text = format_board(pos)
        back = parse_for(rules, text)
        assert format_board(back) == text
        assert back.key() == pos.key(), text


BOARD = format_board(deal_position(SA, 0))


def test_board_error_bad_card_token_names_line_and_token():
    lines = BOARD.splitlines()
    lines[2] = lines[2].replace(lines[2].split()[1], "ZZ")
    with pytest.raises(BoardError, match=r"line 3: 'ZZ' is not a card"):
        parse_board("\n".join(lines), 8)


def test_board_error_duplicated_card_names_both_lines():
    lines = BOARD.splitlines()
    first = lines[0].split()[0]
    lines[5] = lines[5] + " " + first
    with pytest.raises(BoardError, match=rf"line 6: '{first}' is already on line 1"):
        parse_board("\n".join(lines), 8)


def test_board_error_missing_cards_are_named():
    lines = BOARD.splitlines()
    gone = lines[4].split()[-1]
    lines[4] = " ".join(lines[4].split()[:-1])
    with pytest.raises(BoardError, match=rf"missing.*\b{gone}\b"):
        parse_board("\n".join(lines), 8, default_base=0)


def test_board_error_wrong_pile_count():
    with pytest.raises(BoardError, match=r"expected 8 piles, found 9"):
        parse_board(BOARD + "-\n", 8)
    with pytest.raises(BoardError, match=r"expected 8 piles, found 7"):
        parse_board("\n".join(BOARD.splitlines()[:7]), 8)


def test_board_error_bad_foundation_token_names_line_and_token():
    with pytest.raises(BoardError, match=r"line 1: bad foundation 'H-Z'"):
        parse_board("Foundations: H-Z C-0 D-0 S-0\n" + BOARD, 8)


def test_board_error_foundations_line_not_first():
    with pytest.raises(BoardError, match=r"line 2: the Foundations: line must come first"):
        parse_board(BOARD.splitlines()[0] + "\nFoundations: H-0\n", complete=False)


def test_board_error_line_numbers_count_leading_blank_lines():
    with pytest.raises(BoardError, match=r"line 3: 'ZZ'"):
        parse_board("\n\nAH ZZ\n", complete=False)


def test_board_error_messages_are_one_line():
    bad = ["AH ZZ\n", "AH\nAH\n", "Foundations: X-1\nAH\n"]
    for text in bad:
        with pytest.raises(BoardError) as info:
            parse_board(text, complete=False)
        assert "\n" not in str(info.value) and re.search(r"line \d", str(info.value))
