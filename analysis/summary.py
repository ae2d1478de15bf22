"""``castle summary``'s lines: per game, perfect play first, then each player; their counts, seeds, deals and state.

Why apart from the report: the command answers in seconds what the report's
pages say in minutes, so it asks only for counts. Every estimate, interval
and count is :func:`analysis.designs.estimates`' (the report's answer and the
README read the same), every paired difference :mod:`analysis.compare`'s
functions (:func:`paired`); this module only gathers them by game, with the
seeds and deals they rest on, the judges apart (they judge deals, they do not
play them: their role, :mod:`analysis.roles`), and whether a run is still going
(:func:`analysis.load.unfinished`, as the README's progress line says it).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from sim.players.spec import JUDGE

from .compare import span_text
from .designs import SETTLE, Estimate, estimates, exact_mask
from .load import unfinished
from .picks import in_list
from .roles import role
from .stats import is_judge, player_name
from .winnability import PERFECT

#: the columns of a summary line, in the order the table, CSV and JSON give them
FIELDS = ("game", "player", "role", "design", "deals", "won", "lost", "unknown", "not_followed", "estimate", "lo", "hi",
          "solved_again", "seeds", "deal_span", "cpu_hours", "running")


@dataclass(frozen=True)
class Line:
    """One estimate of a game (``role``: perfect play, or a player) or one judge's rows (no estimate)."""

    game: str
    player: str
    role: str  #: "perfect play", "player" or "judge"
    design: str
    deals: int
    won: int | None
    lost: int | None
    unknown: int | None  #: deals the full budget left unknown (counted both ways)
    not_followed: int | None  #: unsettled deals a phased design did not follow (its subsample stands for them)
    estimate: float | None
    lo: float | None
    hi: float | None
    solved_again: int  #: deals left unknown at the full budget, solved again deeper (the settle player's)
    seeds: str
    deal_span: str
    cpu_hours: float
    running: str  #: "" when every run behind the line has finished, else which have not and how far they are

    def as_dict(self) -> dict:
        return {f: getattr(self, f) for f in FIELDS}


def lines(df: pd.DataFrame, cheap, held: dict[str, dict]) -> list[Line]:
    """Every game's lines: perfect play, the players (as :func:`analysis.designs.estimates` made them, strongest
    first: down from perfect play), then the judges. ``df``: the judged rows (:func:`analysis.load.load_study` with
    ``judged_only``, with :func:`analysis.load.count_cheap_rows` done); ``cheap``: the players' rows where they lie;
    ``held``: the manifests."""
    running = {label: (have, planned) for label, have, planned in unfinished(df, held)}
    spans = _spans(df, cheap)
    going = _going(df, cheap, running)
    by_game: dict[str, list[Line]] = {}
    for e in estimates(df, cheap):
        perfect = e.player == PERFECT
        key = (e.game, PERFECT if perfect else e.player)
        if not perfect and is_judge(e.player):  # (a solver run's estimate is in perfect play's)
            continue
        by_game.setdefault(e.game, []).append(_line(e, "perfect play" if perfect else "player", spans.get(key), going.get(key)))
    judged = df[df.player.map(lambda p: role(p) == JUDGE)] if len(df) else df
    for (game, player), g in judged.groupby(["game", "player"], observed=True, sort=True):
        seeds, span = spans[(game, player)]
        by_game.setdefault(str(game), []).append(Line(str(game), str(player), "judge", "judges each deal", len(g), None, None,
                                                      None, None, None, None, None, 0, seeds, span, g.cpu_us.sum() / 3.6e9,
                                                      going.get((game, player), "")))
    order = {"perfect play": 0, "player": 1, "judge": 2}
    return [ln for game in sorted(by_game) for ln in sorted(by_game[game], key=lambda ln: (
        order[ln.role], -(ln.estimate if ln.estimate is not None else 0), ln.player))]


def _line(e: Estimate, role: str, where, going: str | None) -> Line:
    won, lost, unknown, left = e.counts if e.counts else (None,) * 4
    seeds, span = where or ("", "")
    return Line(e.game, e.player, role, e.described, e.deals, won, lost, unknown, left, e.estimate, e.lo, e.hi, e.again, seeds, span,
                e.cpu_seconds / 3600, going or "")


def _spans(df: pd.DataFrame, cheap) -> dict[tuple[str, str], tuple[str, str]]:
    """(seeds, deals in words) of each (game, player), and of each game's perfect play (all its exact rows); on
    several seeds, the deals of each (deal N of one seed is another deal than deal N of the next)."""
    tables = []
    if len(df):
        def per_seed(rows: pd.DataFrame, by: list[str]) -> pd.DataFrame:
            g = rows.groupby(by + ["seed"], observed=True).deal
            return pd.DataFrame({"n": g.nunique(), "lo": g.min(), "hi": g.max()}).reset_index()
        tables.append(per_seed(df, ["game", "player"]))
        exact = df[exact_mask(df.player) & (df.player.map(player_name) != SETTLE)]  # (settle's deals are others' unknowns)
        if len(exact):
            tables.append(per_seed(exact, ["game"]).assign(player=PERFECT))
    if cheap is not None and len(cheap):
        tables.append(cheap.df("SELECT game, player, seed, count(DISTINCT deal) AS n, min(deal) AS lo, max(deal) AS hi "
                               "FROM rows GROUP BY game, player, seed"))
    if not tables:
        return {}
    t = pd.concat([x[["game", "player", "seed", "n", "lo", "hi"]] for x in tables], ignore_index=True)
    t = t.astype({"game": str, "player": str, "seed": "int64"}).sort_values(["game", "player", "seed"], kind="stable")
    out = {}
    for (game, player), g in t.groupby(["game", "player"], sort=False):
        spans = [span_text(int(n), int(lo), int(hi)) for n, lo, hi in zip(g.n, g.lo, g.hi)]
        if len(set(spans)) == 1:
            said = spans[0] + (" of each" if len(spans) > 1 else "")
        else:
            said = "; ".join(f"{x} of seed {_seed(int(sd))}" for x, sd in zip(spans, g.seed))
        out[(game, player)] = (", ".join(_seed(int(sd)) for sd in g.seed), said)
    return out


def _seed(seed: int) -> str:
    """A seed in words: PySol's deal numbers are their own (:data:`sim.core.deals.PYSOL_SEED`)."""
    from sim.core.deals import PYSOL_SEED

    return f"{seed} (PySol's deals)" if seed == PYSOL_SEED else str(seed)


def _going(df: pd.DataFrame, cheap, running: dict[str, tuple[int, int]]) -> dict[tuple[str, str], str]:
    """For each (game, player), and each game's perfect play, the unfinished runs its rows come from, in words."""
    if not running:
        return {}
    said = {label: f"{label}, {have:,} of {planned:,} games" for label, (have, planned) in running.items()}
    found: dict[tuple[str, str], list[str]] = {}
    if len(df) and "dataset" in df.columns:
        mine = df[df.dataset.isin(list(running))]
        exact = exact_mask(mine.player)
        for (game, player, label) in mine[["game", "player", "dataset"]].drop_duplicates().itertuples(index=False, name=None):
            found.setdefault((str(game), str(player)), []).append(said[label])
        for (game, label) in mine[exact][["game", "dataset"]].drop_duplicates().itertuples(index=False, name=None):
            found.setdefault((str(game), PERFECT), []).append(said[label])
    if cheap is not None and len(cheap):
        t = cheap.df(f"SELECT DISTINCT game, player, dataset FROM rows WHERE dataset IN {in_list(list(running))}")
        for game, player, label in t.itertuples(index=False, name=None):
            found.setdefault((str(game), str(player)), []).append(said[label])
    return {k: "; ".join(dict.fromkeys(v)) for k, v in found.items()}


def unfinished_runs(df: pd.DataFrame, held: dict[str, dict]) -> list[str]:
    """Each unfinished run in words, for the summary's foot (as the README's progress line counts them)."""
    return [f"{label}: {have:,} of {planned:,} games" for label, have, planned in unfinished(df, held)]
