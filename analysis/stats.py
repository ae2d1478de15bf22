"""Win rates with intervals, paired comparisons, base-rank study, difficulty measures.

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
        n = len(g)
        won = int((g["result"] == "won").sum())
        unknown = int((g["result"] == "unknown").sum())
        mid, lo, hi = rate_interval(won, unknown, n)
        rows.append(
            dict(zip(by, key))
            | {"deals": n, "won": won, "unknown": unknown, "rate": mid, "ci_low": lo, "ci_high": hi,
               "half_width": (hi - lo) / 2}
        )
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


def paired(df: pd.DataFrame, a: tuple[str, str], b: tuple[str, str]) -> Paired | None:
    """Compare (game, player) ``a`` with ``b`` deal by deal (same seed and deal id).

    Only deals both played count. An ``unknown`` solver verdict counts as not
    won. None when they share no deal.
    """
    def wins(key):
        g = df[(df["game"] == key[0]) & (df["player"] == key[1])]
        return g.set_index(["seed", "deal"])["result"].eq("won")

    wa, wb = wins(a), wins(b)
    joined = pd.concat([wa.rename("a"), wb.rename("b")], axis=1, join="inner")
    if joined.empty:
        return None
    both = int((joined.a & joined.b).sum())
    only_a = int((joined.a & ~joined.b).sum())
    only_b = int((~joined.a & joined.b).sum())
    neither = int((~joined.a & ~joined.b).sum())
    d, lo, hi = newcombe_paired(both, only_a, only_b, neither)
    p = 1.0 if only_a + only_b == 0 else float(mcnemar([[both, only_a], [only_b, neither]], exact=True).pvalue)
    n = len(joined)
    label = lambda k: f"{k[0]} / {k[1]}"  # noqa: E731
    return Paired(label(a), label(b), n, both, only_a, only_b, neither,
                  (both + only_a) / n, (both + only_b) / n, d, lo, hi, p)


def paired_table(comparisons: list[Paired]) -> pd.DataFrame:
    """Many comparisons as one table."""
    return pd.DataFrame([c.__dict__ for c in comparisons])


def base_rank_rates(df: pd.DataFrame) -> pd.DataFrame:
    """Win rate by the base rank the player chose (games with a base choice only)."""
    rows = df[df["base_rank"].notna()].copy()
    if rows.empty:
        return pd.DataFrame(columns=["game", "player", "base_rank", "deals", "won", "unknown", "rate", "ci_low", "ci_high", "half_width"])
    rows["base_rank"] = rows["base_rank"].astype(int)
    return win_rates(rows, by=["game", "player", "base_rank"])


def winning_bases(df: pd.DataFrame) -> pd.DataFrame:
    """From solver rows with ``bases_won`` (a 13-bit mask): how many bases win each deal."""
    if "bases_won" not in df.columns:
        return pd.DataFrame(columns=["game", "winning_bases", "deals"])
    rows = df[df["bases_won"].notna()].copy()
    rows["winning_bases"] = rows["bases_won"].astype(np.int64).map(lambda m: bin(m).count("1"))
    return rows.groupby(["game", "winning_bases"]).size().rename("deals").reset_index()


def is_solver(player: str) -> bool:
    """Is this player label the exact solver (``solver`` with any parameters, e.g. ``solver:bases=1``)?"""
    return str(player).split(":", 1)[0] == "solver"


def solver_label(df: pd.DataFrame, game: str | None = None) -> str | None:
    """The solver's player label in ``df`` (for ``game``), preferring one with per-base verdicts."""
    rows = df if game is None else df[df.game == game]
    labels = sorted({p for p in rows.player.unique() if is_solver(p)})
    if not labels:
        return None
    if "bases_won" in rows.columns:
        with_bases = [p for p in labels if rows[rows.player == p].bases_won.notna().any()]
        if with_bases:
            return with_bases[0]
    return labels[0]


def choice_was_winning(df: pd.DataFrame, game: str, player: str, solver: str | None = None) -> dict:
    """How often ``player``'s base choice was one of the solver's winning bases.

    Over deals where the solver found at least one winning base.
    """
    solver = solver or solver_label(df, game)
    if "bases_won" not in df.columns or solver is None:
        return {"deals": 0, "winning_choice": 0, "share": math.nan}
    s = df[(df.game == game) & (df.player == solver) & df.bases_won.notna()].set_index(["seed", "deal"])["bases_won"]
    p = df[(df.game == game) & (df.player == player) & df.base_rank.notna()].set_index(["seed", "deal"])["base_rank"]
    j = pd.concat([s.rename("mask"), p.rename("base")], axis=1, join="inner")
    j = j[j["mask"] > 0]
    if j.empty:
        return {"deals": 0, "winning_choice": 0, "share": math.nan}
    hit = pd.Series((j["mask"].to_numpy(np.int64) >> j["base"].to_numpy(np.int64)) & 1, index=j.index).astype(bool)
    return {"deals": len(j), "winning_choice": int(hit.sum()), "share": float(hit.mean())}


def difficulty(df: pd.DataFrame) -> pd.DataFrame:
    """Per game x player: cards home in games not won, moves to win, result mix."""
    rows = []
    for (game, player), g in df.groupby(KEYS, sort=True, observed=True):
        lost = g[g.result != "won"]
        won = g[g.result == "won"]
        rows.append({
            "game": game, "player": player, "deals": len(g),
            "stuck": int((g.result == "stuck").sum()), "gave_up": int((g.result == "gave_up").sum()),
            "cards_home_not_won_mean": float(lost.cards_home.mean()) if len(lost) else math.nan,
            "cards_home_not_won_median": float(lost.cards_home.median()) if len(lost) else math.nan,
            "moves_to_win_median": float(won.moves.median()) if len(won) else math.nan,
        })
    return pd.DataFrame(rows)


def winnable_not_won(df: pd.DataFrame, solver: str | None = None) -> pd.DataFrame:
    """Per game x heuristic player: deals the solver won that the player did not (the difficulty gap)."""
    rows = []
    for game, g in df.groupby("game", sort=True, observed=True):
        label = solver or solver_label(g)
        solved = g[(g.player == label) & (g.result == "won")].set_index(["seed", "deal"]).index
        if len(solved) == 0:
            continue
        for player, p in g[~g.player.map(is_solver)].groupby("player", observed=True):
            p = p.set_index(["seed", "deal"])
            common = p.index.intersection(solved)
            if len(common) == 0:
                continue
            missed = int((p.loc[common, "result"] != "won").sum())
            lo, hi = wilson(missed, len(common))
            rows.append({"game": game, "player": player, "winnable": len(common), "not_won": missed,
                         "share_not_won": missed / len(common), "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(rows, columns=["game", "player", "winnable", "not_won", "share_not_won", "ci_low", "ci_high"])


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


@dataclass(frozen=True)
class Containment:
    """A containment law checked deal by deal: ``weaker`` won implies ``stronger`` won (same seed and deal).

    ``table`` counts the solver's verdicts paired (rows: ``weaker``,
    columns: ``stronger``); ``checked`` the deals where ``weaker`` is won and
    ``stronger`` settled; ``violations`` the deal ids won in ``weaker`` and
    lost in ``stronger`` (there should be none).
    """

    weaker: str
    stronger: str
    checked: int
    violations: list[int]
    table: pd.DataFrame


def containment(df: pd.DataFrame, weaker: str, stronger: str) -> Containment | None:
    """Check the law on every deal both games' solver rows share; None when they share none."""
    verdicts = []
    for game in (weaker, stronger):
        label = solver_label(df, game)
        if label is None:
            return None
        verdicts.append(df[(df.game == game) & (df.player == label)].set_index(["seed", "deal"])["result"])
    joined = pd.concat([verdicts[0].rename("weaker"), verdicts[1].rename("stronger")], axis=1, join="inner")
    if joined.empty:
        return None
    kinds = ["won", "lost", "unknown"]
    table = pd.crosstab(pd.Categorical(joined.weaker, kinds), pd.Categorical(joined.stronger, kinds), dropna=False)
    table.index, table.columns = [f"{weaker} {k}" for k in kinds], [f"{stronger} {k}" for k in kinds]
    table = table.reset_index(names="")
    won = joined[joined.weaker == "won"]
    bad = won[won.stronger == "lost"].index.get_level_values("deal")
    return Containment(weaker, stronger, int((won.stronger != "unknown").sum()), sorted(int(d) for d in bad), table)
