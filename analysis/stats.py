"""Win rates with intervals, paired comparisons, the players' order of strength, convergence.

Intervals are 95% Wilson intervals (statsmodels). For solver results the
interval is computed twice, unknowns counted as won and as lost, and the
outer bounds are reported with the midpoint: the convention of Blake & Gent
(Solvitaire), so our figures read like theirs.

>>> round(wilson(68, 100)[0], 4), round(wilson(68, 100)[1], 4)
(0.5834, 0.7633)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

from sim.players.spec import HEURISTIC

from .labels import stream_of
from .roles import name as player_name  # (said once, where roles read labels)
from .roles import role

ALPHA = 0.05
KEYS = ["game", "player"]


def wilson(k: int, n: int, alpha: float = ALPHA) -> tuple[float, float]:
    """Wilson score interval of ``k`` successes in ``n`` (nan, nan when n = 0)."""
    if n == 0:
        return (math.nan, math.nan)
    lo, hi = proportion_confint(k, n, alpha=alpha, method="wilson")
    return float(lo), float(hi)


def rate_interval(won: int, unknown: int, n: int, alpha: float = ALPHA) -> tuple[float, float, float]:
    """(midpoint, low, high): Wilson with unknowns as lost for ``low``, as won for ``high``."""
    if n == 0:
        return (math.nan, math.nan, math.nan)
    lo = wilson(won, n, alpha)[0]
    hi = wilson(won + unknown, n, alpha)[1]
    return ((won + unknown / 2) / n, lo, hi)


def win_rates(df: pd.DataFrame, by: list[str] | None = None) -> pd.DataFrame:
    """One row per game x player: deals, won, unknown, rate (midpoint) and its 95% bounds."""
    by = by or KEYS
    rows = []
    for key, g in df.groupby(by, sort=True, observed=True):
        key = key if isinstance(key, tuple) else (key,)
        rows.append(dict(zip(by, key)) | {"deals": len(g), "won": int((g["result"] == "won").sum()),
                                          "unknown": int((g["result"] == "unknown").sum())})
    return rates_of_counts(pd.DataFrame(rows, columns=by + ["deals", "won", "unknown"]), by)


def rates_of_counts(counts: pd.DataFrame, by: list[str] | None = None) -> pd.DataFrame:
    """:func:`win_rates` of counts already made (``by`` + deals, won, unknown; sorted by ``by``), wherever they were
    counted: in pandas, or where the rows lie (:class:`analysis.scan.CheapRows`)."""
    by = by or KEYS
    rows = []
    for row in counts.itertuples(index=False):
        d = row._asdict()
        n, won, unknown = int(d["deals"]), int(d["won"]), int(d["unknown"])
        mid, lo, hi = rate_interval(won, unknown, n)
        rows.append({k: d[k] for k in by} | {"deals": n, "won": won, "unknown": unknown, "rate": mid, "ci_low": lo,
                                              "ci_high": hi, "half_width": (hi - lo) / 2})
    return pd.DataFrame(rows, columns=by + ["deals", "won", "unknown", "rate", "ci_low", "ci_high", "half_width"])


@dataclass(frozen=True)
class Paired:
    """Two players or games compared on the same deals.

    ``both``, ``only_a``, ``only_b``, ``neither`` form the 2x2 table;
    ``p_value`` is McNemar's exact test; ``diff`` is rate(a) - rate(b) with
    Newcombe's hybrid score interval for paired proportions (method 10).
    """

    a: str
    b: str
    deals: int
    both: int
    only_a: int
    only_b: int
    neither: int
    rate_a: float
    rate_b: float
    diff: float
    diff_low: float
    diff_high: float
    p_value: float

    def table(self) -> pd.DataFrame:
        return pd.DataFrame(
            [[self.both, self.only_a], [self.only_b, self.neither]],
            index=[f"{self.a} won", f"{self.a} not won"],
            columns=[f"{self.b} won", f"{self.b} not won"],
        )


def newcombe_paired(both: int, only_a: int, only_b: int, neither: int, alpha: float = ALPHA) -> tuple[float, float, float]:
    """rate(a) - rate(b) and its interval, Newcombe (1998) method 10."""
    n = both + only_a + only_b + neither
    if n == 0:
        return (math.nan, math.nan, math.nan)
    p1 = (both + only_a) / n
    p2 = (both + only_b) / n
    l1, u1 = wilson(both + only_a, n, alpha)
    l2, u2 = wilson(both + only_b, n, alpha)
    denom = (both + only_a) * (only_b + neither) * (both + only_b) * (only_a + neither)
    num = both * neither - only_a * only_b
    if num > 0:
        num = max(num - n / 2, 0.0)
    phi = num / math.sqrt(denom) if denom > 0 else 0.0
    d = p1 - p2
    dl = math.sqrt(max((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2, 0.0))
    du = math.sqrt(max((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2, 0.0))
    return d, d - dl, d + du


def paired_both_ways(a, b, alpha: float = ALPHA) -> tuple[float, float, float]:
    """rate(a) - rate(b) deal by deal with the unknowns counted both ways, the study's convention for a difference:
    (estimate, low, high). ``a``, ``b``: the same deals' verdicts (``won``, ``lost``, ``unknown``), aligned.

    The low bound is Newcombe's lower bound of the table with ``a``'s unknowns lost and ``b``'s won (the smallest
    difference the unknowns allow), the high bound his upper bound with ``a``'s unknowns won and ``b``'s lost; the
    estimate is the midpoint of those two differences (each game's midpoint estimate, subtracted). With no unknown
    it is :func:`newcombe_paired` of the one table.
    """
    a, b = np.asarray(a).astype(str), np.asarray(b).astype(str)
    if len(a) == 0:
        return (math.nan, math.nan, math.nan)

    def table(wa: np.ndarray, wb: np.ndarray) -> tuple[int, int, int, int]:
        return int((wa & wb).sum()), int((wa & ~wb).sum()), int((~wa & wb).sum()), int((~wa & ~wb).sum())

    won_a, won_b, unknown_a, unknown_b = a == "won", b == "won", a == "unknown", b == "unknown"
    d_lo, lo, _ = newcombe_paired(*table(won_a, won_b | unknown_b), alpha)
    d_hi, _, hi = newcombe_paired(*table(won_a | unknown_a, won_b), alpha)
    return (d_lo + d_hi) / 2, lo, hi


def paired(df: pd.DataFrame, a: tuple[str, str], b: tuple[str, str]) -> Paired | None:
    """Compare (game, player) ``a`` with ``b`` deal by deal (same seed and deal id).

    Only deals both played count. An ``unknown`` solver verdict counts as not
    won. None when they share no deal.
    """
    return paired_of_counts(a, b, *paired_counts(df, a, b))


def paired_counts(df: pd.DataFrame, a: tuple[str, str], b: tuple[str, str]) -> tuple[int, int, int, int]:
    """(both won, only a, only b, neither) over the deals (seed, deal) both (game, player) played, counted in pandas."""
    def wins(key):
        g = df[(df["game"] == key[0]) & (df["player"] == key[1])]
        return g.set_index(["seed", "deal"])["result"].eq("won")

    joined = pd.concat([wins(a).rename("a"), wins(b).rename("b")], axis=1, join="inner")
    return (int((joined.a & joined.b).sum()), int((joined.a & ~joined.b).sum()), int((~joined.a & joined.b).sum()),
            int((~joined.a & ~joined.b).sum()))


def paired_of_counts(a: tuple[str, str], b: tuple[str, str], both: int, only_a: int, only_b: int, neither: int) -> Paired | None:
    """:func:`paired` of the 2x2 table already counted (in pandas, or by a join where the rows lie); None when empty."""
    n = both + only_a + only_b + neither
    if n == 0:
        return None
    d, lo, hi = newcombe_paired(both, only_a, only_b, neither)
    p = 1.0 if only_a + only_b == 0 else float(mcnemar([[both, only_a], [only_b, neither]], exact=True).pvalue)
    label = lambda k: f"{k[0]} / {k[1]}"  # noqa: E731
    return Paired(label(a), label(b), n, both, only_a, only_b, neither,
                  (both + only_a) / n, (both + only_b) / n, d, lo, hi, p)


def base_rank_rates(df: pd.DataFrame) -> pd.DataFrame:
    """Win rate by the base rank the player chose (games with a base choice only)."""
    rows = df[df["base_rank"].notna()].copy()
    if rows.empty:
        return pd.DataFrame(columns=["game", "player", "base_rank", "deals", "won", "unknown", "rate", "ci_low", "ci_high", "half_width"])
    rows["base_rank"] = rows["base_rank"].astype(int)
    return win_rates(rows, by=["game", "player", "base_rank"])


def p_text(p: float) -> str:
    """A p-value for a table or label: two significant digits; below double precision's reach, a bound, not 0."""
    return "n/a" if p is None or np.isnan(p) else ("< 1e-300" if p < 1e-300 else f"{p:.2g}")


def named(players: pd.Series, *names: str) -> pd.Series:
    """Which rows are a player of ``names``, whatever its parameters: each distinct label asked once, not each row
    (a study's million rows made asking each row the report's slowest step)."""
    return players.isin([p for p in players.unique() if player_name(p) in names])


def rows_of(df: pd.DataFrame, name: str) -> pd.DataFrame:
    """The rows of the player ``name``, whatever its parameters (:func:`named`)."""
    return df[named(df.player, name)]


def is_solver(player: str) -> bool:
    """Is this player label the exact solver (``solver`` with any parameters, e.g. ``solver:bases=1``)?"""
    return player_name(player) == "solver"


def solver_mask(players: pd.Series) -> pd.Series:
    """Which rows are the solver's (:func:`named`)."""
    return named(players, "solver")




def is_judge(player: str) -> bool:
    """Is this the label of a player whose rows are read whole: an exact player's or a judge's, any role but
    heuristic (:mod:`analysis.roles`)?"""
    return role(player) != HEURISTIC


#: a deal's difficulty when no rung of the ladder wins it, by the solver's verdict (:func:`analysis.ladder.verdicts`):
#: it won the deal, proved it lost, or neither; the ladder's frames and the cheap rows' engine classify deals alike
SOLVER_ONLY = "solver only"
UNWINNABLE = "unwinnable"
UNKNOWN = "unknown"


def player_mask(players: pd.Series) -> pd.Series:
    """Which rows are a heuristic player's (any label but a judge's, :func:`is_judge`), asked once per distinct label.

    A rung's other random streams (``stream=k``, :func:`analysis.labels.stream_of`) are the same player, not
    another: they are left out here, and only the ratings read them (:func:`analysis.rated.outcomes`)."""
    return ~players.isin([p for p in players.unique() if is_judge(p) or stream_of(p)])


def players_by_strength(df: pd.DataFrame) -> list[str]:
    """The heuristic players of ``df``, weakest first: by their mean win rate over the games they played.

    ``df``: rows, or each (game, player)'s deals and won already counted (:meth:`analysis.scan.CheapRows.pairs`).
    """
    heur = df[player_mask(df.player)]
    if heur.empty:
        return []
    if "deals" in heur.columns:
        by_game = (heur.won / heur.deals).set_axis(pd.MultiIndex.from_frame(heur[["player", "game"]])).sort_index()
    else:
        by_game = heur.groupby(["player", "game"], observed=True).won.mean()
    return list(by_game.groupby(level=0).mean().sort_values(kind="stable").index)


def convergence(df: pd.DataFrame, points: int = 40) -> pd.DataFrame:
    """Running win rate and interval as deals accumulate (deals in id order)."""
    rows = []
    for (game, player), g in df.groupby(KEYS, sort=True, observed=True):
        g = g.sort_values(["seed", "deal"])
        won = g.result.eq("won").to_numpy().cumsum()
        unknown = g.result.eq("unknown").to_numpy().cumsum()
        n = len(g)
        for k in sorted(set(np.unique(np.geomspace(1, n, min(points, n)).astype(int)))):
            mid, lo, hi = rate_interval(int(won[k - 1]), int(unknown[k - 1]), k)
            rows.append({"game": game, "player": player, "deals": k, "rate": mid, "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(rows)
