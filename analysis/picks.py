"""Which rows a question is about: a :class:`Pick` of games and players, and a reader seen through one (:class:`Only`).

Both readers of the heuristic players' rows take a pick: DuckDB over the
Parquet parts (:class:`analysis.scan.CheapRows`, which renders it as SQL)
and a frame in memory (:class:`analysis.frames.FrameRows`). It lives below
both so that each imports it and neither imports the other.
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


class Only:
    """A :class:`analysis.scan.CheapRows` seen through a :class:`Pick` (:meth:`~analysis.scan.CheapRows.only`): each
    question that takes a pick is asked of the rows both picks keep."""

    def __init__(self, rows, p: Pick):
        self.rows, self.p = rows, p

    def pairs(self, p: Pick = ALL):
        return self.rows.pairs(p=self.p & p)

    def seeds(self, p: Pick = ALL):
        return self.rows.seeds(p=self.p & p)

    def counts(self, by: list[str], p: Pick = ALL):
        return self.rows.counts(by, p=self.p & p)

    def span(self, p: Pick = ALL, by: list[str] | None = None):
        return self.rows.span(p=self.p & p, by=by)

    def cpu(self, by: list[str], p: Pick = ALL):
        return self.rows.cpu(by, p=self.p & p)

    def histogram(self, column: str, by: list[str], p: Pick = ALL):
        return self.rows.histogram(column, by, p=self.p & p)

    def on_deals(self, keys, p: Pick = ALL, by: list[str] | None = None):
        return self.rows.on_deals(keys, p=self.p & p, by=by)

    def rows_on(self, keys, p: Pick = ALL, columns: list[str] | None = None):
        return self.rows.rows_on(keys, p=self.p & p, columns=columns)

    def which(self, keys, p: Pick = ALL):
        return self.rows.which(keys, p=self.p & p)

    def running(self, points, p: Pick = ALL):
        return self.rows.running(points, p=self.p & p)

    def convergence(self, p: Pick = ALL, points: int = 40):
        return self.rows.convergence(p=self.p & p, points=points)

    def held_by(self, p: Pick = ALL):
        return self.rows.held_by(p=self.p & p)
