"""Chunk planning: an experiment's deals cut into tasks, one Parquet part each, leaving out what is on disk.

Its own module because the plan is what makes a rerun safe: chunk boundaries
are fixed multiples of the chunk size, so a rerun or an extension plans the
same parts, and deals already covered are never played twice.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Iterator
from urllib.parse import quote

from ..players.spec import PlayerChoice
from .experiment import Experiment


@dataclass(frozen=True)
class Chunk:
    """Deals ``first`` to ``last`` (inclusive) of one game and one player: one task, one file."""

    game: str  #: the game's full name (``Rules.full_slug``: ``slug@dialect`` for a dialect)
    choice: PlayerChoice  #: travels with the task, so players registered at run time work in workers too
    seed: int
    first: int
    last: int
    extra: tuple[tuple[str, str], ...] = ()  #: the experiment's extra columns

    @property
    def n_deals(self) -> int:
        return self.last - self.first + 1

    def relpath(self) -> str:
        return f"game={quote(self.game, safe='@')}/player={quote(self.choice.label, safe='')}/part-{self.first}-{self.last}.parquet"


def plan(exp: Experiment, covered: dict[tuple[str, str], list[tuple[int, int]]] | None = None) -> Iterator[Chunk]:
    """The chunks still to play, lazily, in an order that interleaves games and players.

    Chunk boundaries are the multiples of ``chunk_size`` (counted from deal 0,
    whatever the range), so a rerun or an extension plans the same files; deals
    already ``covered`` (per game full name and player label: sorted inclusive
    ranges on disk) are left out, so no deal is ever played twice.
    """
    covered = covered or {}
    extra = tuple(c for p in exp.players for c in p.spec.extra_columns)
    if exp.unknowns_of:  # listed deals, one part each (they lie far apart)
        for rules in exp.games:
            for choice in exp.players:
                ranges = covered.get((rules.full_slug, choice.label), ())
                for deal in exp.deals_of(rules.full_slug) or ():
                    if not overlap(deal, deal + 1, ranges):
                        yield Chunk(rules.full_slug, choice, exp.seed, deal, deal, extra)
        return
    start = exp.first
    while start < exp.end:
        stop = min((start // exp.chunk_size + 1) * exp.chunk_size, exp.end)
        for rules in exp.games:
            for choice in exp.players:
                for a, b in _gaps(start, stop - 1, covered.get((rules.full_slug, choice.label), ())):
                    yield Chunk(rules.full_slug, choice, exp.seed, a, b, extra)
        start = stop


def _gaps(first: int, last: int, ranges) -> Iterator[tuple[int, int]]:
    """The parts of ``first..last`` outside the sorted, disjoint inclusive ``ranges``."""
    k = bisect.bisect_right(ranges, (first, float("inf"))) - 1
    k = max(k, 0)
    at = first
    for a, b in ranges[k:]:
        if a > last:
            break
        if b < at:
            continue
        if a > at:
            yield at, a - 1
        at = max(at, b + 1)
    if at <= last:
        yield at, last


def already(exp: Experiment, covered: dict[tuple[str, str], list[tuple[int, int]]]) -> int:
    """How many of the games ``exp`` plays are on disk (``covered``: as :func:`plan` takes it)."""
    if not exp.unknowns_of:
        return sum(overlap(exp.first, exp.end, ranges) for ranges in covered.values())
    return sum(overlap(d, d + 1, covered.get((rules.full_slug, choice.label), ()))
               for rules in exp.games for choice in exp.players for d in exp.deals_of(rules.full_slug) or ())


def overlap(first: int, end: int, ranges) -> int:
    """How many deals of ``first..end-1`` the inclusive ``ranges`` cover."""
    return sum(max(0, min(b, end - 1) - max(a, first) + 1) for a, b in ranges)
