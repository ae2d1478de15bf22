"""The replay page's templates: Jinja2, autoescaped, in ``templates/`` beside this module (package data).

Why apart: some 300 lines of HTML, CSS and JavaScript that are the same for
every game are kept out of the Python that computes what they show
(:mod:`sim.replay.page`): ``replay.html.j2`` lays the page out (the move list
and the review's note from :mod:`sim.replay.movelist`'s values),
``replay.css.j2`` is its style (the board's width, the move list's, the
narrowest window that keeps them side by side filled in) and ``replay.js.j2``
its script, whose ``show()`` moves the card glyphs to each position: whatever
on the board changes from move to move is drawn there as well as in
:mod:`sim.render.svg`. Every value is escaped by the template; only the board's
SVG and the game's JSON (made safe inside ``<script>`` by
:func:`~sim.core.jsontext.script_json`) go in as they are.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import jinja2

__all__ = ["TEMPLATES", "render"]

TEMPLATES = Path(__file__).resolve().parent / "templates"


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, trim_blocks=True,
                              lstrip_blocks=True, keep_trailing_newline=True, undefined=jinja2.StrictUndefined)


def render(**context) -> str:
    """The page, ``replay.html.j2`` filled in with ``context``."""
    return _environment().get_template("replay.html.j2").render(**context)
