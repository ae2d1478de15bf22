"""How a game ends: one set of codes for kernels, players, the solver and the result rows.

A kernel returns a code; a row's ``result`` column holds its name. A
player's game ends ``won``, ``stuck`` (no legal move at all) or
``gave_up`` (no move to a position it has not seen, or the move cap); the
solver's ``won``, ``lost`` (proved) or ``unknown`` (budget spent).

>>> RESULTS[WON], Result("lost") is Result.LOST, Result.WON == "won"
('won', True, True)
>>> Result.STUCK.code
1
"""

from __future__ import annotations

import enum

WON = 0
STUCK = 1
GAVE_UP = 2
LOST = 3
UNKNOWN = 4

#: the names of the codes, in code order: ``RESULTS[code]``
RESULTS = ("won", "stuck", "gave_up", "lost", "unknown")


class Result(str, enum.Enum):
    """A game's end as a name that compares equal to its text (``Result.WON == "won"``)."""

    WON = RESULTS[WON]
    STUCK = RESULTS[STUCK]
    GAVE_UP = RESULTS[GAVE_UP]
    LOST = RESULTS[LOST]
    UNKNOWN = RESULTS[UNKNOWN]

    @property
    def code(self) -> int:
        """The kernels' code of this result."""
        return RESULTS.index(self.value)

    def __str__(self) -> str:
        return self.value
