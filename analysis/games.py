"""The games as the analysis shows them: names, the study's order, one fixed colour each.

Names come from the rules registry (:mod:`sim.core.rules`, plain data), so a
game's name is written once.
"""

from __future__ import annotations

from sim.core.rules import STUDY_GAMES, UnknownGameError, find_game

SELECTIVE = "selective-castle"
STREETS = "streets-and-alleys"
BELEAGUERED = "beleaguered-castle"
INDEPENDENT = "selective-castle-independent"

#: the games of the study, in the order every table and figure shows them
STUDY = tuple(g.slug for g in STUDY_GAMES)

#: one colour per game, the same in every figure
COLOURS = {SELECTIVE: "#1b7837", STREETS: "#2166ac", BELEAGUERED: "#b2182b", INDEPENDENT: "#762a83"}


def in_study_order(slugs) -> list[str]:
    """The games of ``slugs``: the study's first, in its order, then the others by name."""
    present = set(slugs)
    return [g for g in STUDY if g in present] + sorted(present - set(STUDY))


def name(slug: str) -> str:
    """The game's name (``Streets and Alleys``), or the slug itself for a game the registry does not know."""
    try:
        return find_game(slug).name
    except UnknownGameError:
        return slug


def colour(slug: str) -> str:
    return COLOURS.get(slug, "#555555")
