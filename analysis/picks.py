"""Which rows a question is about: a :class:`Pick` of games and players, said as SQL.

The reader of the heuristic players' rows (:class:`analysis.scan.CheapRows`)
takes a pick with each question, and a selection of its rows is a view made
of one (:meth:`analysis.scan.CheapRows.only`). It lives below the reader and
the modules that make its views (:mod:`analysis.duck`), so each imports it.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.study.values import in_list, quote  # noqa: F401  (SQL literals, kept below analysis: the row checks use them too)


@dataclass(frozen=True)
class Pick:
    """Which cheap rows a question is about: some games, some players (None: all), only games not won."""

    games: tuple[str, ...] | None = None
    players: tuple[str, ...] | None = None
    not_won: bool = False
    has: tuple[str, ...] = ()  #: columns that must hold a value (``base_rank``: a base was founded)

    def __and__(self, other: "Pick") -> "Pick":
        def both(x, y):
            return y if x is None else x if y is None else tuple(v for v in x if v in y)
        return Pick(both(self.games, other.games), both(self.players, other.players), self.not_won or other.not_won,
                    tuple(dict.fromkeys(self.has + other.has)))

    def sql(self, alias: str = "") -> str:
        a = f"{alias}." if alias else ""
        parts = ["TRUE"]
        if self.games is not None:
            parts.append(f"{a}game IN {in_list(self.games)}")
        if self.players is not None:
            parts.append(f"{a}player IN {in_list(self.players)}")
        if self.not_won:
            parts.append(f"{a}result <> 'won'")
        parts += [f"{a}{c} IS NOT NULL" for c in self.has]
        return " AND ".join(parts)


def pick(games=None, players=None, not_won: bool = False, has=()) -> Pick:
    """A :class:`Pick` from any iterables of names."""
    return Pick(None if games is None else tuple(dict.fromkeys(map(str, games))),
                None if players is None else tuple(dict.fromkeys(map(str, players))), not_won, tuple(has))


ALL = Pick()
