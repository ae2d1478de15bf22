"""The rule sheets as data: one record per game (the README lists them).

The compiled engine and the reference engine both read these fields; a new
game of the family is a new :class:`Rules` record (at most a new value of
one field), never a new engine.

>>> find_game("streets").slug
'streets-and-alleys'
>>> find_game("Selective Castle").foundation_base
<FoundationBase.FIRST_CARD_SHARED: 1>
>>> find_game("selective-castle@pysol").sequence_moves
<SequenceMoves.UNLIMITED: 2>
"""

from __future__ import annotations

import dataclasses
import enum
import re
from dataclasses import dataclass


class FoundationBase(enum.IntEnum):
    """How a foundation learns the rank it starts from."""

    ACE = 0  #: every foundation starts with its Ace
    FIRST_CARD_SHARED = 1  #: the first card founded sets the base of all four
    FIRST_CARD_INDEPENDENT = 2  #: each foundation's first card sets its own base


class TableauDirection(enum.IntEnum):
    """Which ranks a tableau card may be placed on."""

    DOWN = 0  #: one rank lower than the top card
    UP_OR_DOWN = 1  #: one rank lower or higher


class TableauSuit(enum.IntEnum):
    """Which suits a tableau card may be placed on."""

    ANY = 0
    SAME_SUIT = 1
    ALTERNATE_COLOUR = 2


class EmptyPile(enum.IntEnum):
    """What an empty tableau pile accepts."""

    ANY_CARD = 0
    NOTHING = 1


class DealStyle(enum.IntEnum):
    """How a deal's permutation is laid out (beyond round-robin dealing)."""

    ROUND_ROBIN = 0  #: the permutation dealt row by row into the piles
    KINGS_TO_BOTTOM = 1  #: round robin, then each King moved to its pile's bottom
    CITADEL = 2  #: round robin, but a card that fits a foundation when dealt goes there
    LAST_CARD_TO_FOUNDATION = 3  #: the last card founds, and its rank is the shared base


class SequenceMoves(enum.IntEnum):
    """How many cards one tableau move may carry (the rule sheets: one; other programs' dialects: more)."""

    ONE_CARD = 0  #: the rule sheets: one card at a time
    #: FreeCell's convention with no free cells: a sequence of n cards, each fitting on the one below by the
    #: tableau rule, moves at once when n <= 2^E (E: empty tableau piles; reserves never count), and
    #: n <= 2^(E-1) when the target is itself empty (the target does not count)
    SUPERMOVES = 1
    #: PySol FC's Selective Castle: such a sequence of any length moves at once
    UNLIMITED = 2


#: the dialect name of the rule sheets' own rules (every game's default)
SHEET = "sheet"


@dataclass(frozen=True)
class Rules:
    """One game's rules: every field the engines read.

    ``pile_sizes`` lists how many cards each tableau pile gets; cards are
    dealt round robin (row by row) from the deal's permutation, so
    ``(7, 7, 7, 7, 6, 6, 6, 6)`` is the natural 52-card deal to 8 piles.
    """

    slug: str
    name: str
    description: str
    pile_sizes: tuple[int, ...]
    aliases: tuple[str, ...] = ()
    aces_preplaced: bool = False
    deal_style: DealStyle = DealStyle.ROUND_ROBIN
    foundation_base: FoundationBase = FoundationBase.ACE
    foundation_wrap: bool = False
    tableau_direction: TableauDirection = TableauDirection.DOWN
    tableau_suit: TableauSuit = TableauSuit.ANY
    tableau_wrap: bool = False
    empty_pile: EmptyPile = EmptyPile.ANY_CARD
    #: only one foundation open at a time: the next starts when the last holds 13 (Ordered Suits)
    foundations_one_at_a_time: bool = False
    #: a foundation's top card may move back to the tableau (Castles in Spain)
    foundation_to_tableau: bool = False
    #: the last ``reserves`` piles are reserves: their cards play out, nothing goes on them (Castles End)
    reserves: int = 0
    #: bumped whenever the behaviour of this game changes; stored in every result row
    version: int = 1
    #: the name PySol FC / pysol-cards gives the deal, if it has one
    pysol_name: str | None = None
    #: how many cards a tableau move may carry (only a dialect changes it)
    sequence_moves: SequenceMoves = SequenceMoves.ONE_CARD
    #: the rules' dialect: ``sheet`` (the rule sheet), or a named option of another program (:data:`DIALECTS`)
    dialect: str = SHEET

    @property
    def full_slug(self) -> str:
        """The name :func:`find_game` takes back: the slug, with ``@dialect`` for a dialect."""
        return self.slug if self.dialect == SHEET else f"{self.slug}@{self.dialect}"

    @property
    def n_piles(self) -> int:
        """Tableau piles plus reserves: every pile a card can be taken from."""
        return len(self.pile_sizes)

    @property
    def n_tableau(self) -> int:
        """Piles that cards can be built on."""
        return len(self.pile_sizes) - self.reserves

    def __post_init__(self) -> None:
        dealt = sum(self.pile_sizes)
        expected = 48 if self.aces_preplaced else 51 if self.deal_style == DealStyle.LAST_CARD_TO_FOUNDATION else 52
        if dealt != expected:
            raise ValueError(f"{self.slug}: piles hold {dealt} cards, expected {expected}")
        if not 1 <= self.n_piles <= MAX_PILES:
            raise ValueError(f"{self.slug}: {self.n_piles} piles, at most {MAX_PILES}")
        if self.aces_preplaced and self.foundation_base != FoundationBase.ACE:
            raise ValueError(f"{self.slug}: Aces pre-placed needs Ace-based foundations")
        if self.deal_style == DealStyle.CITADEL and not self.aces_preplaced:
            raise ValueError(f"{self.slug}: the Citadel deal starts with the Aces home")
        if self.deal_style == DealStyle.LAST_CARD_TO_FOUNDATION and self.foundation_base != FoundationBase.FIRST_CARD_SHARED:
            raise ValueError(f"{self.slug}: a dealt foundation card sets a shared base")
        if not 0 <= self.reserves < self.n_piles:
            raise ValueError(f"{self.slug}: {self.reserves} reserves of {self.n_piles} piles")


#: The widest tableau in the family (Baker's Dozen, Castles in Spain).
MAX_PILES = 13

STREETS_AND_ALLEYS = Rules(
    slug="streets-and-alleys",
    name="Streets and Alleys",
    description="8 piles (7,7,7,7,6,6,6,6); build down regardless of suit; foundations from the Ace",
    pile_sizes=(7, 7, 7, 7, 6, 6, 6, 6),
    aliases=("streets", "sa", "streets_and_alleys"),
    pysol_name="streets_and_alleys",
)

BELEAGUERED_CASTLE = Rules(
    slug="beleaguered-castle",
    name="Beleaguered Castle",
    description="Aces start on the foundations; 8 piles of 6; build down regardless of suit",
    pile_sizes=(6,) * 8,
    aliases=("beleaguered", "bc", "beleaguered_castle", "laying siege", "sham battle"),
    aces_preplaced=True,
    pysol_name="beleaguered_castle",
)

SELECTIVE_CASTLE = Rules(
    slug="selective-castle",
    name="Selective Castle",
    description="Streets and Alleys' deal; the first card founded sets a shared base; foundations and tableau wrap K-A",
    pile_sizes=(7, 7, 7, 7, 6, 6, 6, 6),
    aliases=("selective", "sc", "selective_castle"),
    foundation_base=FoundationBase.FIRST_CARD_SHARED,
    foundation_wrap=True,
    tableau_wrap=True,
    pysol_name="streets_and_alleys",
)

SELECTIVE_CASTLE_INDEPENDENT = Rules(
    slug="selective-castle-independent",
    name="Selective Castle (independent bases)",
    description="the misreading of Selective Castle: each foundation's first card sets its own base",
    pile_sizes=(7, 7, 7, 7, 6, 6, 6, 6),
    aliases=("selective-independent", "sci"),
    foundation_base=FoundationBase.FIRST_CARD_INDEPENDENT,
    foundation_wrap=True,
    tableau_wrap=True,
    pysol_name="streets_and_alleys",
)

CITADEL = Rules(
    slug="citadel",
    name="Citadel",
    description="Beleaguered Castle, but a card that fits a foundation while dealt goes there at once",
    pile_sizes=(6,) * 8,
    aliases=("citadel",),
    aces_preplaced=True,
    deal_style=DealStyle.CITADEL,
    pysol_name="citadel",
)

CHESSBOARD = Rules(
    slug="chessboard",
    name="Chessboard",
    description="10 piles (6,6,5..); shared chosen base, wrap; build up or down in suit, wrapping K-A",
    pile_sizes=(6, 6) + (5,) * 8,
    aliases=("chess-board",),
    foundation_base=FoundationBase.FIRST_CARD_SHARED,
    foundation_wrap=True,
    tableau_direction=TableauDirection.UP_OR_DOWN,
    tableau_suit=TableauSuit.SAME_SUIT,
    tableau_wrap=True,
)

FORTRESS = Rules(
    slug="fortress",
    name="Fortress",
    description="10 piles (6,6,5..); foundations from the Ace; build up or down in suit, no wrap",
    pile_sizes=(6, 6) + (5,) * 8,
    tableau_direction=TableauDirection.UP_OR_DOWN,
    tableau_suit=TableauSuit.SAME_SUIT,
)

CASTLES_END = Rules(
    slug="castles-end",
    name="Castles End",
    description="10 piles of 5 and 2 one-card reserves; shared chosen base, wrap; build up or down in alternating colour",
    pile_sizes=(5,) * 10 + (1, 1),
    aliases=("castle's end", "castles_end"),
    reserves=2,
    foundation_base=FoundationBase.FIRST_CARD_SHARED,
    foundation_wrap=True,
    tableau_direction=TableauDirection.UP_OR_DOWN,
    tableau_suit=TableauSuit.ALTERNATE_COLOUR,
)

CHECKERBOARD = Rules(
    slug="checkerboard",
    name="Checkerboard",
    description="10 piles (6,5..); the 52nd card founds and sets the shared base, wrap; build up or down in alternating colour",
    pile_sizes=(6,) + (5,) * 9,
    aliases=("checker-board",),
    deal_style=DealStyle.LAST_CARD_TO_FOUNDATION,
    foundation_base=FoundationBase.FIRST_CARD_SHARED,
    foundation_wrap=True,
    tableau_direction=TableauDirection.UP_OR_DOWN,
    tableau_suit=TableauSuit.ALTERNATE_COLOUR,
)

ORDERED_SUITS = Rules(
    slug="ordered-suits",
    name="Ordered Suits",
    description="10 piles (6,6,5..); shared chosen base, wrap, one foundation open at a time; build up or down regardless of suit",
    pile_sizes=(6, 6) + (5,) * 8,
    foundation_base=FoundationBase.FIRST_CARD_SHARED,
    foundation_wrap=True,
    foundations_one_at_a_time=True,
    tableau_direction=TableauDirection.UP_OR_DOWN,
)

CASTLES_IN_SPAIN = Rules(
    slug="castles-in-spain",
    name="Castles in Spain",
    description="13 piles of 4; foundations from the Ace, their top card may come back; build down in alternating colour",
    pile_sizes=(4,) * 13,
    tableau_suit=TableauSuit.ALTERNATE_COLOUR,
    foundation_to_tableau=True,
)

BAKERS_DOZEN = Rules(
    slug="bakers-dozen",
    name="Baker's Dozen",
    description="13 piles of 4, Kings moved to the bottom; build down regardless of suit; an empty pile is never filled",
    pile_sizes=(4,) * 13,
    aliases=("baker's dozen", "bakers_dozen"),
    deal_style=DealStyle.KINGS_TO_BOTTOM,
    empty_pile=EmptyPile.NOTHING,
)

#: The games of the study, first.
STUDY_GAMES: tuple[Rules, ...] = (SELECTIVE_CASTLE, STREETS_AND_ALLEYS, BELEAGUERED_CASTLE)

#: Every playable game, in the order ``castle games`` lists them.
GAMES: tuple[Rules, ...] = STUDY_GAMES + (
    SELECTIVE_CASTLE_INDEPENDENT,
    CITADEL,
    CHESSBOARD,
    FORTRESS,
    CASTLES_END,
    CHECKERBOARD,
    ORDERED_SUITS,
    CASTLES_IN_SPAIN,
    BAKERS_DOZEN,
)


class UnknownGameError(KeyError):
    """No game of that name or alias."""

    def __str__(self) -> str:  # KeyError quotes its message; we want a plain line
        return str(self.args[0])


class UnknownDialectError(ValueError):
    """A dialect that does not exist, or not for that game."""


@dataclass(frozen=True)
class Dialect:
    """A named option of another program: the games it applies to and the rule fields it changes."""

    name: str
    description: str
    games: tuple[str, ...]  #: slugs of the games it applies to
    sequence_moves: SequenceMoves


#: Other programs' dialects (the README's "Dialects"); never a default.
DIALECTS: tuple[Dialect, ...] = (
    Dialect(
        "pysol",
        "PySol FC: a sequence (K on A included) of any length moves at once",
        ("selective-castle", "selective-castle-independent"),
        SequenceMoves.UNLIMITED,
    ),
    Dialect(
        "supermoves",
        "PySol FC's supermoves: a sequence moves at once as single moves through the empty piles could carry it",
        ("streets-and-alleys", "beleaguered-castle", "castles-in-spain"),
        SequenceMoves.SUPERMOVES,
    ),
)


def dialects_of(rules: Rules) -> tuple[str, ...]:
    """The names of the dialects that exist for ``rules``' game (the sheet not counted)."""
    return tuple(d.name for d in DIALECTS if rules.slug in d.games)


def with_dialect(rules: Rules, dialect: str) -> Rules:
    """``rules`` (a game's sheet record) under ``dialect``: a derived record, or the record itself for ``sheet``.

    An unknown dialect, or one that does not apply to the game, is an
    :class:`UnknownDialectError` naming the dialects that exist for it.
    """
    name = dialect.strip().lower()
    base = find_game(rules.slug)
    if name == SHEET:
        return base
    for d in DIALECTS:
        if d.name == name and base.slug in d.games:
            return dataclasses.replace(base, name=f"{base.name} ({d.name})", sequence_moves=d.sequence_moves, dialect=d.name)
    have = ", ".join((SHEET, *dialects_of(base)))
    known = any(d.name == name for d in DIALECTS)
    what = f"dialect {dialect!r} does not apply to {base.slug}" if known else f"unknown dialect {dialect!r}"
    raise UnknownDialectError(f"{what} (dialects of {base.slug}: {have})")


def _norm(name: str) -> str:
    return re.sub(r"[\s_\-]+", "-", name.strip().lower())


def find_game(name: str) -> Rules:
    """The game whose slug, name or alias matches ``name`` (case, spaces, ``_`` and ``-`` ignored).

    ``game@dialect`` is the game under a dialect (:func:`with_dialect`).
    """
    game, at, dialect = name.partition("@")
    key = _norm(game)
    for rules in GAMES:
        if key in {_norm(rules.slug), _norm(rules.name), *(_norm(a) for a in rules.aliases)}:
            return with_dialect(rules, dialect) if at else rules
    known = ", ".join(r.slug for r in GAMES)
    raise UnknownGameError(f"unknown game {game!r} (known: {known})")
