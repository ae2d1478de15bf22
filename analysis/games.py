"""The games as the analysis shows them: names, the study's order, one fixed colour each.

Names come from the rules registry (:mod:`sim.core.rules`, plain data), so a
game's name is written once.
"""

from __future__ import annotations

from sim.core.rules import STUDY_GAMES, UnknownGameError, find_game

from . import palette

SELECTIVE = "selective-castle"
STREETS = "streets-and-alleys"
BELEAGUERED = "beleaguered-castle"
INDEPENDENT = "selective-castle-independent"

#: the games of the study, in the order every table and figure shows them
STUDY = tuple(g.slug for g in STUDY_GAMES)

#: one colour per game, the same in every figure (:mod:`analysis.palette` holds every colour)
COLOURS = palette.GAMES
#: for a game the list above does not know (a plug-in's record)
OTHER = palette.OTHER_GAMES


def in_study_order(slugs) -> list[str]:
    """The games of ``slugs``: the study's first, in its order, and the independent-bases misreading; then the rest of
    the family by name; then other programs' dialects."""
    present = set(slugs)
    first = [g for g in STUDY + (INDEPENDENT,) if g in present]
    rest = present - set(first)
    return first + sorted(g for g in rest if "@" not in g) + sorted(g for g in rest if "@" in g)


def name(slug: str) -> str:
    """The game's name (``Streets and Alleys``), or the slug itself for a game the registry does not know."""
    try:
        return find_game(slug).name
    except UnknownGameError:
        return slug


def colour(slug: str) -> str:
    """The game's colour in every figure (a dialect ``slug@x`` draws in its sheet's)."""
    return palette.game(slug)
