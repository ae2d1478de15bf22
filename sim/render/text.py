"""The terminal board (``str(state)``) with suit colours, where the terminal shows them.

Colour is used only when the stream is a terminal, ``NO_COLOR`` is unset or
empty (https://no-color.org) and ``TERM`` is not ``dumb``; otherwise the text
is returned as it is.

>>> coloured("1 | AH KS", force=True) == "1 | \\x1b[31mAH\\x1b[0m \\x1b[1mKS\\x1b[0m"
True
>>> coloured("1 | AH KS", force=False)
'1 | AH KS'
"""

from __future__ import annotations

import os
import re
import sys
from typing import TextIO

from ..core.cards import RANKS, RED_SUITS, SUITS

RED = "\x1b[31m"
BLACK = "\x1b[1m"  # bold in the terminal's own foreground: black on light themes, white on dark ones
RESET = "\x1b[0m"

#: a card token: rank then suit, alone (``AH``, ``TD``); ``H:AH`` foundation cells match on the card
_CARD = re.compile(rf"(?<![A-Za-z0-9])([{RANKS}])([{SUITS}])(?![A-Za-z0-9])")
_RED = "".join(SUITS[s] for s in sorted(RED_SUITS))


def wants_colour(stream: TextIO | None = None) -> bool:
    """Does ``stream`` (standard output by default) take colour? A terminal, no ``NO_COLOR``, not ``TERM=dumb``."""
    stream = sys.stdout if stream is None else stream
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def coloured(text: str, force: bool | None = None, stream: TextIO | None = None) -> str:
    """``text`` with hearts and diamonds red and clubs and spades bold, if colour is wanted (or ``force``)."""
    if not (wants_colour(stream) if force is None else force):
        return text
    return _CARD.sub(lambda m: f"{RED if m.group(2) in _RED else BLACK}{m.group(0)}{RESET}", text)
