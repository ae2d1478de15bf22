"""Pictures of positions: SVG boards (:mod:`.svg`), PNG through cairosvg (:mod:`.png`), coloured
terminal boards (:mod:`.text`) and self-contained HTML replays of whole games (:mod:`.replay`).

Nothing here loads compiled code except the replay, which plays the game.
"""

from __future__ import annotations

from .svg import board_svg

__all__ = ["board_svg"]
