"""Cards as small ints, and their text form (`AH`, `TD`, `9C`).

A card is ``suit * 13 + rank`` with rank 0 (Ace) .. 12 (King) and suit
0..3 for clubs, diamonds, hearts, spades. Small ints keep the compiled
engine simple: a pile is a row of int8.

>>> parse_card("TD")
22
>>> card_str(22)
'TD'
>>> rank_of(parse_card("KS")), suit_of(parse_card("KS"))
(12, 3)
"""

from __future__ import annotations

RANKS = "A23456789TJQK"
SUITS = "CDHS"
N_RANKS = 13
N_SUITS = 4
N_CARDS = 52

#: Hearts and diamonds are red; clubs and spades are black.
RED_SUITS = frozenset({1, 2})


class CardError(ValueError):
    """A card token that is not a card (``ZZ``, ``1H``, ...)."""


def make_card(rank: int, suit: int) -> int:
    """The card of ``rank`` (0=Ace .. 12=King) and ``suit`` (0..3 for C D H S)."""
    if not (0 <= rank < N_RANKS and 0 <= suit < N_SUITS):
        raise CardError(f"no card with rank {rank} and suit {suit}")
    return suit * N_RANKS + rank


def rank_of(card: int) -> int:
    """Rank 0 (Ace) .. 12 (King)."""
    return card % N_RANKS


def suit_of(card: int) -> int:
    """Suit 0..3 for clubs, diamonds, hearts, spades."""
    return card // N_RANKS


def is_red(card: int) -> bool:
    """True for hearts and diamonds."""
    return suit_of(card) in RED_SUITS


def parse_rank(token: str) -> int:
    """``"A"`` -> 0, ``"T"`` or ``"10"`` -> 9, ``"K"`` -> 12."""
    t = token.strip().upper()
    if t == "10":
        t = "T"
    if len(t) != 1 or t not in RANKS:
        raise CardError(f"not a rank: {token!r}")
    return RANKS.index(t)


def parse_card(token: str) -> int:
    """Parse ``AH``, ``TD``, ``10d``, ``9C`` into a card int."""
    t = token.strip().upper()
    if len(t) < 2 or t[-1] not in SUITS:
        raise CardError(f"not a card: {token!r}")
    try:
        rank = parse_rank(t[:-1])
    except CardError:
        raise CardError(f"not a card: {token!r}") from None
    return make_card(rank, SUITS.index(t[-1]))


def card_str(card: int) -> str:
    """The two-letter form: rank then suit, ``T`` for ten."""
    if not 0 <= card < N_CARDS:
        raise CardError(f"not a card number: {card}")
    return RANKS[rank_of(card)] + SUITS[suit_of(card)]


def rank_str(rank: int) -> str:
    """``0`` -> ``"A"``, ``9`` -> ``"T"``."""
    return RANKS[rank]
