"""Seeded deals: deal ``N`` of seed ``S`` is the same forever, on any machine.

A deal is a permutation of the 52 cards drawn by Fisher-Yates from a
counter-based generator: draw ``i`` of deal ``(S, N)`` is
``splitmix64(key(S, N) + (i + 1) * GAMMA)``, so no deal depends on another
or on which worker dealt it. Bounded draws reject the few lowest values of
2**64 (``r < 2**64 mod n``) so every permutation is equally likely. The same function exists
compiled (:func:`sim.kernels.rng.permutation`) for the batch runner; tests hold both to
the golden deals. This module imports no numba: a single deal costs nothing to load.

Layouts deal the permutation round robin, row by row, bottom first: Streets
and Alleys and Selective Castle get the same tableau for the same (S, N);
Beleaguered Castle deals the same permutation without its Aces.

``pysol:N`` deals (PySol FC's game number N) come from ``pysol-cards``.
"""

from __future__ import annotations

import numbers
import re

from .board import Position, parse_board
from .cards import N_CARDS, N_RANKS, rank_of, suit_of
from .rules import DealStyle, FoundationBase, Rules

DEFAULT_SEED = 0
MASK64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
MAX_DEAL = (1 << 63) - 1
#: where a count of deals starts (N deals are deals 1 to N): the study's ranges and PySol's game numbers start there
FIRST_DEAL = 1


class DealError(ValueError):
    """A deal id that is not one."""


def mix64(z: int) -> int:
    """splitmix64's finaliser: a bijection of 64-bit ints that scrambles every bit."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def deal_key(seed: int, deal: int) -> int:
    """The generator key of deal ``deal`` of seed ``seed``."""
    return mix64((mix64((seed + GAMMA) & MASK64) + deal * 0xD1B54A32D192ED03) & MASK64)


def permutation(seed: int, deal: int) -> list[int]:
    """The 52 cards of deal ``(seed, deal)`` in dealing order (plain Python reference)."""
    check_seeded(seed, deal)
    key = deal_key(seed, deal)
    counter = 0
    deck = list(range(N_CARDS))
    for j in range(N_CARDS - 1, 0, -1):
        n = j + 1
        threshold = (1 << 64) % n  # draws below this would favour small results
        while True:
            counter += 1
            r = mix64((key + counter * GAMMA) & MASK64)
            if r >= threshold:
                break
        k = r % n
        deck[j], deck[k] = deck[k], deck[j]
    return deck


def check_seeded(seed: int, deal: int) -> None:
    """Refuse a seeded deal outside the deal space (:class:`DealError`)."""
    for value, what in ((deal, "deal"), (seed, "seed")):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise DealError(f"{what} {value!r} is not a whole number")
    if not 0 <= deal <= MAX_DEAL:
        raise DealError(f"deal {deal} is out of range (0 to 2**63-1)")
    if not 0 <= seed <= MAX_DEAL:
        raise DealError(f"seed {seed} is out of range (0 to 2**63-1)")


def layout(rules: Rules, cards: list[int]) -> Position:
    """Deal ``cards`` (a permutation, dealing order) into the game's starting position.

    Round robin, row by row: row ``k`` gives one card to every pile with more
    than ``k`` cards. Deal styles then adjust (see :class:`DealStyle`).
    """
    cards = list(cards)
    foundations = [0, 0, 0, 0]
    bases = [0, 0, 0, 0] if rules.foundation_base == FoundationBase.ACE else [-1, -1, -1, -1]
    if rules.aces_preplaced:
        cards = [c for c in cards if rank_of(c) != 0]
        foundations = [1, 1, 1, 1]
    if rules.deal_style == DealStyle.LAST_CARD_TO_FOUNDATION:
        last = cards.pop()
        foundations[suit_of(last)] = 1
        bases = [rank_of(last)] * 4
    piles: list[list[int]] = [[] for _ in rules.pile_sizes]
    i = 0
    for row in range(max(rules.pile_sizes)):
        for p, size in enumerate(rules.pile_sizes):
            if row < size:
                card = cards[i]
                i += 1
                if rules.deal_style == DealStyle.CITADEL and rank_of(card) == foundations[suit_of(card)]:
                    foundations[suit_of(card)] += 1  # it fits its foundation: it goes home, the pile misses it
                else:
                    piles[p].append(card)
    if rules.deal_style == DealStyle.KINGS_TO_BOTTOM:
        piles = [[c for c in p if rank_of(c) == N_RANKS - 1] + [c for c in p if rank_of(c) != N_RANKS - 1] for p in piles]
    return Position(piles, foundations, bases)


#: a deal number as text: ASCII digits only (``int()`` would also take ``1_000``, ``+5`` and other scripts' digits)
_DIGITS = re.compile(r"[0-9]+")


def parse_deal_id(text: str | int) -> tuple[str, int]:
    """``"17"`` -> ("seeded", 17); ``"pysol:1080"`` -> ("pysol", 1080)."""
    if isinstance(text, bool) or not isinstance(text, (str, numbers.Integral)):
        raise DealError(f"bad deal {text!r}: expected a number or pysol:N")
    s = str(text).strip().lower()
    kind = "seeded"
    if s.startswith("pysol:"):
        kind, s = "pysol", s[len("pysol:"):]
    if s.startswith("-") and _DIGITS.fullmatch(s[1:]):
        raise DealError(f"bad deal {str(text)!r}: " + ("PySol game numbers start at 1" if kind == "pysol"
                                                       else "deal numbers run from 0 to 2**63-1"))
    if not _DIGITS.fullmatch(s):
        raise DealError(f"bad deal {str(text)!r}: expected a number (digits 0-9 only) or pysol:N")
    n = int(s)
    if kind == "pysol" and n < 1:
        raise DealError(f"bad deal {str(text)!r}: PySol game numbers start at 1")
    if kind == "pysol" and n > MAX_DEAL:
        raise DealError(f"bad deal {str(text)!r}: PySol game numbers run from 1 to 2**63-1")
    if n > MAX_DEAL:
        raise DealError(f"bad deal {str(text)!r}: deal numbers run from 0 to 2**63-1")
    return kind, n


def pysol_board_text(rules: Rules, number: int) -> str:
    """PySol FC's deal ``number`` for this game, as board text (through pysol-cards)."""
    if rules.pysol_name is None:
        raise DealError(f"PySol has no deal numbering for {rules.slug}")
    from pysol_cards.cards import CardRenderer
    from pysol_cards.deal_game import Game as PysolGame
    from pysol_cards.random_base import RandomBase

    game = PysolGame(rules.pysol_name, number, RandomBase.DEALS_PYSOLFC)
    return game.calc_layout_string(CardRenderer(True))


#: the seed that stands for PySol FC's numbering: deal ``N`` of it is PySol's game ``N`` (an experiment with
#: ``numbering = "pysol"`` plays it, and its rows carry it, so a PySol deal never pairs with a seeded one)
PYSOL_SEED = -1


def stream_key(deal: int | str, seed: int = DEFAULT_SEED) -> tuple[int, int]:
    """The (seed, number) a player's random stream is keyed by for a deal: ``"pysol:N"`` is (:data:`PYSOL_SEED`, N),
    as in a PySol-numbered experiment's rows, so a game replayed move by move is the game of its row."""
    kind, n = parse_deal_id(deal)
    return (PYSOL_SEED, n) if kind == "pysol" else (seed, n)


def deal_position(rules: Rules, deal: int | str, seed: int = DEFAULT_SEED) -> Position:
    """The starting position of a deal: an int (seeded; of :data:`PYSOL_SEED`, PySol's game number) or ``"pysol:N"``."""
    kind, n = parse_deal_id(deal)
    if seed == PYSOL_SEED:
        kind = "pysol"
        if n < 1:
            raise DealError(f"bad deal {deal}: PySol game numbers start at 1")
    if kind == "pysol":
        text = pysol_board_text(rules, n)
        default_base = 0 if rules.foundation_base == FoundationBase.ACE else -1
        return parse_board(text, rules.n_piles, default_base=default_base)
    check_seeded(seed, n)
    return layout(rules, permutation(seed, n))
