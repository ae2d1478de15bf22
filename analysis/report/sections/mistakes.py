"""Where players go wrong: the move and the kind of each rung's first mistake on the winnable deals it lost."""

from __future__ import annotations

import pandas as pd

from ... import mistakes as mistakes_analysis
from ... import difficulty_plots
from ...games import name
from ...stats import rows_of
from ..model import Report, Section


def mistakes(r: Report) -> Section | None:
    m = mistakes_analysis.first_mistakes(r.df)
    if m.empty:
        return None
    from sim.solver.mistakes import KINDS, RUNGS

    games = [g for g in r.games if (m.game == g).any()]
    rungs = [x for x in RUNGS if (m.rung == x).any()]
    s = mistakes_analysis.summary(m)
    shown = pd.DataFrame({
        "player": [r.name(x) for x in s.rung], "game": [name(g) for g in s.game], "winnable deals lost": s["winnable lost"],
        "first mistake: move (quartiles)": [f"{b:.0f} ({a:.0f}-{c:.0f})" for a, b, c in zip(s["move q1"], s["move"], s["move q3"])],
        "cards home then": [f"{b:.0f} ({a:.0f}-{c:.0f})" for a, b, c in zip(s["cards home q1"], s["cards home"], s["cards home q3"])],
        "commonest kind": [f"{k} ({100 * v:.0f}%)" if k else "" for k, v in zip(s["commonest kind"], s["its share"])]})
    shares = mistakes_analysis.kinds(m, list(KINDS))
    shares = shares.reindex([x for x in rungs if x in shares.index])
    used = rows_of(r.df, mistakes_analysis.MISTAKES)
    deals = m[["seed", "deal"]].drop_duplicates()
    return Section("Where players go wrong", "mistakes.html.j2", {
        "deals": len(deals), "span": f"{deals.deal.min():,}-{deals.deal.max():,}",
        "figure": r.out.figure(difficulty_plots.first_mistakes(m, games, rungs, r.names), "first_mistakes",
                               "The move of each rung's first mistake on the winnable deals it lost"),
        "kinds": r.out.figure(difficulty_plots.mistake_kinds(shares, r.names), "mistake_kinds", "What the first mistakes were"),
        "table": r.out.table(shown, "first_mistakes", left=2, raw=s, fold=False),
    }, incomplete=r.incomplete(used))
