"""A whole game as one self-contained HTML page that steps through it.

The page holds one SVG board (:func:`~sim.render.svg.board_svg` of the
deal, every card a glyph), the game's positions as compact JSON, and a small
inline script that moves the card glyphs to each position: first / previous
/ next / last buttons, the arrow keys (Home and End too), a slider, and the
move list with the current move highlighted (a click on a move goes there),
and a play / pause button (or the space bar) that steps on by itself.
A status line gives the cards home, the empty piles and the base at each
step; a lost game ends on the position where the player stopped, with its
legal moves listed. Nothing is loaded from the network.

The address links to the move shown: ``page.html#move=40`` opens at move 40,
and stepping rewrites the ``#move=N`` (without adding history entries). The
move list scrolls in its own box, beside the board while the board can keep
:data:`~sim.replay.page.SIDE_BY_SIDE` of its size there; on a narrower window
the board stays at the top of the window and the list scrolls below it. Stepping keeps the
current move in view inside the list, never scrolling the board away.
``back=`` puts a link back to the report on top; a :class:`Replay` with
``marks`` colours each move of the list by a verdict (``mark-keeps``,
``mark-loses``, ``mark-unknown``, ``mark-lost``) with a legend.

``review=True`` has the solver judge the game (:func:`sim.solver.review.review`):
every move is coloured by its verdict, the first losing move carries a red
badge "first mistake" with the moves that would have kept the deal listed
under it, the status line says so when the replay reaches it, and a note on
top sums it up; a won game's critical moves (the only move that kept the deal
winnable there) carry a badge "critical". ``moves=`` replays a given list of
moves (a person's game) instead of a player's.

For the report::

    from sim.replay import write_replay
    rep = write_replay("streets-and-alleys", 17, "greedy", 0, "reports/replays/sa-17-greedy.html")
    rep.result, len(rep.moves), rep.path

``player="solver"`` (with parameters, e.g. ``"solver:budget_seconds=10"``)
replays the solver's win, tidied for reading by :func:`~sim.replay.tidy.tidy_line`
(shuffles that go nowhere taken out; the page says so and how long the
solver's own line was; ``tidy=False`` shows the line as the solver found it);
a deal it proved lost, or could not settle, gives a page showing the deal
and saying so.

The package, by topic: :mod:`.record` plays the game (or takes a list of
moves), keeps every position and has it reviewed; :mod:`.tidy` shortens a
solver's win for reading; :mod:`.page` puts the page together from
:mod:`.movelist` (the move list and the review's note) with :mod:`.template`
(the Jinja2 templates, autoescaped, in ``templates/``: the HTML, CSS and script).
"""

from __future__ import annotations

from .page import replay_html, write_replay
from .record import Replay, record_replay

__all__ = ["Replay", "record_replay", "replay_html", "write_replay"]
