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

#: one colour per game, the same in every figure, from palettes made for colour-blind readers: Okabe & Ito's for
#: the study's games, Paul Tol's "muted" for the rest of the family; a dialect takes its rule sheet's colour
COLOURS = {SELECTIVE: "#0072B2", STREETS: "#D55E00", BELEAGUERED: "#009E73", INDEPENDENT: "#CC79A7",
           "citadel": "#332288", "chessboard": "#88CCEE", "fortress": "#999933", "castles-end": "#882255",
           "checkerboard": "#44AA99", "ordered-suits": "#DDCC77", "castles-in-spain": "#AA4499", "bakers-dozen": "#117733"}
#: for a game the list above does not know (a plug-in's record)
OTHER = ("#555555", "#888888", "#AAAAAA")


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
    sheet = str(slug).split("@", 1)[0]
    return COLOURS.get(sheet, OTHER[sum(map(ord, sheet)) % len(OTHER)])
