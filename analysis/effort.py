"""The solver's effort: its CPU a deal by run and verdict, and the share of deals a smaller budget would leave
unsettled, read off the rows (what the report's effort section and the README's effort table show)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .stats import solver_mask


def effort(df: pd.DataFrame) -> pd.DataFrame:
    """The solver's CPU seconds per deal, by game, solver label and verdict: deals, mean, median, p90, max.

    By label, because one game may be solved by two experiments in two modes
    (Fortress: the verdict, and the most-cards-home search); their deals and
    costs are not one population.
    """
    rows = df[solver_mask(df.player)]
    out = []
    for (game, player, result), g in rows.groupby(["game", "player", "result"], observed=True, sort=False):
        s = g.cpu_us.to_numpy() / 1e6
        out.append({"game": game, "player": player, "verdict": result, "deals": len(g), "cpu_s_mean": s.mean(),
                    "cpu_s_median": float(np.median(s)),
                    "cpu_s_p90": float(np.percentile(s, 90)), "cpu_s_max": float(s.max())})
    return pd.DataFrame(out)


def unknown_by_budget(df: pd.DataFrame, budgets=(1, 5, 10, 30, 60, 300)) -> pd.DataFrame:
    """Per game and solver label: the share of deals not settled within each budget (CPU seconds).

    Read off the rows: a deal counts as unsettled at budget ``b`` if it took
    more than ``b`` seconds or stayed unknown. Budgets above the CPU the
    cheapest unknown was given are left out (the rows cannot tell); a run
    with no unknown settles every deal within any budget above its slowest.
    Beside them, the run's own cap: its unknown share (``at the cap``) and
    its mean CPU per deal (``cpu_s_mean``), the two figures a published
    solver's effort is stated by.
    """
    out = []
    for (game, player), g in df[solver_mask(df.player)].groupby(["game", "player"], observed=True, sort=False):
        s = g.cpu_us.to_numpy() / 1e6
        unknown = g.result.eq("unknown").to_numpy()
        own = float(s[unknown].min()) if unknown.any() else np.inf
        row = {"game": game, "player": player, "deals": len(g)}
        for b in budgets:
            row[f"{b:g} s"] = float(((s > b) | unknown).mean()) if b <= own * 1.0001 else np.nan
        row["at the cap"] = float(unknown.mean())
        row["cpu_s_mean"] = float(s.mean())
        out.append(row)
    return pd.DataFrame(out)
