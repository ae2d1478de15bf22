"""Every colour the report's figures and the notebooks draw with, in one place, so a colour means one thing.

A game has one colour (:data:`GAMES`), a player one colour (:func:`players`,
from :data:`PLAYERS`, a list that shares no hue with the study's games), and
what is neither a game nor a player (perfect play, outcomes, kinds of
mistake, the stages of a model) is drawn in black, greys or pastels
(:data:`PERFECT`, :data:`WON`, :data:`LOST`, :data:`KINDS`, :data:`STAGES`),
never in a game's or a player's colour. The report and the notebooks both call
:func:`players` with the same rungs, weakest first, so a rung keeps its
colour from one figure to the next.

>>> players(["random", "greedy"])["random"] == PLAYERS[0]
True
>>> players(["random"], others=["advice"])["advice"] == PLAYERS[1]
True
>>> set(PLAYERS).isdisjoint(GAMES.values())
True
"""

from __future__ import annotations

#: one colour per game, from palettes made for colour-blind readers: Okabe & Ito's for the study's games, Paul Tol's
#: "muted" for the rest of the family; a dialect takes its rule sheet's colour (:func:`analysis.games.colour`)
GAMES = {"selective-castle": "#0072B2", "streets-and-alleys": "#D55E00", "beleaguered-castle": "#009E73",
         "selective-castle-independent": "#CC79A7",
         "citadel": "#332288", "chessboard": "#88CCEE", "fortress": "#999933", "castles-end": "#882255",
         "checkerboard": "#44AA99", "ordered-suits": "#DDCC77", "castles-in-spain": "#AA4499", "bakers-dozen": "#117733"}
#: a game the list above does not know (a plug-in's record)
OTHER_GAMES = ("#555555", "#888888", "#AAAAAA")

#: the players' colours, in the order the rungs take them (weakest first), then the other players': no blue,
#: vermilion, bluish green or reddish purple (the study's four games), no grey or black (perfect play, unknowns);
#: hues in dark and light pairs (purple and lavender, brown and tan, magenta and pink), neighbours far apart
PLAYERS = ("#E69F00", "#6A3D9A", "#8C510A", "#E7298A", "#BCBD22", "#800000", "#DFC27D", "#CAB2D6", "#FB9A99",
           "#543005", "#F0E442", "#C51B7D", "#B8860B", "#9E9AC8", "#FDAE6B")
#: perfect play (the exact solver), in every figure
PERFECT = "#111111"
#: a deal won and a deal lost, where a figure sets the two apart
WON, LOST = "#222222", "#A0A0A0"
#: categories that are neither games nor players (kinds of mistake, shares of a whole): pastels, the last grey
KINDS = ("#8DD3C7", "#FDB462", "#BEBADA", "#FB8072", "#B3DE69", "#FCCDE5", "#D9D9D9")
#: the stages of a model, weakest first (the layout alone, with cheap players, with the quick beam): greys
STAGES = ("#D0D0D0", "#8C8C8C", "#3A3A3A")
#: a reference line (a diagonal, a zero) and a point that belongs to no series
GUIDE, NEUTRAL = "#999999", "#555555"


def game(slug: str) -> str:
    """A game's colour in every figure (a dialect ``slug@x`` draws in its sheet's)."""
    sheet = str(slug).split("@", 1)[0]
    return GAMES.get(sheet, OTHER_GAMES[sum(map(ord, sheet)) % len(OTHER_GAMES)])


def players(rungs: list[str], others: list[str] | tuple = (), perfect: str = "perfect play") -> dict[str, str]:
    """One colour per player: the rungs (weakest first) take :data:`PLAYERS` in order, the ``others`` the colours
    after them; perfect play is :data:`PERFECT`. Past the list's end the colours repeat."""
    out = {p: PLAYERS[i % len(PLAYERS)] for i, p in enumerate(dict.fromkeys([*rungs, *[o for o in others if o not in rungs]]))}
    out[perfect] = PERFECT
    return out
