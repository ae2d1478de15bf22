"""Difficulty, deal by deal: each deal's difficulty index, its distribution per game, how it agrees with the ladder,
what judging cost, and a few deals as pictures."""

from __future__ import annotations

import pandas as pd
from markupsafe import Markup

from ... import difficulty as difficulty_analysis
from ... import difficulty_plots
from ...games import SELECTIVE, STREETS, STUDY, name
from ...stats import rows_of
from ..model import Report, Section
from ..page import pct


def difficulty(r: Report) -> Section | None:
    rows = difficulty_analysis.corridor_rows(r.df)
    if rows.empty:
        return None
    rows = difficulty_analysis.with_rungs(rows, r.df, r.cheap)
    games = [g for g in r.games if (rows.game == g).any()]
    seeded = rows[rows.seed >= 0]
    # the figures draw the seeded deals: a game only PySol's catalogue holds would be an empty panel
    games = [g for g in games if (seeded.game == g).any()] or games
    context: dict = {"games": [name(g) for g in games]}
    context["figure"] = r.out.figure(difficulty_plots.difficulty_index(seeded, games), "difficulty_index",
                                     "The difficulty index of every winnable deal, per game (dashed: the median)")
    v = difficulty_analysis.validity(seeded)
    if len(v):
        context["validity"] = r.out.table(pd.DataFrame({
            "game": [name(g) for g in v.game], "winnable deals": v.deals, "Spearman's ρ": [f"{x:+.3f}" for x in v.rho],
            "95% interval": [f"{a:+.3f} to {b:+.3f}" for a, b in zip(v.lo, v.hi)],
            "deals some rung wins": v.deals_rungs, "their ρ": ["n/a" if pd.isna(x) else f"{x:+.3f}" for x in v.rho_rungs],
            "their interval": ["n/a" if pd.isna(a) else f"{a:+.3f} to {b:+.3f}" for a, b in zip(v.lo_rungs, v.hi_rungs)]}),
            "difficulty_validity", raw=v, fold=False)
        context["by_rung"] = r.out.figure(difficulty_plots.difficulty_by_rung(seeded, games, r.names), "difficulty_by_rung",
                                          "The index of winnable deals by the weakest rung of the ladder that wins them "
                                          "(each game's rungs in its own order)")
    c = difficulty_analysis.cost(rows)
    context["cost"] = r.out.table(pd.DataFrame({
        "game": [name(g) for g in c.game], "deals": c.deals, "won": c.won,
        "CPU s a deal (median / mean)": [f"{a:.2f} / {b:.2f}" for a, b in zip(c.cpu_s_median, c.cpu_s_mean)],
        "won deals: median / mean": [f"{a:.2f} / {b:.2f}" for a, b in zip(c.won_cpu_s_median, c.won_cpu_s_mean)],
        "slowest (s)": [f"{x:.1f}" for x in c.cpu_s_max], "moves judged": c.questions, "by a search": c.searched,
        "left unknown": [f"{n:,} ({pct(s, 3)})" for n, s in zip(c.unknown_moves, c.unknown_share)]}), "difficulty_cost", raw=c, fold=False)
    if SELECTIVE in games and STREETS in games:
        context["pairs"] = r.out.figure(difficulty_plots.difficulty_pairs(seeded, SELECTIVE, STREETS), "difficulty_pairs",
                                        "The same deals (the same tableau) in Selective Castle and Streets and Alleys")
    context["pictures"] = _pictures(seeded, [g for g in games if g in STUDY])
    edges = difficulty_analysis.bands(seeded)
    context["bands"] = r.out.table(pd.DataFrame({"game": [name(g) for g in edges.game], "winnable deals": edges.deals,
                                                 "easy": [f"up to {x:.1f} bits" for x in edges.low],
                                                 "medium": [f"{a:.1f} to {b:.1f}" for a, b in zip(edges.low, edges.high)],
                                                 "hard": [f"above {x:.1f}" for x in edges.high]}), "difficulty_bands", raw=edges, fold=False)
    k = difficulty_analysis.catalogue(rows)
    k = k.merge(difficulty_analysis.bands(rows[rows.seed == difficulty_analysis.PYSOL_SEED])[["game", "high"]].rename(columns={"high": "hard_above"}), on="game", how="left")
    if len(k):
        context["catalogue"] = r.out.table(difficulty_analysis.catalogue_view(k), "difficulty_pysol",
                                           raw=k.assign(hardest=[" ".join(map(str, h)) for h in k.hardest]), fold=False)
        context["catalogue_game"] = STREETS if STREETS in set(k.game) else k.game.iloc[0]
    rows.to_csv(r.out.out / "tables" / "difficulty_deals.csv", index=False)
    context["csv"] = "tables/difficulty_deals.csv"
    used = rows_of(r.df, difficulty_analysis.CORRIDOR)
    return Section("Difficulty, deal by deal", "difficulty.html.j2", context, incomplete=r.incomplete(used))


def _pictures(rows: pd.DataFrame, games: list[str]) -> list[dict]:
    """The easiest and the hardest winnable deal of each game, and the hardest for the ladder that the index calls easy."""
    from sim.game import Game
    from sim.render.svg import board_svg

    out = []
    won = rows[rows.result == "won"]
    for game in games:
        g = won[won.game == game]
        if g.empty:
            continue
        picks = [("the easiest winnable deal", g.loc[g.difficulty.idxmin()]), ("the hardest winnable deal", g.loc[g.difficulty.idxmax()])]
        ladder_hard = g[g.rung_rank == g.rung_rank.max()] if g.rung_rank.notna().any() else g.iloc[:0]
        if len(ladder_hard):
            picks.append((f"no rung but the strongest ({ladder_hard.rung.iloc[0]}) wins it, the index calls it easy",
                          ladder_hard.loc[ladder_hard.difficulty.idxmin()]))
        for what, row in picks:
            state = Game(game).deal(int(row.deal), int(row.seed))
            svg = board_svg(state, title=f"{name(game)}, deal {int(row.deal)}: {row.difficulty:.1f} bits")
            out.append({"what": what, "game": name(game), "deal": int(row.deal), "bits": float(row.difficulty),
                        "decisions": int(row.decisions), "critical": int(row.critical), "svg": Markup(svg)})
    return out
