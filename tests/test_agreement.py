"""The compiled engine agrees with the reference engine, move for move.

Thousands of random playouts per game from seeded deals: after every move
both engines must offer the same legal moves and reach the same position.
Short playouts cover openings broadly; long foundation-hungry ones reach the
end game (wraps, full foundations, wins).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from sim.core import reference
from sim.core.deals import deal_position
from sim.game import State
from sim.core.moves import FOUNDATION
from sim.core.board import Position
from sim.core.rules import GAMES, SELECTIVE_CASTLE_INDEPENDENT, STUDY_GAMES, FoundationBase

#: the games of the study and the variant they are compared with get the full sample
MAIN_GAMES = STUDY_GAMES + (SELECTIVE_CASTLE_INDEPENDENT,)
SHORT_PLAYOUTS = 10_000
FAMILY_PLAYOUTS = 1_000
SHORT_MOVES = 24
LONG_PLAYOUTS = 100
LONG_MOVES = 300
ENDGAME_PLAYOUTS = 1_000
ENDGAME_MOVES = 120


def _endgame_position(rules, rng):
    """A random position with many cards already home, on bases the rules allow.

    Positions need not be reachable from a deal for the engines to agree on
    them; these put the end game (wraps, full foundations, wins) within reach
    of a short playout.
    """
    shared = rng.randrange(13)
    bases = []
    for _ in range(4):
        if rules.foundation_base == FoundationBase.ACE:
            bases.append(0)
        elif rules.foundation_base == FoundationBase.FIRST_CARD_SHARED:
            bases.append(shared)
        else:
            bases.append(rng.randrange(13))
    low = 1 if rules.aces_preplaced else 0
    counts = [rng.randint(low, 13) for _ in range(4)]
    rest = [s * 13 + (bases[s] + i) % 13 for s in range(4) for i in range(counts[s], 13)]
    rng.shuffle(rest)
    piles = [rest[p :: rules.n_tableau] for p in range(rules.n_tableau)]
    for _ in range(rules.reserves):  # a reserve holds at most its one dealt card
        donor = piles[rng.randrange(rules.n_tableau)]
        piles.append([donor.pop()] if donor and rng.random() < 0.7 else [])
    if sum(counts) == 0 and rules.foundation_base != FoundationBase.ACE:
        bases = [-1] * 4  # nothing founded yet: the base is still to be chosen
    return Position(piles, counts, [b if c or rules.foundation_base != FoundationBase.FIRST_CARD_INDEPENDENT else -1 for b, c in zip(bases, counts)])


def _playout(rules, deal, rng, max_moves, foundation_bias, pos=None):
    """Play one random playout with both engines; return moves played and cards home."""
    if pos is None:
        pos = deal_position(rules, deal, seed=20261129)
    state = State.from_position(rules, pos)
    for step in range(max_moves):
        ref_legal = reference.legal_moves(rules, pos)
        actions = state.legal_moves.actions()
        assert [m.action for m in ref_legal] == actions.tolist(), (
            f"{rules.slug} deal {deal} move {step}: legal moves differ\n"
            f"reference {[str(m) for m in ref_legal]}\ncompiled  {[str(m) for m in state.legal_moves]}"
        )
        if not ref_legal:
            break
        home = [m for m in ref_legal if m.target == FOUNDATION]
        move = rng.choice(home) if home and rng.random() < foundation_bias else rng.choice(ref_legal)
        pos = reference.play(rules, pos, move)
        state.push(move)
        assert np.array_equal(state.array, State.from_position(rules, pos).array), (
            f"{rules.slug} deal {deal} after {step + 1} moves ({move}): positions differ"
        )
        assert reference.is_won(pos) == state.is_won()
        if state.is_won():
            break
    return len(state.move_stack), pos.cards_home


@pytest.mark.parametrize("rules", GAMES, ids=[g.slug for g in GAMES])
def test_short_playouts_agree(rules):
    n = SHORT_PLAYOUTS if rules in MAIN_GAMES else FAMILY_PLAYOUTS
    rng = random.Random(rules.slug)
    moves = sum(_playout(rules, deal, rng, SHORT_MOVES, 0.5)[0] for deal in range(n))
    assert moves > 2 * n  # the playouts really played (in-suit games stick early)


@pytest.mark.parametrize("rules", GAMES, ids=[g.slug for g in GAMES])
def test_long_playouts_agree(rules):
    rng = random.Random(rules.slug + "/long")
    n = LONG_PLAYOUTS if rules in MAIN_GAMES else LONG_PLAYOUTS // 4
    moves = [_playout(rules, 100_000 + deal, rng, LONG_MOVES, 0.8)[0] for deal in range(n)]
    assert sum(moves) > 2 * n  # they played (in-suit games stick early)


@pytest.mark.parametrize("rules", GAMES, ids=[g.slug for g in GAMES])
def test_endgame_playouts_agree(rules):
    rng = random.Random(rules.slug + "/end")
    n = ENDGAME_PLAYOUTS if rules in MAIN_GAMES else ENDGAME_PLAYOUTS // 4
    homes = [_playout(rules, None, rng, ENDGAME_MOVES, 0.9, _endgame_position(rules, rng))[1] for _ in range(n)]
    # the sample must finish games, or it checks nothing about the last cards
    assert homes.count(52) >= n // 20
