"""Pictures of positions: SVG boards (:mod:`.svg`), PNG through cairosvg (:mod:`.png`) and coloured
terminal boards (:mod:`.text`).

Drawing only: nothing here plays a game or loads compiled code; it reads :mod:`sim.core` alone. A whole game
as a page that steps through it is :mod:`sim.replay`, a layer above.
"""

from __future__ import annotations

from .svg import board_svg

__all__ = ["board_svg"]
