"""Seeded deals are fixed forever: golden files, chunk independence, layouts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sim.core.board import format_board
from sim.core.cards import card_str, rank_of
from sim.core.deals import DealError, deal_position, parse_deal_id, permutation
from sim.game import State
from sim.kernels import dealing
from sim.kernels import layout
from sim.kernels.rng import permutation as compiled_permutation
from sim.core.rules import BELEAGUERED_CASTLE, GAMES, SELECTIVE_CASTLE, STREETS_AND_ALLEYS, find_game

GOLDEN = Path(__file__).parent / "golden" / "deals.txt"


def _golden_sections():
    sections = {}
    for block in GOLDEN.read_text().split("\n# "):
        header, _, body = block.lstrip("# ").partition("\n")
        sections[header] = body.rstrip("\n") + "\n"
    return sections


@pytest.mark.parametrize("header", list(_golden_sections()))
def test_golden_deals_never_change(header):
    body = _golden_sections()[header]
    words = header.split()
    if words[0] == "pysol":
        text = format_board(deal_position(find_game(words[2]), f"pysol:{words[1]}"))
    elif words[-1] == "permutation":
        text = " ".join(card_str(c) for c in permutation(int(words[1]), int(words[3]))) + "\n"
    else:
        text = format_board(deal_position(find_game(words[4]), int(words[3]), int(words[1])))
    assert text == body


def test_permutation_is_a_permutation_and_varies():
    perms = [tuple(permutation(0, d)) for d in range(200)]
    assert all(sorted(p) == list(range(52)) for p in perms)
    assert len(set(perms)) == 200
    assert permutation(1, 0) != permutation(0, 0)


def test_permutation_looks_uniform():
    """Each card's first position over 4,000 deals: chi-square well inside its range."""
    counts = np.zeros((52, 52))
    for d in range(4000):
        for pos, card in enumerate(permutation(7, d)):
            counts[card, pos] += 1
    expected = 4000 / 52
    chi2 = ((counts - expected) ** 2 / expected).sum()
    dof = 51 * 51
    assert abs(chi2 - dof) < 6 * (2 * dof) ** 0.5


def test_compiled_permutation_matches_python():
    out = np.zeros(52, np.int8)
    for seed, deal in [(0, 0), (0, 1), (3, 99), (2**63 - 1, 2**63 - 1), (12345, 2**40)]:
        compiled_permutation(seed, deal, out)
        assert out.tolist() == permutation(seed, deal)


def test_deal_does_not_depend_on_other_deals():
    forward = [permutation(5, d) for d in range(10)]
    backward = [permutation(5, d) for d in reversed(range(10))][::-1]
    assert forward == backward


def test_compiled_layout_matches_python_layout():
    s = np.zeros(layout.STATE_SIZE, np.int8)
    perm = np.zeros(52, np.int8)
    for rules in GAMES:
        r = layout.rules_array(rules)
        for deal in range(30):
            dealing.init_deal(r, 11, deal, s, perm)
            assert State(rules, s).position() == deal_position(rules, deal, 11)


def test_streets_and_selective_share_the_tableau_and_castle_drops_the_aces():
    for deal in range(20):
        sa = deal_position(STREETS_AND_ALLEYS, deal)
        sc = deal_position(SELECTIVE_CASTLE, deal)
        bc = deal_position(BELEAGUERED_CASTLE, deal)
        assert sa.piles == sc.piles
        assert [len(p) for p in sa.piles] == [7, 7, 7, 7, 6, 6, 6, 6]
        assert [len(p) for p in bc.piles] == [6] * 8
        assert bc.foundations == [1, 1, 1, 1] and bc.bases == [0, 0, 0, 0]
        assert sc.bases == [-1] * 4 and sa.bases == [0] * 4
        no_aces = [c for c in permutation(0, deal) if rank_of(c) != 0]
        dealt_rows = [bc.piles[p][row] for row in range(6) for p in range(8)]
        assert dealt_rows == no_aces


def test_pysol_1080_is_pysol_fc_game_1080():
    """PySol FC's Streets and Alleys game 1080 (as pysol-cards deals it; the first line is the first pile)."""
    sa = deal_position(STREETS_AND_ALLEYS, "pysol:1080")
    assert " ".join(card_str(c) for c in sa.piles[0]) == "8D 5C KS KC 2C 7C AS"
    assert " ".join(card_str(c) for c in sa.piles[7]) == "KD 2H 4S KH 9H TH"
    assert deal_position(SELECTIVE_CASTLE, "pysol:1080").piles == sa.piles


@pytest.mark.parametrize("text", ["x", "-1", "pysol:0", "pysol:abc", "1.5", ""])
def test_bad_deal_ids_are_refused(text):
    with pytest.raises(DealError):
        parse_deal_id(text)
